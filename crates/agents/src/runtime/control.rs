//! The control surface (§1.11): the view `describe` returns, the actions it advertises, and
//! `apply`'s at-most-once execution with its receipts (persisted in the snapshot, A19).

use serde_json::{Map, Value};

use super::core::Run;
use super::core::{BossEvent, Core, Question};
use super::drive::{can, pick, BOSS_INTERRUPT, TARGET_ID};
use super::io::{with, Halt, Reply, Request};
use super::wire::{ControlAction, ControlView, NormalizedError, Receipt, RunResult};
use crate::machine::{Machine, Tag, FAILED};

/// Whether the run is at a safe capture point (§1.8): bound, not suspended, not done or
/// stopped, quiescent. Only there are actions advertised, and only there may one be applied.
pub(crate) fn safe(m: &Machine, core: &Core) -> bool {
    let state = core.descriptor(m);
    core.suspended.is_none()
        && !core.done
        && !core.stopped
        && state.quiescent
        && !state.tags.iter().any(|t| t == super::core::tag_name(Tag::Suspended))
}

/// The state's own description: none when it is blank or only the state's id, which would be
/// an identifier dressed up as a description (§1.11; A45).
fn own_description<'m>(m: &'m Machine, id: &str) -> Option<&'m str> {
    m.state(id).map(|s| s.description.as_str()).filter(|d| !d.trim().is_empty() && d.trim() != id)
}

/// The actions advertised now (at a [`safe`] point), with the event each would send.
pub(crate) fn actions(m: &Machine, core: &Core) -> Vec<(ControlAction, BossEvent)> {
    let mut out = Vec::new();
    let description = |id: &str| own_description(m, id).map(|d| d.trim().to_owned());
    if core.single() == Some(FAILED) {
        if let Some(ev) = &core.last_boss_event {
            if can(m, &|id| m.state(id), &core.position, core.done, &core.context, &core.pending, ev) {
                let target = if ev.event_type == BOSS_INTERRUPT {
                    ev.fields.get(TARGET_ID).and_then(Value::as_str).map(str::to_owned)
                } else {
                    m.state(FAILED)
                        .and_then(|s| pick(&s.on, None, Some(&ev.event_type), &core.context))
                        .map(|t| t.target.clone())
                };
                let label = target.as_deref().and_then(description).or_else(|| description(FAILED));
                if let Some(label) = label {
                    out.push((
                        ControlAction { id: format!("retry:{}", ev.event_type), label: format!("Retry: {label}") },
                        ev.clone(),
                    ));
                }
            }
        }
    }
    let mut resumable = m.resumable();
    resumable.sort();
    resumable.dedup();
    for id in resumable {
        let mut fields = Map::new();
        fields.insert(TARGET_ID.into(), Value::String(id.clone()));
        let ev = BossEvent { event_type: BOSS_INTERRUPT.into(), fields };
        if !can(m, &|id| m.state(id), &core.position, core.done, &core.context, &core.pending, &ev) {
            continue;
        }
        if let Some(d) = description(&id) {
            out.push((ControlAction { id: format!("jump:{id}"), label: format!("Resume from: {d}") }, ev));
        }
    }
    out
}

/// The control view; `safe` says whether actions may be listed (a safe capture point).
pub(crate) fn view(m: &Machine, core: &Core, safe: bool) -> ControlView {
    let state = core.descriptor(m);
    let state_description = state.state_id.as_deref().and_then(|id| own_description(m, id)).map(str::to_owned);
    let context = (!m.control_context_fields.is_empty()).then(|| {
        let mut c = Map::new();
        for f in &m.control_context_fields {
            if let Some(v) = core.context.get(f) {
                c.insert(f.clone(), v.clone());
            }
        }
        Value::Object(c)
    });
    ControlView {
        state,
        state_description,
        context,
        pending_questions: core.pending.iter().map(Question::public).collect(),
        last_error: core.last_error.clone(),
        actions: if safe { actions(m, core).into_iter().map(|(a, _)| a).collect() } else { Vec::new() },
    }
}

impl Run<'_> {
    /// One `apply` past its pre-checks: `Ok(Err(e))` throws (nothing accepted).
    pub(crate) fn apply(&mut self, action_id: &str, key: &str) -> Result<Result<Receipt, NormalizedError>, Halt> {
        self.core.seq.turn += 1;
        self.turn = Some(self.core.seq.turn);
        let n = self.core.seq.apply_call.unwrap_or(0) + 1;
        self.core.seq.apply_call = Some(n);
        let call_id = format!("apply-{n}");
        let base = with(with(Map::new(), "actionId", action_id), "key", key);
        let mut start = base.clone();
        if let Some(id) = self.core.single() {
            start.insert("stateId".into(), Value::String(id.to_owned()));
        }
        self.trace("apply.started", Some(&call_id), Value::Object(start));
        match self.io.ask(Request::Drain)? {
            Reply::Abort => {
                let fin = refused(base, "aborted before acceptance", "aborted", &NormalizedError::abort());
                self.trace("apply.finished", Some(&call_id), fin);
                return Ok(Err(NormalizedError::abort()));
            }
            Reply::SinkFailed { error } => {
                let fin = refused(base, "apply.started trace sink rejected", "error", &error);
                self.trace("apply.finished", Some(&call_id), fin);
                return Ok(Err(error));
            }
            _ => {}
        }
        // Only an action `describe` advertises now: none away from a safe capture point (a
        // final state's machine included), where the view lists none (§1.11).
        let found = safe(self.m, &self.core)
            .then(|| actions(self.m, &self.core).into_iter().find(|(a, _)| a.id == action_id))
            .flatten();
        let Some((_, event)) = found else {
            let reason = format!("action {} is not currently advertised", Value::String(action_id.to_owned()));
            let fin = with(with(base, "disposition", "rejected"), "reason", reason.as_str());
            self.trace("apply.finished", Some(&call_id), Value::Object(fin));
            return Ok(Ok(Receipt::Rejected { reason }));
        };
        // Accepted: from here on apply never throws, and the receipt is recorded.
        self.send(&event);
        self.drive()?;
        let run = self.result();
        let mut receipt = match (self.control.take(), &run) {
            (Some(e), _) => Receipt::Failed { error: e },
            (None, RunResult::Failed { error, .. }) => {
                Receipt::Failed { error: error.clone().unwrap_or_else(|| NormalizedError::new("the action failed")) }
            }
            (None, RunResult::Aborted { error, .. }) => {
                Receipt::Failed { error: error.clone().unwrap_or_else(NormalizedError::abort) }
            }
            (None, _) => Receipt::Executed { run: Box::new(run.clone()) },
        };
        self.core.receipts.insert(key.to_owned(), receipt.clone());
        // Settlement drains before publication; a failure here is folded into the receipt.
        if let Reply::SinkFailed { error } = self.io.ask(Request::Drain)? {
            receipt = Receipt::Failed { error };
            self.core.receipts.insert(key.to_owned(), receipt.clone());
        }
        let fin = match &receipt {
            Receipt::Executed { run } => {
                with(with(base, "disposition", "executed"), "run", serde_json::to_value(run).unwrap_or(Value::Null))
            }
            Receipt::Failed { error } => with(with(base, "disposition", "failed"), "error", error.to_value()),
            Receipt::Rejected { reason } => with(with(base, "disposition", "rejected"), "reason", reason.as_str()),
        };
        self.trace("apply.finished", Some(&call_id), Value::Object(fin));
        Ok(Ok(receipt))
    }
}

/// The finish of an apply refused before acceptance: `base` (its action id and key) rejected for
/// `reason`, with the boundary's `status` and `error`.
fn refused(base: Map<String, Value>, reason: &str, status: &str, error: &NormalizedError) -> Value {
    let fin = with(with(base, "disposition", "rejected"), "reason", reason);
    Value::Object(with(with(fin, "status", status), "error", error.to_value()))
}
