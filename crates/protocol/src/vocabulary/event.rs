//! What a step reports.

use std::borrow::Cow;

use stagehand_playbook::Fragment;

use super::answer::Question;
use super::refusal::RefusalReason;
use crate::port::PortCall;

/// One thing a step reports. A step may report several, in order.
///
/// Events borrow from the `PlayContext` of the runner (and so from the playbook)
/// wherever they can: a line with nothing to fill is reported as a slice of the playbook's own
/// fragments, without copying. [`Event::into_owned`] detaches one.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'c> {
    /// A line opened: its speaker's name (`None` for the anonymous default speaker) and the
    /// words before its first command, queries filled and commands left out.
    Said {
        /// The speaker's name, never their index.
        speaker: Option<&'c str>,
        /// What was said.
        speech: Cow<'c, [Fragment]>,
    },
    /// More of the line a `Said` opened: the words after a command, sent only when they say
    /// something. It names no speaker: whoever opened the line is still speaking.
    Continued {
        /// What was said.
        speech: Cow<'c, [Fragment]>,
    },
    /// The run finished.
    Ended,
    /// The command could not be taken; the situation is unchanged.
    Refused {
        /// Why, from the closed set a fixture compares.
        reason: RefusalReason,
        /// Why, in words a person reads; never compared.
        explanation: String,
    },
    /// A request: carry out this effect (a `default-command` or `custom-command` fragment), then
    /// answer `done` — or `failed`.
    Perform {
        /// The command, as the playbook names it.
        effect: &'c Fragment,
    },
    /// A request: say what the world holds for these keys, with `supply`.
    Resolve {
        /// The keys, in the order the node needs them, each once, with the kind of answer each
        /// needs.
        questions: Cow<'c, [Question<'c>]>,
    },
    /// A request: offer these options to the player, then answer with `choose`.
    Offer {
        /// Whether the host must show the options in the order offered (a numbered menu).
        ordered: bool,
        /// Every option, in the order written.
        options: Cow<'c, [OfferedOption<'c>]>,
    },
    /// A request: make this port call (a player, the Captain, the judge, a nested playbook, a
    /// script), then answer with `answer` and its typed result (decision H45).
    Call {
        /// The call.
        call: &'c PortCall,
    },
}

/// One option as offered.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedOption<'c> {
    /// The label, with queries filled and commands removed.
    pub label: Cow<'c, [Fragment]>,
    /// Whether the option may be taken.
    pub available: bool,
}

impl Event<'_> {
    /// Whether the event is a request the driver must answer.
    pub fn is_request(&self) -> bool {
        matches!(self, Event::Perform { .. } | Event::Resolve { .. } | Event::Offer { .. } | Event::Call { .. })
    }

    /// The event's name as the fixture vocabulary spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Said { .. } => "said",
            Event::Continued { .. } => "continued",
            Event::Ended => "ended",
            Event::Refused { .. } => "refused",
            Event::Perform { .. } => "perform",
            Event::Resolve { .. } => "resolve",
            Event::Offer { .. } => "offer",
            Event::Call { .. } => "call",
        }
    }

    /// The event, detached from the context it borrowed from.
    pub fn into_owned(self) -> OwnedEvent {
        match self {
            Event::Said { speaker, speech } => {
                OwnedEvent::Said { speaker: speaker.map(str::to_owned), speech: speech.into_owned() }
            }
            Event::Continued { speech } => OwnedEvent::Continued { speech: speech.into_owned() },
            Event::Ended => OwnedEvent::Ended,
            Event::Refused { reason, explanation } => OwnedEvent::Refused { reason, explanation },
            Event::Perform { effect } => OwnedEvent::Perform { effect: effect.clone() },
            // A question's key is borrowed either way, so there is nothing to move.
            Event::Resolve { questions } => {
                OwnedEvent::Resolve { questions: questions.iter().map(|q| (q.key.to_owned(), q.kind)).collect() }
            }
            Event::Offer { ordered, options } => {
                let options = match options {
                    Cow::Owned(options) => options.into_iter().map(|o| (o.label.into_owned(), o.available)).collect(),
                    Cow::Borrowed(options) => options.iter().map(|o| (o.label.to_vec(), o.available)).collect(),
                };
                OwnedEvent::Offer { ordered, options }
            }
            Event::Call { call } => OwnedEvent::Call { call: call.clone() },
        }
    }
}

impl OwnedEvent {
    /// The event lent as an [`Event`] borrowing from this one: the inverse of
    /// [`Event::into_owned`]. Only a `resolve` or an `offer` allocates (a list of borrows).
    pub fn lend(&self) -> Event<'_> {
        match self {
            OwnedEvent::Said { speaker, speech } => {
                Event::Said { speaker: speaker.as_deref(), speech: Cow::Borrowed(speech) }
            }
            OwnedEvent::Continued { speech } => Event::Continued { speech: Cow::Borrowed(speech) },
            OwnedEvent::Ended => Event::Ended,
            OwnedEvent::Refused { reason, explanation } => {
                Event::Refused { reason: *reason, explanation: explanation.clone() }
            }
            OwnedEvent::Perform { effect } => Event::Perform { effect },
            OwnedEvent::Resolve { questions } => Event::Resolve {
                questions: Cow::Owned(questions.iter().map(|(key, kind)| Question { key, kind: *kind }).collect()),
            },
            OwnedEvent::Offer { ordered, options } => Event::Offer {
                ordered: *ordered,
                options: Cow::Owned(
                    options
                        .iter()
                        .map(|(label, available)| OfferedOption { label: Cow::Borrowed(label), available: *available })
                        .collect(),
                ),
            },
            OwnedEvent::Call { call } => Event::Call { call },
        }
    }
}

/// An [`Event`] that owns everything it holds, for keeping in a history or sending elsewhere.
#[derive(Debug, Clone, PartialEq)]
pub enum OwnedEvent {
    /// See [`Event::Said`].
    Said {
        /// The speaker's name.
        speaker: Option<String>,
        /// What was said.
        speech: Vec<Fragment>,
    },
    /// See [`Event::Continued`].
    Continued {
        /// What was said.
        speech: Vec<Fragment>,
    },
    /// See [`Event::Ended`].
    Ended,
    /// See [`Event::Refused`].
    Refused {
        /// Why, from the closed set.
        reason: RefusalReason,
        /// Why, in words.
        explanation: String,
    },
    /// See [`Event::Perform`].
    Perform {
        /// The command fragment.
        effect: Fragment,
    },
    /// See [`Event::Resolve`].
    Resolve {
        /// The keys and the kind of answer each needs.
        questions: Vec<(String, super::answer::AnswerKind)>,
    },
    /// See [`Event::Offer`].
    Offer {
        /// Whether the order must be kept.
        ordered: bool,
        /// Each label and whether it is available.
        options: Vec<(Vec<Fragment>, bool)>,
    },
    /// See [`Event::Call`].
    Call {
        /// The call.
        call: PortCall,
    },
}
