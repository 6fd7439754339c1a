//! Holding a host script: its steps run in order against `stagehand_session::host::Session`
//! over fresh engines of the case's document, each claim checked as it comes, and the whole
//! trace checked at the end (contiguous sequence numbers, one `session.started` first, every
//! boundary's start with exactly one finish, properly nested, nothing after `session.disposed`).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use stagehand_protocol::{Engine, Receipt};
use stagehand_session::host::{Session, SessionSnapshot, TraceRecord, TraceType, TRACE_SCHEMA_VERSION};

use crate::claims::subset;
use crate::fixture::{Host, HostStep, ReceiptClaim};
use crate::session::Divergence;

/// A snapshot kept by name: its JSON, the trace it had seen, and the receipts the
/// script had been given by then.
struct Kept {
    json: String,
    /// The trace of the session's lineage when the snapshot was taken: a later restore of
    /// another snapshot may have dropped some of it from `Seen::trace`.
    trace: Vec<TraceRecord>,
    receipts: BTreeMap<String, String>,
}

/// What the script has seen so far.
struct Seen<E: Engine> {
    session: Session<E>,
    /// The session's trace, in its lineage: a restore drops what came after the snapshot.
    trace: Vec<TraceRecord>,
    /// How much of `trace` a `trace` step has checked.
    checked: usize,
    /// The first receipt returned under each key (not rejected), as JSON.
    receipts: BTreeMap<String, String>,
    kept: BTreeMap<String, Kept>,
}

fn json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| Value::String(format!("unserialisable: {e}")))
}

/// Holds `host` against sessions of engines made by `fresh`.
pub fn hold_host<E: Engine>(host: &Host, fresh: &dyn Fn() -> Result<E, String>) -> Result<(), Divergence> {
    let diverge = |turn: usize, message: String| Divergence { turn, message };
    let engine = fresh().map_err(|e| diverge(0, format!("the engine could not be made: {e}")))?;
    let session = Session::new(engine, host.session_id.clone(), host.started_at)
        .map_err(|e| diverge(0, format!("the session could not be made: {e}")))?;
    let mut seen = Seen { session, trace: Vec::new(), checked: 0, receipts: BTreeMap::new(), kept: BTreeMap::new() };
    for (turn, step) in host.steps.iter().enumerate() {
        step_once(&mut seen, step, fresh).map_err(|message| diverge(turn, message))?;
        seen.trace.extend(seen.session.take_trace());
    }
    whole_trace(&seen.trace, &host.session_id).map_err(|message| diverge(host.steps.len(), message))
}

fn step_once<E: Engine>(
    seen: &mut Seen<E>,
    step: &HostStep,
    fresh: &dyn Fn() -> Result<E, String>,
) -> Result<(), String> {
    match step {
        HostStep::Opening(claims) => {
            let opening = json(&seen.session.take_opening());
            subset(claims, &opening, "opening").map_or(Ok(()), Err)
        }
        HostStep::Describe(claims) => {
            let view = json(&seen.session.describe());
            subset(claims, &view, "view").map_or(Ok(()), Err)
        }
        HostStep::Apply { action, key, now, receipt } => {
            let given = seen.session.apply(action, key, *now);
            check_receipt(seen, key, &given, receipt.as_ref())
        }
        HostStep::Input { question, text, key, now, receipt } => {
            let given = seen.session.input(question, text, key, *now);
            check_receipt(seen, key, &given, receipt.as_ref())
        }
        HostStep::Snapshot(name) => {
            let snapshot = seen.session.snapshot().map_err(|e| format!("the snapshot failed: {e}"))?;
            let json = serde_json::to_string(&snapshot).map_err(|e| format!("the snapshot does not serialise: {e}"))?;
            seen.trace.extend(seen.session.take_trace());
            let kept = Kept { json, trace: seen.trace.clone(), receipts: seen.receipts.clone() };
            seen.kept.insert(name.clone(), kept);
            Ok(())
        }
        HostStep::Restore(name) => {
            let kept = seen.kept.get(name).ok_or_else(|| format!("no snapshot is named {name:?}"))?;
            let snapshot: SessionSnapshot<E::Snapshot> =
                serde_json::from_str(&kept.json).map_err(|e| format!("the snapshot does not read back: {e}"))?;
            let engine = fresh().map_err(|e| format!("the engine could not be made: {e}"))?;
            seen.session = Session::restore(engine, snapshot).map_err(|e| format!("the restore failed: {e}"))?;
            seen.trace.clone_from(&kept.trace);
            seen.checked = seen.checked.min(kept.trace.len());
            seen.receipts = kept.receipts.clone();
            Ok(())
        }
        HostStep::Dispose { now } => {
            seen.session.dispose(*now);
            Ok(())
        }
        HostStep::Trace(claims) => {
            seen.trace.extend(seen.session.take_trace());
            let lines: Vec<Value> = seen.trace[seen.checked..].iter().map(json).collect();
            seen.checked = seen.trace.len();
            let first = seen.trace.len() - lines.len();
            if claims.len() != lines.len() {
                return Err(format!(
                    "the trace has {} new record(s), not {}: {}",
                    lines.len(),
                    claims.len(),
                    lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n")
                ));
            }
            claims
                .iter()
                .zip(&lines)
                .enumerate()
                .find_map(|(i, (claim, line))| subset(claim, line, &format!("trace line {}", first + i + 1)))
                .map_or(Ok(()), Err)
        }
    }
}

fn check_receipt<E: Engine>(
    seen: &mut Seen<E>,
    key: &str,
    given: &Receipt,
    claim: Option<&ReceiptClaim>,
) -> Result<(), String> {
    let bytes = serde_json::to_string(given).map_err(|e| format!("the receipt does not serialise: {e}"))?;
    let result = match claim {
        None => Ok(()),
        Some(ReceiptClaim::Recorded) => match seen.receipts.get(key) {
            Some(recorded) if *recorded == bytes => Ok(()),
            Some(recorded) => Err(format!("the receipt under {key:?} is {bytes}, not the one recorded: {recorded}")),
            None => Err(format!("no receipt was recorded under {key:?}; this one is {bytes}")),
        },
        Some(ReceiptClaim::Claims(claims)) => subset(claims, &json(given), "receipt").map_or(Ok(()), Err),
    };
    if !matches!(given, Receipt::Rejected { .. }) {
        seen.receipts.entry(key.to_owned()).or_insert(bytes);
    }
    result
}

/// The trace as a whole: contiguous from 1, one session id and schema version, one
/// `session.started` first, boundaries properly nested with one finish per start (sharing its
/// call id), and nothing after `session.disposed`.
fn whole_trace(trace: &[TraceRecord], session_id: &str) -> Result<(), String> {
    let mut open: Vec<(TraceType, &str)> = Vec::new();
    let mut disposed = false;
    for (i, record) in trace.iter().enumerate() {
        let line = i + 1;
        if record.sequence != line as u64 {
            return Err(format!(
                "trace line {line} has sequence {}: the sequence is not contiguous from 1",
                record.sequence
            ));
        }
        if record.session_id != session_id || record.schema_version != TRACE_SCHEMA_VERSION {
            return Err(format!(
                "trace line {line} belongs to session {:?}, schema version {}",
                record.session_id, record.schema_version
            ));
        }
        if disposed {
            return Err(format!("trace line {line} ({}) comes after session.disposed", record.kind));
        }
        if record.engine {
            // The engine's own record (H48): its pairing is the engine's, not the session's.
            continue;
        }
        let kind =
            record.trace_type().ok_or_else(|| format!("trace line {line} has an unknown type {:?}", record.kind))?;
        let call = record.call_id.as_deref().unwrap_or("");
        match kind {
            TraceType::SessionStarted if line != 1 => {
                return Err(format!("trace line {line} is a second session.started"));
            }
            TraceType::SessionStarted => {}
            TraceType::SessionDisposed => disposed = true,
            _ if kind.finish().is_some() => open.push((kind, call)),
            _ => match open.pop() {
                Some((start, started)) if start.finish() == Some(kind) && started == call => {}
                Some((start, started)) => {
                    return Err(format!(
                        "trace line {line} ({} {call}) does not finish {} {started}",
                        record.kind,
                        start.as_str()
                    ))
                }
                None => {
                    return Err(format!("trace line {line} ({} {call}) finishes nothing that started", record.kind))
                }
            },
        }
        if line == 1 && kind != TraceType::SessionStarted {
            return Err(format!("the trace opens with {}, not session.started", record.kind));
        }
    }
    match open.last() {
        Some((start, call)) => Err(format!("{} {call} never finished", start.as_str())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::whole_trace;
    use stagehand_session::host::TraceRecord;

    /// A record's sequence number, type and call id.
    type Line<'a> = (u64, &'a str, Option<&'a str>);

    fn records(lines: &[Line<'_>]) -> Vec<TraceRecord> {
        lines
            .iter()
            .map(|(sequence, kind, call)| TraceRecord {
                schema_version: 1,
                session_id: "s".into(),
                sequence: *sequence,
                timestamp: 0,
                kind: (*kind).into(),
                call_id: call.map(str::to_owned),
                engine: false,
                payload: serde_json::json!({}),
            })
            .collect()
    }

    #[test]
    fn a_well_formed_trace_passes() {
        let trace = records(&[
            (1, "session.started", None),
            (2, "apply.started", Some("apply-1")),
            (3, "apply.finished", Some("apply-1")),
            (4, "input.received", Some("input-1")),
            (5, "input.settled", Some("input-1")),
            (6, "session.disposed", None),
        ]);
        assert_eq!(whole_trace(&trace, "s"), Ok(()));
    }

    #[test]
    fn each_broken_rule_is_named() {
        let cases: [(&[Line<'_>], &str); 7] = [
            (&[(1, "session.started", None), (3, "session.disposed", None)], "not contiguous"),
            (&[(1, "apply.started", Some("apply-1")), (2, "apply.finished", Some("apply-1"))], "not session.started"),
            (&[(1, "session.started", None), (2, "session.started", None)], "a second session.started"),
            (&[(1, "session.started", None), (2, "apply.finished", Some("apply-1"))], "finishes nothing"),
            (&[(1, "session.started", None), (2, "apply.started", Some("apply-1"))], "never finished"),
            (
                &[
                    (1, "session.started", None),
                    (2, "apply.started", Some("apply-1")),
                    (3, "input.settled", Some("apply-1")),
                ],
                "does not finish",
            ),
            (
                &[(1, "session.started", None), (2, "session.disposed", None), (3, "apply.started", Some("a"))],
                "after session.disposed",
            ),
        ];
        for (lines, expected) in cases {
            let error = whole_trace(&records(lines), "s").expect_err(expected);
            assert!(error.contains(expected), "{error}");
        }
        assert!(whole_trace(&records(&[(1, "session.started", None)]), "other").is_err(), "another session's record");
    }
}
