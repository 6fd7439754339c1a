//! A session put back on an edited document by replaying its journal (decision H55): what a
//! restore cannot do once the document's fingerprint changed.

use stagehand_protocol::Engine;

use super::pending::Move;
use super::receipts::Receipts;
use super::snapshot::SessionSnapshot;
use super::trace::Trace;
use super::{HostError, Session};

impl<E: Engine> Session<E> {
    /// Puts a session of another version of this document back on `engine` (fresh, made with
    /// the session's seed) by taking every move of its journal again from the engine's start.
    /// Its receipts, trace sequence and id are kept; its state is what the moves give on this
    /// document. A move the engine refuses now is an error naming the step (from 1) and the
    /// move, and nothing is put back. Like [`restore`](Self::restore), it traces nothing, and
    /// the engine's own trace goes on from what the session wrote (H72).
    pub fn replayed(mut engine: E, snapshot: SessionSnapshot<E::Snapshot>) -> Result<Self, HostError> {
        super::readable(&snapshot)?;
        engine.continue_after(&snapshot.engine);
        Self::replayed_moves(engine, snapshot)
    }

    /// [`replayed`](Self::replayed) without reading the snapshot's engine states (any `S`, such
    /// as [`serde::de::IgnoredAny`]), so a snapshot whose engine state another version spelled
    /// replays too (decision P19). The engine is not told how far its own trace went (H72), so
    /// this is for engines that keep no trace of their own (every dialogue engine).
    pub fn replayed_moves<S>(mut engine: E, snapshot: SessionSnapshot<S>) -> Result<Self, HostError> {
        super::readable(&snapshot)?;
        let initial = engine.snapshot()?;
        let receipts = Receipts::of_snapshot(&snapshot.session_id, &snapshot.receipts);
        let mut session = Session {
            journal: Vec::with_capacity(snapshot.journal.len()),
            disposed: snapshot.disposed,
            ..Session::assembled(engine, snapshot.session_id, initial, receipts, Trace::continuing(snapshot.sequences))
        };
        for (at, step) in snapshot.journal.into_iter().enumerate() {
            let named = name(&step);
            session.receipts.open();
            let refused = session.take(step, None, false);
            session.receipts.discard();
            if let Some(why) = refused {
                return Err(HostError::Mismatch(format!(
                    "step {} of its journal ({named}) cannot be taken on this version of the document: {why}",
                    at + 1
                )));
            }
        }
        // A replay re-runs history: what the engine traces again is not new (H48), but for a
        // boundary it left open, whose records the engine keeps, numbered on from what the
        // session wrote, to be written again (H71, H72).
        session.engine.forget_trace();
        Ok(session)
    }
}

/// A journalled move as an error names it: `choose:1` (the action that took it), `start at X`.
fn name(step: &Move) -> String {
    match step {
        Move::Start { anchor: Some(anchor) } => format!("start at {anchor}"),
        Move::Choose { position } => format!("choose:{position}"),
        other => other.command().name().to_owned(),
    }
}
