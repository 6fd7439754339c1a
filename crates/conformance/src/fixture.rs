//! Fixture-0: one conformance case, read strictly (fixtures are hand-authored, so an unknown
//! property is a mistake to surface). This crate owns the fixture's wire spelling.
//!
//! Stagehand adds two optional top-level properties for its own cases: `seed` (the entropy a
//! random choice draws from) and `final` (claims about the engine's state once the session ends,
//! matched against [`Engine::observe`](crate::Engine::observe) as a subset).

use serde_json::{Map, Value};
use stagehand_playbook::{speech_from_json, Speech};
use stagehand_runner::RefusalReason;

/// One case.
#[derive(Debug, Clone, PartialEq)]
pub struct Fixture {
    /// What the fixture asserts, as a sentence a failure can report.
    pub name: String,
    /// The document it is about, relative to the fixture.
    pub document: String,
    /// Why it claims what it claims.
    pub because: String,
    /// What it asks.
    pub kind: FixtureKind,
    /// The seed of the run's entropy (Stagehand extension; 0 when absent).
    pub seed: u64,
    /// Claims about the engine's state at the end (Stagehand extension).
    pub final_state: Option<Value>,
}

/// A readable or a playable fixture.
#[derive(Debug, Clone, PartialEq)]
pub enum FixtureKind {
    /// Can a reader load the document at all?
    Readable {
        /// Whether it must be accepted.
        accept: bool,
    },
    /// Does a runner hold the same conversation?
    Playable {
        /// The turns, in order.
        session: Vec<Turn>,
    },
}

/// One turn of a session.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// Deliver a message to the runner.
    Send(Send),
    /// The runtime's next message must be this.
    Expect(Expect),
}

/// A message from the driver.
#[derive(Debug, Clone, PartialEq)]
pub enum Send {
    /// `"next"`
    Next,
    /// `"done"`
    Done,
    /// `"describe"`
    Describe,
    /// `{"choose": n}`
    Choose(i64),
    /// `{"supply": {...}}`, the answers as the JSON values they are.
    Supply(Map<String, Value>),
    /// `{"start": "anchor"}`
    Start(String),
    /// `{"failed": "why"}`
    Failed(String),
}

/// A claim about the runtime's next message.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// A line opened.
    Said {
        /// The speaker's name; `None` claims the anonymous default speaker.
        speaker: Option<String>,
        /// What was said.
        speech: SpeechClaim,
    },
    /// More of the same line.
    Continued {
        /// What was said.
        speech: SpeechClaim,
    },
    /// A menu.
    Offer {
        /// Whether the order must be kept.
        ordered: bool,
        /// Each option's label and availability.
        options: Vec<(SpeechClaim, bool)>,
    },
    /// An effect to carry out.
    Perform(PerformClaim),
    /// The keys asked about.
    Resolve(Vec<String>),
    /// The run finished.
    Ended,
    /// A refusal, by reason.
    Refused(RefusalReason),
    /// A claim whose shape the runtime has not settled (`invalidated`, `at`, `out`).
    Unsettled(&'static str),
}

/// An effect as a fixture claims it.
#[derive(Debug, Clone, PartialEq)]
pub enum PerformClaim {
    /// A default command, by its action.
    Default {
        /// The phrase.
        action: String,
    },
    /// A custom command by name, and (when claimed) its arguments.
    Custom {
        /// The name.
        name: String,
        /// The arguments, when the fixture claims them.
        args: Option<Vec<String>>,
    },
}

/// Speech as a fixture claims it: the flattening (a string) or the fragments (an array).
#[derive(Debug, Clone, PartialEq)]
pub enum SpeechClaim {
    /// Every fragment's plain text, concatenated.
    Plain(String),
    /// The fragments, exactly.
    Fragments(Speech),
}

/// Why a fixture could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FixtureError {
    /// Where in the fixture.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

fn bad(path: &str, message: impl Into<String>) -> FixtureError {
    FixtureError { path: path.to_owned(), message: message.into() }
}

fn only(map: &Map<String, Value>, allowed: &[&str], path: &str) -> Result<(), FixtureError> {
    match map.keys().find(|key| !allowed.contains(&key.as_str())) {
        Some(key) => Err(bad(path, format!("unknown property `{key}` (expected one of {})", allowed.join(", ")))),
        None => Ok(()),
    }
}

fn text(map: &Map<String, Value>, key: &str, path: &str) -> Result<String, FixtureError> {
    match map.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(bad(&format!("{path}.{key}"), "expected a string")),
        None => Err(bad(path, format!("the required property `{key}` is missing"))),
    }
}

impl Fixture {
    /// Reads a fixture from its JSON text.
    pub fn parse(json: &str) -> Result<Fixture, FixtureError> {
        let value: Value = serde_json::from_str(json).map_err(|e| bad("$", format!("not JSON: {e}")))?;
        let map = value.as_object().ok_or_else(|| bad("$", "expected an object"))?;
        only(map, &["$schema", "name", "playbook", "because", "verdict", "session", "seed", "final"], "$")?;
        let kind = match (map.get("verdict"), map.get("session")) {
            (Some(_), Some(_)) => return Err(bad("$", "a fixture has a verdict or a session, not both")),
            (Some(Value::String(v)), None) if v == "accept" => FixtureKind::Readable { accept: true },
            (Some(Value::String(v)), None) if v == "refuse" => FixtureKind::Readable { accept: false },
            (Some(_), None) => return Err(bad("$.verdict", "expected \"accept\" or \"refuse\"")),
            (None, Some(session)) => FixtureKind::Playable { session: parse_session(session)? },
            (None, None) => return Err(bad("$", "a fixture needs a verdict or a session")),
        };
        let seed = match map.get("seed") {
            None => 0,
            Some(value) => value.as_u64().ok_or_else(|| bad("$.seed", "expected a non-negative integer"))?,
        };
        Ok(Fixture {
            name: text(map, "name", "$")?,
            document: text(map, "playbook", "$")?,
            because: text(map, "because", "$")?,
            kind,
            seed,
            final_state: map.get("final").cloned(),
        })
    }
}

fn parse_session(value: &Value) -> Result<Vec<Turn>, FixtureError> {
    let turns = value.as_array().ok_or_else(|| bad("$.session", "expected an array"))?;
    if turns.is_empty() {
        return Err(bad("$.session", "a session needs at least one turn"));
    }
    turns
        .iter()
        .enumerate()
        .map(|(i, turn)| {
            let path = format!("$.session[{i}]");
            let map = turn.as_object().ok_or_else(|| bad(&path, "expected an object"))?;
            match (map.get("send"), map.get("expect"), map.len()) {
                (Some(send), None, 1) => parse_send(send, &format!("{path}.send")).map(Turn::Send),
                (None, Some(expect), 1) => parse_expect(expect, &format!("{path}.expect")).map(Turn::Expect),
                _ => Err(bad(&path, "a turn is exactly one of {\"send\": …} or {\"expect\": …}")),
            }
        })
        .collect()
}

fn single<'v>(value: &'v Value, path: &str) -> Result<(&'v str, &'v Value), FixtureError> {
    match value.as_object() {
        Some(map) if map.len() == 1 => {
            let (key, value) = map.iter().next().ok_or_else(|| bad(path, "expected one property"))?;
            Ok((key.as_str(), value))
        }
        _ => Err(bad(path, "expected an object with exactly one property")),
    }
}

fn parse_send(value: &Value, path: &str) -> Result<Send, FixtureError> {
    if let Value::String(name) = value {
        return match name.as_str() {
            "next" => Ok(Send::Next),
            "done" => Ok(Send::Done),
            "describe" => Ok(Send::Describe),
            // The seed's vocabulary named `next` `continue`; INDEX.md renamed every use.
            other => Err(bad(path, format!("unknown send {other:?} (expected next, done or describe)"))),
        };
    }
    let (name, argument) = single(value, path)?;
    let path = format!("{path}.{name}");
    match name {
        "choose" => argument.as_i64().map(Send::Choose).ok_or_else(|| bad(&path, "expected an integer")),
        "supply" => argument.as_object().cloned().map(Send::Supply).ok_or_else(|| bad(&path, "expected an object")),
        "start" => argument.as_str().map(|a| Send::Start(a.to_owned())).ok_or_else(|| bad(&path, "expected a string")),
        "failed" => match argument.as_str() {
            Some(why) if !why.is_empty() => Ok(Send::Failed(why.to_owned())),
            _ => Err(bad(&path, "expected a non-empty string")),
        },
        other => Err(bad(&path, format!("unknown send `{other}`"))),
    }
}

fn speech_claim(value: &Value, path: &str) -> Result<SpeechClaim, FixtureError> {
    match value {
        Value::String(text) => Ok(SpeechClaim::Plain(text.clone())),
        Value::Array(_) => speech_from_json(value)
            .map(SpeechClaim::Fragments)
            .map_err(|refusal| bad(path, format!("not speech: {refusal}"))),
        _ => Err(bad(path, "expected a string or an array of fragments")),
    }
}

fn parse_expect(value: &Value, path: &str) -> Result<Expect, FixtureError> {
    let (name, claim) = single(value, path)?;
    let path = format!("{path}.{name}");
    let object = || claim.as_object().ok_or_else(|| bad(&path, "expected an object"));
    match name {
        "said" => {
            let map = object()?;
            only(map, &["speaker", "speech"], &path)?;
            let speaker = match map.get("speaker") {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return Err(bad(&format!("{path}.speaker"), "expected a string")),
            };
            let speech = map.get("speech").ok_or_else(|| bad(&path, "the required property `speech` is missing"))?;
            Ok(Expect::Said { speaker, speech: speech_claim(speech, &format!("{path}.speech"))? })
        }
        "continued" => {
            let map = object()?;
            only(map, &["speech"], &path)?;
            let speech = map.get("speech").ok_or_else(|| bad(&path, "the required property `speech` is missing"))?;
            Ok(Expect::Continued { speech: speech_claim(speech, &format!("{path}.speech"))? })
        }
        "offer" => {
            let map = object()?;
            only(map, &["ordered", "options"], &path)?;
            let ordered = map
                .get("ordered")
                .and_then(Value::as_bool)
                .ok_or_else(|| bad(&format!("{path}.ordered"), "expected true or false"))?;
            let options = map
                .get("options")
                .and_then(Value::as_array)
                .ok_or_else(|| bad(&format!("{path}.options"), "expected an array"))?
                .iter()
                .enumerate()
                .map(|(i, option)| {
                    let path = format!("{path}.options[{i}]");
                    let map = option.as_object().ok_or_else(|| bad(&path, "expected an object"))?;
                    only(map, &["label", "available"], &path)?;
                    let label =
                        map.get("label").ok_or_else(|| bad(&path, "the required property `label` is missing"))?;
                    let available = map
                        .get("available")
                        .and_then(Value::as_bool)
                        .ok_or_else(|| bad(&format!("{path}.available"), "expected true or false"))?;
                    Ok((speech_claim(label, &format!("{path}.label"))?, available))
                })
                .collect::<Result<_, _>>()?;
            Ok(Expect::Offer { ordered, options })
        }
        "perform" => {
            let map = object()?;
            match map.get("kind").and_then(Value::as_str) {
                Some("default-command") => {
                    only(map, &["kind", "action"], &path)?;
                    Ok(Expect::Perform(PerformClaim::Default { action: text(map, "action", &path)? }))
                }
                Some("custom-command") => {
                    only(map, &["kind", "name", "args"], &path)?;
                    let args = match map.get("args") {
                        None => None,
                        Some(Value::Array(items)) => Some(
                            items
                                .iter()
                                .map(|a| a.as_str().map(str::to_owned))
                                .collect::<Option<Vec<_>>>()
                                .ok_or_else(|| bad(&format!("{path}.args"), "expected strings"))?,
                        ),
                        Some(_) => return Err(bad(&format!("{path}.args"), "expected an array")),
                    };
                    Ok(Expect::Perform(PerformClaim::Custom { name: text(map, "name", &path)?, args }))
                }
                _ => Err(bad(&format!("{path}.kind"), "expected \"default-command\" or \"custom-command\"")),
            }
        }
        "resolve" => {
            let keys = claim
                .as_array()
                .and_then(|items| items.iter().map(|k| k.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>())
                .filter(|keys| !keys.is_empty())
                .ok_or_else(|| bad(&path, "expected a non-empty array of keys"))?;
            Ok(Expect::Resolve(keys))
        }
        "ended" => match claim.as_object() {
            Some(map) if map.is_empty() => Ok(Expect::Ended),
            _ => Err(bad(&path, "expected {}")),
        },
        "refused" => {
            let map = object()?;
            only(map, &["reason"], &path)?;
            let reason = text(map, "reason", &path)?;
            RefusalReason::parse(&reason).map(Expect::Refused).ok_or_else(|| {
                bad(&format!("{path}.reason"), format!("{reason:?} is not a refusal reason the protocol gives"))
            })
        }
        "invalidated" => Ok(Expect::Unsettled("invalidated")),
        "at" => Ok(Expect::Unsettled("at")),
        "out" => Ok(Expect::Unsettled("out")),
        other => Err(bad(&path, format!("unknown expectation `{other}`"))),
    }
}
