//! What a session waits on ([`Pending`]) and the moves its journal records ([`Move`]), both as
//! plain data saved in the session's snapshot.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use stagehand_playbook::{plain_text, Fragment};
use stagehand_protocol::{
    effect_text, Answer, AnswerKind, Answers, Command, Event, OwnedEvent, PortAnswer, PortCall, Waiting,
};

/// One command the session gave its engine, owning what it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "lowercase", deny_unknown_fields)]
pub enum Move {
    /// `start`, at the entry or an anchor.
    Start {
        /// The anchor.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        anchor: Option<String>,
    },
    /// `next`.
    Next,
    /// `done`.
    Done,
    /// `failed`.
    Failed {
        /// The host's explanation.
        explanation: String,
    },
    /// `supply`: each key with its answer as a bare JSON value (a truth, words, a number).
    Supply {
        /// The answers, in the order asked. (Read also as `{"key", "answer"}` objects, as saves
        /// before the one spelling wrote them: decision H41.)
        #[serde(deserialize_with = "answers_either_way")]
        answers: Vec<(String, Value)>,
    },
    /// `choose`.
    Choose {
        /// The option's position. (Read also as `option`, as saves before the one spelling
        /// wrote it: decision H41.)
        #[serde(alias = "option")]
        position: i64,
    },
    /// `answer`: the host's typed answer to a port call (decision H45).
    Answer {
        /// The answer (boxed: it is far larger than every other move).
        answer: Box<PortAnswer>,
    },
    /// `act`: one of the engine's own actions (decision H46).
    Act {
        /// The action's id.
        action: String,
    },
}

/// A supply's answers as pairs (`[["key", value]]`) or as objects (`[{"key", "answer"}]`).
fn answers_either_way<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<(String, Value)>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Pair(String, Value),
        Object { key: String, answer: Value },
    }
    let answers = Vec::<Either>::deserialize(deserializer)?;
    Ok(answers
        .into_iter()
        .map(|answer| match answer {
            Either::Pair(key, value) | Either::Object { key, answer: value } => (key, value),
        })
        .collect())
}

impl Move {
    /// The command.
    #[inline]
    pub fn command(&self) -> Command<'_> {
        match self {
            Move::Start { anchor } => Command::Start { anchor: anchor.as_deref().map(Into::into) },
            Move::Next => Command::Next,
            Move::Done => Command::Done,
            Move::Failed { explanation } => Command::failed(explanation.as_str()),
            Move::Supply { answers } => Command::Supply(
                answers
                    .iter()
                    .map(|(key, value)| {
                        let answer = match value {
                            Value::Bool(b) => Answer::Truth(*b),
                            Value::Number(n) => Answer::Number(n.as_f64().unwrap_or(f64::NAN)),
                            Value::String(s) => Answer::Text(s.as_str().into()),
                            other => Answer::Text(other.to_string().into()),
                        };
                        (key.as_str(), answer)
                    })
                    .collect::<Answers<'_>>(),
            ),
            Move::Choose { position } => Command::Choose(*position),
            Move::Answer { answer } => Command::Answer(std::borrow::Cow::Borrowed(&**answer)),
            Move::Act { action } => Command::Act { action: action.as_str().into() },
        }
    }
}

/// One option of a menu the session shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuOption {
    /// Its label as plain text.
    pub label: String,
    /// Whether it may be taken.
    pub available: bool,
}

/// One key a `resolve` asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Asked {
    /// The key.
    pub key: String,
    /// The kind of answer: `truth`, `text` or `number`.
    pub kind: String,
    /// The answer given so far through `input`, as a bare JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<Value>,
}

/// What the session waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "waiting", rename_all = "lowercase", deny_unknown_fields)]
pub enum Pending {
    /// Nothing has started.
    Start,
    /// A line was said: `next`.
    Line,
    /// A menu: `choose:N`.
    Menu {
        /// The options, in the order offered.
        options: Vec<MenuOption>,
    },
    /// An effect: `done` or `failed`; after `failed`, `retry`.
    Perform {
        /// The effect, as plain text.
        effect: String,
        /// The explanation of the last `failed`, while the person decides to retry.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failed: Option<String>,
        /// The effect as a world carries it out (absent when it is not a command).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<Call>,
    },
    /// Keys to answer with `input`.
    Resolve {
        /// The keys, in the order asked.
        asked: Vec<Asked>,
    },
    /// A port call (an agent playbook's player, Captain, judge, script): the host's `answer`
    /// (decision H45).
    Call {
        /// The call.
        call: PortCall,
    },
    /// The run ended.
    Ended,
    /// The engine stopped the run.
    Stopped,
    /// The engine refused the move the run needs: it cannot go on from here.
    Stuck {
        /// The refusal's explanation.
        error: String,
    },
}

/// A command a `perform` asked for, as plain data a world can carry out again (decision H11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Call {
    /// A default command: `("Alice joins Art")`.
    Default {
        /// The phrase the writer wrote.
        action: String,
    },
    /// A custom command: `JoinClub("Alice", "Art")`.
    Custom {
        /// The command's name.
        name: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

impl Call {
    /// The call a fragment makes, if it is a command.
    pub fn of(effect: &Fragment) -> Option<Call> {
        match effect {
            Fragment::DefaultCommand { action } => Some(Call::Default { action: action.to_string() }),
            Fragment::CustomCommand { name, args } => {
                Some(Call::Custom { name: name.to_string(), args: args.iter().map(ToString::to_string).collect() })
            }
            _ => None,
        }
    }

    /// The fragment again, for a world to carry out (`stagehand_worlds::World::perform`).
    pub fn fragment(&self) -> Fragment {
        match self {
            Call::Default { action } => Fragment::DefaultCommand { action: action.as_str().into() },
            Call::Custom { name, args } => Fragment::CustomCommand {
                name: name.as_str().into(),
                args: args.iter().map(|a| a.as_str().into()).collect(),
            },
        }
    }
}

fn kind_name(kind: AnswerKind) -> &'static str {
    match kind {
        AnswerKind::Truth => "truth",
        AnswerKind::Text => "text",
        AnswerKind::Number => "number",
    }
}

impl Pending {
    /// What the session waits on after an engine reported `events` and now waits for `waiting`.
    /// A request the engine did not report again (its command was refused) stays as it was.
    pub fn settle(previous: &Pending, waiting: Waiting, events: &[OwnedEvent]) -> Pending {
        let request = events
            .iter()
            .rev()
            .find(|e| {
                matches!(
                    e,
                    OwnedEvent::Offer { .. }
                        | OwnedEvent::Perform { .. }
                        | OwnedEvent::Resolve { .. }
                        | OwnedEvent::Call { .. }
                )
            })
            .and_then(|e| Pending::of_request(&e.lend()));
        let refusal = events.iter().rev().find_map(|e| match e {
            OwnedEvent::Refused { reason, explanation } => Some(format!("{}: {explanation}", reason.as_str())),
            _ => None,
        });
        Pending::settle_heard(previous, waiting, request, refusal)
    }

    /// What a request asks, as the session would wait on it (`None` for an event that is not a
    /// request).
    pub(crate) fn of_request(event: &Event<'_>) -> Option<Pending> {
        Some(match event {
            Event::Offer { options, .. } => Pending::Menu {
                options: options
                    .iter()
                    .map(|o| MenuOption { label: plain_text(&o.label), available: o.available })
                    .collect(),
            },
            Event::Perform { effect } => {
                Pending::Perform { effect: effect_text(effect), failed: None, call: Call::of(effect) }
            }
            Event::Call { call } => Pending::Call { call: (*call).clone() },
            Event::Resolve { questions } => Pending::Resolve {
                asked: questions
                    .iter()
                    .map(|q| Asked { key: q.key.to_owned(), kind: kind_name(q.kind).to_owned(), given: None })
                    .collect(),
            },
            _ => return None,
        })
    }

    /// [`settle`](Self::settle) from what the events said: the last request as
    /// [`of_request`](Self::of_request) read it, and the last refusal.
    pub(crate) fn settle_heard(
        previous: &Pending,
        waiting: Waiting,
        request: Option<Pending>,
        refusal: Option<String>,
    ) -> Pending {
        match (waiting, request) {
            (Waiting::Start, _) => match refusal {
                Some(error) => Pending::Stuck { error },
                None => Pending::Start,
            },
            (Waiting::Ended, _) => Pending::Ended,
            (Waiting::Stopped, _) => Pending::Stopped,
            (Waiting::Next, _) => match refusal {
                Some(error) => Pending::Stuck { error },
                None => Pending::Line,
            },
            (Waiting::Choice, Some(menu @ Pending::Menu { .. })) => menu,
            (Waiting::Effect, Some(perform @ (Pending::Perform { .. } | Pending::Call { .. }))) => perform,
            (Waiting::Answers, Some(resolve @ Pending::Resolve { .. })) => resolve,
            _ => previous.clone(),
        }
    }
}
