//! Stagehand's session layer: a run of a playbook as a person plays it.
//!
//! - [`Session`] holds the playbook, the seed, the runner's state and a **journal** of every
//!   command the run accepted (answers included, each marked as the person's or the world's).
//!   It steps the runner and lets a [`World`] answer the run's requests.
//! - **Undo by replay**: [`Session::undo`] replays the journal without the person's last move from
//!   the initial state; nothing is ever inverted. The world is rebuilt and replayed with it, so a
//!   Lua world rewinds with the story.
//! - **Saves** ([`Save`]): format version, the playbook's fingerprint, the seed, the state and the
//!   journal, in JSON this crate spells. [`Session::load`] restores a save into the playbook it
//!   came from, and replays it against an edited one, refusing with the step where the story now
//!   differs when a step is no longer accepted. [`write_save`] writes one to a file atomically,
//!   never over the story's own files, nor over a file that is not a save unless told to.
//! - **Worlds** ([`World`]): [`FactsWorld`] (facts from TOML or JSON), [`LuaWorld`] (a sandboxed Lua
//!   script whose functions answer keys and carry out commands), [`NoWorld`].
//! - [`files`]: reading a story's files under a size limit.
//! - [`host`]: one sans-IO session over any [`Engine`](stagehand_protocol::Engine), the host
//!   contract's control view, idempotent `apply` and trace (the DialogueDown [`Session`] above
//!   moves onto it in issue 12's next step).
//! - [`Playable`]: what a front-end needs from a story it plays, so the terminal player can play
//!   other engines (ChatMapper) behind the same seam.
//!
//! ```
//! use stagehand_playbook::{smallvec, Edge, Fragment, Node, Playbook, Speaker};
//! use stagehand_runner::Command;
//! use stagehand_session::{NoWorld, Session, Waiting};
//!
//! let mut playbook = Playbook::new("hello.dialogue.md");
//! playbook.speakers.push(Speaker::named("Alice"));
//! playbook.nodes.push(Node::Line {
//!     speaker: 0,
//!     speech: vec![Fragment::text("Hello.")].into(),
//!     condition: None,
//!     out: smallvec![Edge::Succession { target: 1 }],
//! });
//! playbook.nodes.push(Node::End);
//!
//! let mut session = Session::new(playbook.clone(), 7);
//! session.send(Command::start(), &mut NoWorld);
//! session.send(Command::Next, &mut NoWorld);
//! assert_eq!(session.waiting(), Waiting::Ended);
//! assert!(session.undo(&mut NoWorld)?);
//! assert_eq!(session.waiting(), Waiting::Next);
//!
//! let saved = session.save().to_json();
//! let (again, _) = Session::load_json(playbook, &saved, &mut NoWorld)?;
//! assert_eq!(again.state(), session.state());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod core;
pub mod files;
pub mod host;
mod journal;
pub mod parked;
mod playable;
pub mod runs;
mod save;
mod save_file;
mod session;
mod why;
mod world;

pub use journal::{opening, undo_point, AnswerText, CommandText, Entry, Happening, Record, Sender};
pub use playable::Playable;
pub use save::{EntryWire, Save, SaveError, SAVE_VERSION};
pub use save_file::{is_stagehand_save, write_save, SaveFileError};
pub use session::{
    ask_world, option_label, refusal_explanation, same_option, LoadError, Loaded, ReplayError, Session, Waiting,
};
pub use why::{capitalized, explain, why};
pub use world::{
    command_text, default_answer, parse_answer, FactsWorld, LuaWorld, NoWorld, World, WorldError, PERFORM_FUNCTION,
    QUERY_FUNCTION,
};
