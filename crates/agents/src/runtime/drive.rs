//! Driving the machine to quiescence: running invokes, routing their results through the
//! transitions (predicates, assignments), parking questions, parallel groups and their join,
//! and sending Boss events (§1.5 steps 5–7, §1.9, §2.3).

use serde_json::{json, Map, Value};

use super::core::{BossEvent, Phase, Position, Question, Region, Run};
use super::invoke::Settle;
use super::io::Halt;
use super::wire::NormalizedError;
use crate::adjudicate::classify::{ANSWER, BOSS_REPLY, QUESTION_ID};
use crate::machine::{
    Assign, CompareOp, Invoke, Machine, Operand, Predicate, State, Transition, AWAIT_BOSS_REPLY, DONE, FAILED,
    NEEDS_BOSS_REPLY,
};

/// The event type of a root jump.
pub const BOSS_INTERRUPT: &str = "BOSS_INTERRUPT";
/// A jump's routing field.
pub const TARGET_ID: &str = "targetId";

/// Whether every predicate holds on `context`.
pub(crate) fn holds(when: &[Predicate], context: &Map<String, Value>) -> bool {
    when.iter().all(|p| {
        let v = context.get(&p.field);
        let num = |x: Option<&Value>| x.and_then(Value::as_f64);
        match p.op {
            CompareOp::Present => v.is_some_and(|v| !v.is_null() && v.as_str() != Some("")),
            CompareOp::Absent => !v.is_some_and(|v| !v.is_null() && v.as_str() != Some("")),
            CompareOp::Eq => v == p.value.as_ref(),
            CompareOp::Ne => v != p.value.as_ref(),
            op => match (num(v), num(p.value.as_ref())) {
                (Some(a), Some(b)) => match op {
                    CompareOp::Lt => a < b,
                    CompareOp::Le => a <= b,
                    CompareOp::Gt => a > b,
                    _ => a >= b,
                },
                _ => false,
            },
        }
    })
}

/// Applies `assign` in order. An operand that reads an absent result or event field leaves
/// the context field as it was (A7).
pub(crate) fn apply_assigns(
    assign: &[Assign],
    context: &mut Map<String, Value>,
    result: &Map<String, Value>,
    event: &Map<String, Value>,
) {
    for a in assign {
        match a {
            Assign::Set { field, value } => {
                let v = match value {
                    Operand::Context(c) => context.get(c).cloned(),
                    Operand::Result(r) => result.get(r).cloned(),
                    Operand::Event(e) => event.get(e).cloned(),
                    Operand::Literal(l) => Some(l.clone()),
                };
                if let Some(v) = v {
                    context.insert(field.clone(), v);
                }
            }
            Assign::Increment { field, by } => {
                let now = context.get(field).and_then(Value::as_f64).unwrap_or(0.0);
                let next = now + *by as f64;
                let v = if next.fract() == 0.0 && next.abs() < 9e15 { json!(next as i64) } else { json!(next) };
                context.insert(field.clone(), v);
            }
            Assign::Clear { field } => {
                context.remove(field);
            }
        }
    }
}

/// The first transition of `on` for `key` (a guard or an event) whose predicates hold.
pub(crate) fn pick<'t>(
    on: &'t [Transition],
    guard: Option<&str>,
    event: Option<&str>,
    context: &Map<String, Value>,
) -> Option<&'t Transition> {
    on.iter().find(|t| {
        (guard.is_some() && t.guard.as_deref() == guard || event.is_some() && t.event.as_deref() == event)
            && holds(&t.when, context)
    })
}

/// Whether the machine, as it stands, takes `event` (`snapshot.can`). A machine in a final
/// state is judged as if reconstructed (A18).
pub(crate) fn can<'m>(
    m: &'m Machine,
    find: &dyn Fn(&str) -> Option<&'m State>,
    position: &Position,
    done: bool,
    ctx: &Map<String, Value>,
    pending: &[Question],
    event: &BossEvent,
) -> bool {
    let initial;
    let (position, ctx) = if done {
        initial = (Position::At(m.initial.clone()), super::core::initial_context(m));
        (&initial.0, &initial.1)
    } else {
        (position, ctx)
    };
    match event.event_type.as_str() {
        BOSS_REPLY => {
            let id = event.fields.get(QUESTION_ID).and_then(Value::as_str);
            let Some(q) = pending.iter().find(|q| Some(q.question_id.as_str()) == id) else { return false };
            match position {
                Position::At(at) => at == AWAIT_BOSS_REPLY && find(&q.resume_state_id).is_some(),
                Position::Group { regions, .. } => {
                    regions.iter().any(|r| r.member == q.question_id && r.phase == Phase::Waiting)
                }
            }
        }
        BOSS_INTERRUPT => {
            let target = event.fields.get(TARGET_ID).and_then(Value::as_str);
            m.boss_interrupt.iter().any(|j| Some(j.target.as_str()) == target && holds(&j.when, ctx))
        }
        other => match position {
            Position::At(at) => find(at).is_some_and(|s| pick(&s.on, None, Some(other), ctx).is_some()),
            Position::Group { .. } => false,
        },
    }
}

impl Run<'_> {
    /// Sends a Boss event the machine takes (checked with [`can`] first).
    pub(crate) fn send(&mut self, event: &BossEvent) {
        self.event_sent = true;
        // A replayed move emits nothing, so it needs no description (A30).
        let descriptor = if self.io.replaying() { Value::Null } else { self.event_descriptor(event) };
        match event.event_type.as_str() {
            BOSS_REPLY => {
                let id = event.fields.get(QUESTION_ID).and_then(Value::as_str).unwrap_or_default().to_owned();
                let answer = event.fields.get(ANSWER).and_then(Value::as_str).unwrap_or_default().to_owned();
                let Some(i) = self.core.pending.iter().position(|q| q.question_id == id) else { return };
                let q = self.core.pending.remove(i);
                self.continuation = Some((q.resume_state_id.clone(), q.question.clone(), answer));
                let position = match &self.core.position {
                    Position::Group { group, regions } => {
                        let mut regions = regions.clone();
                        for r in regions.iter_mut().filter(|r| r.member == q.question_id) {
                            r.phase = Phase::Running;
                        }
                        Position::Group { group: group.clone(), regions }
                    }
                    Position::At(_) => Position::At(q.resume_state_id.clone()),
                };
                self.enter(position, descriptor);
            }
            BOSS_INTERRUPT => {
                let target = event.fields.get(TARGET_ID).and_then(Value::as_str).unwrap_or_default();
                let Some(j) =
                    self.m.boss_interrupt.iter().find(|j| j.target == target && holds(&j.when, &self.core.context))
                else {
                    return;
                };
                self.core.pending.clear();
                apply_assigns(&j.assign, &mut self.core.context, &Map::new(), &event.fields);
                let target = j.target.clone();
                self.enter_state(&target, descriptor);
            }
            other => {
                let Some(at) = self.core.single().map(str::to_owned) else { return };
                let Some(state) = self.find(&at) else { return };
                let Some(t) = pick(&state.on, None, Some(other), &self.core.context) else { return };
                // A fresh directive abandons a pending question.
                self.core.pending.clear();
                apply_assigns(&t.assign, &mut self.core.context, &Map::new(), &event.fields);
                let target = t.target.clone();
                self.enter_state(&target, descriptor);
            }
        }
    }

    /// `{type, …fields}`: a Boss event as `fsm.transition` describes it.
    fn event_descriptor(&self, event: &BossEvent) -> Value {
        let mut d = Map::new();
        d.insert("type".into(), Value::String(event.event_type.clone()));
        for (k, v) in &event.fields {
            d.insert(k.clone(), v.clone());
        }
        Value::Object(d)
    }

    /// Enters a state: a parallel group starts its regions; a final state computes its output.
    pub(crate) fn enter_state(&mut self, id: &str, event: Value) {
        if id != FAILED {
            self.core.last_error = None;
        }
        let position = match self.find(id) {
            Some(s) if !s.parallel.is_empty() => Position::Group {
                group: id.to_owned(),
                regions: s.parallel.iter().map(|m| Region { member: m.clone(), phase: Phase::Running }).collect(),
            },
            _ => Position::At(id.to_owned()),
        };
        self.enter(position, event);
    }

    /// Runs invokes until the machine rests: a state with no invoke, a final state, a pending
    /// nested call, a group whose regions are all done or waiting, or an abort.
    pub(crate) fn drive(&mut self) -> Result<(), Halt> {
        loop {
            if self.core.done || self.core.suspended.is_some() {
                return Ok(());
            }
            match self.core.position.clone() {
                Position::At(id) => {
                    let Some(invoke) = self.invokes(&id) else { return Ok(()) };
                    if self.io.aborted {
                        self.route(&id, Settle::Abort);
                        return Ok(());
                    }
                    let settle = self.invoke(&id, invoke)?;
                    self.route(&id, settle);
                }
                Position::Group { group, regions } => {
                    let Some(i) = regions.iter().position(|r| r.phase == Phase::Running) else {
                        if regions.iter().all(|r| matches!(r.phase, Phase::Done(_))) {
                            self.join(&group, &regions);
                            continue;
                        }
                        return Ok(());
                    };
                    let member = regions[i].member.clone();
                    let Some(invoke) = self.invokes(&member) else { return Ok(()) };
                    let settle = if self.io.aborted { Settle::Abort } else { self.invoke(&member, invoke)? };
                    self.route_region(&group, regions, i, invoke, settle);
                }
            }
        }
    }

    /// Routes an invoke's result from state `id`.
    pub(crate) fn route(&mut self, id: &str, settle: Settle) {
        match settle {
            Settle::Guard(guard, fields) => {
                let canonical = !self.m.player_states.is_empty();
                if canonical {
                    self.status(&format!("→ {guard}"), None);
                }
                let Some(state) = self.find(id) else { return };
                let event = if self.io.replaying() {
                    Value::Null
                } else {
                    json!({"type": "invoke.done", "stateId": id, "guard": guard})
                };
                match pick(&state.on, Some(&guard), None, &self.core.context) {
                    Some(t) => {
                        let t = t.clone();
                        if guard == NEEDS_BOSS_REPLY && t.target == AWAIT_BOSS_REPLY {
                            self.ask(id, &fields);
                        }
                        apply_assigns(&t.assign, &mut self.core.context, &fields, &Map::new());
                        self.enter_state(&t.target, event);
                    }
                    None if guard == NEEDS_BOSS_REPLY => {
                        self.ask(id, &fields);
                        self.enter_state(AWAIT_BOSS_REPLY, event);
                    }
                    None => {
                        let e = NormalizedError::named(
                            "UnroutedResultError",
                            format!("state `{id}` has no transition for `{guard}` that holds"),
                        );
                        self.fail(id, e);
                    }
                }
            }
            Settle::Fail(e) => self.fail(id, e),
            Settle::Abort => {
                self.io.aborted = true;
                self.fail(id, NormalizedError::abort());
            }
            Settle::Control(e) => {
                self.latch(e.clone());
                self.fail(id, e);
            }
            Settle::Suspend => {}
        }
    }

    fn fail(&mut self, id: &str, e: NormalizedError) {
        self.core.last_error = Some(e.clone());
        let event = json!({"type": "invoke.error", "stateId": id, "error": e.to_value()});
        self.enter_state(FAILED, event);
        self.core.last_error = Some(e);
    }

    /// Records the question the leaf `id` asked (§1.9).
    fn ask(&mut self, id: &str, fields: &Map<String, Value>) {
        let player = match self.invokes(id) {
            Some(Invoke::Player { player, .. }) => player.clone(),
            _ => "Captain".to_owned(),
        };
        let question = match fields.get("question") {
            Some(Value::String(q)) => q.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        self.core.pending.retain(|q| q.question_id != id);
        self.core.pending.push(Question {
            question_id: id.to_owned(),
            resume_state_id: id.to_owned(),
            source_item: self.source_item(id),
            player,
            question,
        });
    }

    fn route_region(&mut self, group: &str, mut regions: Vec<Region>, i: usize, invoke: &Invoke, settle: Settle) {
        let member = regions[i].member.clone();
        match settle {
            Settle::Guard(guard, fields) if guard == NEEDS_BOSS_REPLY => {
                self.ask(&member, &fields);
                regions[i].phase = Phase::Waiting;
                let q = self.core.pending.last().cloned();
                self.enter(
                    Position::Group { group: group.to_owned(), regions },
                    json!({"type": "invoke.done", "stateId": member, "guard": guard}),
                );
                if let Some(q) = q {
                    self.status(&format!("{} asks: {}", q.player, q.question), None);
                }
            }
            Settle::Guard(guard, fields) => {
                if !invoke.declared_results().iter().any(|r| r.guard == guard) {
                    let e = NormalizedError::named("UnroutedResultError", format!("`{member}` gave `{guard}`"));
                    return self.fail(group, e);
                }
                regions[i].phase = Phase::Done(fields);
                let event = json!({"type": "invoke.done", "stateId": member, "guard": guard});
                self.enter(Position::Group { group: group.to_owned(), regions }, event);
            }
            other => {
                // Any failure of a member fails the whole group.
                self.core.pending.retain(|q| !regions.iter().any(|r| r.member == q.question_id));
                self.route(group, other);
            }
        }
    }

    /// All regions are done: promote their staged fields at once, then take `done`.
    fn join(&mut self, group: &str, regions: &[Region]) {
        for r in regions {
            if let Phase::Done(fields) = &r.phase {
                for (k, v) in fields {
                    if self.m.context.iter().any(|f| &f.name == k) {
                        self.core.context.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        let event = json!({"type": "parallel.done", "stateId": group});
        let Some(state) = self.find(group) else { return };
        match pick(&state.on, Some(DONE), None, &self.core.context) {
            Some(t) => {
                let t = t.clone();
                apply_assigns(&t.assign, &mut self.core.context, &Map::new(), &Map::new());
                self.enter_state(&t.target, event);
            }
            None => {
                let e = NormalizedError::named(
                    "UnroutedResultError",
                    format!("group `{group}` has no `done` transition that holds"),
                );
                self.fail(group, e);
            }
        }
    }
}
