//! Saves: a run written down so it can be picked up again. This crate owns the save's spelling;
//! [`Save`] is converted explicitly to and from private wire types.

use serde::{Deserialize, Serialize};
use stagehand_playbook::Fingerprint;
use stagehand_runner::{Answer, Answers, Availability, Command, Entropy, Moment, PlayState, Resume, Situation};

use crate::journal::{Entry, Sender};

/// The save format's version, written as `"stagehand-save"`.
pub const SAVE_VERSION: u64 = 0;

/// A run written down: which playbook, the seed, where the run stands, and the journal.
///
/// ```json
/// {
///   "stagehand-save": 0,
///   "script": "club.dialogue.md",
///   "fingerprint": "9f2c…",
///   "seed": 7,
///   "state": { "situation": "awaiting-choice", "node": 4, "available": [5], "entropy": 11400714819323198549 },
///   "journal": [
///     { "by": "player", "command": "start" },
///     { "by": "world", "command": "supply", "answers": [{ "key": "Alice.InClub", "answer": false }] },
///     { "by": "player", "command": "choose", "option": 1, "label": "Join the art club." }
///   ]
/// }
/// ```
///
/// Situations are spelled `not-started`, `at-node`, `awaiting-done` (with `resume`: a segment
/// number, or `"node-end"`), `awaiting-supply` (with `moment`: a segment number to play from, or
/// `"to-leave"`; both waits carry `passed`, the nodes walked since the person last had the turn,
/// when it is not 0), `awaiting-choice` (with `available`: the bit words of the options available,
/// absent when all were) and `at-end`. Commands are spelled as the fixture vocabulary spells
/// them; an answer is the bare JSON value it is.
///
/// Unknown properties are ignored, so a later build may add some; a different
/// `stagehand-save` version is refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Save {
    /// The script the playbook was compiled from (for people; the fingerprint decides).
    pub script: String,
    /// The playbook's fingerprint.
    pub fingerprint: Fingerprint,
    /// The seed random choices draw from.
    pub seed: u64,
    /// Where the run stands.
    pub state: PlayState,
    /// Every command the run accepted.
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
}

impl Save {
    /// The save as pretty JSON.
    pub fn to_json(&self) -> String {
        let wire = SaveWire {
            version: SAVE_VERSION,
            script: self.script.clone(),
            fingerprint: self.fingerprint.to_hex(),
            seed: self.seed,
            state: StateWire::from(&self.state),
            journal: self.journal.iter().map(EntryWire::from).collect(),
        };
        serde_json::to_string_pretty(&wire).unwrap_or_default() + "\n"
    }

    /// Reads a save from JSON.
    pub fn from_json(json: &str) -> Result<Save, SaveError> {
        let version: VersionWire = serde_json::from_str(json).map_err(|e| SaveError::Malformed(e.to_string()))?;
        if version.version != SAVE_VERSION {
            return Err(SaveError::Version(version.version));
        }
        let wire: SaveWire = serde_json::from_str(json).map_err(|e| SaveError::Malformed(e.to_string()))?;
        let fingerprint =
            Fingerprint::from_hex(&wire.fingerprint).ok_or_else(|| SaveError::Fingerprint(wire.fingerprint.clone()))?;
        Ok(Save {
            script: wire.script,
            fingerprint,
            seed: wire.seed,
            state: wire.state.into(),
            journal: wire.journal.into_iter().map(Entry::from).collect(),
        })
    }
}

#[derive(Deserialize)]
struct VersionWire {
    #[serde(rename = "stagehand-save")]
    version: u64,
}

#[derive(Serialize, Deserialize)]
struct SaveWire {
    #[serde(rename = "stagehand-save")]
    version: u64,
    script: String,
    fingerprint: String,
    seed: u64,
    state: StateWire,
    journal: Vec<EntryWire>,
}

#[derive(Serialize, Deserialize)]
struct StateWire {
    #[serde(flatten)]
    situation: SituationWire,
    entropy: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "situation", rename_all = "kebab-case")]
enum SituationWire {
    NotStarted,
    AtNode {
        node: usize,
    },
    AwaitingDone {
        node: usize,
        resume: Position,
        #[serde(default, skip_serializing_if = "is_zero")]
        passed: usize,
    },
    AwaitingSupply {
        node: usize,
        moment: Position,
        #[serde(default, skip_serializing_if = "is_zero")]
        passed: usize,
    },
    AwaitingChoice {
        node: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        available: Option<Vec<u64>>,
    },
    AtEnd,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// A segment number, or a named place (`node-end`, `to-leave`).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Position {
    Segment(usize),
    Named(String),
}

impl From<&PlayState> for StateWire {
    fn from(state: &PlayState) -> Self {
        let situation = match &state.situation {
            Situation::NotStarted => SituationWire::NotStarted,
            Situation::AtNode(node) => SituationWire::AtNode { node: *node },
            Situation::AwaitingDone { node, resume, passed } => SituationWire::AwaitingDone {
                node: *node,
                passed: *passed,
                resume: match resume {
                    Resume::From(segment) => Position::Segment(*segment),
                    Resume::FromNodeEnd => Position::Named("node-end".into()),
                },
            },
            Situation::AwaitingSupply { node, moment, passed } => SituationWire::AwaitingSupply {
                node: *node,
                passed: *passed,
                moment: match moment {
                    Moment::ToPlay(segment) => Position::Segment(*segment),
                    Moment::ToLeave => Position::Named("to-leave".into()),
                },
            },
            Situation::AwaitingChoice { node, available } => SituationWire::AwaitingChoice {
                node: *node,
                available: match available {
                    Availability::All => None,
                    Availability::Only(words) => Some(words.to_vec()),
                },
            },
            Situation::AtEnd => SituationWire::AtEnd,
        };
        StateWire { situation, entropy: state.entropy.state }
    }
}

impl From<StateWire> for PlayState {
    fn from(wire: StateWire) -> Self {
        let situation = match wire.situation {
            SituationWire::NotStarted => Situation::NotStarted,
            SituationWire::AtNode { node } => Situation::AtNode(node),
            SituationWire::AwaitingDone { node, resume, passed } => Situation::AwaitingDone {
                node,
                passed,
                resume: match resume {
                    Position::Segment(segment) => Resume::From(segment),
                    Position::Named(_) => Resume::FromNodeEnd,
                },
            },
            SituationWire::AwaitingSupply { node, moment, passed } => Situation::AwaitingSupply {
                node,
                passed,
                moment: match moment {
                    Position::Segment(segment) => Moment::ToPlay(segment),
                    Position::Named(_) => Moment::ToLeave,
                },
            },
            SituationWire::AwaitingChoice { node, available } => Situation::AwaitingChoice {
                node,
                available: match available {
                    None => Availability::All,
                    Some(words) => Availability::Only(words.into_boxed_slice()),
                },
            },
            SituationWire::AtEnd => Situation::AtEnd,
        };
        PlayState { situation, entropy: Entropy { state: wire.entropy } }
    }
}

/// One journal entry as a save spells it (`{"by": "player", "command": "choose", "option": 0,
/// "label": …}`): public so that other engines' saves write their journals the same way.
#[derive(Serialize, Deserialize)]
pub struct EntryWire {
    by: SenderWire,
    #[serde(flatten)]
    command: CommandWire,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
enum SenderWire {
    Player,
    World,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
enum CommandWire {
    Start {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        anchor: Option<String>,
    },
    Next,
    Done,
    Failed {
        explanation: String,
    },
    Supply {
        answers: Vec<AnswerWire>,
    },
    Choose {
        option: i64,
    },
}

#[derive(Serialize, Deserialize)]
struct AnswerWire {
    key: String,
    answer: AnswerValue,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum AnswerValue {
    Truth(bool),
    Number(f64),
    Text(String),
}

impl From<&Entry> for EntryWire {
    fn from(entry: &Entry) -> Self {
        let by = match entry.by {
            Sender::Player => SenderWire::Player,
            Sender::World => SenderWire::World,
        };
        let command = match &entry.command {
            Command::Start { anchor } => CommandWire::Start { anchor: anchor.as_ref().map(|a| a.to_string()) },
            Command::Next => CommandWire::Next,
            Command::Done => CommandWire::Done,
            Command::Failed { explanation } => CommandWire::Failed { explanation: explanation.to_string() },
            Command::Choose(option) => CommandWire::Choose { option: *option },
            Command::Supply(answers) => CommandWire::Supply {
                answers: answers
                    .iter()
                    .map(|(key, answer)| AnswerWire {
                        key: key.to_owned(),
                        answer: match answer {
                            Answer::Truth(b) => AnswerValue::Truth(*b),
                            Answer::Text(text) => AnswerValue::Text(text.to_string()),
                            Answer::Number(n) => AnswerValue::Number(*n),
                        },
                    })
                    .collect(),
            },
        };
        EntryWire { by, command, label: entry.label.clone() }
    }
}

impl From<EntryWire> for Entry {
    fn from(wire: EntryWire) -> Self {
        let by = match wire.by {
            SenderWire::Player => Sender::Player,
            SenderWire::World => Sender::World,
        };
        let command = match wire.command {
            CommandWire::Start { anchor } => Command::Start { anchor: anchor.map(Into::into) },
            CommandWire::Next => Command::Next,
            CommandWire::Done => Command::Done,
            CommandWire::Failed { explanation } => Command::failed(explanation),
            CommandWire::Choose { option } => Command::Choose(option),
            CommandWire::Supply { answers } => Command::Supply(
                answers
                    .into_iter()
                    .map(|a| {
                        let answer = match a.answer {
                            AnswerValue::Truth(b) => Answer::Truth(b),
                            AnswerValue::Text(text) => Answer::Text(text.into()),
                            AnswerValue::Number(n) => Answer::Number(n),
                        };
                        (a.key, answer)
                    })
                    .collect::<Answers<'static>>(),
            ),
        };
        Entry { by, command, label: wire.label }
    }
}
