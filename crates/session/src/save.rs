//! Saves: a playthrough written down so it can be picked up again, for a document of any kind
//! (decision H42). This crate owns the save's spelling.
//!
//! A save holds the document's name and fingerprint, the seed, and the **journal**: every move
//! the session took, each marked as the person's or the world's, a `choose` with the label of the
//! option taken. Moves are spelled as the host session's [`Move`] is (one spelling of a command).
//!
//! ```json
//! {
//!   "stagehand-save": 0,
//!   "script": "club-fair.dialogue.md",
//!   "fingerprint": "9f2c…",
//!   "seed": 7,
//!   "journal": [
//!     { "by": "player", "command": "start" },
//!     { "by": "world", "command": "supply", "answers": [["You.HasTicket", false]] },
//!     { "by": "player", "command": "choose", "position": 0, "label": "Join the art club." }
//!   ]
//! }
//! ```
//!
//! A ChatMapper project's save is the same but for its first two keys:
//! `"stagehand-chatmapper-save": 0` and `"project"`. Unknown properties are ignored (a save of
//! the earlier format, with a `state` and `option` for a choice, still reads); another version
//! is refused.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::host::Move;

/// The save format's version.
pub const SAVE_VERSION: u64 = 0;

/// What a save is of: the key that marks it and names its document differ by family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveKind {
    /// A DialogueDown script or playbook.
    Script,
    /// A ChatMapper project.
    Project,
}

impl SaveKind {
    /// The key that marks the save and holds its version.
    pub fn key(self) -> &'static str {
        match self {
            SaveKind::Script => "stagehand-save",
            SaveKind::Project => "stagehand-chatmapper-save",
        }
    }

    fn document_key(self) -> &'static str {
        match self {
            SaveKind::Script => "script",
            SaveKind::Project => "project",
        }
    }

    /// What it is, for people.
    pub fn words(self) -> &'static str {
        match self {
            SaveKind::Script => "a DialogueDown script",
            SaveKind::Project => "a ChatMapper project",
        }
    }
}

/// Who made a move: the person playing, or the world answering a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sender {
    /// The person: `start`, `next`, `choose`, and `done` when they skip a command the world failed.
    Player,
    /// The world: `done`, `failed`, `supply`.
    World,
}

impl Sender {
    /// The sender as the save spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Sender::Player => "player",
            Sender::World => "world",
        }
    }
}

/// One move of the journal: who made it, the move, and for a `choose` the option's label (plain
/// text), so a replay against an edited document notices when that position now holds another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Who made it.
    pub by: Sender,
    /// The move.
    #[serde(flatten)]
    pub step: Move,
    /// For a `choose`, the label of the option taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl fmt::Display for Entry {
    /// The move for people, the option's label, then its sender: `choose option 2 "Wait here"
    /// (player)`. Options are numbered from 1, as menus number them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.step {
            Move::Choose { position } => write!(f, "choose option {}", position.saturating_add(1))?,
            step => write!(f, "{}", MoveText(step))?,
        }
        if let Some(label) = &self.label {
            write!(f, " {label:?}")?;
        }
        write!(f, " ({})", self.by.as_str())
    }
}

/// A move in the fixture vocabulary, for people: `start`, `start at cellar`, `next`, `done`,
/// `failed: why`, `supply Alice.HasKey = true`, `choose 1` (positions count from 0).
#[derive(Debug, Clone, Copy)]
pub struct MoveText<'a>(pub &'a Move);

impl fmt::Display for MoveText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Move::Start { anchor: None } => f.write_str("start"),
            Move::Start { anchor: Some(anchor) } => write!(f, "start at {anchor}"),
            Move::Next => f.write_str("next"),
            Move::Done => f.write_str("done"),
            Move::Failed { explanation } => write!(f, "failed: {explanation}"),
            Move::Choose { position } => write!(f, "choose {position}"),
            Move::Supply { answers } => {
                f.write_str("supply")?;
                for (i, (key, answer)) in answers.iter().enumerate() {
                    let separator = if i == 0 { " " } else { ", " };
                    write!(f, "{separator}{key} = {}", ValueText(answer))?;
                }
                Ok(())
            }
            Move::Answer { answer } => match serde_json::to_string(answer) {
                Ok(json) => write!(f, "answer {json}"),
                Err(_) => f.write_str("answer"),
            },
            Move::Act { action } => write!(f, "act {action}"),
        }
    }
}

/// An answer as written in a supply: `true`, `"words"`, `2.5`, `3`.
#[derive(Debug, Clone, Copy)]
pub struct ValueText<'a>(pub &'a Value);

impl fmt::Display for ValueText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Value::String(text) => write!(f, "{text:?}"),
            // A whole number as Lua 5.1 writes it, without a fraction.
            Value::Number(n) => match n.as_f64() {
                Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => write!(f, "{}", x as i64),
                _ => write!(f, "{n}"),
            },
            other => write!(f, "{other}"),
        }
    }
}

/// A playthrough written down.
#[derive(Debug, Clone, PartialEq)]
pub struct Save {
    /// What the save is of.
    pub kind: SaveKind,
    /// The document's name (for people; the fingerprint decides).
    pub document: String,
    /// The document's fingerprint (lowercase hex).
    pub fingerprint: String,
    /// The seed random choices draw from.
    pub seed: u64,
    /// Every move the session took, the opening `start` first.
    pub journal: Vec<Entry>,
}

/// Why a save does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    /// Not JSON, or not the shape of a save.
    #[error("the save does not read: {0}")]
    Malformed(String),
    /// A save format this build does not read.
    #[error("the save is format version {0}; this build reads version {SAVE_VERSION}")]
    Version(u64),
    /// The fingerprint is not 64 hexadecimal digits.
    #[error("the save's fingerprint {0:?} is not 64 hexadecimal digits")]
    Fingerprint(String),
    /// A save of another kind of document.
    #[error("the save does not read: it is a save of {}, not of {}", .saved.words(), .playing.words())]
    OtherKind {
        /// What the save is of.
        saved: SaveKind,
        /// What is played.
        playing: SaveKind,
    },
}

#[derive(Deserialize)]
struct Body {
    #[serde(alias = "script", alias = "project")]
    document: String,
    fingerprint: String,
    seed: u64,
    journal: Vec<Entry>,
}

impl Save {
    /// The save as pretty JSON.
    pub fn to_json(&self) -> String {
        let mut map = Map::new();
        map.insert(self.kind.key().into(), SAVE_VERSION.into());
        map.insert(self.kind.document_key().into(), self.document.clone().into());
        map.insert("fingerprint".into(), self.fingerprint.clone().into());
        map.insert("seed".into(), self.seed.into());
        map.insert("journal".into(), serde_json::to_value(&self.journal).unwrap_or_default());
        serde_json::to_string_pretty(&Value::Object(map)).unwrap_or_default() + "\n"
    }

    /// Reads a save of `kind` from JSON; a save of the other kind is refused, naming both.
    pub fn from_json(json: &str, kind: SaveKind) -> Result<Save, SaveError> {
        let value: Value = serde_json::from_str(json).map_err(|e| SaveError::Malformed(e.to_string()))?;
        let Some(map) = value.as_object() else {
            return Err(SaveError::Malformed("it is not a JSON object".into()));
        };
        let Some(version) = map.get(kind.key()) else {
            for other in [SaveKind::Script, SaveKind::Project] {
                if map.contains_key(other.key()) {
                    return Err(SaveError::OtherKind { saved: other, playing: kind });
                }
            }
            return Err(SaveError::Malformed(format!("it has no {:?} version", kind.key())));
        };
        match version.as_u64() {
            Some(SAVE_VERSION) => {}
            other => return Err(SaveError::Version(other.unwrap_or(u64::MAX))),
        }
        let body: Body = serde_json::from_value(value).map_err(|e| SaveError::Malformed(e.to_string()))?;
        let hex = body.fingerprint.len() == 64 && body.fingerprint.bytes().all(|b| b.is_ascii_hexdigit());
        if !hex {
            return Err(SaveError::Fingerprint(body.fingerprint));
        }
        Ok(Save {
            kind,
            document: body.document,
            fingerprint: body.fingerprint.to_ascii_lowercase(),
            seed: body.seed,
            journal: body.journal,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn save() -> Save {
        Save {
            kind: SaveKind::Script,
            document: "club.dialogue.md".into(),
            fingerprint: "ab".repeat(32),
            seed: 7,
            journal: vec![
                Entry { by: Sender::Player, step: Move::Start { anchor: None }, label: None },
                Entry {
                    by: Sender::World,
                    step: Move::Supply { answers: vec![("You.HasTicket".into(), Value::Bool(false))] },
                    label: None,
                },
                Entry { by: Sender::Player, step: Move::Choose { position: 0 }, label: Some("Join.".into()) },
            ],
        }
    }

    #[test]
    fn a_save_reads_back_as_it_was_written() {
        let json = save().to_json();
        assert!(json.starts_with("{\n  \"stagehand-save\": 0,\n  \"script\": \"club.dialogue.md\""), "{json}");
        assert!(json.contains("\"by\": \"player\",\n      \"command\": \"choose\",\n      \"position\": 0"), "{json}");
        assert_eq!(Save::from_json(&json, SaveKind::Script), Ok(save()));
    }

    #[test]
    fn a_save_of_the_earlier_format_still_reads() {
        let old = r#"{"stagehand-save": 0, "script": "club.dialogue.md", "fingerprint": "ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB",
            "seed": 7, "state": {"situation": "at-end", "entropy": 3}, "journal": [
            {"by": "player", "command": "start"},
            {"by": "world", "command": "supply", "answers": [{"key": "You.HasTicket", "answer": false}]},
            {"by": "player", "command": "choose", "option": 0, "label": "Join."}]}"#;
        assert_eq!(Save::from_json(old, SaveKind::Script), Ok(save()));
    }

    #[test]
    fn other_kinds_versions_and_broken_saves_are_refused() {
        let json = save().to_json();
        assert_eq!(
            Save::from_json(&json, SaveKind::Project).map_err(|e| e.to_string()),
            Err("the save does not read: it is a save of a DialogueDown script, not of a ChatMapper project".into())
        );
        let later = json.replace("\"stagehand-save\": 0", "\"stagehand-save\": 9");
        assert_eq!(Save::from_json(&later, SaveKind::Script), Err(SaveError::Version(9)));
        let broken = json.replace(&"ab".repeat(32), "nope");
        assert!(matches!(Save::from_json(&broken, SaveKind::Script), Err(SaveError::Fingerprint(_))));
        for bad in ["", "[]", "{}", "{\"stagehand-save\": 0}"] {
            assert!(matches!(Save::from_json(bad, SaveKind::Script), Err(SaveError::Malformed(_))), "{bad}");
        }
    }

    #[test]
    fn entries_read_for_people() {
        let journal = save().journal;
        assert_eq!(journal[1].to_string(), "supply You.HasTicket = false (world)");
        assert_eq!(journal[2].to_string(), "choose option 1 \"Join.\" (player)");
    }
}
