//! The invoked actors (§1.5 "Inside invoked actors"): player and Captain calls with their
//! continuity and the one corrective re-ask, adjudication through the judge, scripts and
//! nested playbooks. Each returns a [`Settle`]: what the invoke resolved to.

use serde_json::{json, Map, Value};

use super::core::{Run, SuspendedCall};
use super::io::{with, Continuity, Emission, Halt, JudgePurpose, PortCall, Reply};
use super::wire::{CallStatus, NormalizedError, PlaybookCallResult, PlaybookCallStart, PlayerResult};
use crate::adjudicate::{adjudicate, judge_prompt, GuardSpec};
use crate::machine::{Invoke, Operand, ResultSpec, Visibility};
use crate::prompt::{compose, Audience, Continuation};

/// What an invoke resolved to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Settle {
    /// A guard and its fields.
    Guard(String, Map<String, Value>),
    /// A recoverable failure: to `failed` with this `lastError`.
    Fail(NormalizedError),
    /// The boundary's signal aborted.
    Abort,
    /// A control-plane error (latched); the machine still goes to `failed`.
    Control(NormalizedError),
    /// A nested call is pending.
    Suspend,
}

/// How one agent call ended.
enum Agent {
    Text(String),
    Settled(Settle),
}

impl Run<'_> {
    /// Runs the invoke of state `id`.
    pub(crate) fn invoke(&mut self, id: &str, invoke: &Invoke) -> Result<Settle, Halt> {
        let continuation = match self.continuation.take() {
            Some((state, q, r)) if state == id => Some((q, r)),
            other => {
                self.continuation = other;
                None
            }
        };
        let cont = continuation.as_ref().map(|(q, r)| Continuation { question: q, reply: r });
        let overrides = Default::default();
        match invoke {
            Invoke::Player { player, prompt, .. } => {
                let prompt =
                    |context: &Map<String, Value>| compose(prompt, context, &overrides, Audience::Player, cont);
                let text = match self.call_player(id, player, &prompt)? {
                    Agent::Text(t) => t,
                    Agent::Settled(s) => return Ok(s),
                };
                self.adjudicate(id, player, JudgePurpose::PlayerOutputAdjudication, invoke, &text)
            }
            Invoke::Captain { prompt, visibility, .. } => {
                let prompt =
                    |context: &Map<String, Value>| compose(prompt, context, &overrides, Audience::Captain, cont);
                let text = match self.call_captain(id, &prompt, *visibility)? {
                    Agent::Text(t) => t,
                    Agent::Settled(s) => return Ok(s),
                };
                self.adjudicate(id, "Captain", JudgePurpose::CaptainOutputAdjudication, invoke, &text)
            }
            Invoke::Script { command, timeout_ms } => self.script(id, command, *timeout_ms),
            Invoke::Playbook { id: fixed, from_context, text, results } => {
                self.playbook(id, fixed.as_deref(), from_context.as_deref(), text.as_ref(), results)
            }
        }
    }

    fn identity(&self, id: &str) -> Map<String, Value> {
        let mut p = Map::with_capacity(6);
        p.insert("stateId".into(), Value::String(id.to_owned()));
        if let Some(item) = self.source_item(id) {
            p.insert("sourceItem".into(), Value::String(item));
        }
        p
    }

    /// A nested call's identity, which its start and every finish carry (a settled call, a
    /// resumed one, one finished by `dispose`): the state, its source item, target and text.
    pub(crate) fn call_identity(&self, id: &str, target: &str, text: &str) -> Map<String, Value> {
        with(with(self.identity(id), "playbookId", target), "text", text)
    }

    /// The prompt of the call about to be asked: empty when the play replays it, since its
    /// start trace and its call went out in an earlier play (A30). The context does not change
    /// between a call and its corrective re-ask, so the re-ask gets the same prompt.
    fn prompt(&self, build: &dyn Fn(&Map<String, Value>) -> String) -> String {
        if self.io.replaying() {
            String::new()
        } else {
            build(&self.core.context)
        }
    }

    /// `callPlayer` with continuity (§1.3, A16) and the one corrective re-ask on an empty `ok`.
    fn call_player(
        &mut self,
        id: &str,
        player: &str,
        prompt: &dyn Fn(&Map<String, Value>) -> String,
    ) -> Result<Agent, Halt> {
        let player_id = player.to_lowercase();
        for attempt in 0..2 {
            if self.io.aborted {
                return Ok(Agent::Settled(Settle::Abort));
            }
            // Select before the start trace and the call.
            let resume = self.core.tokens.get(&player_id).cloned();
            self.io.emit_with(|| Emission::Continuity {
                op: Continuity::Select { player: player_id.clone(), token: resume.clone() },
            });
            self.core.seq.player_call += 1;
            let call_id = format!("player-{}", self.core.seq.player_call);
            let resume_value = resume.clone().map_or(Value::Bool(false), Value::String);
            let identity = with(with(self.identity(id), "playerId", player_id.clone()), "resume", resume_value);
            let prompt = self.prompt(prompt);
            self.trace_with("player.call.started", Some(&call_id), || {
                Value::Object(with(identity.clone(), "prompt", prompt.as_str()))
            });
            let reply = self.io.call(PortCall::Player {
                call_id: call_id.clone(),
                player_id: player_id.clone(),
                prompt,
                resume,
            })?;
            let result = match reply {
                Reply::Player { result } => result,
                other => {
                    return Ok(Agent::Settled(self.failed_call("player.call.finished", &call_id, identity, other)))
                }
            };
            self.update_continuity(&player_id, &result);
            self.trace_with("player.call.finished", Some(&call_id), || {
                let mut fin = with(identity, "status", serde_json::to_value(result.status).unwrap_or(Value::Null));
                if let Some(t) = &result.final_text {
                    fin = with(fin, "finalText", t.as_str());
                }
                if let Some(e) = &result.error {
                    fin = with(fin, "error", NormalizedError::new(e.clone()).to_value());
                }
                if let Some(t) = &result.resume_token {
                    fin = with(fin, "resumeToken", t.as_str());
                }
                Value::Object(fin)
            });
            match agent_result(PLAYER_PORT, &result, attempt) {
                Some(a) => return Ok(a),
                None => continue,
            }
        }
        Ok(Agent::Settled(Settle::Fail(empty_error(PLAYER_PORT))))
    }

    /// The 8.0 omission rule (A16): a non-blank token replaces; an `ok` without one clears;
    /// an `aborted`/`error` without one leaves the token alone and calls no `update`.
    fn update_continuity(&mut self, player_id: &str, result: &PlayerResult) {
        let token = result.resume_token.as_ref().filter(|t| !t.trim().is_empty()).cloned();
        if token.is_none() && result.status != CallStatus::Ok {
            return;
        }
        match &token {
            Some(t) => {
                self.core.tokens.insert(player_id.to_owned(), t.clone());
            }
            None => {
                self.core.tokens.remove(player_id);
            }
        }
        self.io.emit_with(|| Emission::Continuity { op: Continuity::Update { player: player_id.to_owned(), token } });
    }

    /// The finish of a call that got no result: abort, a start-sink failure, a throw, or a
    /// reply of the wrong kind.
    fn failed_call(&mut self, finished: &str, call_id: &str, identity: Map<String, Value>, reply: Reply) -> Settle {
        let (status, error, settle) = match reply {
            Reply::Abort => ("aborted", NormalizedError::abort(), Settle::Abort),
            Reply::SinkFailed { error } | Reply::Threw { error } => ("error", error.clone(), Settle::Control(error)),
            other => {
                let e = NormalizedError::named("TypeError", format!("malformed host reply: {other:?}"));
                ("error", e.clone(), Settle::Control(e))
            }
        };
        let fin = with(with(identity, "status", status), "error", error.to_value());
        self.trace(finished, Some(call_id), Value::Object(fin));
        settle
    }

    /// `callCaptain`: always `resume: false`, no token traced.
    fn call_captain(
        &mut self,
        id: &str,
        prompt: &dyn Fn(&Map<String, Value>) -> String,
        visibility: Visibility,
    ) -> Result<Agent, Halt> {
        for attempt in 0..2 {
            if self.io.aborted {
                return Ok(Agent::Settled(Settle::Abort));
            }
            let n = self.core.seq.captain_call.unwrap_or(0) + 1;
            self.core.seq.captain_call = Some(n);
            let call_id = format!("captain-{n}");
            let vis = serde_json::to_value(visibility).unwrap_or(Value::Null);
            let mut identity = with(self.identity(id), "visibility", vis);
            // A visible (workflow) call's pair carries the `resume: false` it selected; a
            // hidden one's carries no resume member (the host owns that selection).
            if visibility == Visibility::Visible {
                identity = with(identity, "resume", false);
            }
            let prompt = self.prompt(prompt);
            self.trace_with("captain.call.started", Some(&call_id), || {
                Value::Object(with(identity.clone(), "prompt", prompt.as_str()))
            });
            let reply = self.io.call(PortCall::Captain { call_id: call_id.clone(), prompt, visibility })?;
            let result = match reply {
                Reply::Captain { result } => result,
                other => {
                    return Ok(Agent::Settled(self.failed_call("captain.call.finished", &call_id, identity, other)))
                }
            };
            self.trace_with("captain.call.finished", Some(&call_id), || {
                let mut fin = with(identity, "status", serde_json::to_value(result.status).unwrap_or(Value::Null));
                if let Some(t) = &result.final_text {
                    fin = with(fin, "finalText", t.as_str());
                }
                // A failed result's finish carries its error, the host's or the one it fails
                // with (a Captain call's, as upstream traces it).
                let error =
                    result.error.clone().map(NormalizedError::new).or_else(|| result_failure(CAPTAIN_PORT, &result));
                if let Some(e) = error {
                    fin = with(fin, "error", e.to_value());
                }
                Value::Object(fin)
            });
            match agent_result(CAPTAIN_PORT, &result, attempt) {
                Some(a) => return Ok(a),
                None => continue,
            }
        }
        Ok(Agent::Settled(Settle::Fail(empty_error(CAPTAIN_PORT))))
    }

    /// One traced judge call: `Ok(Ok(reply))`, or how it ended without one.
    pub(crate) fn call_judge(
        &mut self,
        purpose: JudgePurpose,
        state_id: Option<String>,
        prompt: String,
    ) -> Result<Result<String, Settle>, Halt> {
        if self.io.aborted {
            return Ok(Err(Settle::Abort));
        }
        self.core.seq.judge_call += 1;
        let call_id = format!("judge-{}", self.core.seq.judge_call);
        let mut identity = Map::with_capacity(5);
        identity.insert("purpose".into(), Value::String(purpose.as_str().into()));
        if let Some(s) = state_id {
            identity.insert("stateId".into(), Value::String(s));
        }
        self.trace_with("judge.call.started", Some(&call_id), || {
            Value::Object(with(identity.clone(), "prompt", prompt.as_str()))
        });
        match self.io.call(PortCall::Judge { call_id: call_id.clone(), purpose, prompt })? {
            Reply::Judge { text } => {
                self.trace_with("judge.call.finished", Some(&call_id), || {
                    Value::Object(with(with(identity, "status", "ok"), "reply", text.as_str()))
                });
                Ok(Ok(text))
            }
            other => Ok(Err(self.failed_call("judge.call.finished", &call_id, identity, other))),
        }
    }

    fn adjudicate(
        &mut self,
        id: &str,
        actor: &str,
        purpose: JudgePurpose,
        invoke: &Invoke,
        text: &str,
    ) -> Result<Settle, Halt> {
        let guards: Vec<GuardSpec> = invoke
            .effective_results()
            .into_iter()
            .map(|r| GuardSpec { name: r.guard, description: r.description })
            .collect();
        // A replayed call's prompt went out with its start (A30).
        let prompt = if self.io.replaying() {
            String::new()
        } else {
            judge_prompt(&crate::runtime::core::capitalise(actor), text, &guards)
        };
        let reply = match self.call_judge(purpose, Some(id.to_owned()), prompt)? {
            Ok(r) => r,
            Err(settle) => return Ok(settle),
        };
        Ok(match adjudicate(&reply, &guards, text) {
            Ok(a) => Settle::Guard(a.guard, a.fields),
            Err(e) => Settle::Control(NormalizedError::named("AdjudicationError", e.to_string())),
        })
    }

    /// A script: exit 0 selects `ok`, anything else `failed`; once it ran, one status line
    /// (`Executed script for <state> (exit <n>).`) and `playbook.script` telemetry
    /// `{stateId, sourceItem, exitStatus}`, no call trace (A20 revised). A script that could
    /// not run or was stopped reports exit 1, as one killed by a signal does upstream.
    fn script(&mut self, id: &str, command: &str, timeout_ms: u64) -> Result<Settle, Halt> {
        if self.io.aborted {
            return Ok(Settle::Abort);
        }
        let reply =
            self.io.call(PortCall::Script { state_id: id.to_owned(), command: command.to_owned(), timeout_ms })?;
        let exit = match reply {
            Reply::Script { exit_code } => exit_code,
            Reply::Abort => return Ok(Settle::Abort),
            Reply::SinkFailed { error } | Reply::Threw { error } => return Ok(Settle::Control(error)),
            other => {
                return Ok(Settle::Control(NormalizedError::named("TypeError", format!("malformed reply {other:?}"))))
            }
        };
        let status = exit.unwrap_or(1);
        self.status(&format!("Executed script for {id} (exit {status})."), None);
        let mut payload = self.identity(id);
        payload.insert("exitStatus".into(), json!(status));
        self.io.emit(Emission::Telemetry { topic: "playbook.script".into(), payload: Value::Object(payload) });
        let guard = if exit == Some(0) { "ok" } else { "failed" };
        Ok(Settle::Guard(guard.into(), Map::new()))
    }

    fn playbook(
        &mut self,
        id: &str,
        fixed: Option<&str>,
        from_context: Option<&str>,
        text: Option<&Operand>,
        results: &[ResultSpec],
    ) -> Result<Settle, Halt> {
        if self.io.aborted {
            return Ok(Settle::Abort);
        }
        let target = match (fixed, from_context) {
            (Some(t), _) => t.to_owned(),
            (None, Some(f)) => self.core.context.get(f).and_then(Value::as_str).unwrap_or_default().to_owned(),
            _ => String::new(),
        };
        let text = match text {
            Some(Operand::Context(f)) => text_of(self.core.context.get(f)),
            Some(Operand::Literal(v)) => text_of(Some(v)),
            _ => String::new(),
        };
        let signature = [target.clone(), text.clone()];
        let problem = self.bad_target(&target).or_else(|| {
            // A dynamic call also needs input text, and is not made twice alike in one run
            // (§2.3); a fixed one is the author's own.
            if fixed.is_some() {
                None
            } else if text.trim().is_empty() {
                Some("the nested call's input text is empty".to_owned())
            } else if self.core.call_signatures.contains(&signature) {
                Some(format!("`{target}` was already called with this text in this run"))
            } else {
                None
            }
        });
        if let Some(problem) = problem {
            return Ok(Settle::Fail(NormalizedError::named("PlaybookTargetError", problem)));
        }
        if fixed.is_none() {
            self.core.call_signatures.push(signature);
        }
        self.core.seq.playbook_call += 1;
        let call_id = format!("playbook-{}", self.core.seq.playbook_call);
        let identity = self.call_identity(id, &target, &text);
        self.trace("playbook.call.started", Some(&call_id), Value::Object(identity.clone()));
        let reply = self.io.call(PortCall::Playbook {
            call_id: call_id.clone(),
            playbook_id: target.clone(),
            text: text.clone(),
        })?;
        match reply {
            Reply::Playbook { start: PlaybookCallStart::Settled { result } } => {
                let fin = with(identity, "result", serde_json::to_value(&result).unwrap_or(Value::Null));
                self.trace("playbook.call.finished", Some(&call_id), Value::Object(fin));
                Ok(child_settle(&result, results))
            }
            Reply::Playbook { start: PlaybookCallStart::Suspended { child_session_id } } => {
                self.core.suspended = Some(SuspendedCall {
                    call_id,
                    playbook_id: target,
                    child_session_id,
                    turn_id: self.turn,
                    state_id: id.to_owned(),
                    text,
                });
                Ok(Settle::Suspend)
            }
            other => Ok(self.failed_call("playbook.call.finished", &call_id, identity, other)),
        }
    }

    /// Why a nested target is refused before the call (§2.3): empty or white space only, this
    /// playbook itself, or outside the catalogue when one is given.
    fn bad_target(&self, target: &str) -> Option<String> {
        if target.trim().is_empty() {
            return Some("the nested playbook id is empty".into());
        }
        if target == self.m.id {
            return Some(format!("a playbook may not call itself (`{target}`)"));
        }
        match &self.opts.catalogue {
            Some(c) if !c.iter().any(|x| x == target) => Some(format!("`{target}` is not in the catalogue")),
            _ => None,
        }
    }
}

/// What a settled child result means for the parent's invoke.
pub(crate) fn child_settle(result: &PlaybookCallResult, results: &[ResultSpec]) -> Settle {
    match result {
        PlaybookCallResult::Ok { output, .. } => {
            if results.is_empty() {
                return Settle::Guard(crate::machine::DONE.into(), Map::new());
            }
            let guard = output.as_ref().and_then(|o| o.get("guard")).and_then(Value::as_str);
            let Some(spec) = guard.and_then(|g| results.iter().find(|r| r.guard == g)) else {
                return Settle::Control(NormalizedError::named(
                    "TypeError",
                    "the child's output names no declared result in its `guard` member",
                ));
            };
            let mut fields = Map::new();
            for f in spec.required_fields.iter().chain(&spec.verbatim_fields) {
                match output.as_ref().and_then(|o| o.get(f)) {
                    Some(v) if !v.is_null() => {
                        fields.insert(f.clone(), v.clone());
                    }
                    _ => {
                        return Settle::Control(NormalizedError::named(
                            "TypeError",
                            format!("the child's output lacks `{f}`"),
                        ))
                    }
                }
            }
            Settle::Guard(spec.guard.clone(), fields)
        }
        PlaybookCallResult::Aborted { error } => {
            Settle::Fail(error.clone().unwrap_or_else(|| NormalizedError::named("AbortError", "the child was aborted")))
        }
        PlaybookCallResult::Error { error } => Settle::Fail(error.clone()),
    }
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The port names failures are worded with.
const PLAYER_PORT: &str = "callPlayer";
const CAPTAIN_PORT: &str = "callCaptain";

/// What an agent's result means: `None` asks again (the first empty `ok`). A host-reported
/// failure is a plain `Error` (§1.10 recoverable failure): the host's message, else one naming
/// the status (an `aborted` result is not the turn's own abort, which is `AbortError`).
fn agent_result(port: &str, result: &PlayerResult, attempt: usize) -> Option<Agent> {
    match result_failure(port, result) {
        None => Some(Agent::Text(result.final_text.clone().unwrap_or_default())),
        Some(_) if result.status == CallStatus::Ok && attempt == 0 => None,
        Some(_) if result.status == CallStatus::Ok => Some(Agent::Settled(Settle::Fail(empty_error(port)))),
        Some(e) => Some(Agent::Settled(Settle::Fail(e))),
    }
}

/// The error a result fails with, `None` for an `ok` with final text.
fn result_failure(port: &str, result: &PlayerResult) -> Option<NormalizedError> {
    match result.status {
        CallStatus::Ok => match &result.final_text {
            Some(t) if !t.trim().is_empty() => None,
            _ => Some(empty_error(port)),
        },
        status => {
            let word = if status == CallStatus::Aborted { "aborted" } else { "error" };
            let message = result.error.clone().unwrap_or_else(|| format!("{port} status \"{word}\""));
            Some(NormalizedError::named("Error", message))
        }
    }
}

fn empty_error(port: &str) -> NormalizedError {
    NormalizedError::named("Error", format!("{port} returned status=ok with no finalText"))
}
