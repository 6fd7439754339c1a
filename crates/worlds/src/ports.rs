//! A world that makes an agent playbook's port calls with real ports (`--player NAME=exec:…`,
//! `--captain`, `--judge`, and the machine's scripts), beside any other world (decision H45:
//! the engine reports `call`, the world answers it).

use serde::{Deserialize, Serialize};
use stagehand_agents::machine::{Invoke, Machine};
use stagehand_playbook::Fragment;
use stagehand_ports::{BindingError, LineupSpec, Ports, ScriptOptions};
use stagehand_protocol::{Answer, AnswerKind, PortAnswer, PortCall};

use crate::{World, WorldError};

/// The port bindings of a run, as its parked record keeps them: the flags as given and the
/// directory commands and scripts run in. Never a secret: an `openai:` key is read from the
/// environment when the ports open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Bindings {
    /// `--player`, `--captain`, `--judge`.
    pub lineup: LineupSpec,
    /// Where commands and scripts run (absolute).
    pub cwd: String,
}

impl Bindings {
    /// Reads the flags: each `--player NAME=SPEC`, then `--captain SPEC` and `--judge SPEC`,
    /// run in `cwd`. `None` when no flag binds anything.
    pub fn parse(
        players: &[String],
        captain: Option<&str>,
        judge: Option<&str>,
        cwd: &str,
    ) -> Result<Option<Bindings>, BindingError> {
        if players.is_empty() && captain.is_none() && judge.is_none() {
            return Ok(None);
        }
        Ok(Some(Bindings { lineup: LineupSpec::parse(players, captain, judge)?, cwd: cwd.to_owned() }))
    }

    /// Opens the ports.
    pub fn open(&self) -> Ports {
        let cwd = std::path::Path::new(&self.cwd);
        let mut ports = Ports::new(self.lineup.open(Some(cwd)));
        ports.scripts = ScriptOptions { cwd: Some(cwd.to_path_buf()), ..ScriptOptions::default() };
        ports
    }
}

/// The flags a run of `machine` still needs: `--player NAME=…` for each player no binding
/// names, `--captain` when a state calls the Captain, and `--judge` (or `--captain`, which the
/// judge falls back to) always, since the runtime may ask the judge at any turn. Empty when
/// everything is bound.
pub fn unbound(machine: &Machine, bindings: Option<&Bindings>) -> Vec<String> {
    let lineup = bindings.map(|b| &b.lineup);
    let bound = |name: &str| lineup.is_some_and(|l| l.players.iter().any(|p| p.name.eq_ignore_ascii_case(name)));
    let captain = lineup.is_some_and(|l| l.captain.is_some());
    let mut missing: Vec<String> = Vec::new();
    let mut needs_captain = false;
    for state in &machine.states {
        match &state.invoke {
            Some(Invoke::Player { player, .. }) if !bound(player) => {
                let flag = format!("--player {player}=…");
                if !missing.contains(&flag) {
                    missing.push(flag);
                }
            }
            Some(Invoke::Captain { .. }) => needs_captain = true,
            _ => {}
        }
    }
    if needs_captain && !captain {
        missing.push("--captain …".to_owned());
    }
    if !captain && lineup.is_none_or(|l| l.judge.is_none()) {
        missing.push("--judge …".to_owned());
    }
    missing
}

/// A world whose port calls are made with real ports; everything else goes to `inner`.
pub struct Ported {
    /// The world itself.
    pub inner: Box<dyn World>,
    /// The ports.
    pub ports: Ports,
}

impl Ported {
    /// `inner` with the ports `bindings` open, or `inner` alone without bindings.
    pub fn bind(inner: Box<dyn World>, bindings: Option<&Bindings>) -> Box<dyn World> {
        match bindings {
            Some(bindings) => Box::new(Ported { inner, ports: bindings.open() }),
            None => inner,
        }
    }
}

impl World for Ported {
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        self.inner.answer(key, kind)
    }

    fn perform(&mut self, effect: &Fragment) -> Result<(), WorldError> {
        self.inner.perform(effect)
    }

    fn call(&mut self, call: &PortCall) -> Option<PortAnswer> {
        Some(self.ports.answer(call))
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        self.inner.reset()
    }

    fn keeps_state(&self) -> bool {
        self.inner.keeps_state()
    }

    fn take_log(&mut self) -> Vec<String> {
        self.inner.take_log()
    }
}
