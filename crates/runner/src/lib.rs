//! Stagehand's runner: plays a DialogueDown [`Playbook`](stagehand_playbook::Playbook) as a
//! total, pure, deterministic step function.
//!
//! ```text
//! step(&context, &state, command) -> StepResult { state, events }
//! ```
//!
//! The host owns the game world. The runner asks it (`Resolve`, answered by `Supply`), asks it to
//! act (`Perform`, answered by `Done` or `Failed`), offers the player choices (`Offer`, answered
//! by `Choose`), reports what was said (`Said`, `Continued`) and that the run `Ended`, and refuses
//! what it cannot take (`Refused`, with a reason from a closed set). A step never panics, never
//! does I/O, and sees no clock and no randomness but the [`Entropy`] carried in the state.
//!
//! ```
//! use stagehand_playbook::{smallvec, Edge, Fragment, Node, Playbook, Speaker};
//! use stagehand_runner::{step, Command, Event, PlayContext, PlayState};
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
//! let context = PlayContext::new(&playbook);
//! let started = step(&context, &PlayState::new(), Command::start());
//! assert!(matches!(started.events[0], Event::Said { speaker: Some("Alice"), .. }));
//! let next = step(&context, &started.state, Command::Next);
//! assert_eq!(next.events, [Event::Ended]);
//! ```
//!
//! The layout follows the design notes: the protocol (commands, events, answers, reasons) lives
//! in `stagehand-protocol` and is re-exported here unchanged,
//! `state` (situations), `context` (what is read off the playbook once), and `stepping` (the
//! protocol matrix, then one module per part of a step).

mod context;
mod describe;
mod engine;
mod state;
mod stepping;

pub use context::{NodeAsks, PlayContext};
pub use describe::{describe, Description, WayOut};
pub use engine::{PreparedPlaybook, RunnerEngine, RunnerSnapshot};
pub use stagehand_protocol::{
    Answer, AnswerKind, Answers, Command, Entry, Event, OfferedOption, OwnedEvent, Question, RefusalReason,
};

/// The protocol vocabulary under its old path inside the runner, so the runner's own modules
/// read `crate::protocol::...` as before the move to `stagehand-protocol`.
pub(crate) mod protocol {
    pub(crate) use stagehand_protocol::vocabulary::*;
}
pub use state::{Availability, Entropy, Moment, PlayState, Resume, Situation};

/// What one step produced: the state to hand back next time, and the events, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct StepResult<'c> {
    /// The state after the step.
    pub state: PlayState,
    /// What the step reported, in order.
    pub events: Vec<Event<'c>>,
}

/// Takes one command. Total and deterministic: the same context, state and command always give
/// the same result, and a command the run cannot take is refused as an event, never a panic.
pub fn step<'c, 'p: 'c>(context: &'c PlayContext<'p>, state: &PlayState, command: Command<'_>) -> StepResult<'c> {
    let mut events = Vec::new();
    let state = step_into(context, state, command, &mut events);
    StepResult { state, events }
}

/// [`step`], appending the events to a buffer the caller reuses instead of allocating one per
/// step: a hot loop that clears and reuses `events` steps without allocating for lines and jumps.
pub fn step_into<'c, 'p: 'c>(
    context: &'c PlayContext<'p>,
    state: &PlayState,
    command: Command<'_>,
    events: &mut Vec<Event<'c>>,
) -> PlayState {
    let mut stepper = stepping::Stepper { context, events, entropy: state.entropy, passed: 0 };
    let situation = stepper.step(&state.situation, command);
    PlayState { situation, entropy: stepper.entropy }
}
