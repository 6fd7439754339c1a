//! One line per emission: the form a case's expected `log` is written in.

use serde_json::Value;

use crate::runtime::{Continuity, Emission};

/// The members of each trace type's payload a log line shows, in order.
fn keys(trace_type: &str) -> &'static [&'static str] {
    match trace_type {
        "session.started" | "session.disposed" => &["stateId"],
        "boss.input.received" => &["text"],
        "judge.call.started" => &["purpose", "stateId"],
        "judge.call.finished" => &["status", "reply", "error"],
        "player.call.started" => &["stateId", "playerId", "resume"],
        "player.call.finished" => &["status", "finalText", "resumeToken", "error"],
        "captain.call.started" => &["stateId", "visibility", "resume"],
        "captain.call.finished" => &["status", "finalText", "error", "resume"],
        "playbook.call.started" => &["stateId", "playbookId", "text"],
        "playbook.call.finished" => &["playbookId", "result"],
        "apply.started" => &["actionId", "key", "stateId"],
        "apply.finished" => &["disposition", "reason", "error", "status"],
        "fsm.transition" => &["from", "to"],
        "status.emitted" => &["message"],
        "boss.input.settled" => &["outcome", "stateId", "error", "output", "pendingCall"],
        _ => &[],
    }
}

fn value(v: &Value) -> String {
    match v {
        Value::String(s) if !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || matches!(c, '"' | '=' | '\\')) => {
            s.clone()
        }
        Value::Object(o) if o.contains_key("message") && o.contains_key("name") => {
            format!(
                "{}:{}",
                o["name"].as_str().unwrap_or(""),
                Value::String(o["message"].as_str().unwrap_or("").into())
            )
        }
        other => other.to_string(),
    }
}

/// The log line of `e`, or `None` when its kind is not shown. `show` lists the kinds besides
/// `trace` a case wants (`status`, `telemetry`, `continuity`).
pub fn render(e: &Emission, show: &[String]) -> Option<String> {
    let shown = |k: &str| show.iter().any(|s| s == k);
    match e {
        Emission::Trace { event } => {
            let mut line = format!("{} {}", event.sequence, event.trace_type);
            if let Some(t) = event.turn_id {
                line.push_str(&format!(" t={t}"));
            }
            if let Some(c) = &event.call_id {
                line.push_str(&format!(" c={c}"));
            }
            if event.trace_type == "fsm.transition" {
                let p = &event.payload;
                let ev = &p["event"];
                let mut what = ev["type"].as_str().unwrap_or("").to_owned();
                if let Some(g) = ev.get("guard").and_then(Value::as_str) {
                    what.push('/');
                    what.push_str(g);
                }
                line.push_str(&format!(
                    " {} -> {} on {what}",
                    p["from"].as_str().unwrap_or(""),
                    p["to"].as_str().unwrap_or("")
                ));
                return Some(line);
            }
            for k in keys(&event.trace_type) {
                if let Some(v) = event.payload.get(*k) {
                    line.push_str(&format!(" {k}={}", value(v)));
                }
            }
            Some(line)
        }
        Emission::Status { message, .. } => shown("status").then(|| format!("> {message}")),
        Emission::Telemetry { topic, payload } => shown("telemetry").then(|| {
            let brief = match topic.as_str() {
                "playbook.fsm.state" => payload["state"]["value"].to_string(),
                _ => payload.to_string(),
            };
            format!("~ {topic} {brief}")
        }),
        Emission::Continuity { op } => shown("continuity").then(|| match op {
            Continuity::Select { player, token } => {
                format!("@ select {player} -> {}", token.as_deref().unwrap_or("false"))
            }
            Continuity::Update { player, token } => {
                format!("@ update {player} {}", token.as_deref().map_or("clear".to_owned(), |t| format!("= {t}")))
            }
        }),
    }
}
