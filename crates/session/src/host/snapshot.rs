//! A session as plain data ([`SessionSnapshot`], with its [`Recorded`] receipts), and the same
//! spelling borrowed from a live session for [`Session::write_snapshot`](super::Session::write_snapshot)
//! (decisions H9 and H34).

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use stagehand_protocol::Receipt;

use super::receipts::Receipts;
use super::{Move, Pending, Sequences};

/// The version of a session snapshot's shape.
pub const SESSION_SNAPSHOT_VERSION: u32 = 1;

/// A receipt recorded under its idempotency key, with what it was for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Recorded {
    /// The action id (for `input`, `answer:QUESTION_ID`).
    pub action_id: String,
    /// The text an `input` carried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The receipt returned.
    pub receipt: Receipt,
}

/// A session as plain data: restore it with [`Session::restore`](super::Session::restore) on a fresh engine of the same
/// document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[serde(bound(serialize = "S: Serialize", deserialize = "S: DeserializeOwned"))]
pub struct SessionSnapshot<S> {
    /// [`SESSION_SNAPSHOT_VERSION`].
    pub schema_version: u32,
    /// The session's id.
    pub session_id: String,
    /// The document's fingerprint.
    pub fingerprint: String,
    /// The engine now.
    pub engine: S,
    /// The engine before it started: what undo and restart replay from.
    pub initial: S,
    /// Every command since the last restart, the opening `start` first.
    pub journal: Vec<Move>,
    /// What the session waits on.
    pub pending: Pending,
    /// The receipts, by idempotency key.
    pub receipts: BTreeMap<String, Recorded>,
    /// The trace's counters.
    pub sequences: Sequences,
    /// Whether the session was disposed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disposed: bool,
}

/// A session snapshot, borrowed from the session: [`SessionSnapshot`]'s spelling.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SnapshotJson<'a, S: Serialize> {
    pub(crate) schema_version: u32,
    pub(crate) session_id: &'a str,
    pub(crate) fingerprint: &'a str,
    pub(crate) engine: &'a S,
    pub(crate) initial: &'a S,
    pub(crate) journal: &'a [Move],
    pub(crate) pending: &'a Pending,
    pub(crate) receipts: ReceiptsJson<'a>,
    pub(crate) sequences: Sequences,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) disposed: bool,
}

/// The receipts as a snapshot spells them: an object by key, in key order.
pub(crate) struct ReceiptsJson<'a>(pub(crate) &'a Receipts);

impl Serialize for ReceiptsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_by_key(serializer)
    }
}
