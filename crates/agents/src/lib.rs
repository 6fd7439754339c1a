//! Agent playbooks: the third engine, to the `@sublang/playbook` runtime contract.
//!
//! The data-only machine document an agent playbook is made of ([`machine::Machine`]), its
//! checking reader ([`machine::read_json`], [`machine::read_toml`]) and the analyses
//! `stagehand check` reports ([`machine::check`]); decisions in `docs/design/agents.md`
//! (A1, A2, …). Beside it, the pure functions the runtime calls around its ports: prompt
//! composition ([`prompt`]), tolerant recovery of a judge's JSON reply ([`recover`]) and
//! adjudication of player output and Boss input ([`adjudicate`]). None of them does I/O;
//! those decisions are in `docs/design/agents-adjudication.md` (J1, J2, …). The sans-IO
//! runtime is [`runtime`]; [`AgentEngine`] puts it behind the protocol's `Engine` trait.

pub mod adjudicate;
pub mod engine;
pub mod machine;
pub mod prompt;
pub mod recover;
pub mod runtime;
pub mod scenario;

pub use engine::{AgentEngine, AgentSnapshot};
