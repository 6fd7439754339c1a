//! Answering the agent runtime's port calls with real ports: the host's side of
//! `Event::Call` (decision PT11). A player, Captain or judge call goes to the [`Lineup`]; a
//! script runs with [`run_script`]; a nested playbook is answered `suspended` (a one-shot host
//! cannot drive a child, as the contract's CLI says); disposing a child is done at once.

use stagehand_agents::runtime::{PlaybookCallStart, PortAnswer, PortCall};

use crate::lineup::Lineup;
use crate::port::{Abort, CallResult, FailureClass, FromOutcome, PortRequest, Who};
use crate::script::{run_script, ScriptOptions, ScriptRequest};

/// The ports a host answers an agent runtime's calls with.
#[derive(Debug)]
pub struct Ports {
    /// The players, the Captain and the judge.
    pub lineup: Lineup,
    /// Where and how the machine's scripts run.
    pub scripts: ScriptOptions,
    /// The time limit of each agent call, in milliseconds.
    pub timeout_ms: u64,
    /// The signal every call watches.
    pub abort: Abort,
}

impl Ports {
    /// Ports for `lineup`, scripts run in the host's directory, the default time limit.
    pub fn new(lineup: Lineup) -> Ports {
        Ports { lineup, scripts: ScriptOptions::default(), timeout_ms: crate::DEFAULT_TIMEOUT_MS, abort: Abort::new() }
    }

    /// Makes `call` and gives the runtime's typed answer. A control-plane failure (nothing
    /// bound, output that cannot be read) is the answer `threw`; an abort is `aborted`.
    pub fn answer(&self, call: &PortCall) -> PortAnswer {
        let agent = |who: Who, prompt: &str, resume: Option<&String>| {
            let mut request = PortRequest::new(who, prompt).with_timeout_ms(self.timeout_ms);
            request.resume = resume.cloned();
            CallResult::from_outcome(self.lineup.call(&request, &self.abort))
        };
        let threw = |e: crate::PortError| match e.class() {
            FailureClass::Abort => PortAnswer::Aborted,
            _ => PortAnswer::Threw { error: e.normalized() },
        };
        match call {
            PortCall::Player { player_id, prompt, resume, .. } => {
                match agent(Who::player(player_id.clone()), prompt, resume.as_ref()) {
                    Ok(result) => PortAnswer::Player { result },
                    Err(e) => threw(e),
                }
            }
            PortCall::Captain { prompt, .. } => match agent(Who::Captain, prompt, None) {
                Ok(result) => PortAnswer::Captain { result },
                Err(e) => threw(e),
            },
            PortCall::Judge { prompt, .. } => {
                let request = PortRequest::new(Who::Judge, prompt.clone()).with_timeout_ms(self.timeout_ms);
                match self.lineup.call(&request, &self.abort) {
                    Ok(reply) => PortAnswer::Judge { text: reply.final_text },
                    Err(e) => threw(e),
                }
            }
            PortCall::Playbook { call_id, .. } => PortAnswer::Playbook {
                start: PlaybookCallStart::Suspended { child_session_id: format!("{call_id}-child") },
            },
            PortCall::Script { command, timeout_ms, .. } => {
                let request = ScriptRequest { command: command.clone(), timeout_ms: *timeout_ms };
                match run_script(&request, &self.scripts, &self.abort) {
                    Ok(outcome) => PortAnswer::Script { exit_code: outcome.exit_code.filter(|_| !outcome.timed_out) },
                    Err(e) if e.class() == FailureClass::Abort => PortAnswer::Aborted,
                    // A script that cannot start has no exit status: it selects `failed`.
                    Err(_) => PortAnswer::Script { exit_code: None },
                }
            }
            PortCall::DisposeChild { .. } => PortAnswer::Disposed,
        }
    }
}
