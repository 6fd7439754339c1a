//! The agent machine document: a data-only state machine (docs/design/agents.md).
//!
//! JSON is the wire form and these types own its spelling (camelCase keys, unknown keys
//! refused). TOML is the hand-writable form and loads to the same value. The reader
//! ([`read_json`], [`read_toml`]) checks every rule and refuses at the first problem with a
//! JSON path; [`check`] adds the whole-graph analyses that are findings, not refusals.
//!
//! The document spells only what the author decided. The conventions of the runtime contract
//! are implied (A4): every player or Captain state also produces `needsBossReply`, which parks
//! in `awaitBossReply`; every invoking state fails over to `failed`. [`Invoke::effective_results`]
//! and [`Machine::implied_edges`] make those implied parts visible.

mod check;
mod read;
mod rules;
mod types;
mod write;

pub use check::{check, Finding, FindingKind};
pub use read::{read_json, read_toml, read_value, Refusal};
pub use types::*;
pub use write::{write_toml, Unwritable};

/// The runtime ABI this runtime implements (DR-022; CONTRACT.md §1.12 `RUNTIME_ABI`): a
/// machine declaring another is refused (`runtime-abi`, A46).
pub const RUNTIME_ABI: i64 = 1;
/// The machine document formats (artifact schemas) this runtime reads (DR-022;
/// `SUPPORTED_ARTIFACT_SCHEMAS`): a machine declaring another is refused (`artifact-schema`).
pub const SUPPORTED_ARTIFACT_SCHEMAS: [i64; 1] = [1];
/// The guard every player and Captain state can produce: the agent asked the Boss a question.
pub const NEEDS_BOSS_REPLY: &str = "needsBossReply";
/// The id of the state where a machine waits for the Boss to answer a question.
pub const AWAIT_BOSS_REPLY: &str = "awaitBossReply";
/// The id of the recoverable failure state every invoke's error path leads to.
pub const FAILED: &str = "failed";
/// The id of the conventional idle hub.
pub const READY: &str = "ready";
/// The guard a single-outcome invoke (no declared results) produces, and a joined parallel group.
pub const DONE: &str = "done";
/// The fixed description of the universal `needsBossReply` result (the contract's wording
/// reduced to its facts: the question is a required, verbatim field).
pub const NEEDS_BOSS_REPLY_DESCRIPTION: &str = "The acting agent needs the Boss to answer a \
    question it cannot settle alone. Output shall include `question: <the question, verbatim>`.";
/// The description of the default `done` result of an invoke that declares no results.
pub const DONE_DESCRIPTION: &str = "The acting agent completed the behaviour.";
/// Context members the runtime owns: never declared, assigned or projected by a document.
pub const RUNTIME_FIELDS: [&str; 3] = ["pendingBossQuestion", "lastError", "bossReply"];
/// Event types the runtime owns: a document never declares them.
pub const RUNTIME_EVENTS: [&str; 3] = ["NO_ACTION", "BOSS_REPLY", "BOSS_INTERRUPT"];
