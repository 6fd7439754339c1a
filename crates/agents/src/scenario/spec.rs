//! A case's steps and scripted replies, and how the runner plays them.

use serde::Deserialize;
use serde_json::{json, Value};

use super::Player;
use crate::runtime::{
    parse_snapshot, NormalizedError, Options, PlaybookCallResult, PlaybookCallStart, PlayerResult, Reply, Request,
    Runtime, RuntimeError, Session, Settled, Step,
};

/// One case file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Case {
    /// What the case shows, for people.
    #[allow(dead_code)]
    pub description: String,
    /// Which upstream test or Verification item it covers.
    #[serde(default)]
    #[allow(dead_code)]
    pub covers: Vec<String>,
    pub machine: Value,
    #[serde(default)]
    pub options: Options,
    #[serde(default)]
    pub session: Option<Session>,
    #[serde(default)]
    pub show: Vec<String>,
    #[serde(default)]
    pub steps: Vec<Value>,
    /// The reader must refuse the machine with this refusal (`{rule, path, expected}`, matched
    /// as `expect` is); nothing is played.
    #[serde(default)]
    pub refused: Option<Value>,
    #[serde(default)]
    pub log: Option<Vec<String>>,
}

pub(crate) fn parse(text: &str) -> Result<Case, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// Whether `expected` is contained in `actual`: objects by their listed members, arrays
/// element by element with equal lengths, a string `~text` by containing `text`, everything
/// else equal; an expected `null` also matches an absent member. `Err` names the path.
pub(crate) fn subset(expected: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, v) in e {
                let p = format!("{path}.{k}");
                match a.get(k) {
                    Some(av) => subset(v, av, &p)?,
                    None if v.is_null() => {}
                    None => return Err(p),
                }
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                subset(ev, av, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::String(e), Value::String(a)) if e.starts_with('~') && a.contains(&e[1..]) => Ok(()),
        (e, a) if e == a => Ok(()),
        _ => Err(path.to_owned()),
    }
}

const ACTIONS: [&str; 11] = [
    "init",
    "boss",
    "resume",
    "apply",
    "dispose",
    "describe",
    "roundTrip",
    "noSnapshot",
    "restoreRejects",
    "reportSinkFailure",
    "restore",
];

fn action_of(step: &Value) -> Option<(&'static str, &Value)> {
    let o = step.as_object()?;
    ACTIONS.iter().find_map(|a| o.get(*a).map(|v| (*a, v)))
}

fn settled_json(s: &Settled) -> Value {
    match s {
        Settled::Init { result: Ok(()) } => json!({"init": "ok"}),
        Settled::Init { result: Err(e) } => json!({"init": {"error": e}}),
        Settled::Run { result: Ok(r) } => {
            let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
            if let (Some(o), Some(id)) = (v.as_object_mut(), r.state().state_id.clone()) {
                o.insert("stateId".into(), Value::String(id));
            }
            v
        }
        Settled::Run { result: Err(e) } => json!({"rejects": e}),
        Settled::Receipt { result: Ok(r) } => json!({"receipt": r}),
        Settled::Receipt { result: Err(e) } => json!({"throws": e}),
        Settled::Disposed { result: Ok(()) } => json!({"disposed": true}),
        Settled::Disposed { result: Err(e) } => json!({"disposed": true, "rejects": e}),
    }
}

fn error_json(e: &RuntimeError) -> Value {
    json!({"error": e.to_string()})
}

fn request_json(r: &Request) -> Value {
    match r {
        Request::Call { call } => serde_json::to_value(call).unwrap_or(Value::Null),
        Request::Drain => json!({"request": "drain"}),
    }
}

/// A scripted reply: `"drained"`, `"abort"`, or an object with one reply key (`player`,
/// `captain`, `judge`, `script`, `playbook`, `sinkFailed`, `threw`, `interject`) and an
/// optional `expect` matched against the request it answers.
fn reply_of(spec: &Value) -> Result<Option<Reply>, String> {
    let agent = |v: &Value| -> Result<PlayerResult, String> {
        match v {
            Value::String(t) => Ok(PlayerResult::ok(t.clone())),
            other => serde_json::from_value(other.clone()).map_err(|e| e.to_string()),
        }
    };
    match spec {
        Value::String(s) if s == "drained" => return Ok(Some(Reply::Drained)),
        Value::String(s) if s == "abort" => return Ok(Some(Reply::Abort)),
        _ => {}
    }
    let Some(o) = spec.as_object() else { return Err(format!("a reply must be an object: {spec}")) };
    if o.contains_key("interject") {
        return Ok(None);
    }
    if let Some(v) = o.get("player") {
        return Ok(Some(Reply::Player { result: agent(v)? }));
    }
    if let Some(v) = o.get("captain") {
        return Ok(Some(Reply::Captain { result: agent(v)? }));
    }
    if let Some(v) = o.get("judge") {
        let text = match v {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        return Ok(Some(Reply::Judge { text }));
    }
    if let Some(v) = o.get("script") {
        return Ok(Some(Reply::Script { exit_code: v.as_i64().map(|c| c as i32) }));
    }
    if let Some(v) = o.get("playbook") {
        let start: PlaybookCallStart = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        return Ok(Some(Reply::Playbook { start }));
    }
    if let Some(v) = o.get("sinkFailed") {
        return Ok(Some(Reply::SinkFailed { error: NormalizedError::from_value(v) }));
    }
    if let Some(v) = o.get("threw") {
        return Ok(Some(Reply::Threw { error: NormalizedError::from_value(v) }));
    }
    if o.contains_key("abort") {
        return Ok(Some(Reply::Abort));
    }
    if o.contains_key("drained") {
        return Ok(Some(Reply::Drained));
    }
    Err(format!("no reply key in {spec}"))
}

impl Player {
    pub(crate) fn play(&mut self, case: &Case) {
        for (i, step) in case.steps.iter().enumerate() {
            self.clock += 1_000;
            let Some((action, arg)) = action_of(step) else {
                self.fail(i, format!("no action in {step}"));
                return;
            };
            let expect = step.get("expect");
            let replies: Vec<Value> = step.get("replies").and_then(Value::as_array).cloned().unwrap_or_default();
            match self.act(action, arg) {
                Act::Started(Ok(s)) => self.drive(i, s, &replies, expect),
                Act::Started(Err(e)) => {
                    self.expect(i, action, expect.or(Some(&json!({"error": "(no error expected)"}))), &error_json(&e))
                }
                Act::Value(v) => self.expect(i, action, expect, &v),
                Act::Failed(m) => self.fail(i, m),
            }
        }
    }

    fn act(&mut self, action: &str, arg: &Value) -> Act {
        let at = self.clock;
        match action {
            "init" => {
                let session = match arg.get("session") {
                    Some(s) => match serde_json::from_value::<Session>(s.clone()) {
                        Ok(s) => s,
                        Err(e) => return Act::Failed(e.to_string()),
                    },
                    None => self.session.clone(),
                };
                Act::Started(self.rt.init(session, at))
            }
            "boss" => Act::Started(self.rt.handle_boss_input(arg.as_str().unwrap_or_default(), at)),
            "resume" => {
                let call_id = arg.get("callId").and_then(Value::as_str).unwrap_or_default().to_owned();
                let result: PlaybookCallResult =
                    match serde_json::from_value(arg.get("result").cloned().unwrap_or_default()) {
                        Ok(r) => r,
                        Err(e) => return Act::Failed(format!("resume result: {e}")),
                    };
                Act::Started(self.rt.resume_playbook_call(&call_id, result, at))
            }
            "apply" => {
                let a = arg.get("actionId").and_then(Value::as_str).unwrap_or_default();
                let k = arg.get("key").and_then(Value::as_str).unwrap_or_default();
                Act::Started(self.rt.apply(a, k, at))
            }
            "dispose" => Act::Started(self.rt.dispose(at)),
            "describe" => Act::Value(match self.rt.describe() {
                Ok(v) => serde_json::to_value(v).unwrap_or(Value::Null),
                Err(e) => error_json(&e),
            }),
            "noSnapshot" => Act::Value(json!({"snapshot": self.rt.export_snapshot().is_some()})),
            "reportSinkFailure" => {
                self.rt.report_sink_failure(NormalizedError::from_value(arg));
                Act::Value(Value::Null)
            }
            "roundTrip" => self.round_trip(arg.get("processState").and_then(Value::as_bool) == Some(true)),
            "restore" => self.restore_fresh(arg),
            "restoreRejects" => self.restore_rejects(arg),
            _ => Act::Failed(format!("unknown action {action}")),
        }
    }

    /// Export → JSON text → parse → restore into a fresh runtime, which carries on. With
    /// `process_state` the snapshot also keeps the receipts and the last Boss event (A19).
    fn round_trip(&mut self, process_state: bool) -> Act {
        let export = |rt: &Runtime| {
            if process_state {
                rt.export_snapshot_with_process_state()
            } else {
                rt.export_snapshot()
            }
        };
        let Some(snap) = export(&self.rt) else {
            return Act::Failed("no snapshot at this point".into());
        };
        let text = match serde_json::to_string(&snap) {
            Ok(t) => t,
            Err(e) => return Act::Failed(e.to_string()),
        };
        let parsed = match parse_snapshot(&text) {
            Ok(s) => s,
            Err(e) => return Act::Failed(e.to_string()),
        };
        let mut fresh = match Runtime::new(self.machine.clone(), self.options.clone()) {
            Ok(r) => r,
            Err(e) => return Act::Failed(e.to_string()),
        };
        if let Err(e) = fresh.restore(self.session.clone(), &parsed) {
            return Act::Failed(format!("restore refused its own snapshot: {e}"));
        }
        if export(&fresh).as_ref() != Some(&snap) {
            return Act::Failed("the restored runtime exports another snapshot".into());
        }
        self.rt = fresh;
        Act::Value(serde_json::to_value(&snap).unwrap_or(Value::Null))
    }

    /// `restore` a literal snapshot into a fresh runtime (which then carries on).
    fn restore_fresh(&mut self, arg: &Value) -> Act {
        let snap = match serde_json::from_value(arg.clone()) {
            Ok(s) => s,
            Err(e) => return Act::Value(json!({"error": format!("snapshot refused: {e}")})),
        };
        let mut fresh = match Runtime::new(self.machine.clone(), self.options.clone()) {
            Ok(r) => r,
            Err(e) => return Act::Failed(e.to_string()),
        };
        match fresh.restore(self.session.clone(), &snap) {
            Ok(()) => {
                self.rt = fresh;
                Act::Value(json!({"restored": true}))
            }
            Err(e) => Act::Value(error_json(&e)),
        }
    }

    /// The current snapshot with `set` (JSON pointer → value) applied must be refused by a
    /// fresh runtime; with `intoSelf`, the live runtime must refuse its own snapshot.
    fn restore_rejects(&mut self, arg: &Value) -> Act {
        let Some(snap) = self.rt.export_snapshot() else {
            return Act::Failed("no snapshot at this point".into());
        };
        if arg.get("intoSelf").and_then(Value::as_bool) == Some(true) {
            return match self.rt.restore(self.session.clone(), &snap) {
                Ok(()) => Act::Failed("an initialised runtime accepted restore".into()),
                Err(e) => Act::Value(error_json(&e)),
            };
        }
        let mut v = serde_json::to_value(&snap).unwrap_or(Value::Null);
        if let Some(Value::Object(set)) = arg.get("set") {
            for (pointer, value) in set {
                match v.pointer_mut(pointer) {
                    Some(slot) => *slot = value.clone(),
                    None => {
                        let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", pointer));
                        match v.pointer_mut(parent).and_then(Value::as_object_mut) {
                            Some(o) => {
                                o.insert(key.to_owned(), value.clone());
                            }
                            None => return Act::Failed(format!("no {parent} in the snapshot")),
                        }
                    }
                }
            }
        }
        let parsed = match serde_json::from_value(v) {
            Ok(s) => s,
            Err(e) => return Act::Value(json!({"error": format!("snapshot refused: {e}")})),
        };
        let mut fresh = match Runtime::new(self.machine.clone(), self.options.clone()) {
            Ok(r) => r,
            Err(e) => return Act::Failed(e.to_string()),
        };
        match fresh.restore(self.session.clone(), &parsed) {
            Ok(()) => Act::Failed("the edited snapshot was accepted".into()),
            Err(e) => Act::Value(error_json(&e)),
        }
    }

    /// Answers a boundary's requests with the scripted replies, then checks its settlement.
    fn drive(&mut self, i: usize, first: Step, replies: &[Value], expect: Option<&Value>) {
        let mut step = first;
        let mut replies = replies.iter();
        loop {
            self.record(std::mem::take(&mut step.emitted));
            let request = match &step.next {
                crate::runtime::Next::Settled { settled } => {
                    let got = settled_json(settled);
                    self.expect(i, "settled", expect, &got);
                    if let Some(r) = replies.next() {
                        self.fail(i, format!("an unused reply {r}"));
                    }
                    return;
                }
                crate::runtime::Next::Request { request } => request.clone(),
            };
            let Some(spec) = replies.next() else {
                self.fail(i, format!("no reply scripted for {}", request_json(&request)));
                return;
            };
            if let Some(interject) = spec.get("interject") {
                let got = match action_of(interject) {
                    Some((a, arg)) => match self.act(a, arg) {
                        Act::Started(Ok(_)) => json!({"started": true}),
                        Act::Started(Err(e)) => error_json(&e),
                        Act::Value(v) => v,
                        Act::Failed(m) => json!({"failed": m}),
                    },
                    None => json!({"failed": "no action"}),
                };
                self.expect(i, "interject", spec.get("expect"), &got);
                step = crate::runtime::Step { emitted: Vec::new(), next: crate::runtime::Next::Request { request } };
                continue;
            }
            self.expect(i, "request", spec.get("expect"), &request_json(&request));
            let reply = match reply_of(spec) {
                Ok(Some(r)) => r,
                Ok(None) => continue,
                Err(e) => {
                    self.fail(i, e);
                    return;
                }
            };
            self.clock += 1;
            match self.rt.answer(reply, self.clock) {
                Ok(s) => step = s,
                Err(e) => {
                    self.fail(i, format!("{} refused the reply {spec}: {e}", request_json(&request)));
                    return;
                }
            }
        }
    }
}

enum Act {
    Started(Result<Step, RuntimeError>),
    Value(Value),
    Failed(String),
}
