//! The vocabulary every Stagehand engine speaks, and the seam a host holds engines by.
//!
//! - [`vocabulary`]: what a driver sends ([`Command`]), what an engine reports ([`Event`],
//!   [`OwnedEvent`]), what the world says ([`Answer`]), and why a command was refused
//!   ([`RefusalReason`]). The DialogueDown runner defined these first; they live here so that
//!   every engine (the runner, ChatMapper, agent playbooks) speaks them without depending on
//!   the runner.
//! - [`engine`]: the [`Engine`] trait: start, one command at a time, what the engine waits for,
//!   a snapshot as a plain serde value and restore from one, the document's fingerprint, and a
//!   description for a person.
//! - [`view`]: the host contract's control surface, as data: the [`View`] `describe` returns,
//!   the [`Action`]s it advertises, and the [`Receipt`] `apply` returns. This crate owns their
//!   JSON spelling (camelCase keys, `docs/design/host-contract.md`).
//!
//! - [`port`]: the agent ports' vocabulary: what an engine asks its host to call
//!   ([`PortCall`], reported as [`Event::Call`]) and the host's typed answer ([`PortAnswer`],
//!   taken as [`Command::Answer`]).
//!
//! The protocol depends on the playbook format (speech is made of its fragments) and on serde,
//! nothing else.

pub mod engine;
pub mod port;
pub mod view;
pub mod vocabulary;

pub use engine::{Engine, EngineError, PlainEvent, ReplayMark, StateMark, Waiting};
pub use port::{PortAnswer, PortCall};
pub use view::{
    effect_text, styled_speech, Action, Outcome, PendingQuestion, Receipt, Reported, Status, UnavailableOption, View,
};
pub use vocabulary::{
    same_key, Answer, AnswerKind, Answers, Command, Entry, Event, OfferedOption, OwnedEvent, Question, RefusalReason,
};
