//! The snapshot, schema 1 (§1.8): its shape, capture and validation. The `machine` member is
//! the runtime's own (hosts treat it as opaque). The contract's snapshot leaves out the `apply`
//! receipts and the last Boss event; the engine's also carries them, beyond 6.0 (A19).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::core::{BossEvent, Core, Phase, Position, Question, Sequences};
use super::wire::{NormalizedError, PendingBossQuestion, PlaybookState, Receipt};
use crate::machine::{Invoke, Machine, Tag};

/// A runtime snapshot, schema 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    /// Always 1.
    pub schema_version: u32,
    /// The playbook.
    pub playbook_id: String,
    /// The machine's persisted state (opaque to hosts).
    pub machine: Value,
    /// `{player: token}`.
    pub player_resume_tokens: BTreeMap<String, String>,
    /// The counters: the contract's members only (`captainCall` when the machine has a Captain
    /// state); the runtime's apply counter travels in `machine`.
    #[serde(with = "contract_sequences")]
    pub sequences: Sequences,
    /// The descriptor at capture.
    pub state: PlaybookState,
    /// The pending questions at capture.
    pub pending_boss_questions: Vec<PendingBossQuestion>,
}

/// The `machine` member.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Persisted {
    position: Position,
    context: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pending_boss_questions: Vec<Question>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_error: Option<NormalizedError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_boss_event: Option<BossEvent>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    apply_receipts: BTreeMap<String, Receipt>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    call_signatures: Vec<[String; 2]>,
    /// The last `apply-<n>`, so apply call ids never repeat after a restore (A19).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    apply_call: Option<u64>,
}

/// `sequences` as §1.8 spells it: `{trace, turn, judgeCall, playerCall, playbookCall,
/// captainCall?}`, any other key refused.
mod contract_sequences {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Sequences;

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Wire {
        trace: u64,
        turn: u64,
        judge_call: u64,
        player_call: u64,
        playbook_call: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        captain_call: Option<u64>,
    }

    pub(super) fn serialize<S: Serializer>(seq: &Sequences, s: S) -> Result<S::Ok, S::Error> {
        Wire {
            trace: seq.trace,
            turn: seq.turn,
            judge_call: seq.judge_call,
            player_call: seq.player_call,
            playbook_call: seq.playbook_call,
            captain_call: seq.captain_call,
        }
        .serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Sequences, D::Error> {
        let w = Wire::deserialize(d)?;
        Ok(Sequences {
            trace: w.trace,
            turn: w.turn,
            judge_call: w.judge_call,
            player_call: w.player_call,
            playbook_call: w.playbook_call,
            captain_call: w.captain_call,
            apply_call: None,
        })
    }
}

/// Why a snapshot was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("snapshot refused: {0}")]
pub struct SnapshotError(pub String);

/// The snapshot of `core`. §1.8 does not persist the recorded `apply` receipts or the last Boss
/// event ("they live only in the process"); `process_state` keeps them too, for a host that
/// carries one process's session across its own restarts (the engine, A19).
pub(crate) fn capture(m: &Machine, core: &Core, process_state: bool) -> Snapshot {
    let persisted = Persisted {
        position: core.position.clone(),
        context: core.context.clone(),
        pending_boss_questions: core.pending.clone(),
        last_error: core.last_error.clone(),
        last_boss_event: core.last_boss_event.clone().filter(|_| process_state),
        apply_receipts: if process_state { core.receipts.clone() } else { BTreeMap::new() },
        call_signatures: core.call_signatures.clone(),
        apply_call: core.seq.apply_call.filter(|n| *n > 0),
    };
    let mut sequences = core.seq.clone();
    // `captainCall` is written for a machine that can call the Captain (as upstream does).
    sequences.captain_call = has_captain(m).then(|| sequences.captain_call.unwrap_or(0));
    sequences.apply_call = None;
    Snapshot {
        schema_version: 1,
        playbook_id: m.id.clone(),
        machine: serde_json::to_value(persisted).unwrap_or(Value::Null),
        player_resume_tokens: core.tokens.clone(),
        sequences,
        state: core.descriptor(m),
        pending_boss_questions: core.pending.iter().map(Question::public).collect(),
    }
}

impl Snapshot {
    /// Every counter the snapshot keeps: `sequences` with the apply counter its `machine`
    /// member carries.
    pub fn counters(&self) -> Sequences {
        let mut seq = self.sequences.clone();
        seq.apply_call = self.machine.get("applyCall").and_then(Value::as_u64);
        seq
    }
}

/// Whether the machine has a Captain state, and so a `captainCall` counter in `sequences`.
fn has_captain(m: &Machine) -> bool {
    m.states.iter().any(|s| matches!(s.invoke, Some(Invoke::Captain { .. })))
}

/// Reads a snapshot from JSON text, refusing unknown keys.
pub fn parse_snapshot(text: &str) -> Result<Snapshot, SnapshotError> {
    serde_json::from_str(text).map_err(|e| SnapshotError(e.to_string()))
}

pub(crate) fn validate(m: &Machine, snap: &Snapshot) -> Result<Core, SnapshotError> {
    let bad = |s: &str| Err(SnapshotError(s.to_owned()));
    if snap.schema_version != 1 {
        return Err(SnapshotError(format!("schema {} (expected 1)", snap.schema_version)));
    }
    if snap.playbook_id != m.id {
        return Err(SnapshotError(format!("playbook `{}` (expected `{}`)", snap.playbook_id, m.id)));
    }
    let p: Persisted =
        serde_json::from_value(snap.machine.clone()).map_err(|e| SnapshotError(format!("machine: {e}")))?;
    let ids: Vec<&String> = match &p.position {
        Position::At(id) => vec![id],
        Position::Group { group, regions } => {
            let Some(g) = m.state(group) else { return bad("an unknown parallel group") };
            if g.parallel.len() != regions.len() || g.parallel.iter().zip(regions).any(|(a, r)| a != &r.member) {
                return bad("regions that are not the group's members");
            }
            if regions.iter().any(|r| r.phase == Phase::Running) {
                return bad("a parallel region still running (not a safe capture point)");
            }
            std::iter::once(group).chain(regions.iter().map(|r| &r.member)).collect()
        }
    };
    for id in &ids {
        let Some(s) = m.state(id) else { return Err(SnapshotError(format!("no state `{id}`"))) };
        if s.tags.contains(&Tag::Suspended) {
            return bad("a state tagged suspended with no suspended-call descriptor");
        }
        if s.is_final {
            return bad("a final state (the restored machine would not be active)");
        }
    }
    if let Position::At(id) = &p.position {
        if m.state(id).is_some_and(|s| s.invoke.is_some() || !s.parallel.is_empty()) {
            return bad("a working state (not a safe capture point)");
        }
    }
    for k in p.context.keys() {
        if !m.context.iter().any(|f| &f.name == k) {
            return Err(SnapshotError(format!("an undeclared context field `{k}`")));
        }
    }
    for t in snap.player_resume_tokens.values() {
        if t.trim().is_empty() {
            return bad("a blank resume token");
        }
    }
    let mut seq = snap.sequences.clone();
    if seq.captain_call.is_none() && has_captain(m) {
        // An older snapshot: the trace counter is a collision-free floor.
        seq.captain_call = Some(seq.trace);
    }
    let mut core = Core::initial(m);
    core.position = p.position;
    core.context = p.context;
    core.pending = p.pending_boss_questions;
    core.last_error = p.last_error;
    core.last_boss_event = p.last_boss_event;
    core.receipts = p.apply_receipts;
    core.call_signatures = p.call_signatures;
    core.tokens = snap.player_resume_tokens.clone();
    seq.apply_call = p.apply_call;
    core.seq = seq;
    if core.pending.iter().map(Question::public).collect::<Vec<_>>() != snap.pending_boss_questions {
        return bad("pendingBossQuestions that disagree with the machine");
    }
    if core.descriptor(m) != snap.state {
        return bad("a state descriptor that disagrees with the machine");
    }
    Ok(core)
}

impl super::Runtime {
    /// Instead of `init` or `restore`: binds a session a host kept after it reached the final
    /// state `state_id`, its trace's last sequence number `last_sequence`, only so that it can
    /// end as it would have in process. §1.8 has no snapshot there (a finished actor is not a
    /// safe capture point, and `restore` rejects it), but the session has not ended until it is
    /// disposed (§1.4), so its `dispose` emits `session.disposed` with the final descriptor,
    /// numbered on (A50). It emits nothing now.
    pub fn restore_ended(
        &mut self,
        session: super::Session,
        state_id: &str,
        last_sequence: u64,
    ) -> Result<(), super::RuntimeError> {
        self.unused()?;
        session.check(&self.machine)?;
        if !self.machine.state(state_id).is_some_and(|s| s.is_final) {
            return Err(SnapshotError(format!("`{state_id}` is not a final state of the machine")).into());
        }
        let mut core = Core::initial(&self.machine);
        core.position = Position::At(state_id.to_owned());
        core.done = true;
        core.seq.trace = last_sequence;
        self.core = core;
        self.session = Some(session);
        self.life = super::Life::Bound;
        Ok(())
    }
}
