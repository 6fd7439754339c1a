//! The control surface as data: what `describe` returns ([`View`]), what may be applied
//! ([`Action`]), and what `apply` returns ([`Receipt`]).
//!
//! This module owns their JSON spelling: camelCase keys as the host contract writes them,
//! absent optional members omitted, enums in lowercase (decisions H1-H6 in
//! `docs/design/host-contract.md`; the JSON Schema is `docs/schema/view.schema.json`).

use serde::{Deserialize, Serialize};
use stagehand_playbook::{plain_text, Fragment};

use crate::vocabulary::{Event, OwnedEvent};

/// Where a session stands, as `describe` gives it. It has no side effects to produce.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct View {
    /// Whether the run goes on, ended, failed, or was stopped.
    pub status: Status,
    /// Whether the session waits on a person (or has finished) rather than on the world: no
    /// request for the world (`perform`, a call, a `resolve` a world answers) is outstanding; a
    /// question to the person (a ChatMapper `[?Name]` prompt, a Boss question) is at rest
    /// (decisions H2, H60, H61).
    pub at_rest: bool,
    /// A stable id of the engine's state: the same state always has the same id.
    pub state_id: String,
    /// Where the run stands, written for a person.
    pub description: String,
    /// The questions waiting for free text (answered with `input`), in the order asked.
    pub pending_questions: Vec<PendingQuestion>,
    /// The last error: a failed perform's explanation, or why the engine could not go on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// What may be applied now, in a stable order.
    pub actions: Vec<Action>,
    /// The options a menu offered that may not be taken, with why. They are not actions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<UnavailableOption>,
}

impl View {
    /// A view with nothing in it yet (active, at rest, no actions): room for
    /// `describe_into` to write over, so a host that keeps one view describes without allocating.
    pub fn empty() -> View {
        View {
            status: Status::Active,
            at_rest: true,
            state_id: String::new(),
            description: String::new(),
            pending_questions: Vec::new(),
            last_error: None,
            actions: Vec::new(),
            unavailable: Vec::new(),
        }
    }
}

/// The session's status (decision H1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The run goes on.
    Active,
    /// The run ended.
    Done,
    /// The engine could not go on from here (it refused the move the run needs); undo, restart
    /// or a jump may still be applied.
    Error,
    /// The engine stopped the run itself (a runaway guard).
    Stopped,
}

/// A question waiting for free text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingQuestion {
    /// The id `input` names it by (for a key, the key itself).
    pub question_id: String,
    /// The question, for a person.
    pub text: String,
}

/// Something that may be applied now.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Action {
    /// The id `apply` takes (`next`, `choose:2`, `undo`, `jump:intro`, ...; decision H3).
    pub id: String,
    /// What it does, for a person (an option's own text for `choose:N`).
    pub label: String,
}

impl Action {
    /// An action.
    pub fn new(id: impl Into<String>, label: impl Into<String>) -> Self {
        Action { id: id.into(), label: label.into() }
    }
}

/// An option a menu offered that may not be taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UnavailableOption {
    /// Its position in the menu (the `N` a `choose:N` would have had).
    pub position: usize,
    /// Its label.
    pub label: String,
    /// Why it may not be taken.
    pub why: String,
}

/// What `apply` (or `input`) did (decision H4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "disposition", rename_all = "lowercase", deny_unknown_fields)]
pub enum Receipt {
    /// Nothing happened: the action is not advertised now, the text does not fit, or the
    /// idempotency key was used for another action. Not remembered under its key.
    Rejected {
        /// Why, in words.
        reason: String,
    },
    /// The action ran.
    Executed {
        /// How the run stands after it.
        outcome: Outcome,
        /// What the engine reported, in order.
        events: Vec<Reported>,
    },
    /// The action was accepted and then failed; effects may exist.
    Failed {
        /// What went wrong.
        error: String,
    },
}

/// How a run stands after an executed action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// It waits on the person or the world.
    Awaiting,
    /// It ended.
    Ended,
    /// The engine stopped it, or cannot go on.
    Stopped,
}

/// One event an engine reported, as a receipt and a trace carry it: its type (the protocol's
/// event name), its speaker and plain text where it has them, and, for speech that is more than
/// plain words, the words as fragments (`speech`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reported {
    /// The event's name: `said`, `continued`, `ended`, `refused`, `perform`, `resolve`, `offer`,
    /// `call`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Who spoke, for `said`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    /// The words: what was said, the effect asked for, the keys asked about, the options
    /// offered (one a line), or why a command was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The words of a `said` or `continued` event as the playbook spells them (a list of
    /// fragments: styles, links, images, breaks, commands), present only when they are more than
    /// plain words; `text` is always their plain reading (decision W13 of `docs/design/web.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speech: Option<serde_json::Value>,
}

/// Speech as [`Reported::speech`] carries it: its fragments as JSON when any is more than plain
/// words (a style, a link, an image, a break, a command, a tag), `None` when its plain text says it
/// all (so plain lines cost nothing more).
pub fn styled_speech(speech: &[Fragment]) -> Option<serde_json::Value> {
    speech
        .iter()
        .any(|f| !matches!(f, Fragment::Text { .. } | Fragment::Query { .. }))
        .then(|| stagehand_playbook::speech_to_json(speech))
}

impl Reported {
    /// The event as reported.
    pub fn of(event: &OwnedEvent) -> Reported {
        let speech = match event {
            OwnedEvent::Said { speech, .. } | OwnedEvent::Continued { speech } => styled_speech(speech),
            _ => None,
        };
        let (kind, speaker, text) = match event {
            OwnedEvent::Said { speaker, speech } => ("said", speaker.clone(), Some(plain_text(speech))),
            OwnedEvent::Continued { speech } => ("continued", None, Some(plain_text(speech))),
            OwnedEvent::Ended => ("ended", None, None),
            OwnedEvent::Refused { reason, explanation } => {
                ("refused", None, Some(format!("{}: {explanation}", reason.as_str())))
            }
            OwnedEvent::Perform { effect } => ("perform", None, Some(effect_text(effect))),
            OwnedEvent::Resolve { questions } => {
                ("resolve", None, Some(questions.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join("\n")))
            }
            OwnedEvent::Offer { options, .. } => {
                ("offer", None, Some(options.iter().map(|(l, _)| plain_text(l)).collect::<Vec<_>>().join("\n")))
            }
            OwnedEvent::Call { call } => ("call", None, Some(call.describe())),
        };
        Reported { kind: kind.to_owned(), speaker, text, speech }
    }

    /// A lent event as reported: the same as [`Reported::of`] its owned form, without detaching
    /// the event first.
    pub fn of_event(event: &Event<'_>) -> Reported {
        let speech = match event {
            Event::Said { speech, .. } | Event::Continued { speech } => styled_speech(speech),
            _ => None,
        };
        let (speaker, text) = match event {
            Event::Said { speaker, speech } => (speaker.map(str::to_owned), Some(plain_text(speech))),
            Event::Continued { speech } => (None, Some(plain_text(speech))),
            Event::Ended => (None, None),
            Event::Refused { reason, explanation } => (None, Some(format!("{}: {explanation}", reason.as_str()))),
            Event::Perform { effect } => (None, Some(effect_text(effect))),
            Event::Resolve { questions } => {
                (None, Some(questions.iter().map(|q| q.key).collect::<Vec<_>>().join("\n")))
            }
            Event::Offer { options, .. } => {
                (None, Some(options.iter().map(|o| plain_text(&o.label)).collect::<Vec<_>>().join("\n")))
            }
            Event::Call { call } => (None, Some(call.describe())),
        };
        Reported { kind: event.name().to_owned(), speaker, text, speech }
    }
}

/// An effect as a person reads it: `Name("arg", ...)` for a custom command, `("action")` for a
/// default command, and the plain text of anything else.
pub fn effect_text(effect: &Fragment) -> String {
    let quote = |text: &str| format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""));
    match effect {
        Fragment::DefaultCommand { action } => format!("({})", quote(action)),
        Fragment::CustomCommand { name, args } => {
            let args: Vec<String> = args.iter().map(|a| quote(a)).collect();
            format!("{name}({})", args.join(", "))
        }
        other => plain_text(std::slice::from_ref(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_is_spelled_in_camel_case_with_lowercase_enums() {
        let view = View {
            status: Status::Active,
            at_rest: true,
            state_id: "node:1/next".into(),
            description: "Alice said hello.".into(),
            pending_questions: vec![PendingQuestion { question_id: "name".into(), text: "name?".into() }],
            last_error: None,
            actions: vec![Action::new("next", "Next")],
            unavailable: vec![],
        };
        let json = serde_json::to_string(&view).unwrap();
        assert_eq!(
            json,
            r#"{"status":"active","atRest":true,"stateId":"node:1/next","description":"Alice said hello.","pendingQuestions":[{"questionId":"name","text":"name?"}],"actions":[{"id":"next","label":"Next"}]}"#
        );
        assert_eq!(serde_json::from_str::<View>(&json).unwrap(), view);
    }

    #[test]
    fn receipts_carry_their_disposition() {
        let rejected = Receipt::Rejected { reason: "no".into() };
        assert_eq!(serde_json::to_string(&rejected).unwrap(), r#"{"disposition":"rejected","reason":"no"}"#);
        let executed = Receipt::Executed {
            outcome: Outcome::Ended,
            events: vec![Reported { kind: "ended".into(), speaker: None, text: None, speech: None }],
        };
        assert_eq!(
            serde_json::to_string(&executed).unwrap(),
            r#"{"disposition":"executed","outcome":"ended","events":[{"type":"ended"}]}"#
        );
        let failed: Receipt = serde_json::from_str(r#"{"disposition":"failed","error":"x"}"#).unwrap();
        assert_eq!(failed, Receipt::Failed { error: "x".into() });
    }
}
