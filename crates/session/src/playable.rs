//! The seam between a front-end and the story it plays.

use stagehand_runner::Command;

use crate::journal::{Happening, Record};
use crate::save::Save;
use crate::session::{LoadError, Loaded, ReplayError, Session, Waiting};
use crate::world::{World, WorldError};

/// What a front-end (the terminal player, a server) needs from a story it plays. [`Session`]
/// implements it for DialogueDown playbooks; another engine (ChatMapper's) implements it to be
/// played by the same front-ends, speaking the runner's [`Command`] vocabulary.
pub trait Playable {
    /// Sends the person's command; the world answers what the run asks of it.
    fn send(&mut self, command: Command<'static>, world: &mut dyn World) -> Vec<Happening>;
    /// Asks the world again to carry out the command it failed.
    fn retry(&mut self, world: &mut dyn World) -> Vec<Happening>;
    /// Carries on without the command the world failed to carry out, when the run holds on one
    /// ([`Waiting::Held`]). An engine that never holds reports nothing.
    fn skip(&mut self, world: &mut dyn World) -> Vec<Happening> {
        let _ = world;
        Vec::new()
    }
    /// Takes back the person's last move; `false` when there is none.
    fn undo(&mut self, world: &mut dyn World) -> Result<bool, ReplayError>;
    /// Starts again from the same opening with a fresh world.
    fn restart(&mut self, world: &mut dyn World) -> Result<Vec<Happening>, WorldError>;
    /// What the run waits for.
    fn waiting(&self) -> Waiting;
    /// Every accepted command with what the run reported for it.
    fn history(&self) -> &[Record];
    /// Where the run stands and why each way out is or is not open, in words.
    fn why(&self) -> String;
    /// The run as a save, in JSON.
    fn save_json(&self) -> String;
    /// Replaces the run with a saved one, loaded into this story (which may have been edited
    /// since the save was made).
    fn load_json(&mut self, json: &str, world: &mut dyn World) -> Result<Loaded, LoadError>;
}

impl Playable for Session {
    fn send(&mut self, command: Command<'static>, world: &mut dyn World) -> Vec<Happening> {
        Session::send(self, command, world)
    }

    fn retry(&mut self, world: &mut dyn World) -> Vec<Happening> {
        Session::retry(self, world)
    }

    fn skip(&mut self, world: &mut dyn World) -> Vec<Happening> {
        Session::skip(self, world)
    }

    fn undo(&mut self, world: &mut dyn World) -> Result<bool, ReplayError> {
        Session::undo(self, world)
    }

    fn restart(&mut self, world: &mut dyn World) -> Result<Vec<Happening>, WorldError> {
        Session::restart(self, world)
    }

    fn waiting(&self) -> Waiting {
        Session::waiting(self)
    }

    fn history(&self) -> &[Record] {
        self.transcript()
    }

    fn why(&self) -> String {
        crate::why::explain(&crate::why::why(self))
    }

    fn save_json(&self) -> String {
        self.save().to_json()
    }

    fn load_json(&mut self, json: &str, world: &mut dyn World) -> Result<Loaded, LoadError> {
        let save = Save::from_json(json)?;
        self.restore(&save, world)
    }
}
