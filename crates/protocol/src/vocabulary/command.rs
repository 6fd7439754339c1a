//! What a driver sends.

use std::borrow::Cow;

use super::answer::Answers;
use crate::port::PortAnswer;

/// A message from the driver. Commands are data: they cross a transport and are recorded in a
/// log, so they never carry behaviour. Legality against a situation belongs to the step.
#[derive(Debug, Clone, PartialEq)]
pub enum Command<'a> {
    /// Begin at the entry, or at an anchor. Legal in every situation: it is also a restart.
    Start {
        /// The anchor to begin at instead of the entry.
        anchor: Option<Cow<'a, str>>,
    },
    /// Advance one step: the player's turn.
    Next,
    /// The effects just asked for have been carried out.
    Done,
    /// The effects just asked for could not be carried out; the run stands still.
    Failed {
        /// Why, in the host's own words.
        explanation: Cow<'a, str>,
    },
    /// What the world says about the keys just asked.
    Supply(Answers<'a>),
    /// Take the option at this position (from 0) among those just offered.
    Choose(i64),
    /// The host's answer to the port call just asked for (an `Event::Call`; decision H45).
    Answer(Cow<'a, PortAnswer>),
    /// Take one of the engine's own actions, by the id [`Engine::actions`] advertised
    /// (an agent playbook's `retry:EVENT`, `jump:STATE`; decision H46).
    ///
    /// [`Engine::actions`]: crate::Engine::actions
    Act {
        /// The action's id.
        action: Cow<'a, str>,
    },
}

impl<'a> Command<'a> {
    /// `start` at the entry.
    pub fn start() -> Self {
        Command::Start { anchor: None }
    }

    /// `start` at an anchor.
    pub fn start_at(anchor: impl Into<Cow<'a, str>>) -> Self {
        Command::Start { anchor: Some(anchor.into()) }
    }

    /// `failed` with the host's explanation.
    pub fn failed(explanation: impl Into<Cow<'a, str>>) -> Self {
        Command::Failed { explanation: explanation.into() }
    }

    /// The command's name as the fixture vocabulary spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Start { .. } => "start",
            Command::Next => "next",
            Command::Done => "done",
            Command::Failed { .. } => "failed",
            Command::Supply(_) => "supply",
            Command::Choose(_) => "choose",
            Command::Answer(_) => "answer",
            Command::Act { .. } => "act",
        }
    }

    /// The command, owning everything it holds (for a journal).
    pub fn into_owned(self) -> Command<'static> {
        match self {
            Command::Start { anchor } => Command::Start { anchor: anchor.map(|a| Cow::Owned(a.into_owned())) },
            Command::Next => Command::Next,
            Command::Done => Command::Done,
            Command::Failed { explanation } => Command::Failed { explanation: Cow::Owned(explanation.into_owned()) },
            Command::Supply(answers) => Command::Supply(answers.into_owned()),
            Command::Choose(index) => Command::Choose(index),
            Command::Answer(answer) => Command::Answer(Cow::Owned(answer.into_owned())),
            Command::Act { action } => Command::Act { action: Cow::Owned(action.into_owned()) },
        }
    }
}
