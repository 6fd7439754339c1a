//! [`Session`]: a playbook's run with its journal, undo by replay, saves and loads.

use std::fmt;

use stagehand_playbook::{fingerprint, plain_text, Fingerprint, Fragment, Playbook};
use stagehand_runner::{AnswerKind, Answers, Command, OwnedEvent, PlayContext, PlayState, Situation};

use crate::core::Core;
use crate::journal::{opening, undo_point, AnswerText, Entry, Happening, Record, Sender};
use crate::save::{Save, SaveError};
use crate::world::{command_text, default_answer, World, WorldError};

/// What a run waits for now.
#[derive(Debug, Clone, PartialEq)]
pub enum Waiting {
    /// Nothing has been started.
    NotStarted,
    /// The person's turn: `next` moves on.
    Next,
    /// The person's choice from a menu.
    Choice {
        /// Whether the options must be shown in order.
        ordered: bool,
        /// Each label and whether it may be taken.
        options: Vec<(Vec<Fragment>, bool)>,
    },
    /// The world failed to carry out this command: retry, undo or quit.
    Held {
        /// The command that failed.
        effect: Fragment,
    },
    /// The run cannot go on from here (a refusal the world cannot answer); undo or restart.
    Stuck {
        /// What the run waits for, in words.
        waiting: String,
    },
    /// The run has ended.
    Ended,
}

/// Why a replay stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// A journalled command was refused: the story differs from the one the journal was played
    /// on, from this step on.
    #[error("the story now differs at step {step} ({command}): {explanation}")]
    Diverged {
        /// The step, counting from 1.
        step: usize,
        /// The command, in the fixture vocabulary, with its sender.
        command: String,
        /// Why it was refused.
        explanation: String,
    },
    /// The world could not be rebuilt.
    #[error("the world could not be rebuilt: {0}")]
    World(#[from] WorldError),
}

/// Why a save was not loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// The save does not read.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// Its journal does not replay against this playbook.
    #[error("the save does not fit this script: {0}")]
    Replay(#[from] ReplayError),
    /// The save was made from another script, and its journal does not replay against this one.
    #[error("the save was made from {saved}, not {script}, and does not fit it: {error}")]
    OtherScript {
        /// The script the save names.
        saved: String,
        /// The script played now.
        script: String,
        /// Where its journal stopped replaying.
        error: ReplayError,
    },
    /// The save's state is not where its own journal leads (the save was altered).
    #[error("the save's state is not where its journal leads; it was altered")]
    Inconsistent,
}

/// How a save was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    /// Into the playbook it was saved from: the run stands where it was saved.
    Restored,
    /// Into an edited playbook: every step of the journal replayed, and the run resumes there.
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

/// A run of one playbook: the state, the seed, the journal of every command the run accepted
/// (answers included), and the transcript.
///
/// A session answers the world's requests itself: after each command it asks the [`World`] for
/// every `resolve` and has it carry out every `perform`, journalling those answers as the
/// world's, until the run waits on the person (or the world fails a command, and the run holds).
/// Undo and load replay the journal from the initial state, so a world with state is rebuilt
/// and rewinds with the story.
#[derive(Debug, Clone)]
pub struct Session {
    playbook: Playbook,
    fingerprint: Fingerprint,
    seed: u64,
    core: Core,
}

impl Session {
    /// A run of `playbook` that has not started, its random choices seeded with `seed`.
    pub fn new(playbook: Playbook, seed: u64) -> Session {
        let fingerprint = fingerprint(&playbook);
        Session { playbook, fingerprint, seed, core: Core::new(seed) }
    }

    /// The playbook.
    pub fn playbook(&self) -> &Playbook {
        &self.playbook
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The run's state.
    pub fn state(&self) -> &PlayState {
        &self.core.state
    }

    /// Every command the run accepted, in order.
    pub fn journal(&self) -> &[Entry] {
        &self.core.journal
    }

    /// Every accepted command with what the run reported for it.
    pub fn transcript(&self) -> &[Record] {
        &self.core.transcript
    }

    /// The last answers supplied, for [`describe`](stagehand_runner::describe).
    pub fn last_answers(&self) -> Option<&Answers<'static>> {
        self.core.answers.as_ref()
    }

    /// What the run waits for.
    pub fn waiting(&self) -> Waiting {
        match &self.core.state.situation {
            Situation::NotStarted => Waiting::NotStarted,
            Situation::AtNode(_) => Waiting::Next,
            Situation::AtEnd => Waiting::Ended,
            Situation::AwaitingChoice { .. } => match &self.core.offer {
                Some((ordered, options)) => Waiting::Choice { ordered: *ordered, options: options.clone() },
                None => Waiting::Stuck { waiting: "a menu, but none was offered".into() },
            },
            Situation::AwaitingDone { .. } => match self.core.pending.get(self.core.performed) {
                Some(effect) => Waiting::Held { effect: effect.clone() },
                None => Waiting::Stuck { waiting: self.core.state.situation.describe().into() },
            },
            situation @ Situation::AwaitingSupply { .. } => Waiting::Stuck { waiting: situation.describe().into() },
        }
    }

    /// Sends the person's command, then lets the world answer whatever the run asks of it.
    /// Returns everything to show, in order; a refused command changes nothing and is not
    /// journalled.
    pub fn send(&mut self, command: Command<'static>, world: &mut dyn World) -> Vec<Happening> {
        self.run(Some(Entry::player(command)), world)
    }

    /// Asks the world again to carry out a command it failed.
    pub fn retry(&mut self, world: &mut dyn World) -> Vec<Happening> {
        self.run(None, world)
    }

    fn run(&mut self, first: Option<Entry>, world: &mut dyn World) -> Vec<Happening> {
        let context = PlayContext::new(&self.playbook);
        let mut out = Vec::new();
        let mut next = match first {
            Some(entry) => Some(entry),
            None => serve(&mut self.core, world, &mut out),
        };
        while let Some(entry) = next.take() {
            let failed = matches!(entry.command, Command::Failed { .. });
            match self.core.apply(&context, entry) {
                Ok(events) | Err(events) => out.extend(events.into_iter().map(Happening::Event)),
            }
            if failed {
                break;
            }
            if matches!(out.last(), Some(Happening::Event(OwnedEvent::Refused { .. }))) {
                break;
            }
            next = serve(&mut self.core, world, &mut out);
        }
        out
    }

    /// Carries on without the command the world failed (and any after it on the same node): the
    /// person answers the run's `perform` with `done` themselves. The skip is journalled as the
    /// person's `done`, so undo takes it back and a replay skips the command again rather than
    /// asking the world for it. Nothing happens unless the run holds on a failed command.
    pub fn skip(&mut self, world: &mut dyn World) -> Vec<Happening> {
        if !matches!(self.waiting(), Waiting::Held { .. }) {
            return Vec::new();
        }
        self.run(Some(Entry::player(Command::Done)), world)
    }

    /// Takes back the person's last move (and the world's answers after it) by replaying the
    /// journal without it from the initial state; the world is rebuilt and replayed too. Returns
    /// `false` when there is nothing to take back (the opening `start` stays).
    pub fn undo(&mut self, world: &mut dyn World) -> Result<bool, ReplayError> {
        let Some(kept) = undo_point(&self.core.journal) else { return Ok(false) };
        self.core = replay(&self.playbook, self.seed, &self.core.journal[..kept], world)?;
        Ok(true)
    }

    /// Starts again from the same opening, with the world reset. The restart is journalled like
    /// any move (so it can be undone), and random choices draw on rather than repeat (R1 of
    /// `docs/design/random-choice.md`).
    pub fn restart(&mut self, world: &mut dyn World) -> Result<Vec<Happening>, WorldError> {
        let opening = opening(&self.core.journal);
        world.reset()?;
        Ok(self.send(opening, world))
    }

    /// The run as a save.
    pub fn save(&self) -> Save {
        Save {
            script: self.playbook.script.clone(),
            fingerprint: self.fingerprint,
            seed: self.seed,
            state: self.core.state.clone(),
            journal: self.core.journal.clone(),
        }
    }

    /// Loads a save into `playbook`. Into the playbook it was saved from, the run stands where it
    /// was saved. Into an edited one (its fingerprint differs), the journal is replayed against
    /// it: if every step is accepted the run resumes there, and if not the load is refused naming
    /// the step where the story now differs. Either way the world is rebuilt by the replay.
    pub fn load(playbook: Playbook, save: &Save, world: &mut dyn World) -> Result<(Session, Loaded), LoadError> {
        let mut session = Session::new(playbook, save.seed);
        let loaded = session.restore(save, world)?;
        Ok((session, loaded))
    }

    /// Replaces this run with a saved one, replayed against this session's playbook (compared by
    /// the fingerprint it already holds) as [`load`](Self::load) does: the run takes the save's
    /// seed and stands where the journal leads. On an error the run is left as it was (the world
    /// is not: the replay has rebuilt it).
    pub fn restore(&mut self, save: &Save, world: &mut dyn World) -> Result<Loaded, LoadError> {
        let core = replay(&self.playbook, save.seed, &save.journal, world).map_err(|error| {
            if save.script == self.playbook.script {
                LoadError::Replay(error)
            } else {
                LoadError::OtherScript { saved: save.script.clone(), script: self.playbook.script.clone(), error }
            }
        })?;
        let loaded = if self.fingerprint == save.fingerprint {
            if core.state != save.state {
                return Err(LoadError::Inconsistent);
            }
            Loaded::Restored
        } else {
            Loaded::Replayed { steps: save.journal.len() }
        };
        self.seed = save.seed;
        self.core = core;
        Ok(loaded)
    }

    /// [`load`](Self::load) from a save's JSON.
    pub fn load_json(playbook: Playbook, json: &str, world: &mut dyn World) -> Result<(Session, Loaded), LoadError> {
        let save = Save::from_json(json)?;
        Session::load(playbook, &save, world)
    }
}

/// What the world sends next for the run's pending request, if it has one.
fn serve(core: &mut Core, world: &mut dyn World, out: &mut Vec<Happening>) -> Option<Entry> {
    match core.state.situation {
        Situation::AwaitingDone { .. } => {
            while let Some(effect) = core.pending.get(core.performed).cloned() {
                let result = world.perform(&effect);
                let log = world.take_log();
                match result {
                    Ok(()) => {
                        core.performed += 1;
                        out.push(Happening::Performed { effect });
                        out.extend(log.into_iter().map(Happening::Log));
                    }
                    Err(WorldError(explanation)) => {
                        out.extend(log.into_iter().map(Happening::Log));
                        out.push(Happening::Failed { effect, explanation: explanation.clone() });
                        return Some(Entry::world(Command::failed(explanation)));
                    }
                }
            }
            Some(Entry::world(Command::Done))
        }
        Situation::AwaitingSupply { .. } => {
            let answers = ask_world(&core.questions, world, out);
            Some(Entry::world(Command::Supply(answers)))
        }
        _ => None,
    }
}

/// Asks the world every question of a `resolve`, in order. An answer the world does not know, or
/// gives in the wrong kind, is the default for its kind (`false`, empty words, 0) and reported
/// as guessed; what the world printed is passed on. Engines other than the runner use it too.
pub fn ask_world(
    questions: &[(String, AnswerKind)],
    world: &mut dyn World,
    out: &mut Vec<Happening>,
) -> Answers<'static> {
    let mut answers = Answers::with_capacity(questions.len());
    for (key, kind) in questions {
        let (key, kind) = (key.clone(), *kind);
        let answer = match world.answer(&key, kind) {
            Ok(Some(answer)) if answer.fits(kind) => {
                out.push(Happening::Answered { key: key.clone(), answer: answer.clone() });
                answer
            }
            other => {
                let problem = match other {
                    Err(WorldError(problem)) => Some(problem),
                    Ok(Some(answer)) => {
                        Some(format!("the world answered {}, which is not {kind}", AnswerText(&answer)))
                    }
                    Ok(None) => None,
                };
                let answer = default_answer(kind);
                out.push(Happening::Guessed { key: key.clone(), answer: answer.clone(), problem });
                answer
            }
        };
        answers.insert(key, answer);
    }
    out.extend(world.take_log().into_iter().map(Happening::Log));
    answers
}

/// The plain-text label (trimmed) of the option at `position` in a menu's `options`; `None` when
/// the menu has no such position.
pub fn option_label(options: &[(Vec<Fragment>, bool)], position: i64) -> Option<String> {
    let (label, _) = options.get(usize::try_from(position).ok()?)?;
    Some(plain_text(label).trim().to_owned())
}

/// Holds a replayed `choose` to the option the journal recorded: the label now at `position`
/// must be the one taken then, or the story has changed under the save. The message numbers
/// options from 1, as menus do.
pub fn same_option(expected: &str, position: i64, now: Option<String>) -> Result<(), String> {
    let number = position.saturating_add(1);
    match now {
        Some(label) if label == expected => Ok(()),
        Some(label) => {
            Err(format!("the option taken there, {expected:?}, is no longer option {number} (that is now {label:?})"))
        }
        None => Err(format!("the option taken there, {expected:?}, is gone: the menu has no option {number} now")),
    }
}

/// The explanation of the refusal among a step's events (empty if none explains itself).
pub fn refusal_explanation(events: &[OwnedEvent]) -> String {
    events
        .iter()
        .find_map(|e| match e {
            OwnedEvent::Refused { explanation, .. } => Some(explanation.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// Replays `entries` from the initial state with a rebuilt world (reset again at every restart).
pub(crate) fn replay(
    playbook: &Playbook,
    seed: u64,
    entries: &[Entry],
    world: &mut dyn World,
) -> Result<Core, ReplayError> {
    world.reset()?;
    let context = PlayContext::new(playbook);
    let mut core = Core::new(seed);
    for (index, entry) in entries.iter().enumerate() {
        let diverged =
            |explanation: String| ReplayError::Diverged { step: index + 1, command: entry.to_string(), explanation };
        if index > 0 && matches!(entry.command, Command::Start { .. }) {
            // A restart: the world was reset there.
            world.reset()?;
        }
        // The world's `done` and `failed` follow what it carried out; the person's `done` is a
        // skip, and what it skipped is not carried out again.
        let performing = matches!(entry.command, Command::Done | Command::Failed { .. })
            && entry.by == Sender::World
            && matches!(core.state.situation, Situation::AwaitingDone { .. });
        if performing && world.keeps_state() {
            while let Some(effect) = core.pending.get(core.performed).cloned() {
                match world.perform(&effect) {
                    Ok(()) => core.performed += 1,
                    Err(WorldError(problem)) if matches!(entry.command, Command::Done) => {
                        return Err(diverged(format!("the world now fails {}: {problem}", command_text(&effect))));
                    }
                    Err(_) => break,
                }
            }
        }
        if let (Command::Choose(position), Some(expected)) = (&entry.command, &entry.label) {
            if matches!(core.state.situation, Situation::AwaitingChoice { .. }) {
                same_option(expected, *position, core.label(*position)).map_err(diverged)?;
            }
        }
        if let Err(events) = core.apply(&context, entry.clone()) {
            return Err(diverged(refusal_explanation(&events)));
        }
    }
    world.take_log();
    Ok(core)
}
