//! `why`: where a run stands and why each way out is or is not open, in words.

use std::fmt::Write;

use stagehand_playbook::EdgeKind;
use stagehand_runner::{describe, Description, PlayContext};

use crate::session::Session;

/// Describes where the session's run stands, reading its guards against the last answers the
/// world gave.
pub fn why(session: &Session) -> Description {
    let context = PlayContext::new(session.playbook());
    describe(&context, session.state(), session.last_answers())
}

/// [`why`] in words, a line each: where the run is, what it waits for, and every way out with
/// its condition and what the last answers made of it.
pub fn explain(description: &Description) -> String {
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
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
