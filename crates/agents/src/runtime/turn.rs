//! One Boss turn (§1.5), a nested call's resumption (§1.4), and the run result (§1.6).

use serde_json::{json, Map, Value};

use super::core::{BossEvent, Core, Position, Run, SuspendedCall};
use super::drive::{can, BOSS_INTERRUPT, TARGET_ID};
use super::invoke::{child_settle, Settle};
use super::io::{Halt, JudgePurpose, Reply, Request};
use super::wire::{NormalizedError, PendingCall, PlaybookCallResult, RunResult};
use crate::adjudicate::classify::{
    keyed_classification_prompt, validate_keyed_classification, EventContract, EventField, FieldSource,
    PendingQuestion, NO_ACTION,
};
use crate::machine::{self, Invoke, Machine, Operand, FAILED, READY};

/// Whether Boss text now is sent as the entry event rather than classified (§1.5 step 3, A18):
/// at the `ready` hub or in a final state, and at `failed` with no question pending when
/// `Options.entry_from_failed` says so. (Whether the machine has an entry event is the
/// caller's question.)
pub(crate) fn entry_applies(opts: &super::Options, core: &Core) -> bool {
    let at = core.single();
    core.done || at == Some(READY) || (opts.entry_from_failed && at == Some(FAILED) && core.pending.is_empty())
}

/// The flat event contracts the judge chooses among: the declared events, then the derived
/// `BOSS_INTERRUPT` when the machine has jumps (A17).
pub(crate) fn contracts(m: &Machine) -> Vec<EventContract> {
    let mut out: Vec<EventContract> = m
        .events
        .iter()
        .map(|e| EventContract {
            event_type: e.event_type.clone(),
            fields: e
                .fields
                .iter()
                .map(|f| EventField {
                    name: f.name.clone(),
                    source: match f.source {
                        machine::FieldSource::Judge => FieldSource::Judge,
                        machine::FieldSource::Text => FieldSource::Text,
                    },
                    required: f.required,
                    values: f.values.clone(),
                })
                .collect(),
        })
        .collect();
    if !m.boss_interrupt.is_empty() {
        let mut targets: Vec<String> = m.boss_interrupt.iter().map(|j| j.target.clone()).collect();
        targets.sort();
        targets.dedup();
        let mut fields = vec![EventField {
            name: TARGET_ID.into(),
            source: FieldSource::Judge,
            required: true,
            values: Some(targets),
        }];
        for j in &m.boss_interrupt {
            for a in &j.assign {
                if let machine::Assign::Set { value: Operand::Event(name), .. } = a {
                    if fields.iter().any(|f| &f.name == name) {
                        continue;
                    }
                    // A field some declared event also carries keeps that event's source;
                    // otherwise it is Boss's text.
                    let declared = m.events.iter().flat_map(|e| &e.fields).find(|f| &f.name == name);
                    let source = match declared.map(|f| f.source) {
                        Some(machine::FieldSource::Judge) => FieldSource::Judge,
                        _ => FieldSource::Text,
                    };
                    fields.push(EventField { name: name.clone(), source, required: false, values: None });
                }
            }
        }
        out.push(EventContract { event_type: BOSS_INTERRUPT.into(), fields });
    }
    out
}

impl Run<'_> {
    /// One Boss turn. `Ok(Err(e))` is a latched control-plane error: the method rejects.
    pub(crate) fn boss_turn(&mut self, text: &str) -> Result<Result<RunResult, NormalizedError>, Halt> {
        self.core.seq.turn += 1;
        self.turn = Some(self.core.seq.turn);
        self.trace_with("boss.input.received", None, || json!({ "text": text }));
        if !text.trim().is_empty() {
            let event = match self.entry_event(text) {
                Some(e) if self.can_take(&e) => Some(e),
                Some(e) => {
                    self.status(&format!("{} is not possible now", e.event_type), None);
                    None
                }
                None => self.classify(text)?,
            };
            if let Some(event) = event {
                // The classification status: the bare event type, in the canonical profile
                // only (a machine without playerStates keeps the legacy lines: none).
                if !self.m.player_states.is_empty() {
                    self.status(&event.event_type, None);
                }
                if self.core.done {
                    self.reconstruct();
                }
                self.core.last_boss_event = Some(event.clone());
                self.send(&event);
                self.drive()?;
            }
        }
        Ok(self.settle_turn())
    }

    /// The deterministic entry event, when it applies now (§1.5 step 3; A18).
    fn entry_event(&self, text: &str) -> Option<BossEvent> {
        let entry = self.m.entry_event.as_ref()?;
        if !entry_applies(self.opts, &self.core) {
            return None;
        }
        let spec = self.m.events.iter().find(|e| e.event_type == entry.event_type)?;
        let mut fields = Map::new();
        for f in spec.fields.iter().filter(|f| f.source == machine::FieldSource::Text) {
            fields.insert(f.name.clone(), Value::String(text.to_owned()));
        }
        Some(BossEvent { event_type: entry.event_type.clone(), fields })
    }

    /// Classification through the judge; `None` sends no event.
    fn classify(&mut self, text: &str) -> Result<Option<BossEvent>, Halt> {
        let pending: Vec<PendingQuestion> = self
            .core
            .pending
            .iter()
            .map(|q| PendingQuestion {
                question_id: q.question_id.clone(),
                asker: q.player.clone(),
                question: q.question.clone(),
            })
            .collect();
        let contracts = &self.derived.contracts;
        let state = self.state();
        let where_ = state.state_id.clone().unwrap_or_else(|| state.active_state_ids.join(", "));
        // A replayed call's prompt went out with its start (A30).
        // A parallel group's Boss waits are keyed: there the reply must name its question (§1.9).
        let keyed = matches!(self.core.position, Position::Group { .. });
        let prompt = if self.io.replaying() {
            String::new()
        } else {
            keyed_classification_prompt(text, &where_, &pending, contracts, keyed)
        };
        let reply = match self.call_judge(JudgePurpose::BossInputClassification, state.state_id.clone(), prompt)? {
            Ok(r) => r,
            Err(Settle::Control(e)) => {
                self.latch(e);
                return Ok(None);
            }
            Err(_) => return Ok(None),
        };
        let event = match validate_keyed_classification(&reply, text, &pending, contracts, keyed) {
            Ok(e) => BossEvent { event_type: e.event_type, fields: e.fields },
            Err(e) => {
                self.status(&e.status_line(), None);
                return Ok(None);
            }
        };
        if event.event_type == NO_ACTION {
            return Ok(None);
        }
        if !self.can_take(&event) {
            let line = format!("Classifier selected {}, but its state guards rejected the event", event.event_type);
            self.status(&line, None);
            return Ok(None);
        }
        Ok(Some(event))
    }

    /// Whether the machine takes `event` now (`snapshot.can`).
    fn can_take(&self, event: &BossEvent) -> bool {
        let c = &self.core;
        can(self.m, &|id| self.find(id), &c.position, c.done, &c.context, &c.pending, event)
    }

    /// A finished machine starts again, only now that a real event exists (§1.5 step 5).
    fn reconstruct(&mut self) {
        let tokens = std::mem::take(&mut self.core.tokens);
        let seq = self.core.seq.clone();
        let receipts = std::mem::take(&mut self.core.receipts);
        let last = self.core.last_boss_event.take();
        self.core = Core::initial(self.m);
        self.core.tokens = tokens;
        self.core.seq = seq;
        self.core.receipts = receipts;
        self.core.last_boss_event = last;
    }

    /// The run result now (§1.6).
    pub(crate) fn result(&self) -> RunResult {
        let state = self.state();
        if self.io.aborted {
            return RunResult::Aborted { state, error: Some(NormalizedError::abort()) };
        }
        if !self.event_sent {
            return RunResult::NoAction { state };
        }
        if let Some(s) = &self.core.suspended {
            let pending_call = PendingCall {
                call_id: s.call_id.clone(),
                playbook_id: s.playbook_id.clone(),
                child_session_id: s.child_session_id.clone(),
            };
            return RunResult::Suspended { state, pending_call };
        }
        if self.core.done {
            return RunResult::Terminal { state, output: self.core.output.clone() };
        }
        if self.core.single() == Some(FAILED) {
            return RunResult::Failed { state, error: self.core.last_error.clone() };
        }
        RunResult::Quiescent { state }
    }

    /// `boss.input.settled` with the projected result, then the latched error if any.
    fn settle_turn(&mut self) -> Result<RunResult, NormalizedError> {
        let result = self.result();
        let mut payload = match serde_json::to_value(&result) {
            Ok(Value::Object(o)) => o,
            _ => Map::new(),
        };
        if let Some(id) = &result.state().state_id {
            payload.insert("stateId".into(), Value::String(id.clone()));
        }
        self.trace("boss.input.settled", None, Value::Object(payload));
        match self.control.take() {
            Some(e) => Err(e),
            None => Ok(result),
        }
    }

    /// Delivers a suspended child's result: `playbook.call.finished` (with the call's own
    /// turn id) before the transition it causes; no new turn, no `boss.input.*` pair.
    pub(crate) fn resume_call(
        &mut self,
        call: &SuspendedCall,
        result: &PlaybookCallResult,
    ) -> Result<Result<RunResult, NormalizedError>, Halt> {
        self.turn = call.turn_id;
        self.event_sent = true;
        self.core.suspended = None;
        let mut p = self.call_identity(&call.state_id, &call.playbook_id, &call.text);
        p.insert("result".into(), serde_json::to_value(result).unwrap_or(Value::Null));
        self.trace("playbook.call.finished", Some(&call.call_id), Value::Object(p));
        let results = match self.invokes(&call.state_id) {
            Some(Invoke::Playbook { results, .. }) => results.clone(),
            _ => Vec::new(),
        };
        self.route(&call.state_id, child_settle(result, &results));
        self.drive()?;
        let out = self.result();
        Ok(match self.control.take() {
            Some(e) => Err(e),
            None => Ok(out),
        })
    }

    /// Disposal: a pending child is disposed first, then its call finishes aborted, then
    /// `session.disposed` with the final descriptor — the state the session ended in, taken
    /// before the machine is stopped (as the reference takes it before stopping its actor), so
    /// its status is `active` or `done`, never the teardown's `stopped`; tokens are discarded.
    /// The teardown (§1.4): a pending child is disposed and its call finished `aborted`, then
    /// `session.disposed` with the descriptor the session ended in, drained. A failure on the
    /// way (the child's disposal threw, a sink refused) does not stop it: the session still
    /// ends, and the teardown settles with the failure — one as itself, several aggregated
    /// (A47).
    pub(crate) fn dispose(&mut self) -> Result<Result<(), NormalizedError>, Halt> {
        let payload = self.state_payload();
        let mut failures = Vec::new();
        if let Some(call) = self.core.suspended.clone() {
            let reply = self.io.call(super::io::PortCall::DisposeChild {
                call_id: call.call_id.clone(),
                child_session_id: call.child_session_id.clone(),
            })?;
            if let Reply::Threw { error } | Reply::SinkFailed { error } = reply {
                failures.push(error);
            }
            let mut p = self.call_identity(&call.state_id, &call.playbook_id, &call.text);
            let error = NormalizedError::named("AbortError", "the parent was disposed").to_value();
            p.insert("result".into(), json!({"status": "aborted", "error": error}));
            self.trace_at("playbook.call.finished", call.turn_id, Some(&call.call_id), Value::Object(p));
            self.core.suspended = None;
        }
        self.core.stopped = true;
        self.trace("session.disposed", None, payload);
        self.core.tokens.clear();
        if let Reply::SinkFailed { error } = self.io.ask(Request::Drain)? {
            failures.push(error);
        }
        Ok(match failures.len() {
            0 => Ok(()),
            1 => Err(failures.remove(0)),
            _ => {
                let each: Vec<&str> = failures.iter().map(|e| e.message.as_str()).collect();
                Err(NormalizedError::named(
                    "AggregateError",
                    format!("playbook runtime disposal failed: {}", each.join("; ")),
                ))
            }
        })
    }
}
