//! The lineup: which port answers each player, the Captain and the judge (PT9).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::binding::{Binding, BindingError, PortSpec};
use crate::port::{Abort, Port, PortError, PortErrorKind, PortReply, PortRequest, Who};

/// The bindings as given on the command line (`--player`, `--captain`, `--judge`): plain
/// data, kept in a parked record so a resumed run binds the same agents.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LineupSpec {
    /// The players, in the order given; each name once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<Binding>,
    /// The Captain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captain: Option<PortSpec>,
    /// The judge; the Captain's port when absent (as the contract's CLI does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<PortSpec>,
}

impl LineupSpec {
    /// Reads the flags: each `--player NAME=SPEC`, then `--captain SPEC` and `--judge SPEC`.
    /// A player bound twice (names compared without regard to ASCII case) is refused.
    pub fn parse(players: &[String], captain: Option<&str>, judge: Option<&str>) -> Result<LineupSpec, BindingError> {
        let mut bound = Vec::<Binding>::new();
        for text in players {
            let binding = Binding::parse(text)?;
            if bound.iter().any(|b| b.name.eq_ignore_ascii_case(&binding.name)) {
                return Err(BindingError::DuplicatePlayer { name: binding.name });
            }
            bound.push(binding);
        }
        Ok(LineupSpec {
            players: bound,
            captain: captain.map(PortSpec::parse).transpose()?,
            judge: judge.map(PortSpec::parse).transpose()?,
        })
    }

    /// Opens every port (exec ports run in `cwd`, the host's own when `None`).
    pub fn open(&self, cwd: Option<&Path>) -> Lineup {
        let mut lineup = Lineup::new();
        for binding in &self.players {
            lineup = lineup.with_player(binding.name.clone(), binding.spec.open(cwd));
        }
        if let Some(captain) = &self.captain {
            lineup = lineup.with_captain(captain.open(cwd));
        }
        if let Some(judge) = &self.judge {
            lineup = lineup.with_judge(judge.open(cwd));
        }
        lineup
    }
}

/// Open ports, one per player, and the Captain's and the judge's. Player names match without
/// regard to ASCII case, as the runtime resolves a player's id by lower-casing its name (PT9).
#[derive(Debug, Default)]
pub struct Lineup {
    players: BTreeMap<String, Box<dyn Port>>,
    captain: Option<Box<dyn Port>>,
    judge: Option<Box<dyn Port>>,
}

impl Lineup {
    /// An empty lineup.
    pub fn new() -> Lineup {
        Lineup::default()
    }

    /// The same lineup with `name` bound to `port` (replacing an earlier binding).
    pub fn with_player(mut self, name: impl Into<String>, port: Box<dyn Port>) -> Lineup {
        self.players.insert(name.into().to_ascii_lowercase(), port);
        self
    }

    /// The same lineup with the Captain bound to `port`.
    pub fn with_captain(mut self, port: Box<dyn Port>) -> Lineup {
        self.captain = Some(port);
        self
    }

    /// The same lineup with the judge bound to `port`.
    pub fn with_judge(mut self, port: Box<dyn Port>) -> Lineup {
        self.judge = Some(port);
        self
    }

    /// The port that answers `who`: a player's own, the Captain's, or the judge's (the
    /// Captain's when no judge is bound). `None` when nothing is bound.
    pub fn port(&self, who: &Who) -> Option<&dyn Port> {
        match who {
            Who::Player { name } => self.players.get(&name.to_ascii_lowercase()).map(|p| &**p),
            Who::Captain => self.captain.as_deref(),
            Who::Judge => self.judge.as_deref().or(self.captain.as_deref()),
        }
    }

    /// Of `needed` (e.g. the players a machine invokes, and `captain`/`judge` when it calls
    /// them), those no port answers, in the order given.
    pub fn unbound<'a>(&self, needed: impl IntoIterator<Item = &'a Who>) -> Vec<Who> {
        needed.into_iter().filter(|who| self.port(who).is_none()).cloned().collect()
    }

    /// Calls the port that answers the request's `who`; nothing bound is a `config` error.
    pub fn call(&self, request: &PortRequest, abort: &Abort) -> Result<PortReply, PortError> {
        let who = &request.who;
        let port = self.port(who).ok_or_else(|| {
            let flag = match who {
                Who::Player { name } => format!("--player {name}=…"),
                Who::Captain => "--captain …".to_owned(),
                Who::Judge => "--judge … (or --captain …)".to_owned(),
            };
            PortError::new(PortErrorKind::Config, format!("no port is bound for {who}: bind one with {flag}"))
        })?;
        port.call(request, abort)
    }
}
