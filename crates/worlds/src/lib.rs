//! Stagehand's worlds: who answers what a session asks, for a local player.
//!
//! - [`World`]: who answers a run's `resolve` and carries out its `perform` — [`FactsWorld`]
//!   (facts from TOML or JSON), [`LuaWorld`] (a sandboxed Lua script), [`NoWorld`].
//! - [`drive`]: answers a host session's pending requests from a world, through the session's
//!   own `apply` and `input`, until a person must act (decision H11). The session never calls a
//!   world itself.
//! - [`runs`]: one turn of `stagehand run` / `stagehand run resume` over a [`Document`](stagehand_documents::Document).
//! - [`Playthrough`]: a person playing a document of any kind with a world beside them (the
//!   terminal player's core): the journal of who made each move, undo that rewinds the world,
//!   skips and retries, `start` of another place, saves that load into an edited document;
//!   [`transcript`] renders it, plain or styled.

mod drive;
mod facts;
mod lua;
mod playthrough;
pub mod ports;
pub mod runs;
pub mod transcript;
mod world;

pub use drive::{drive, fresh_key, Driven, Stop, MAX_MOVES};
pub use facts::FactsWorld;
pub use lua::{LuaWorld, PERFORM_FUNCTION, QUERY_FUNCTION};
pub use playthrough::{
    command_of, Happening, LoadError, Loaded, Playthrough, Record, ReplayError, Taken, Waiting, UNATTENDED_MARGIN,
};
pub use world::{
    command_text, default_answer, parse_answer, world_beside, world_of, Ask, Attended, NoWorld, World, WorldError,
};
