//! A session of any engine behind one object-safe trait, [`AnySession`], so that a host serving
//! every kind of document (the HTTP server, `stagehand run`, the terminal player) holds one type
//! and never branches on the engine (decision H14).
//!
//! Every [`Session<E>`] is an `AnySession`; its snapshot crosses the trait as a JSON value, the
//! session snapshot's one spelling ([`SessionSnapshot`] serialised). Restoring needs the engine's
//! concrete type, so it belongs to whoever opened the document (`stagehand_documents::Document`).

use serde_json::Value;
use stagehand_protocol::{Engine, OwnedEvent, PortAnswer, Receipt, Reported, View};

use super::{Applied, HostError, Move, Pending, Session, SessionSnapshot, TraceRecord};

/// What a host does with a session, whatever its engine. Each method is the [`Session`] method
/// of the same name.
pub trait AnySession {
    /// The session's id.
    fn id(&self) -> &str;
    /// The document's fingerprint (lowercase hex).
    fn fingerprint(&self) -> String;
    /// Where the session stands, and what may be applied. No side effects.
    fn describe(&self) -> View;
    /// Applies an action under an idempotency key.
    fn apply(&mut self, action_id: &str, key: &str, now: u64) -> Receipt;
    /// Applies an action under an idempotency key, the receipt lent as the session recorded it.
    fn act(&mut self, action_id: &str, key: &str, now: u64) -> Applied<'_>;
    /// Answers a pending question with free text under an idempotency key.
    fn input(&mut self, question_id: &str, text: &str, key: &str, now: u64) -> Receipt;
    /// Answers the pending port call under an idempotency key (decision H45).
    fn answer(&mut self, answer: PortAnswer, key: &str, now: u64) -> Receipt;
    /// Ends the session for good.
    fn dispose(&mut self, now: u64);
    /// Whether the session was disposed.
    fn is_disposed(&self) -> bool;
    /// What the session waits on.
    fn pending(&self) -> &Pending;
    /// Every command since the last restart.
    fn journal(&self) -> &[Move];
    /// Whether a receipt is recorded under the idempotency key `key`.
    fn has_key(&self, key: &str) -> bool;
    /// How many receipts are recorded.
    fn receipt_count(&self) -> usize;
    /// What the opening `start` reported, once.
    fn take_opening(&mut self) -> Vec<Reported>;
    /// The trace records made since the last call, in order.
    fn take_trace(&mut self) -> Vec<TraceRecord>;
    /// Drops the trace records made since the last call.
    fn discard_trace(&mut self);
    /// Keeps every receipt (the default), or only the last one.
    fn retain_receipts(&mut self, retain: bool);
    /// The session as plain data: a [`SessionSnapshot`] as JSON.
    fn snapshot_value(&mut self) -> Result<Value, HostError>;
    /// What the opening `start` reported, once, as the engine's own events.
    fn take_opening_events(&mut self) -> Vec<OwnedEvent>;
    /// Keeps the engine's own events of each executed action from now on.
    fn keep_events(&mut self);
    /// The engine's events of the last executed action, once kept.
    fn take_events(&mut self) -> Vec<OwnedEvent>;
    /// What the engine logged since the last call.
    fn take_log(&mut self) -> Vec<String>;
}

impl<E: Engine> AnySession for Session<E> {
    fn id(&self) -> &str {
        Session::id(self)
    }

    fn fingerprint(&self) -> String {
        self.engine().fingerprint()
    }

    fn describe(&self) -> View {
        Session::describe(self)
    }

    fn apply(&mut self, action_id: &str, key: &str, now: u64) -> Receipt {
        Session::apply(self, action_id, key, now)
    }

    fn act(&mut self, action_id: &str, key: &str, now: u64) -> Applied<'_> {
        Session::act(self, action_id, key, now)
    }

    fn input(&mut self, question_id: &str, text: &str, key: &str, now: u64) -> Receipt {
        Session::input(self, question_id, text, key, now)
    }

    fn answer(&mut self, answer: PortAnswer, key: &str, now: u64) -> Receipt {
        Session::answer(self, answer, key, now)
    }

    fn dispose(&mut self, now: u64) {
        Session::dispose(self, now);
    }

    fn is_disposed(&self) -> bool {
        Session::is_disposed(self)
    }

    fn pending(&self) -> &Pending {
        Session::pending(self)
    }

    fn journal(&self) -> &[Move] {
        Session::journal(self)
    }

    fn has_key(&self, key: &str) -> bool {
        Session::has_key(self, key)
    }

    fn receipt_count(&self) -> usize {
        Session::receipt_count(self)
    }

    fn take_opening(&mut self) -> Vec<Reported> {
        Session::take_opening(self)
    }

    fn take_trace(&mut self) -> Vec<TraceRecord> {
        Session::take_trace(self)
    }

    fn take_opening_events(&mut self) -> Vec<OwnedEvent> {
        Session::take_opening_events(self)
    }

    fn discard_trace(&mut self) {
        Session::discard_trace(self);
    }

    fn retain_receipts(&mut self, retain: bool) {
        Session::retain_receipts(self, retain);
    }

    fn keep_events(&mut self) {
        Session::keep_events(self);
    }

    fn take_events(&mut self) -> Vec<OwnedEvent> {
        Session::take_events(self)
    }

    fn take_log(&mut self) -> Vec<String> {
        Session::take_log(self)
    }

    fn snapshot_value(&mut self) -> Result<Value, HostError> {
        let snapshot = self.snapshot()?;
        serde_json::to_value(snapshot).map_err(|e| HostError::Mismatch(format!("the snapshot is not JSON: {e}")))
    }
}

/// Reads a snapshot value back for an engine `E`, refusing one of another shape with the reason.
pub fn snapshot_of<E: Engine>(value: Value) -> Result<SessionSnapshot<E::Snapshot>, HostError> {
    serde_json::from_value(value).map_err(|e| HostError::Mismatch(format!("it cannot be read: {e}")))
}

/// The parts of a session snapshot a replay reads ([`Session::replayed`](super::Session::replayed)):
/// its engine states are skipped unread, whatever their shape (decision P19).
pub fn moves_of(value: Value) -> Result<SessionSnapshot<serde::de::IgnoredAny>, HostError> {
    serde_json::from_value(value).map_err(|e| HostError::Mismatch(format!("it cannot be read: {e}")))
}
