//! The runtime's state between boundaries ([`Core`]) and one play of a boundary ([`Run`]):
//! state descriptors, the trace envelope, status lines and entering states.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::io::{Emission, Io, TraceEvent};
use super::wire::{MachineStatus, NormalizedError, PendingBossQuestion, PlaybookState, Receipt};
use super::{Options, Session};
use crate::adjudicate::classify::EventContract;
use crate::machine::{Invoke, Machine, State, Tag, AWAIT_BOSS_REPLY, DONE, FAILED, READY};

/// Where the machine stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) enum Position {
    /// In one state.
    At(String),
    /// In a parallel group, one region per member.
    Group {
        /// The group state.
        group: String,
        /// The regions, in member order.
        regions: Vec<Region>,
    },
}

/// One region of a parallel group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Region {
    /// The member state.
    pub member: String,
    /// Where the region stands.
    pub phase: Phase,
}

/// Where a region stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) enum Phase {
    /// Its member's work is still to do.
    Running,
    /// Done; its staged result fields, promoted at the join.
    Done(Map<String, Value>),
    /// Waiting on a keyed Boss question.
    Waiting,
}

/// A pending question as the machine holds it (§1.9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Question {
    pub question_id: String,
    pub resume_state_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_item: Option<String>,
    pub player: String,
    pub question: String,
}

impl Question {
    pub fn public(&self) -> PendingBossQuestion {
        PendingBossQuestion {
            question_id: self.question_id.clone(),
            player: self.player.clone(),
            question: self.question.clone(),
            source_item: self.source_item.clone(),
        }
    }
}

/// The runtime's counters (the snapshot's `sequences`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Sequences {
    /// The last trace sequence number.
    pub trace: u64,
    /// The last turn id.
    pub turn: u64,
    /// The last `judge-<n>`.
    pub judge_call: u64,
    /// The last `player-<n>`.
    pub player_call: u64,
    /// The last `playbook-<n>`.
    pub playbook_call: u64,
    /// The last `captain-<n>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captain_call: Option<u64>,
    /// The last `apply-<n>` (beyond 6.0: kept so apply call ids never repeat after restore).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_call: Option<u64>,
}

impl Sequences {
    /// Each counter the higher of `self`'s and `other`'s (an absent one counting as 0, and
    /// absent when it is 0, so two ways of writing none compare equal).
    pub fn highest(&self, other: &Sequences) -> Sequences {
        let either = |a: Option<u64>, b: Option<u64>| Some(a.unwrap_or(0).max(b.unwrap_or(0))).filter(|n| *n > 0);
        Sequences {
            trace: self.trace.max(other.trace),
            turn: self.turn.max(other.turn),
            judge_call: self.judge_call.max(other.judge_call),
            player_call: self.player_call.max(other.player_call),
            playbook_call: self.playbook_call.max(other.playbook_call),
            captain_call: either(self.captain_call, other.captain_call),
            apply_call: either(self.apply_call, other.apply_call),
        }
    }
}

/// A Boss event as the machine takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct BossEvent {
    #[serde(rename = "type")]
    pub event_type: String,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub fields: Map<String, Value>,
}

/// A nested call waiting on its child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SuspendedCall {
    pub call_id: String,
    pub playbook_id: String,
    pub child_session_id: String,
    pub turn_id: Option<u64>,
    pub state_id: String,
    /// The text the call handed its child (its finish repeats the start's identity).
    #[serde(default)]
    pub text: String,
}

/// Everything that survives between boundaries.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Core {
    pub position: Position,
    pub context: Map<String, Value>,
    pub pending: Vec<Question>,
    pub last_error: Option<NormalizedError>,
    pub done: bool,
    pub output: Option<Value>,
    pub tokens: BTreeMap<String, String>,
    pub seq: Sequences,
    pub last_boss_event: Option<BossEvent>,
    pub receipts: BTreeMap<String, Receipt>,
    /// The `[playbookId, text]` of every dynamic nested call this run made (§2.3: one is not
    /// made twice); a run that starts again from a final state starts with none.
    pub call_signatures: Vec<[String; 2]>,
    pub suspended: Option<SuspendedCall>,
    pub stopped: bool,
}

impl Core {
    pub fn initial(m: &Machine) -> Self {
        Core {
            position: Position::At(m.initial.clone()),
            context: initial_context(m),
            pending: Vec::new(),
            last_error: None,
            done: false,
            output: None,
            tokens: BTreeMap::new(),
            seq: Sequences::default(),
            last_boss_event: None,
            receipts: BTreeMap::new(),
            call_signatures: Vec::new(),
            suspended: None,
            stopped: false,
        }
    }

    /// The one active state id, for a single position.
    pub fn single(&self) -> Option<&str> {
        match &self.position {
            Position::At(id) => Some(id),
            Position::Group { .. } => None,
        }
    }

    /// The state descriptor (§1.2 `PlaybookState`).
    pub fn descriptor(&self, m: &Machine) -> PlaybookState {
        self.descriptor_by(|id| m.state(id))
    }

    /// The state descriptor, finding states with `find`.
    pub fn descriptor_by<'m>(&self, find: impl Fn(&str) -> Option<&'m State>) -> PlaybookState {
        let (value, ids) = match &self.position {
            Position::At(id) => (Value::String(id.clone()), vec![id.clone()]),
            Position::Group { group, regions } => {
                let mut phases = Map::new();
                let mut ids = vec![group.clone()];
                for r in regions {
                    let phase = match r.phase {
                        Phase::Running => "running",
                        Phase::Done(_) => "done",
                        Phase::Waiting => "waiting",
                    };
                    phases.insert(r.member.clone(), Value::String(phase.into()));
                    if !matches!(r.phase, Phase::Done(_)) {
                        ids.push(r.member.clone());
                    }
                }
                (json!({ group.clone(): phases }), ids)
            }
        };
        let mut tags: Vec<String> = Vec::new();
        match &self.position {
            Position::At(id) => {
                if let Some(s) = find(id) {
                    tags.extend(s.tags.iter().map(|t| tag_name(*t).to_owned()));
                }
            }
            // A group works while a region runs, and rests (parked) once every region is done
            // or waits on a keyed Boss question.
            Position::Group { regions, .. } => {
                let running = regions.iter().any(|r| r.phase == Phase::Running);
                tags.push(if running { "playbook.busy" } else { "playbook.parked" }.to_owned());
            }
        }
        tags.dedup();
        tags.sort();
        let status = if self.stopped {
            MachineStatus::Stopped
        } else if self.done {
            MachineStatus::Done
        } else {
            MachineStatus::Active
        };
        let quiescent = !tags.iter().any(|t| t == "playbook.busy") || self.suspended.is_some();
        let state_id = (ids.len() == 1).then(|| ids[0].clone());
        PlaybookState { value, active_state_ids: ids, tags, status, quiescent, state_id }
    }
}

pub(crate) fn initial_context(m: &Machine) -> Map<String, Value> {
    m.context.iter().filter_map(|f| f.initial.clone().map(|v| (f.name.clone(), v))).collect()
}

pub(crate) fn tag_name(t: Tag) -> &'static str {
    match t {
        Tag::Busy => "playbook.busy",
        Tag::Parked => "playbook.parked",
        Tag::Suspended => "playbook.suspended",
    }
}

/// What the runtime derives from its machine once, instead of at every play (A31): the states
/// by id, and the event contracts the judge classifies Boss text against.
#[derive(Debug, Clone)]
pub(crate) struct Derived {
    /// An open-addressing table of state indices plus one (0: empty), its length a power of two
    /// at least twice the number of states, probed linearly from the id's FNV-1a hash.
    slots: Vec<usize>,
    pub contracts: Vec<EventContract>,
}

impl Derived {
    pub fn new(m: &Machine) -> Self {
        let len = (m.states.len() * 2).next_power_of_two().max(8);
        let mut slots = vec![0; len];
        for (i, s) in m.states.iter().enumerate() {
            let mut j = fnv(&s.id) & (len - 1);
            loop {
                match slots[j] {
                    0 => {
                        slots[j] = i + 1;
                        break;
                    }
                    // The first of duplicate ids wins, as `Machine::state` finds it.
                    k if m.states.get(k - 1).is_some_and(|t| t.id == s.id) => break,
                    _ => j = (j + 1) & (len - 1),
                }
            }
        }
        Derived { slots, contracts: super::turn::contracts(m) }
    }

    /// `m.state(id)` in one probe or a few; `m` is the machine this was derived from.
    pub fn state<'m>(&self, m: &'m Machine, id: &str) -> Option<&'m State> {
        let mask = self.slots.len() - 1;
        let mut j = fnv(id) & mask;
        loop {
            let s = m.states.get(self.slots[j].checked_sub(1)?)?;
            if s.id == id {
                return Some(s);
            }
            j = (j + 1) & mask;
        }
    }
}

/// FNV-1a: state ids are short, and a table lookup must cost less than the scan it replaces.
fn fnv(s: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as usize
}

/// One play of a boundary.
pub(crate) struct Run<'a> {
    pub m: &'a Machine,
    pub derived: &'a Derived,
    pub opts: &'a Options,
    pub session: &'a Session,
    pub core: Core,
    pub io: Io<'a>,
    pub turn: Option<u64>,
    /// The first control-plane error of the boundary.
    pub control: Option<NormalizedError>,
    /// A Boss event was sent to the machine in this boundary.
    pub event_sent: bool,
    /// A resumed question for the next invoke of this state: (state, question, reply).
    pub continuation: Option<(String, String, String)>,
}

impl<'a> Run<'a> {
    /// The state `id` of the machine.
    pub fn find(&self, id: &str) -> Option<&'a State> {
        self.derived.state(self.m, id)
    }

    /// Emits one trace event with the next sequence number.
    pub fn trace(&mut self, trace_type: &str, call_id: Option<&str>, payload: Value) {
        self.trace_at(trace_type, self.turn, call_id, payload);
    }

    /// [`Run::trace`] with the payload built only when the event leaves (not in a replay, A30).
    pub fn trace_with(&mut self, trace_type: &str, call_id: Option<&str>, payload: impl FnOnce() -> Value) {
        if self.io.replaying() {
            self.core.seq.trace += 1;
            return;
        }
        self.trace(trace_type, call_id, payload());
    }

    pub fn trace_at(&mut self, trace_type: &str, turn: Option<u64>, call_id: Option<&str>, payload: Value) {
        self.core.seq.trace += 1;
        if self.io.replaying() {
            // Handed out by an earlier play: only its sequence number counts (A30).
            return;
        }
        let s = self.session;
        let event = TraceEvent {
            schema_version: 2,
            session_id: s.session_id.clone(),
            playbook_id: s.playbook_id.clone(),
            root_session_id: s.root_session_id.clone(),
            parent_session_id: s.parent_session_id.clone(),
            parent_call_id: s.parent_call_id.clone(),
            depth: s.depth,
            sequence: self.core.seq.trace,
            timestamp: self.io.now,
            trace_type: trace_type.to_owned(),
            turn_id: turn,
            call_id: call_id.map(str::to_owned),
            payload,
        };
        self.io.emit(Emission::Trace { event });
    }

    /// The descriptor now.
    pub fn state(&self) -> PlaybookState {
        let (m, derived) = (self.m, self.derived);
        self.core.descriptor_by(|id| derived.state(m, id))
    }

    /// The descriptor now as JSON, and its `stateId`.
    pub fn state_json(&self) -> (Value, Option<String>) {
        let state = self.state();
        let id = state.state_id.clone();
        (state_value(state), id)
    }

    /// `{state, stateId?}`, the payload of `session.*`.
    pub fn state_payload(&self) -> Value {
        let state = self.state();
        let mut p = Map::new();
        if let Some(id) = &state.state_id {
            p.insert("stateId".into(), Value::String(id.clone()));
        }
        p.insert("state".into(), state_value(state));
        Value::Object(p)
    }

    /// A status line: its `status.emitted` trace, then the status itself.
    pub fn status(&mut self, message: &str, data: Option<Value>) {
        if self.io.replaying() {
            self.core.seq.trace += 1;
            return;
        }
        let (state, state_id) = self.state_json();
        let mut p = Map::with_capacity(4);
        p.insert("message".into(), Value::String(message.to_owned()));
        if let Some(d) = data {
            p.insert("data".into(), d);
        }
        p.insert("state".into(), state);
        if let Some(id) = state_id {
            p.insert("stateId".into(), Value::String(id));
        }
        let data = p.get("data").cloned();
        self.trace("status.emitted", None, Value::Object(p));
        self.io.emit(Emission::Status { message: message.to_owned(), data });
    }

    /// Moves to `position` because of `event`: the `fsm.transition` trace, the
    /// `playbook.fsm.state` telemetry, then the status lines of the profile.
    pub fn enter(&mut self, position: Position, event: Value) {
        if self.io.replaying() {
            // The same moves as below, without the emissions an earlier play handed out.
            self.core.position = position;
            self.mark_final();
            self.core.seq.trace += 1;
            let to = state_key(&self.core.position);
            return self.entry_statuses(&to);
        }
        let (previous, _) = self.state_json();
        let from = state_key(&self.core.position);
        self.core.position = position;
        self.mark_final();
        let (state, _) = self.state_json();
        let to = state_key(&self.core.position);
        let mut p = Map::with_capacity(7);
        p.insert("from".into(), Value::String(from));
        p.insert("to".into(), Value::String(to.clone()));
        p.insert("event".into(), event);
        p.insert("previousState".into(), previous);
        p.insert("state".into(), state.clone());
        // Named as the context names them (`pendingBossQuestion`, `lastError`), as the
        // reference's transition payload does (A41).
        if let Some(q) = self.core.pending.last() {
            p.insert("pendingBossQuestion".into(), serde_json::to_value(q).unwrap_or(Value::Null));
        }
        if let Some(e) = &self.core.last_error {
            if to == FAILED {
                p.insert("lastError".into(), e.to_value());
            }
        }
        // The state telemetry carries the transition's own payload, after it (§1.7, as the
        // reference emits one payload to both).
        let payload = Value::Object(p);
        self.trace("fsm.transition", None, payload.clone());
        self.io.emit(Emission::Telemetry { topic: "playbook.fsm.state".into(), payload });
        self.entry_statuses(&to);
    }

    /// A final state is done and computes its output.
    fn mark_final(&mut self) {
        if let Position::At(id) = &self.core.position {
            if let Some(s) = self.find(id).filter(|s| s.is_final) {
                self.core.done = true;
                // A final state that declares no output has none (§1.6 `output?`).
                let declares = !s.output.is_empty();
                self.core.output = declares.then(|| self.output_of(&id.clone()));
            }
        }
    }

    /// The human status lines on entering `to` (§1.7): the canonical profile for a machine
    /// with `playerStates` (`⤷` on a player state, the `◆` lines at a question and at a
    /// failure, nothing at an idle, final or unlisted state), else the legacy one (`Entered
    /// <state>.`, none at `ready` or `done`, the bare question, and `Workflow failed; …`). The
    /// failure line carries the error as its data (`{lastError}`; compact in the canonical
    /// profile). Only the `→ <guard>` and classification lines are emitted elsewhere.
    fn entry_statuses(&mut self, to: &str) {
        let canonical = !self.m.player_states.is_empty();
        if to == AWAIT_BOSS_REPLY {
            match self.core.pending.last().cloned() {
                Some(q) => {
                    self.status(&format!("{} asks: {}", q.player, q.question), None);
                    if canonical {
                        let item = q.source_item.clone().unwrap_or_default();
                        let line = format!("◆ awaiting Boss reply · {} · {} · {item}", q.resume_state_id, q.player);
                        self.status(&line, None);
                    }
                }
                None if !canonical => self.status("Awaiting Boss reply.", None),
                None => {}
            }
            return;
        }
        if to == FAILED {
            let data = self.core.last_error.as_ref().map(|e| {
                let mut e = e.clone();
                if canonical {
                    e.stack = None;
                }
                json!({ "lastError": e.to_value() })
            });
            let line = if canonical {
                "◆ workflow failed; awaiting Boss recovery."
            } else {
                "Workflow failed; awaiting Boss recovery."
            };
            self.status(line, data);
            return;
        }
        if canonical {
            if let Some(ps) = self.m.player_states.iter().find(|p| p.state == to) {
                let line = format!("⤷ {}: {}", capitalise(&ps.player), ps.label);
                self.status(&line, None);
            }
        } else if to != READY && to != DONE {
            self.status(&format!("Entered {to}."), None);
        }
    }

    /// A final state's output.
    pub fn output_of(&self, id: &str) -> Value {
        let mut out = Map::new();
        if let Some(s) = self.find(id) {
            for f in &s.output {
                let v = match &f.value {
                    crate::machine::Operand::Context(c) => self.core.context.get(c).cloned().unwrap_or(Value::Null),
                    crate::machine::Operand::Literal(l) => l.clone(),
                    _ => Value::Null,
                };
                out.insert(f.name.clone(), v);
            }
        }
        Value::Object(out)
    }

    /// The source item of a state.
    pub fn source_item(&self, id: &str) -> Option<String> {
        self.find(id).and_then(|s| s.source_item.clone())
    }

    /// Latches the boundary's first control-plane error.
    pub fn latch(&mut self, e: NormalizedError) {
        if self.control.is_none() {
            self.control = Some(e);
        }
    }

    /// Whether the state invokes something (a working leaf).
    pub fn invokes(&self, id: &str) -> Option<&'a Invoke> {
        self.find(id).and_then(|s| s.invoke.as_ref())
    }
}

/// A descriptor as JSON, built directly: the value `serde_json::to_value` gives (the same
/// members in the same order), without the serializer's detour (A31).
pub(crate) fn state_value(state: PlaybookState) -> Value {
    let strings = |v: Vec<String>| Value::Array(v.into_iter().map(Value::String).collect());
    let status = match state.status {
        MachineStatus::Active => "active",
        MachineStatus::Done => "done",
        MachineStatus::Error => "error",
        MachineStatus::Stopped => "stopped",
    };
    let mut m = Map::with_capacity(6);
    m.insert("value".into(), state.value);
    m.insert("activeStateIds".into(), strings(state.active_state_ids));
    m.insert("tags".into(), strings(state.tags));
    m.insert("status".into(), Value::String(status.into()));
    m.insert("quiescent".into(), Value::Bool(state.quiescent));
    if let Some(id) = state.state_id {
        m.insert("stateId".into(), Value::String(id));
    }
    Value::Object(m)
}

fn state_key(p: &Position) -> String {
    match p {
        Position::At(id) => id.clone(),
        Position::Group { group, .. } => group.clone(),
    }
}

pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{state_value, Derived, MachineStatus, PlaybookState};
    use crate::machine::read_value;

    #[test]
    fn the_index_finds_what_the_scan_finds() {
        let mut states = vec![json!({"id": "ready", "description": "Rest.", "tags": ["parked"]})];
        for i in 0..300 {
            states.push(json!({"id": format!("s{i}"), "description": "Rest.", "tags": ["parked"]}));
        }
        states.push(json!({"id": "done", "description": "Done.", "final": true}));
        let m = read_value(json!({"id": "m", "initial": "ready", "description": "Many states.", "states": states}))
            .unwrap_or_else(|r| panic!("refused: {r}"));
        let d = Derived::new(&m);
        for s in &m.states {
            assert!(std::ptr::eq(d.state(&m, &s.id).unwrap(), m.state(&s.id).unwrap()), "{}", s.id);
        }
        for missing in ["", "s300", "S1", "ready ", "dones"] {
            assert!(d.state(&m, missing).is_none(), "{missing}");
        }
    }

    #[test]
    fn state_value_is_what_serde_writes() {
        let one = PlaybookState {
            value: json!("r0"),
            active_state_ids: vec!["r0".into()],
            tags: vec!["playbook.parked".into()],
            status: MachineStatus::Active,
            quiescent: true,
            state_id: Some("r0".into()),
        };
        let group = PlaybookState {
            value: json!({"g": {"a": "done", "b": "running"}}),
            active_state_ids: vec!["g".into(), "b".into()],
            tags: vec!["playbook.busy".into()],
            status: MachineStatus::Active,
            quiescent: false,
            state_id: None,
        };
        let mut statuses = vec![one.clone(), group.clone()];
        for status in [MachineStatus::Done, MachineStatus::Error, MachineStatus::Stopped] {
            statuses.push(PlaybookState { status, ..one.clone() });
        }
        for state in statuses {
            let by_serde = serde_json::to_value(&state).unwrap();
            let direct = state_value(state);
            assert_eq!(direct, by_serde);
            // The same members in the same order: the trace's bytes.
            assert_eq!(direct.to_string(), by_serde.to_string());
        }
    }
}
