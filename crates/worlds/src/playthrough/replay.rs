//! Loading a save: a fresh session of the document, its journal replayed move by move as each
//! sender made it, the world rebuilt on the way (decision H42).

use serde_json::Value;
use stagehand_documents::Document;
use stagehand_protocol::Receipt;
use stagehand_session::host::{Move, Pending};
use stagehand_session::{Entry, Save, Sender};

use super::{LoadError, Loaded, Playthrough, ReplayError};
use crate::world::{World, WorldError};

impl<'d> Playthrough<'d> {
    /// Loads a save's JSON into `document` (which may have been edited since the save was made),
    /// with `world` rebuilt by the replay.
    pub fn load(
        document: &'d Document,
        world: Box<dyn World>,
        json: &str,
    ) -> Result<(Playthrough<'d>, Loaded), LoadError> {
        let save = Save::from_json(json, document.save_kind())?;
        let playthrough = Self::replay(document, world, &save).map_err(|error| {
            if save.document == document.name() {
                LoadError::Replay(error)
            } else {
                LoadError::OtherScript { saved: save.document.clone(), script: document.name().to_owned(), error }
            }
        })?;
        let loaded = if save.fingerprint == document.fingerprint() {
            Loaded::Restored
        } else {
            Loaded::Replayed { steps: save.journal.len() }
        };
        Ok((playthrough, loaded))
    }

    fn replay(document: &'d Document, mut world: Box<dyn World>, save: &Save) -> Result<Self, ReplayError> {
        world.reset()?;
        let (first, rest) = match save.journal.split_first() {
            Some((first @ Entry { step: Move::Start { anchor }, .. }, rest)) => (anchor.clone(), (first, rest)),
            _ => {
                let explanation = "the journal does not open with a start".to_owned();
                return Err(ReplayError::Diverged { step: 1, command: "start".into(), explanation });
            }
        };
        // The world's answers come from the journal, not from the world.
        let (mut playthrough, _) = Self::open(document, world, save.seed, first.as_deref())?;
        if let Pending::Stuck { error } = playthrough.session.pending() {
            let explanation = error.clone();
            return Err(ReplayError::Diverged { step: 1, command: rest.0.to_string(), explanation });
        }
        playthrough.records[0].entry = rest.0.clone();
        for (index, entry) in rest.1.iter().enumerate() {
            playthrough.replay_one(entry).map_err(|explanation| ReplayError::Diverged {
                step: index + 2,
                command: entry.to_string(),
                explanation,
            })?;
        }
        playthrough.session.take_log();
        playthrough.world.take_log();
        Ok(playthrough)
    }

    /// Takes one journalled move again, as its sender took it.
    fn replay_one(&mut self, entry: &Entry) -> Result<(), String> {
        let mut performed = Vec::new();
        let mut failure = None;
        match &entry.step {
            Move::Start { .. } => self.world.reset().map_err(|e| e.to_string())?,
            Move::Choose { position } => {
                if let (Pending::Menu { options }, Some(expected)) = (self.session.pending(), &entry.label) {
                    let now = usize::try_from(*position).ok().and_then(|p| options.get(p)).map(|o| o.label.trim());
                    same_option(expected, *position, now)?;
                }
            }
            Move::Done | Move::Failed { .. } if entry.by == Sender::World && self.world.keeps_state() => {
                while let Some(effect) = self.effects.get(self.performed).cloned() {
                    match self.world.perform(&effect) {
                        Ok(()) => {
                            self.performed += 1;
                            performed.push(effect);
                        }
                        Err(WorldError(problem)) if matches!(entry.step, Move::Done) => {
                            return Err(format!("the world now fails {}: {problem}", crate::command_text(&effect)));
                        }
                        Err(WorldError(problem)) => {
                            failure = Some(problem);
                            performed.push(effect);
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
        // A `done` or `failed` after a failed perform came after a retry (or, from the person, a
        // skip): the retry is not journalled, so it is made again here.
        let after_failure = matches!(self.session.pending(), Pending::Perform { failed: Some(_), .. });
        if after_failure && matches!(entry.step, Move::Done | Move::Failed { .. }) {
            self.apply("retry");
        }
        let (receipt, events) = match &entry.step {
            Move::Supply { answers } => {
                let mut last = Receipt::Rejected { reason: "no answers".into() };
                for (key, value) in answers {
                    let key_now = self.key();
                    last = self.session.input(key, &value_text(value), &key_now, 0);
                    self.session.discard_trace();
                    if matches!(last, Receipt::Rejected { .. }) {
                        break;
                    }
                }
                let events = self.session.take_events();
                self.note_effects(&events);
                (last, events)
            }
            step => self.apply(&action_of(step)),
        };
        match receipt {
            Receipt::Executed { .. } => {
                self.record(entry.clone(), events, performed, failure);
                Ok(())
            }
            Receipt::Rejected { reason } | Receipt::Failed { error: reason } => Err(reason),
        }
    }
}

/// The action that takes a journalled move.
fn action_of(step: &Move) -> String {
    match step {
        Move::Start { anchor: None } => "start".to_owned(),
        Move::Start { anchor: Some(anchor) } => format!("start:{anchor}"),
        Move::Next => "next".to_owned(),
        Move::Done => "done".to_owned(),
        Move::Failed { .. } => "failed".to_owned(),
        Move::Choose { position } => format!("choose:{position}"),
        Move::Supply { .. } => "supply".to_owned(),
        Move::Answer { .. } => "answer".to_owned(),
        Move::Act { action } => action.clone(),
    }
}

/// Holds a replayed `choose` to the option the journal recorded: the label now at `position`
/// must be the one taken then. The message numbers options from 1, as menus do.
fn same_option(expected: &str, position: i64, now: Option<&str>) -> Result<(), String> {
    let number = position.saturating_add(1);
    match now {
        Some(label) if label == expected => Ok(()),
        Some(label) => {
            Err(format!("the option taken there, {expected:?}, is no longer option {number} (that is now {label:?})"))
        }
        None => Err(format!("the option taken there, {expected:?}, is gone: the menu has no option {number} now")),
    }
}

/// A journalled answer as the session's `input` reads it.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
