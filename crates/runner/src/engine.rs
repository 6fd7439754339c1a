//! The runner behind the [`Engine`] seam: [`RunnerEngine`].
//!
//! The [`PlayContext`] is built once, when the engine is made, and kept for the engine's life:
//! the engine borrows the playbook the caller keeps (`RunnerEngine<'p>`), so a step through the
//! seam costs a step and the conversion of its events, never a context. A borrow was chosen over
//! an owned, self-referential context (`Arc<Playbook>` plus `self_cell` or `unsafe`): it needs no
//! new dependency and no unsafe code, and every host we have keeps the playbook for the whole run
//! (decision H7 in `docs/design/host-contract.md`).

use serde::{Deserialize, Serialize};
use stagehand_playbook::{fingerprint, Playbook};
use stagehand_protocol::{Command, Engine, EngineError, OwnedEvent, Waiting};

use crate::context::PlayContext;
use crate::state::{Availability, Entropy, Moment, PlayState, Resume, Situation};

/// A run of a DialogueDown playbook as an [`Engine`].
#[derive(Debug, Clone)]
pub struct RunnerEngine<'p> {
    context: PlayContext<'p>,
    state: PlayState,
    fingerprint: String,
}

impl<'p> RunnerEngine<'p> {
    /// A run of `playbook`, its entropy seeded with `seed`. The context is built here, once.
    pub fn new(playbook: &'p Playbook, seed: u64) -> Self {
        RunnerEngine {
            context: PlayContext::new(playbook),
            state: PlayState::seeded(seed),
            fingerprint: fingerprint(playbook).to_hex(),
        }
    }

    /// The run's state.
    pub fn state(&self) -> &PlayState {
        &self.state
    }

    /// The context, built once.
    pub fn context(&self) -> &PlayContext<'p> {
        &self.context
    }
}

impl Engine for RunnerEngine<'_> {
    type Snapshot = RunnerSnapshot;

    fn take(&mut self, command: Command<'_>, events: &mut Vec<OwnedEvent>) {
        let mut reported = Vec::new();
        self.state = crate::step_into(&self.context, &self.state, command, &mut reported);
        events.extend(reported.into_iter().map(|event| event.into_owned()));
    }

    fn waiting(&self) -> Waiting {
        match self.state.situation {
            Situation::NotStarted => Waiting::Start,
            Situation::AtNode(_) => Waiting::Next,
            Situation::AwaitingDone { .. } => Waiting::Effect,
            Situation::AwaitingSupply { .. } => Waiting::Answers,
            Situation::AwaitingChoice { .. } => Waiting::Choice,
            Situation::AtEnd => Waiting::Ended,
        }
    }

    fn snapshot(&mut self) -> Result<RunnerSnapshot, EngineError> {
        Ok(RunnerSnapshot::of(&self.state))
    }

    fn restore(&mut self, snapshot: &RunnerSnapshot) -> Result<(), EngineError> {
        self.state = snapshot.to_state(self.context.playbook().nodes.len())?;
        Ok(())
    }

    fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }

    fn state_id(&self) -> String {
        let snapshot = RunnerSnapshot::of(&self.state);
        let mut id = snapshot.situation;
        if let Some(node) = snapshot.node {
            id.push_str(&format!(":{node}"));
        }
        if let Some(segment) = snapshot.segment {
            id.push_str(&format!("#{segment}"));
        }
        id
    }

    fn describe(&self) -> String {
        let description = crate::describe(&self.context, &self.state, None);
        let mut sentence = String::new();
        if let Some(text) = description.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            if let Some(speaker) = &description.speaker {
                sentence.push_str(&format!("{speaker}: "));
            }
            sentence.push_str(text);
            if !text.ends_with(['.', '!', '?', '…']) {
                sentence.push('.');
            }
            sentence.push(' ');
        }
        let waiting = description.waiting;
        sentence.push_str(&waiting[..1].to_uppercase());
        sentence.push_str(&waiting[1..]);
        sentence.push('.');
        sentence
    }

    fn anchors(&self) -> Vec<String> {
        self.context.playbook().anchors.keys().cloned().collect()
    }
}

/// A [`PlayState`] as plain data: where the run stands and the generator's state. Node indices
/// are checked against the playbook when it is restored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerSnapshot {
    /// The situation's name: `not-started`, `at-node`, `awaiting-done`, `awaiting-supply`,
    /// `awaiting-choice`, `at-end`.
    pub situation: String,
    /// The node the run stands at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<usize>,
    /// Awaiting done: the segment the line resumes from (none: from the node's end). Awaiting
    /// supply: the segment to play (none: the node is being left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<usize>,
    /// Awaiting a choice: the bit set of available options (none: all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available: Option<Vec<u64>>,
    /// Awaiting done or supply: the nodes the walk has passed since the person last had the turn
    /// (the endless-loop bound counts on from here).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub passed: usize,
    /// The generator's state.
    pub entropy: u64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl RunnerSnapshot {
    /// The snapshot of a state.
    pub fn of(state: &PlayState) -> RunnerSnapshot {
        let (situation, node, segment, available, passed) = match &state.situation {
            Situation::NotStarted => ("not-started", None, None, None, 0),
            Situation::AtNode(node) => ("at-node", Some(*node), None, None, 0),
            Situation::AwaitingDone { node, resume, passed } => {
                let segment = match resume {
                    Resume::From(s) => Some(*s),
                    Resume::FromNodeEnd => None,
                };
                ("awaiting-done", Some(*node), segment, None, *passed)
            }
            Situation::AwaitingSupply { node, moment, passed } => {
                let segment = match moment {
                    Moment::ToPlay(s) => Some(*s),
                    Moment::ToLeave => None,
                };
                ("awaiting-supply", Some(*node), segment, None, *passed)
            }
            Situation::AwaitingChoice { node, available } => {
                let available = match available {
                    Availability::All => None,
                    Availability::Only(words) => Some(words.to_vec()),
                };
                ("awaiting-choice", Some(*node), None, available, 0)
            }
            Situation::AtEnd => ("at-end", None, None, None, 0),
        };
        let situation = situation.to_owned();
        RunnerSnapshot { situation, node, segment, available, passed, entropy: state.entropy.state }
    }

    /// The state it records, checked against a playbook of `nodes` nodes.
    pub fn to_state(&self, nodes: usize) -> Result<PlayState, EngineError> {
        let node = || match self.node {
            Some(node) if node < nodes => Ok(node),
            Some(node) => {
                Err(EngineError::new(format!("the snapshot stands at node {node}; the playbook has {nodes}")))
            }
            None => Err(EngineError::new(format!("a snapshot {} names no node", self.situation))),
        };
        let situation = match self.situation.as_str() {
            "not-started" => Situation::NotStarted,
            "at-node" => Situation::AtNode(node()?),
            "awaiting-done" => Situation::AwaitingDone {
                node: node()?,
                resume: self.segment.map_or(Resume::FromNodeEnd, Resume::From),
                passed: self.passed,
            },
            "awaiting-supply" => Situation::AwaitingSupply {
                node: node()?,
                moment: self.segment.map_or(Moment::ToLeave, Moment::ToPlay),
                passed: self.passed,
            },
            "awaiting-choice" => Situation::AwaitingChoice {
                node: node()?,
                available: self
                    .available
                    .as_ref()
                    .map_or(Availability::All, |words| Availability::Only(words.clone().into_boxed_slice())),
            },
            "at-end" => Situation::AtEnd,
            other => {
                return Err(EngineError::new(format!("the snapshot names no situation the runner has: {other:?}")))
            }
        };
        Ok(PlayState { situation, entropy: Entropy { state: self.entropy } })
    }
}
