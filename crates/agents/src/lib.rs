//! Agent playbooks: the third engine, to the `@sublang/playbook` runtime contract.
//!
//! This part holds the pure functions the runtime calls around its ports: prompt
//! composition ([`prompt`]), tolerant recovery of a judge's JSON reply ([`recover`]) and
//! adjudication of player output and Boss input ([`adjudicate`]). None of them does I/O;
//! decisions are recorded in `docs/design/agents-adjudication.md` (J1, J2, …).

pub mod adjudicate;
pub mod prompt;
pub mod recover;
