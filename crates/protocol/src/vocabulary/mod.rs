//! The vocabulary: what a driver sends ([`Command`]), what a step reports ([`Event`]), what the
//! world says ([`Answer`]), and why a command was refused ([`RefusalReason`]).
//!
//! Names follow the conformance corpus, so a fixture, the harness and the code read in one
//! vocabulary. Reports are in the past tense (`Said`, `Continued`, `Ended`, `Refused`);
//! requests are named for what they ask (`Perform`, `Resolve`, `Offer`).

mod answer;
mod command;
mod event;
mod refusal;

pub use answer::same_key;
pub use answer::{Answer, AnswerKind, Answers, Entry, Question};
pub use command::Command;
pub use event::{Event, OfferedOption, OwnedEvent};
pub use refusal::RefusalReason;
