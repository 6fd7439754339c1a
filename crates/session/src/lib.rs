//! Stagehand's session layer: one sans-IO session over any engine.
//!
//! - [`host`]: [`host::Session`] over any [`Engine`](stagehand_protocol::Engine) — the host
//!   contract's control view, idempotent `apply` with receipts, undo and restart by replaying its
//!   journal, snapshots, and an ordered trace. It never calls a world: requests stay pending in
//!   its view until the host answers them (`stagehand-worlds` has a driver that does).
//! - [`Save`]: a playthrough of any document written down (its fingerprint, seed and journal of
//!   moves, each the person's or the world's), in JSON this crate spells; [`write_save`] writes
//!   one to a file atomically, never over the story's own files, nor over a file that is not a
//!   save unless told to.
//! - [`parked`]: runs parked between turns of `stagehand run`.
//! - [`files`]: reading a story's files under a size limit.
//!
//! The session links no Lua and no world: it builds for targets without either.

pub mod files;
pub mod host;
pub mod parked;
mod save;
mod save_file;

pub use save::{Entry, MoveText, Save, SaveError, SaveKind, Sender, ValueText, SAVE_VERSION};
pub use save_file::{is_stagehand_save, write_save, SaveFileError};
