//! A playbook drawn as Graphviz DOT or Mermaid (what `stagehand graph` prints). Scenes (anchors) are
//! clusters, node kinds are shapes, conditions and labels are on the edges.

use std::fmt::Write;

use stagehand_playbook::{plain_text, Edge, Node, Playbook, Weight};
use stagehand_protocol::effect_text as command_text;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Graphviz DOT.
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
}

/// The name both drawings give the playbook's node `index` (`n12`): what a host marks to show
/// where a session stands.
pub fn node_id(index: usize) -> String {
    format!("n{index}")
}

/// Renders a playbook's graph.
pub fn render(playbook: &Playbook, format: Format) -> String {
    match format {
        Format::Dot => dot(playbook),
        Format::Mermaid => mermaid(playbook),
    }
}

/// Each scene: its slug and the nodes from its anchor up to the next scene's.
fn scenes(playbook: &Playbook) -> (Vec<(String, Vec<usize>)>, Vec<usize>) {
    let mut starts: Vec<(usize, &str)> = playbook.anchors.iter().map(|(slug, node)| (*node, slug.as_str())).collect();
    starts.sort();
    let mut scenes: Vec<(String, Vec<usize>)> =
        starts.iter().map(|(_, slug)| ((*slug).to_owned(), Vec::new())).collect();
    let mut loose = Vec::new();
    for index in 0..playbook.nodes.len() {
        match starts.iter().rposition(|(start, _)| *start <= index) {
            Some(scene) => scenes[scene].1.push(index),
            None => loose.push(index),
        }
    }
    (scenes, loose)
}

fn shorten(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(39).collect();
        format!("{cut}…")
    } else {
        text
    }
}

fn node_label(playbook: &Playbook, index: usize, node: &Node) -> String {
    let body = match node {
        Node::Line { speaker, speech, condition, .. } => {
            let words = shorten(&plain_text(speech));
            let said = match playbook.speaker(stagehand_playbook::position(*speaker)).and_then(|s| s.name.as_deref()) {
                Some(name) => format!("{name}: {words}"),
                None => words,
            };
            let commands: Vec<String> = speech
                .iter()
                .filter(|f| {
                    matches!(
                        f,
                        stagehand_playbook::Fragment::DefaultCommand { .. }
                            | stagehand_playbook::Fragment::CustomCommand { .. }
                    )
                })
                .map(command_text)
                .collect();
            let mut label = match condition {
                Some(c) => format!("[if {}] {said}", c.key_name()),
                None => said,
            };
            if !commands.is_empty() {
                label.push_str(&format!("\n{}", commands.join(" ")));
            }
            label
        }
        Node::Control { effects, condition, .. } => {
            let mut commands: Vec<String> = effects.iter().map(command_text).collect();
            if commands.is_empty() {
                commands.push("(jump)".into());
            }
            match condition {
                Some(c) => format!("[if {}] {}", c.key_name(), commands.join(" ")),
                None => commands.join(" "),
            }
        }
        Node::Choice { .. } => "choice".into(),
        Node::RandomChoice { .. } => "random choice".into(),
        Node::Branch { .. } => "branch".into(),
        Node::End => "end".into(),
    };
    format!("{index}: {body}")
}

fn edge_label(edge: &Edge) -> String {
    let condition = edge.condition().map(|c| c.key_name().to_owned());
    let mut parts = Vec::new();
    match edge {
        Edge::Succession { .. } => {}
        Edge::Option { label, .. } | Edge::Divert { label, .. } => parts.push(shorten(&plain_text(label))),
        Edge::RandomOption { weight, .. } => parts.push(match weight {
            Weight::Auto => "auto".to_owned(),
            Weight::Number { percentage } => format!("{percentage}%"),
            Weight::Query { key } => format!("{key}%"),
        }),
        Edge::Branch { condition: None, .. } => parts.push("else".into()),
        Edge::Branch { .. } => {}
    }
    if let Some(key) = condition {
        parts.push(format!("if {key}"));
    }
    parts.join(" ")
}

fn dot_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

fn dot_shape(node: &Node) -> &'static str {
    match node {
        Node::Line { .. } => "box",
        Node::Choice { .. } => "diamond",
        Node::RandomChoice { .. } => "hexagon",
        Node::Branch { .. } => "trapezium",
        Node::Control { .. } => "parallelogram",
        Node::End => "doublecircle",
    }
}

fn dot(playbook: &Playbook) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&playbook.script));
    out.push_str("  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
    let node_line = |index: usize| {
        let node = &playbook.nodes[index];
        let id = node_id(index);
        format!("{id} [shape={}, label=\"{}\"];", dot_shape(node), dot_escape(&node_label(playbook, index, node)))
    };
    let (scenes, loose) = scenes(playbook);
    for index in &loose {
        let _ = writeln!(out, "  {}", node_line(*index));
    }
    for (number, (slug, nodes)) in scenes.iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_{number} {{\n    label=\"#{}\";", dot_escape(slug));
        for index in nodes {
            let _ = writeln!(out, "    {}", node_line(*index));
        }
        out.push_str("  }\n");
    }
    let entry = playbook.entry;
    let _ = writeln!(out, "  start [shape=point];\n  start -> n{entry};");
    for (index, node) in playbook.nodes.iter().enumerate() {
        for edge in node.out() {
            let label = edge_label(edge);
            let style = if edge.is_succession() { " [style=dashed]".to_owned() } else { String::new() };
            if label.is_empty() {
                let _ = writeln!(out, "  n{index} -> n{}{style};", edge.target());
            } else {
                let _ = writeln!(out, "  n{index} -> n{} [label=\"{}\"];", edge.target(), dot_escape(&label));
            }
        }
    }
    out.push_str("}\n");
    out
}

fn mermaid_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '|' => out.push_str("#124;"),
            '\n' => out.push_str("<br/>"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

fn mermaid_node(playbook: &Playbook, index: usize) -> String {
    let node = &playbook.nodes[index];
    let label = mermaid_escape(&node_label(playbook, index, node));
    match node {
        Node::Line { .. } => format!("n{index}[\"{label}\"]"),
        Node::Choice { .. } => format!("n{index}{{\"{label}\"}}"),
        Node::RandomChoice { .. } => format!("n{index}{{{{\"{label}\"}}}}"),
        Node::Branch { .. } => format!("n{index}[/\"{label}\"\\]"),
        Node::Control { .. } => format!("n{index}[/\"{label}\"/]"),
        Node::End => format!("n{index}((\"{label}\"))"),
    }
}

fn mermaid(playbook: &Playbook) -> String {
    let mut out = String::from("flowchart TD\n");
    let (scenes, loose) = scenes(playbook);
    for index in &loose {
        let _ = writeln!(out, "  {}", mermaid_node(playbook, *index));
    }
    for (number, (slug, nodes)) in scenes.iter().enumerate() {
        let _ = writeln!(out, "  subgraph scene{number}[\"{}\"]", mermaid_escape(&format!("#{slug}")));
        for index in nodes {
            let _ = writeln!(out, "    {}", mermaid_node(playbook, *index));
        }
        out.push_str("  end\n");
    }
    for (index, node) in playbook.nodes.iter().enumerate() {
        for edge in node.out() {
            let label = edge_label(edge);
            let arrow = if edge.is_succession() { "-.->" } else { "-->" };
            if label.is_empty() {
                let _ = writeln!(out, "  n{index} {arrow} n{}", edge.target());
            } else {
                let _ = writeln!(out, "  n{index} {arrow}|\"{}\"| n{}", mermaid_escape(&label), edge.target());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagehand_playbook::{smallvec, Condition, Fragment, Speaker};

    #[test]
    fn every_node_is_drawn_under_its_node_id() {
        let playbook = tricky();
        let dot = render(&playbook, Format::Dot);
        let mermaid = render(&playbook, Format::Mermaid);
        for index in 0..playbook.nodes.len() {
            let id = node_id(index);
            assert!(dot.lines().any(|l| l.trim_start().starts_with(&format!("{id} [shape="))), "{id} in {dot}");
            assert!(
                mermaid.lines().any(|l| l.trim_start().starts_with(&format!("{id}["))
                    || l.trim_start().starts_with(&format!("{id}{{"))
                    || l.trim_start().starts_with(&format!("{id}(("))),
                "{id} in {mermaid}"
            );
        }
    }

    fn tricky() -> Playbook {
        let mut playbook = Playbook::new("q\"uote.dialogue.md");
        playbook.speakers.push(Speaker::named("Al \"the\" <Great>"));
        playbook.anchors.insert("start".into(), 0);
        playbook.nodes.push(Node::Choice {
            ordered: true,
            out: smallvec![Edge::Option {
                target: 1,
                label: vec![Fragment::text("Say \"hi\" | wave #1")].into(),
                condition: Some(Condition::key("A.B")),
            }],
        });
        playbook.nodes.push(Node::Line {
            speaker: 0,
            speech: vec![Fragment::text("back\\slash")].into(),
            condition: None,
            out: smallvec![Edge::Succession { target: 2 }],
        });
        playbook.nodes.push(Node::End);
        playbook
    }

    #[test]
    fn dot_escapes_quotes_and_backslashes() {
        let dot = render(&tricky(), Format::Dot);
        assert!(dot.contains(r#"digraph "q\"uote.dialogue.md""#), "{dot}");
        assert!(dot.contains(r#"label="Say \"hi\" | wave #1 if A.B""#), "{dot}");
        assert!(dot.contains(r#"Al \"the\" <Great>: back\\slash"#), "{dot}");
        assert!(dot.contains("subgraph cluster_0") && dot.contains("shape=diamond"), "{dot}");
    }

    #[test]
    fn mermaid_escapes_with_entities() {
        let mermaid = render(&tricky(), Format::Mermaid);
        assert!(mermaid.contains("|\"Say #quot;hi#quot; #124; wave #35;1 if A.B\"|"), "{mermaid}");
        assert!(mermaid.contains("Al #quot;the#quot; #lt;Great#gt;"), "{mermaid}");
        assert!(!mermaid.contains("\"the\""), "{mermaid}");
    }
}
