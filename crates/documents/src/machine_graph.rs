//! An agent machine drawn as Graphviz DOT or Mermaid (what `stagehand graph MACHINE` prints):
//! each state a node (its id, and what its invoke calls), each written transition an edge
//! labelled with its guard or Boss event, and the edges the conventions imply (the question
//! park, the error path, resumption, parallel regions, root jumps) dashed.

use std::fmt::Write;

use stagehand_agents::machine::{EdgeKind, Invoke, Machine, State};

use crate::graph::Format;

/// Renders a machine's graph.
pub fn render_machine(machine: &Machine, format: Format) -> String {
    let states: Vec<(String, String, Shape)> =
        machine.states.iter().enumerate().map(|(i, s)| (format!("s{i}"), label(s), shape(machine, s))).collect();
    let id = |name: &str| {
        machine
            .states
            .iter()
            .position(|s| s.id == name)
            .map(|i| states[i].0.clone())
            .unwrap_or_else(|| "missing".into())
    };
    let mut edges: Vec<(String, String, String, bool)> = Vec::new();
    for s in &machine.states {
        for t in &s.on {
            let mut words = t.guard.clone().or_else(|| t.event.clone()).unwrap_or_default();
            if !t.when.is_empty() {
                words.push_str(" [when]");
            }
            edges.push((id(&s.id), id(&t.target), words, false));
        }
    }
    for (from, to, kind) in machine.implied_edges() {
        let words = match kind {
            EdgeKind::Transition => continue,
            EdgeKind::NeedsBossReply => "needsBossReply",
            EdgeKind::Error => "error",
            EdgeKind::Resume => "BOSS_REPLY",
            EdgeKind::Region => "region",
            EdgeKind::Join => "join",
            EdgeKind::Interrupt => "BOSS_INTERRUPT",
        };
        edges.push((id(&from), id(&to), words.to_owned(), true));
    }
    let mut out = String::new();
    match format {
        Format::Dot => {
            let _ = writeln!(out, "digraph {:?} {{", machine.id);
            let _ = writeln!(out, "  rankdir=LR;");
            for (node, label, shape) in &states {
                let shape = match shape {
                    Shape::Rest => "box, style=rounded",
                    Shape::Work => "box",
                    Shape::Final => "doublecircle",
                };
                let _ = writeln!(out, "  {node} [label={}, shape={shape}];", quote(label));
            }
            for (from, to, words, dashed) in &edges {
                let style = if *dashed { ", style=dashed" } else { "" };
                let _ = writeln!(out, "  {from} -> {to} [label={}{style}];", quote(words));
            }
            out.push_str("}\n");
        }
        Format::Mermaid => {
            out.push_str("flowchart LR\n");
            for (node, label, shape) in &states {
                let label = label.replace('"', "#quot;").replace('\n', "<br/>");
                let _ = match shape {
                    Shape::Rest => writeln!(out, "  {node}(\"{label}\")"),
                    Shape::Work => writeln!(out, "  {node}[\"{label}\"]"),
                    Shape::Final => writeln!(out, "  {node}(((\"{label}\")))"),
                };
            }
            for (from, to, words, dashed) in &edges {
                let words = words.replace('"', "#quot;").replace('|', "#124;");
                let arrow = if *dashed { "-.->" } else { "-->" };
                let _ = writeln!(out, "  {from} {arrow}|\"{words}\"| {to}");
            }
        }
    }
    out
}

#[derive(Debug, Clone, Copy)]
enum Shape {
    Rest,
    Work,
    Final,
}

fn shape(_machine: &Machine, state: &State) -> Shape {
    if state.is_final {
        Shape::Final
    } else if state.invoke.is_some() || !state.parallel.is_empty() {
        Shape::Work
    } else {
        Shape::Rest
    }
}

fn label(state: &State) -> String {
    let calls = match &state.invoke {
        Some(Invoke::Player { player, .. }) => format!("\nplayer {player}"),
        Some(Invoke::Captain { .. }) => "\nCaptain".to_owned(),
        Some(Invoke::Playbook { .. }) => "\nnested playbook".to_owned(),
        Some(Invoke::Script { command, .. }) => format!("\n$ {}", shorten(command)),
        None if !state.parallel.is_empty() => format!("\nparallel: {}", state.parallel.join(", ")),
        None => String::new(),
    };
    format!("{}{calls}", state.id)
}

fn shorten(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > 30 {
        format!("{}…", text.chars().take(29).collect::<String>())
    } else {
        text
    }
}

/// A DOT string literal.
fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n"))
}
