//! What the harness holds a session against: any engine that speaks the runner's protocol.

use serde_json::Value;
use stagehand_playbook::Playbook;
use stagehand_runner::{step, Answer, Answers, Command, OwnedEvent, PlayContext, PlayState, RefusalReason, Situation};

use crate::fixture::Send;

/// An engine a session can be held against: the DialogueDown runner, the ChatMapper engine, or
/// anything else that takes the runner's commands and reports its events.
pub trait Engine {
    /// Takes one command and reports what it did.
    fn send(&mut self, command: Command<'static>) -> Vec<OwnedEvent>;

    /// Whether the run has ended (so a session that stops here stops with it).
    fn is_finished(&self) -> bool;

    /// The engine's state for a fixture's `final` claims (variables, statuses), if it has any.
    fn observe(&self) -> Option<Value> {
        None
    }
}

/// The DialogueDown runner as an [`Engine`].
#[derive(Debug, Clone)]
pub struct RunnerEngine {
    playbook: Playbook,
    state: PlayState,
}

impl RunnerEngine {
    /// A run of `playbook`, its entropy seeded with `seed`.
    pub fn new(playbook: Playbook, seed: u64) -> Self {
        RunnerEngine { playbook, state: PlayState::seeded(seed) }
    }

    /// The run's state.
    pub fn state(&self) -> &PlayState {
        &self.state
    }
}

impl Engine for RunnerEngine {
    fn send(&mut self, command: Command<'static>) -> Vec<OwnedEvent> {
        // A context per step keeps the engine free of self-reference; fixtures are small.
        let context = PlayContext::new(&self.playbook);
        let result = step(&context, &self.state, command);
        self.state = result.state;
        result.events.into_iter().map(|event| event.into_owned()).collect()
    }

    fn is_finished(&self) -> bool {
        self.state.situation == Situation::AtEnd
    }
}

/// Reads a fixture's send as a command, as a reader of commands off a wire does: an answer that
/// is not a truth, words or a number is refused here, before any engine sees it.
pub fn command(send: &Send) -> Result<Command<'static>, (RefusalReason, String)> {
    Ok(match send {
        Send::Next => Command::Next,
        Send::Done => Command::Done,
        Send::Choose(index) => Command::Choose(*index),
        Send::Start(anchor) => Command::start_at(anchor.clone()),
        Send::Failed(why) => Command::failed(why.clone()),
        Send::Supply(map) => {
            let mut answers = Answers::with_capacity(map.len());
            for (key, value) in map {
                let answer = match value {
                    Value::Bool(b) => Answer::Truth(*b),
                    Value::String(s) => Answer::Text(s.clone().into()),
                    Value::Number(n) => Answer::Number(n.as_f64().unwrap_or(f64::NAN)),
                    other => {
                        return Err((
                            RefusalReason::WrongAnswerKind,
                            format!("the answer for {key:?} is {other}, which is neither a truth, words nor a number"),
                        ))
                    }
                };
                answers.insert(key.clone(), answer);
            }
            Command::Supply(answers)
        }
        Send::Describe => {
            return Err((RefusalReason::UnknownCommand, "describe is a query, not a command".to_owned()));
        }
    })
}
