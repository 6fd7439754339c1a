//! The trace: ordered records with paired boundaries. This module owns the trace's spelling
//! (the JSON Schema is `docs/schema/trace.schema.json`; decisions H5 and H6).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The trace's schema version, carried by every record.
pub const TRACE_SCHEMA_VERSION: u32 = 1;

/// What a record reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TraceType {
    /// The session was made and its engine started (once; never after a restore).
    SessionStarted,
    /// An `apply` got past the replay check.
    ApplyStarted,
    /// That `apply` settled (exactly one per start).
    ApplyFinished,
    /// An `input` got past the replay check.
    InputReceived,
    /// That `input` settled (exactly one per receipt).
    InputSettled,
    /// The session really ended.
    SessionDisposed,
}

impl TraceType {
    /// Every type.
    pub const ALL: [TraceType; 6] = [
        TraceType::SessionStarted,
        TraceType::ApplyStarted,
        TraceType::ApplyFinished,
        TraceType::InputReceived,
        TraceType::InputSettled,
        TraceType::SessionDisposed,
    ];

    /// The type's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TraceType::SessionStarted => "session.started",
            TraceType::ApplyStarted => "apply.started",
            TraceType::ApplyFinished => "apply.finished",
            TraceType::InputReceived => "input.received",
            TraceType::InputSettled => "input.settled",
            TraceType::SessionDisposed => "session.disposed",
        }
    }

    /// The type a spelling names.
    pub fn parse(spelling: &str) -> Option<TraceType> {
        TraceType::ALL.into_iter().find(|t| t.as_str() == spelling)
    }

    /// For a boundary's start, the type that finishes it.
    pub fn finish(self) -> Option<TraceType> {
        match self {
            TraceType::ApplyStarted => Some(TraceType::ApplyFinished),
            TraceType::InputReceived => Some(TraceType::InputSettled),
            _ => None,
        }
    }
}

/// One trace record, as a JSON line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TraceRecord {
    /// [`TRACE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The session's id.
    pub session_id: String,
    /// Contiguous from 1 within the session, across snapshots and restores.
    pub sequence: u64,
    /// The time the host supplied with the call that produced the record (Unix milliseconds;
    /// the session reads no clock).
    pub timestamp: u64,
    /// The type's spelling ([`TraceType::as_str`]).
    #[serde(rename = "type")]
    pub kind: String,
    /// For a boundary, the id its start and finish share (`apply-3`, `input-1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// What the record carries.
    pub payload: Value,
}

impl TraceRecord {
    /// The record as one line of JSON.
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("a trace record is plain JSON")
    }

    /// The record's type, if it is one this build knows.
    pub fn trace_type(&self) -> Option<TraceType> {
        TraceType::parse(&self.kind)
    }
}

/// The session's counters, saved with it so a restored session continues its trace and its
/// call ids without a gap or a collision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Sequences {
    /// The last trace sequence number given.
    pub trace: u64,
    /// The last `apply-N` given.
    pub apply: u64,
    /// The last `input-N` given.
    pub input: u64,
}

/// The records not yet taken by the host, and the counters.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trace {
    pub(crate) sequences: Sequences,
    pub(crate) buffer: Vec<TraceRecord>,
}

impl Trace {
    pub(crate) fn emit(&mut self, session: &str, now: u64, kind: TraceType, call: Option<&str>, payload: Value) {
        self.sequences.trace += 1;
        self.buffer.push(TraceRecord {
            schema_version: TRACE_SCHEMA_VERSION,
            session_id: session.to_owned(),
            sequence: self.sequences.trace,
            timestamp: now,
            kind: kind.as_str().to_owned(),
            call_id: call.map(str::to_owned),
            payload,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_round_trips_its_spelling() {
        for t in TraceType::ALL {
            assert_eq!(TraceType::parse(t.as_str()), Some(t));
        }
    }

    #[test]
    fn a_record_is_one_camel_case_line() {
        let mut trace = Trace::default();
        trace.emit("s1", 5, TraceType::SessionStarted, None, serde_json::json!({"stateId": "at-node:0"}));
        assert_eq!(
            trace.buffer[0].to_json_line(),
            r#"{"schemaVersion":1,"sessionId":"s1","sequence":1,"timestamp":5,"type":"session.started","payload":{"stateId":"at-node:0"}}"#
        );
    }
}
