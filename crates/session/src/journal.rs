//! The journal: every command a run accepted, in order, with who sent it.

use std::fmt;

use stagehand_playbook::Fragment;
use stagehand_runner::{Answer, Command, OwnedEvent};

/// Who sent a command: the person playing, or the world answering a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// One command the run accepted, and who sent it. A command the run refused changed nothing, so
/// it is not journalled: replaying the journal replays exactly the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Who sent it.
    pub by: Sender,
    /// The command, answers included.
    pub command: Command<'static>,
    /// For a `choose`, the label of the option taken (as plain text), so a replay against an
    /// edited script notices when that position now holds another option.
    pub label: Option<String>,
}

impl Entry {
    /// A command the person sent.
    pub fn player(command: Command<'static>) -> Entry {
        Entry { by: Sender::Player, command, label: None }
    }

    /// A command the world sent.
    pub fn world(command: Command<'static>) -> Entry {
        Entry { by: Sender::World, command, label: None }
    }
}

/// How many of `journal`'s entries an undo replays: the journal without the person's last move
/// and the world's answers after it. `None` when nothing can be taken back, because only the
/// opening `start` (and the world's answers to it) is left.
pub fn undo_point(journal: &[Entry]) -> Option<usize> {
    let kept = journal.iter().rposition(|entry| entry.by != Sender::World).map_or(0, |last| last + 1);
    (kept > 1).then(|| kept - 1)
}

/// The command a restart sends: the journal's opening `start` (with its anchor, if it had one),
/// or a plain `start` when the journal does not open with one.
pub fn opening(journal: &[Entry]) -> Command<'static> {
    match journal.first() {
        Some(Entry { command: command @ Command::Start { .. }, .. }) => command.clone(),
        _ => Command::start(),
    }
}

impl fmt::Display for Entry {
    /// The command for people, the option's label, then its sender: `choose option 2 "Wait
    /// here" (player)`. Options are numbered from 1 here, as menus number them; the rest is the
    /// fixture vocabulary.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.command {
            Command::Choose(position) => write!(f, "choose option {}", position.saturating_add(1))?,
            _ => write!(f, "{}", CommandText(&self.command))?,
        }
        if let Some(label) = &self.label {
            write!(f, " {label:?}")?;
        }
        write!(f, " ({})", self.by.as_str())
    }
}

/// A command in the fixture vocabulary, for people: `start`, `start at cellar`, `next`, `done`,
/// `failed: why`, `supply Alice.HasKey = true`, `choose 1` (positions count from 0).
#[derive(Debug, Clone, Copy)]
pub struct CommandText<'a, 'c>(pub &'a Command<'c>);

impl fmt::Display for CommandText<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Command::Start { anchor: None } => f.write_str("start"),
            Command::Start { anchor: Some(anchor) } => write!(f, "start at {anchor}"),
            Command::Next => f.write_str("next"),
            Command::Done => f.write_str("done"),
            Command::Failed { explanation } => write!(f, "failed: {explanation}"),
            Command::Choose(position) => write!(f, "choose {position}"),
            Command::Supply(answers) => {
                f.write_str("supply")?;
                for (i, (key, answer)) in answers.iter().enumerate() {
                    let separator = if i == 0 { " " } else { ", " };
                    write!(f, "{separator}{key} = {}", AnswerText(answer))?;
                }
                Ok(())
            }
        }
    }
}

/// An answer as written in a supply: `true`, `"words"`, `2.5`.
#[derive(Debug, Clone, Copy)]
pub struct AnswerText<'a, 'c>(pub &'a Answer<'c>);

impl fmt::Display for AnswerText<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Answer::Truth(b) => write!(f, "{b}"),
            Answer::Text(text) => write!(f, "{text:?}"),
            // As Lua 5.1 writes a number (`2.5`, `nan`, `-inf`), the language worlds speak.
            Answer::Number(n) => f.write_str(&stagehand_lua::format_number(*n)),
        }
    }
}

/// One accepted command and what the run reported for it: a line of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The command.
    pub entry: Entry,
    /// What the run reported.
    pub events: Vec<OwnedEvent>,
}

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
    /// The world could not carry out a command: the run holds until it is retried.
    Failed {
        /// The command fragment.
        effect: Fragment,
        /// Why, in the world's words.
        explanation: String,
    },
    /// A line the world wrote for the person (a Lua world's `print`).
    Log(String),
    /// What an engine reports about itself rather than the story: a condition it could not
    /// evaluate, a script that failed. A front-end shows it apart from the transcript (the
    /// terminal player writes it to standard error, each message once).
    Diagnostic(String),
}
