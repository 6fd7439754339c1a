//! What a playthrough reports and waits for: its happenings, what it waits for, its history,
//! what a line of input did, and why a replay or a load stopped.

use std::fmt;

use stagehand_playbook::Fragment;
use stagehand_protocol::{Answer, OwnedEvent};
use stagehand_session::host::HostError;
use stagehand_session::{Entry, SaveError};

use crate::world::WorldError;

/// Something a front-end shows while a run is played: the run's own events, and what the world
/// did about its requests.
#[derive(Debug, Clone, PartialEq)]
pub enum Happening {
    /// An event the run reported.
    Event(OwnedEvent),
    /// The world answered a key.
    Answered {
        /// The key.
        key: String,
        /// Its answer.
        answer: Answer<'static>,
    },
    /// Nobody knew a key, so it was answered with a default (false, empty words, 0).
    Guessed {
        /// The key.
        key: String,
        /// The default given.
        answer: Answer<'static>,
        /// Why the world could not say, when it failed rather than not knowing.
        problem: Option<String>,
    },
    /// The world carried out a command.
    Performed {
        /// The command fragment.
        effect: Fragment,
    },
    /// The world could not carry out a command: the run holds until it is retried or skipped.
    Failed {
        /// The command fragment.
        effect: Fragment,
        /// Why, in the world's words.
        explanation: String,
    },
    /// A line the world (or a project's Lua `print`) wrote for the person.
    Log(String),
    /// What an engine reports about itself rather than the story (a condition it could not
    /// evaluate, a script that failed): shown apart from the transcript, each message once.
    Diagnostic(String),
    /// A move the session would not take, and why (nothing happened).
    Rejected(String),
}

/// What the run waits for, for a front-end.
#[derive(Debug, Clone, PartialEq)]
pub enum Waiting {
    /// Nothing has started.
    NotStarted,
    /// A line was said: `next` moves on.
    Next,
    /// A menu: each label and whether it may be taken.
    Choice {
        /// The options, in the order offered.
        options: Vec<(Vec<Fragment>, bool)>,
    },
    /// The world failed to carry out this command: retry, skip, undo or quit.
    Held {
        /// The command that failed.
        effect: Fragment,
    },
    /// The run cannot go on from here; undo or restart.
    Stuck {
        /// Why, in words.
        waiting: String,
    },
    /// The run has ended.
    Ended,
}

/// What a line of the person's input did, read where the run stands ([`Playthrough::take_line`](super::Playthrough::take_line)).
#[derive(Debug, Clone, PartialEq)]
pub enum Taken {
    /// A move was made: what it showed, and (for Enter at a held command) the command retried.
    Moved {
        /// The command carried out again, for a retry.
        retrying: Option<Fragment>,
        /// What happened.
        happenings: Vec<Happening>,
    },
    /// An option the menu lacks or closes: why, in words (nothing happened).
    Refused(String),
    /// Not a move where it was read: why (nothing happened).
    Invalid(String),
    /// The story has ended: only commands remain.
    Ended,
}

/// One move with who made it and what the run reported for it: a line of the history.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The move, its sender and (for a choice) the label taken.
    pub entry: Entry,
    /// What the run reported.
    pub events: Vec<OwnedEvent>,
    /// The effects the world was asked to carry out just before this move (a world's `done`, or
    /// its `failed`, whose last effect failed): a world that keeps state is rebuilt by asking
    /// again.
    pub performed: Vec<Fragment>,
    /// The world's own words for a `failed`.
    pub failure: Option<String>,
}

/// Why a replay stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// A journalled move was not taken: the story differs from the one the journal was played
    /// on, from this step on.
    #[error("the story now differs at step {step} ({command}): {explanation}")]
    Diverged {
        /// The step, counting from 1.
        step: usize,
        /// The move, for people, with its sender.
        command: String,
        /// Why it was not taken.
        explanation: String,
    },
    /// The world could not be rebuilt.
    #[error("the world could not be rebuilt: {0}")]
    World(#[from] WorldError),
    /// No session could be made.
    #[error("{0}")]
    Host(#[from] HostError),
}

/// Why a save was not loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// The save does not read.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// Its journal does not replay against this document.
    #[error("the save does not fit this script: {0}")]
    Replay(ReplayError),
    /// The save was made of another document, and its journal does not replay against this one.
    #[error("the save was made from {saved}, not {script}, and does not fit it: {error}")]
    OtherScript {
        /// The document the save names.
        saved: String,
        /// The document played now.
        script: String,
        /// Where its journal stopped replaying.
        error: ReplayError,
    },
}

/// How a save was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    /// Into the document it was saved from: the run stands where it was saved.
    Restored,
    /// Into an edited document: every step of the journal replayed, and the run resumes there.
    Replayed {
        /// How many steps replayed.
        steps: usize,
    },
}

impl fmt::Display for Loaded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loaded::Restored => f.write_str("restored where it was saved"),
            Loaded::Replayed { steps } => write!(
                f,
                "the script changed since this was saved; all {steps} steps replayed against it, and play resumes there"
            ),
        }
    }
}
