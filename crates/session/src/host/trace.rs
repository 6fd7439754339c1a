//! The trace: ordered records with paired boundaries. This module owns the trace's spelling
//! (the JSON Schema is `docs/schema/trace.schema.json`; decisions H5, H6 and H48: an engine's own
//! records, typed as it spells them, stand inside the move that caused them).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use stagehand_protocol::{Outcome, StateMark};

use super::receipts::Receipts;

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
    /// `true` for a record of the engine's own trace (decision H48): its type is the engine's
    /// spelling (an agent playbook's schema-2 types, which may share a host type's words) and
    /// its payload the engine's. Absent for the session's own records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub engine: bool,
    /// What the record carries.
    pub payload: Value,
}

impl TraceRecord {
    /// The record as one line of JSON.
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("a trace record is plain JSON")
    }

    /// The record's type, if it is one of the session's own (an engine's record has none).
    pub fn trace_type(&self) -> Option<TraceType> {
        if self.engine {
            return None;
        }
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

/// The records not yet taken by the host, kept typed with their words in one string until the
/// host takes them, and the counters (decision H33: no JSON tree is built while a session runs).
/// An apply whose receipt was recorded is one entry for its two records, which read their key,
/// action and settlement from the receipt, and their state id from the engine's mark (H37).
#[derive(Debug, Clone, Default)]
pub(crate) struct Trace {
    pub(crate) sequences: Sequences,
    entries: Vec<Entry>,
    text: String,
    /// The payloads of the engine's records not yet taken (H48).
    engine: Vec<Value>,
    /// How many records the entries make.
    waiting: usize,
    /// Room for a state id written from a mark while records are taken (kept between takes).
    scratch: String,
}

/// What a trace needs from the session to write its records: the receipts an apply's records
/// read, and the engine's way to write a state id from a mark.
pub(crate) struct Render<'a> {
    pub(crate) receipts: &'a Receipts,
    pub(crate) mark: &'a dyn Fn(StateMark, &mut String),
}

/// Where a record's state id comes from: a mark the engine writes from later, or words written
/// at once.
#[derive(Debug, Clone)]
pub(crate) enum StateAt {
    Mark(StateMark),
    Text(Span),
}

/// A range of the trace's text.
type Span = std::ops::Range<usize>;

/// One record not yet taken.
#[derive(Debug, Clone)]
struct Entry {
    sequence: u64,
    timestamp: u64,
    kind: TraceType,
    /// The boundary's number (`apply-N`, `input-N`), 0 for none.
    call: u64,
    payload: Payload,
}

/// A record's payload, its words as spans of the trace's text.
#[derive(Debug, Clone)]
enum Payload {
    /// `session.started`.
    Started { state_id: Span, description: Span },
    /// `apply.started`.
    Apply { action_id: Span, key: Span, state_id: StateAt },
    /// `input.received`.
    Input { question_id: Span, text: Span, key: Span, state_id: StateAt },
    /// `apply.finished` and `input.settled`: the action or question, the key, and how it settled.
    Finished { id: Span, key: Span, settled: Settled },
    /// `session.disposed`.
    Disposed { state_id: StateAt },
    /// A record of the engine's own trace: its type's spelling and its payload's index (H48).
    Engine { kind: Span, payload: usize },
    /// `apply.started` then `apply.finished` of an apply whose receipt `receipt` was recorded
    /// (the entry's kind is `apply.started`; the finish is the next sequence number).
    Recorded { receipt: usize, state_id: StateAt },
}

/// How a boundary settled.
#[derive(Debug, Clone)]
enum Settled {
    Rejected(Span),
    Executed(Outcome),
    Failed(Span),
}

/// How a boundary settled, as the session tells the trace.
pub(crate) enum Settling<'a> {
    Rejected(&'a str),
    Executed(Outcome),
    Failed(&'a str),
}

/// A record's payload as JSON, borrowed from the trace: the same keys in the same order as the
/// spelling in `docs/schema/trace.schema.json`.
#[derive(Serialize)]
#[serde(untagged)]
enum PayloadJson<'a> {
    Started {
        #[serde(rename = "stateId")]
        state_id: &'a str,
        description: &'a str,
    },
    Apply {
        #[serde(rename = "actionId")]
        action_id: &'a str,
        key: &'a str,
        #[serde(rename = "stateId")]
        state_id: &'a str,
    },
    Input {
        #[serde(rename = "questionId")]
        question_id: &'a str,
        text: &'a str,
        key: &'a str,
        #[serde(rename = "stateId")]
        state_id: &'a str,
    },
    Finished {
        #[serde(rename = "actionId", skip_serializing_if = "Option::is_none")]
        action_id: Option<&'a str>,
        #[serde(rename = "questionId", skip_serializing_if = "Option::is_none")]
        question_id: Option<&'a str>,
        key: &'a str,
        disposition: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<Run>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a str>,
    },
    Disposed {
        #[serde(rename = "stateId")]
        state_id: &'a str,
    },
    Engine(&'a Value),
}

#[derive(Serialize)]
struct Run {
    outcome: Outcome,
}

/// A record as JSON, borrowed: [`TraceRecord`]'s spelling.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordJson<'a> {
    schema_version: u32,
    session_id: &'a str,
    sequence: u64,
    timestamp: u64,
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<CallId>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    engine: bool,
    payload: PayloadJson<'a>,
}

/// `apply-N` or `input-N`, written when serialised.
struct CallId(&'static str, u64);

impl std::fmt::Display for CallId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.0, self.1)
    }
}

impl Serialize for CallId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Trace {
    /// A counter-only trace continuing from `sequences`.
    pub(crate) fn continuing(sequences: Sequences) -> Self {
        Trace { sequences, ..Trace::default() }
    }

    /// Appends words to the text; their span.
    pub(crate) fn put(&mut self, words: &str) -> Span {
        let start = self.text.len();
        self.text.push_str(words);
        start..self.text.len()
    }

    /// Appends what `write` writes to the text; its span.
    pub(crate) fn put_with(&mut self, write: impl FnOnce(&mut String)) -> Span {
        let start = self.text.len();
        write(&mut self.text);
        start..self.text.len()
    }

    #[inline]
    fn push(&mut self, now: u64, kind: TraceType, call: u64, payload: Payload) {
        self.sequences.trace += 1;
        self.waiting += 1;
        self.entries.push(Entry { sequence: self.sequences.trace, timestamp: now, kind, call, payload });
    }

    /// `session.started`.
    pub(crate) fn started(&mut self, now: u64, state_id: Span, description: Span) {
        self.push(now, TraceType::SessionStarted, 0, Payload::Started { state_id, description });
    }

    /// `apply.started` of boundary `call`.
    pub(crate) fn apply(&mut self, now: u64, call: u64, action_id: &str, key: &str, state_id: StateAt) {
        let (action_id, key) = (self.put(action_id), self.put(key));
        self.push(now, TraceType::ApplyStarted, call, Payload::Apply { action_id, key, state_id });
    }

    /// `apply.started` and `apply.finished` of boundary `call`, whose receipt was recorded as
    /// `receipt`: one entry, read from the receipt when the records are taken.
    #[inline]
    pub(crate) fn applied(&mut self, now: u64, call: u64, receipt: usize, state_id: StateAt) {
        self.push(now, TraceType::ApplyStarted, call, Payload::Recorded { receipt, state_id });
        self.sequences.trace += 1;
        self.waiting += 1;
    }

    /// `input.received` of boundary `call`.
    pub(crate) fn input(&mut self, now: u64, call: u64, question_id: &str, text: &str, key: &str, state_id: StateAt) {
        let (question_id, text, key) = (self.put(question_id), self.put(text), self.put(key));
        self.push(now, TraceType::InputReceived, call, Payload::Input { question_id, text, key, state_id });
    }

    /// `apply.finished` or `input.settled` of boundary `call`, as it settled.
    pub(crate) fn finished(
        &mut self,
        now: u64,
        kind: TraceType,
        call: u64,
        id: &str,
        key: &str,
        settled: Settling<'_>,
    ) {
        let (id, key) = (self.put(id), self.put(key));
        let settled = match settled {
            Settling::Rejected(reason) => Settled::Rejected(self.put(reason)),
            Settling::Executed(outcome) => Settled::Executed(outcome),
            Settling::Failed(error) => Settled::Failed(self.put(error)),
        };
        self.push(now, kind, call, Payload::Finished { id, key, settled });
    }

    /// `session.disposed`.
    pub(crate) fn disposed(&mut self, now: u64, state_id: StateAt) {
        self.push(now, TraceType::SessionDisposed, 0, Payload::Disposed { state_id });
    }

    /// A record of the engine's own trace, typed `kind` as the engine spells it (H48). (The
    /// entry's [`TraceType`] is a placeholder; the payload says what the record is.)
    pub(crate) fn engine(&mut self, now: u64, kind: &str, payload: Value) {
        let kind = self.put(kind);
        self.engine.push(payload);
        let payload = self.engine.len() - 1;
        self.push(now, TraceType::SessionStarted, 0, Payload::Engine { kind, payload });
    }

    /// Lends each record of `entry` to `each`, as JSON borrowed from the trace (`scratch` holds
    /// a state id written from a mark).
    fn each_record(
        &self,
        session: &str,
        render: &Render<'_>,
        entry: &Entry,
        scratch: &mut String,
        each: &mut dyn FnMut(&RecordJson<'_>),
    ) {
        let s = |span: &Span| &self.text[span.clone()];
        let state = |at: &StateAt, scratch: &mut String| match at {
            StateAt::Mark(mark) => {
                scratch.clear();
                (render.mark)(*mark, scratch);
                None
            }
            StateAt::Text(span) => Some(span.clone()),
        };
        let record =
            |sequence: u64, kind: TraceType, payload: PayloadJson<'_>, each: &mut dyn FnMut(&RecordJson<'_>)| {
                let call_id = match kind {
                    TraceType::ApplyStarted | TraceType::ApplyFinished => Some(CallId("apply", entry.call)),
                    TraceType::InputReceived | TraceType::InputSettled => Some(CallId("input", entry.call)),
                    _ => None,
                };
                each(&RecordJson {
                    schema_version: TRACE_SCHEMA_VERSION,
                    session_id: session,
                    sequence,
                    timestamp: entry.timestamp,
                    kind: kind.as_str(),
                    call_id,
                    engine: false,
                    payload,
                });
            };
        let payload = match &entry.payload {
            Payload::Engine { kind, payload } => {
                let Some(payload) = self.engine.get(*payload) else { return };
                return each(&RecordJson {
                    schema_version: TRACE_SCHEMA_VERSION,
                    session_id: session,
                    sequence: entry.sequence,
                    timestamp: entry.timestamp,
                    kind: s(kind),
                    call_id: None,
                    engine: true,
                    payload: PayloadJson::Engine(payload),
                });
            }
            Payload::Started { state_id, description } => {
                PayloadJson::Started { state_id: s(state_id), description: s(description) }
            }
            Payload::Apply { action_id, key, state_id } => {
                let text = state(state_id, scratch);
                let state_id = text.as_ref().map_or(scratch.as_str(), s);
                PayloadJson::Apply { action_id: s(action_id), key: s(key), state_id }
            }
            Payload::Input { question_id, text, key, state_id } => {
                let at = state(state_id, scratch);
                let state_id = at.as_ref().map_or(scratch.as_str(), s);
                PayloadJson::Input { question_id: s(question_id), text: s(text), key: s(key), state_id }
            }
            Payload::Finished { id, key, settled } => {
                let apply = entry.kind == TraceType::ApplyFinished;
                let (disposition, reason, run, error) = match settled {
                    Settled::Rejected(reason) => ("rejected", Some(s(reason)), None, None),
                    Settled::Executed(outcome) => ("executed", None, Some(Run { outcome: *outcome }), None),
                    Settled::Failed(error) => ("failed", None, None, Some(s(error))),
                };
                PayloadJson::Finished {
                    action_id: apply.then(|| s(id)),
                    question_id: (!apply).then(|| s(id)),
                    key: s(key),
                    disposition,
                    reason,
                    run,
                    error,
                }
            }
            Payload::Disposed { state_id } => {
                let at = state(state_id, scratch);
                PayloadJson::Disposed { state_id: at.as_ref().map_or(scratch.as_str(), s) }
            }
            Payload::Recorded { receipt, state_id } => {
                let at = state(state_id, scratch);
                let state_id = at.as_ref().map_or(scratch.as_str(), s);
                let (key, action_id, _) = render.receipts.identity(*receipt);
                let started = PayloadJson::Apply { action_id, key, state_id };
                record(entry.sequence, TraceType::ApplyStarted, started, each);
                let (disposition, run, error) = match render.receipts.settled(*receipt) {
                    Ok(outcome) => ("executed", Some(Run { outcome }), None),
                    Err(error) => ("failed", None, Some(error)),
                };
                let finished = PayloadJson::Finished {
                    action_id: Some(action_id),
                    question_id: None,
                    key,
                    disposition,
                    reason: None,
                    run,
                    error,
                };
                record(entry.sequence + 1, TraceType::ApplyFinished, finished, each);
                return;
            }
        };
        record(entry.sequence, entry.kind, payload, each);
    }

    /// Takes the records not yet taken, as [`TraceRecord`]s.
    pub(crate) fn take(&mut self, session: &str, render: &Render<'_>) -> Vec<TraceRecord> {
        let mut records = Vec::with_capacity(self.waiting);
        let mut scratch = std::mem::take(&mut self.scratch);
        for entry in &self.entries {
            self.each_record(session, render, entry, &mut scratch, &mut |json| {
                records.push(TraceRecord {
                    schema_version: json.schema_version,
                    session_id: session.to_owned(),
                    sequence: json.sequence,
                    timestamp: json.timestamp,
                    kind: json.kind.to_owned(),
                    call_id: json.call_id.as_ref().map(ToString::to_string),
                    engine: json.engine,
                    payload: serde_json::to_value(&json.payload).expect("a payload is plain JSON"),
                })
            });
        }
        self.scratch = scratch;
        self.clear();
        records
    }

    /// Takes the records not yet taken, written to `out` as JSON lines (each ends in a newline),
    /// byte for byte what [`TraceRecord::to_json_line`] writes.
    pub(crate) fn take_lines(&mut self, session: &str, render: &Render<'_>, out: &mut Vec<u8>) {
        let mut scratch = std::mem::take(&mut self.scratch);
        for entry in &self.entries {
            self.each_record(session, render, entry, &mut scratch, &mut |json| {
                serde_json::to_writer(&mut *out, json).expect("a record is plain JSON");
                out.push(b'\n');
            });
        }
        self.scratch = scratch;
        self.clear();
    }

    /// Drops the records not yet taken.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.text.clear();
        if !self.engine.is_empty() {
            self.clear_engine();
        }
        self.waiting = 0;
    }

    /// Drops the engine's payloads (kept out of [`clear`](Self::clear)'s way, so a trace of an
    /// engine that reports none clears as cheaply as before H48).
    #[cold]
    fn clear_engine(&mut self) {
        self.engine.clear();
    }

    /// How many records wait to be taken.
    pub(crate) fn waiting(&self) -> usize {
        self.waiting
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
        let state_id = trace.put("at-node:0");
        trace.disposed(5, StateAt::Text(state_id));
        let expected = r#"{"schemaVersion":1,"sessionId":"s1","sequence":1,"timestamp":5,"type":"session.disposed","payload":{"stateId":"at-node:0"}}"#;
        let receipts = Receipts::new("s1");
        let render = Render { receipts: &receipts, mark: &|_, _| {} };
        let mut lines = Vec::new();
        trace.clone().take_lines("s1", &render, &mut lines);
        assert_eq!(String::from_utf8(lines).unwrap(), format!("{expected}\n"));
        assert_eq!(trace.take("s1", &render)[0].to_json_line(), expected);
    }
}
