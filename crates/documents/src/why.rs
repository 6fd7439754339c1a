//! `why`: where a session stands and why each way out is or is not open, in words, for a
//! document of any kind (the terminal player's `:why`). Read off the session's snapshot, so it
//! costs a snapshot and is for a person's command, never for every turn.

use std::fmt::Write;

use serde_json::Value;
use stagehand_chatmapper::ChatMapperEngine;
use stagehand_playbook::{EdgeKind, Playbook};
use stagehand_runner::{describe, Command, Description, PlayContext, RunnerSnapshot};
use stagehand_session::host::{AnySession, Move, Pending};

/// A DialogueDown run explained: the runner's description of where it stands, its guards read
/// against the last answers supplied.
pub(crate) fn playbook(playbook: &Playbook, snapshot: &Value) -> Option<String> {
    let engine: RunnerSnapshot = serde_json::from_value(snapshot.get("engine")?.clone()).ok()?;
    let state = engine.to_state(playbook.nodes.len()).ok()?;
    let journal: Vec<Move> = serde_json::from_value(snapshot.get("journal")?.clone()).ok()?;
    let last = journal.iter().rev().find(|m| matches!(m, Move::Supply { .. }));
    let context = PlayContext::new(playbook);
    let description = match last.map(Move::command) {
        Some(Command::Supply(answers)) => describe(&context, &state, Some(&answers)),
        _ => describe(&context, &state, None),
    };
    Some(explain(&description))
}

/// A ChatMapper run explained: the conversation and entry, the options open and the ones their
/// conditions closed.
pub(crate) fn project(mut engine: ChatMapperEngine, session: &dyn AnySession, snapshot: &Value) -> Option<String> {
    let restored = serde_json::from_value(snapshot.get("engine")?.clone()).ok()?;
    engine.restore(&restored).ok()?;
    let state = snapshot.get("engine")?.get("state")?;
    let project = engine.project();
    let index = |v: &Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
    let conversation = state.get("conversation").and_then(index).and_then(|c| project.conversations.get(c));
    let situation = state.get("situation")?;
    let node = |name: &str| situation.get(name)?.get("node").and_then(index);
    let current = node("Speaking").or_else(|| node("Asking")).and_then(|n| entry_name(&engine, n));
    let offered: Vec<usize> = situation
        .get("Choosing")
        .and_then(|c| c.get("options"))
        .and_then(Value::as_array)
        .map(|options| options.iter().filter_map(|o| o.get("node").and_then(index)).collect())
        .unwrap_or_default();
    let place = conversation
        .map(|c| format!("conversation {} ({:?})", c.id, c.title()))
        .unwrap_or_else(|| format!("the project {:?}", project.title));
    let mut out = String::new();
    match session.pending() {
        Pending::Start => out.push_str("No conversation has started.\n"),
        Pending::Line => {
            let entry = current.unwrap_or_else(|| place.clone());
            out.push_str(&format!("At {entry}: a line is being said; Enter moves on.\n"));
        }
        Pending::Menu { options } => {
            let count = match options.len() {
                1 => "one option".to_owned(),
                n => format!("{n} options"),
            };
            out.push_str(&format!("In {place}: a menu of {count}.\n"));
            out.push_str("The engine offers only the entries whose conditions hold now; these are open:\n");
            for (i, option) in options.iter().enumerate() {
                let label = option.label.trim();
                match offered.get(i).and_then(|&n| entry_name(&engine, n)) {
                    Some(target) => out.push_str(&format!("  {}. {label:?} -> {target}\n", i + 1)),
                    None => out.push_str(&format!("  {}. {label:?}\n", i + 1)),
                }
            }
            out.push_str(&closed(&engine));
        }
        Pending::Ended => {
            out.push_str(&format!("{} has ended: nothing more is offered.\n", capitalized(&place)));
            out.push_str(&closed(&engine));
        }
        Pending::Stuck { .. }
        | Pending::Stopped
        | Pending::Resolve { .. }
        | Pending::Perform { .. }
        | Pending::Call { .. } => {
            let waiting = match session.pending() {
                Pending::Resolve { asked } => {
                    let names: Vec<&str> = asked.iter().map(|a| a.key.as_str()).collect();
                    format!("an input prompt waits for {}", names.join(", "))
                }
                _ => "the conversation was stopped as a possible loop".to_owned(),
            };
            let entry = current.unwrap_or(place);
            out.push_str(&format!("At {entry}: the run cannot go on ({waiting}); :undo or :restart.\n"));
        }
    }
    Some(out)
}

/// An entry named for people, `entry 3 ("Accept the token") of conversation 1 ("The Crossing")`,
/// by its node index (the engine numbers entries in document order).
fn entry_name(engine: &ChatMapperEngine, node: usize) -> Option<String> {
    let mut rest = node;
    for conversation in &engine.project().conversations {
        match conversation.entries.get(rest) {
            Some(entry) => {
                return Some(format!(
                    "entry {} ({:?}) of conversation {} ({:?})",
                    entry.id,
                    entry.title(),
                    conversation.id,
                    conversation.title()
                ))
            }
            None => rest -= conversation.entries.len(),
        }
    }
    None
}

/// The candidates the last offered set left out because their conditions were false, one a line
/// with the label a menu would show for it (or its Title, for a line) and its condition; nothing
/// when none were.
fn closed(engine: &ChatMapperEngine) -> String {
    let closed = engine.closed();
    if closed.is_empty() {
        return String::new();
    }
    let project = engine.project();
    let mut out = String::from("Closed by their conditions (false now):\n");
    for place in closed {
        let Some(entry) = project.entry(place.conversation, place.entry) else { continue };
        // What the menu would have shown (its label rendered), else the entry's Title.
        let label = engine.label(place.conversation, place.entry).filter(|l| !l.trim().is_empty());
        let shown = label.as_deref().unwrap_or_else(|| entry.title());
        let title = project.conversation(place.conversation).map_or("", |c| c.title());
        out.push_str(&format!(
            "  - {:?}: entry {} of conversation {} ({title:?}), condition {}\n",
            shown.trim(),
            place.entry,
            place.conversation,
            entry.conditions.trim()
        ));
    }
    out
}

/// A runner's description in words, a line each: where the run is, what it waits for, and every way out with
/// its condition and what the last answers made of it.
pub(crate) fn explain(description: &Description) -> String {
    let mut out = String::new();
    match (description.node, description.kind) {
        (Some(node), Some(kind)) => {
            let _ = writeln!(out, "At node {node}, a {kind}: {}.", description.waiting);
        }
        _ => {
            let _ = writeln!(out, "{}.", capitalized(description.waiting));
        }
    }
    if let Some(text) = &description.text {
        match &description.speaker {
            Some(speaker) => {
                let _ = writeln!(out, "  {speaker}: {text}");
            }
            None => {
                let _ = writeln!(out, "  {text}");
            }
        }
    }
    if let Some((key, holds)) = &description.condition {
        let _ = writeln!(out, "  It plays only if {key}: {}.", verdict(*holds));
    }
    if description.ways_out.is_empty() {
        if description.node.is_some() {
            out.push_str("  It has no way out.\n");
        }
        return out;
    }
    out.push_str("Ways out:\n");
    let mut option = 0;
    for way in &description.ways_out {
        let name = match way.kind {
            EdgeKind::Option => {
                option += 1;
                format!("option {option}")
            }
            kind => kind.as_str().to_owned(),
        };
        let _ = write!(out, "  {name}");
        if let Some(label) = &way.label {
            let _ = write!(out, " {label:?}");
        }
        let _ = write!(out, " -> node {}", way.target);
        if let Some(chance) = way.chance {
            let _ = write!(out, ", {chance:.1}% of the draw");
        }
        match &way.condition {
            Some(key) => {
                let _ = writeln!(out, "; needs {key}: {}", verdict(way.holds));
            }
            None => out.push_str("; unguarded\n"),
        }
    }
    out
}

fn verdict(holds: Option<bool>) -> &'static str {
    match holds {
        Some(true) => "the world said true, so it is open",
        Some(false) => "the world said false, so it is closed",
        None => "not asked yet",
    }
}

/// `text` with its first character in upper case (`"the run" -> "The run"`).
pub(crate) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
