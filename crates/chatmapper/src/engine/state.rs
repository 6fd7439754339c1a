//! Where a playthrough stands, as plain data (saved in a [`Snapshot`](super::Snapshot)).

use serde::{Deserialize, Serialize};

use super::offered::Offered;

/// What the engine is doing, and what it waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Situation {
    /// No conversation has started yet.
    NotStarted,
    /// A line's segment was said; `next` says the following one, or moves on after the last.
    Speaking {
        /// The entry speaking.
        node: usize,
        /// Its segments, rendered when it was entered.
        segments: Vec<String>,
        /// The index of the segment `next` says.
        next: usize,
    },
    /// An input prompt asked for these variables; `supply` answers.
    Asking {
        /// The entry whose line waits.
        node: usize,
        /// The variables asked for, as written in the prompts.
        names: Vec<String>,
    },
    /// A menu is shown; `choose` picks.
    Choosing {
        /// The options, in the order shown.
        options: Vec<Offered>,
    },
    /// The conversation ended.
    Ended,
    /// The runaway guard stopped the conversation.
    Halted,
}

/// The engine's own state besides Lua's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct State {
    /// Where the run stands.
    pub situation: Situation,
    /// The current conversation (an index into the project's conversations).
    pub conversation: Option<usize>,
    /// Entries entered with DelaySimStatus whose `WasDisplayed` waits for the next offered set.
    pub deferred: Vec<usize>,
    /// Automatic advances since the player last decided (or the conversation started).
    pub automatic: usize,
    /// The candidates whose conditions were false when the last offered set was computed (the
    /// menu shown, the line entered, or the end).
    #[serde(default)]
    pub closed: Vec<usize>,
}

impl State {
    /// A playthrough that has not started a conversation.
    pub fn new() -> State {
        State {
            situation: Situation::NotStarted,
            conversation: None,
            deferred: Vec::new(),
            automatic: 0,
            closed: Vec::new(),
        }
    }

    /// A sentence for explanations.
    pub fn describe(&self) -> &'static str {
        match self.situation {
            Situation::NotStarted => "no conversation has started",
            Situation::Speaking { .. } => "a line is being said and waits for next",
            Situation::Asking { .. } => "an input prompt waits for supply",
            Situation::Choosing { .. } => "a menu waits for choose",
            Situation::Ended => "the conversation has ended",
            Situation::Halted => "the conversation was stopped by the runaway guard",
        }
    }
}
