//! A serializable deep copy of global tables, for saves.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A deep copy of some global variables: data only (no functions), in a deterministic order, so the same
/// state always serializes to the same text. Produced by [`crate::ScriptHost::snapshot`], consumed by
/// [`crate::ScriptHost::restore`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Each requested global's value, by global name. A global that was nil is recorded as
    /// [`SnapshotValue::Nil`], so restoring clears it.
    pub globals: BTreeMap<String, SnapshotValue>,
}

/// One value in a [`Snapshot`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotValue {
    /// `nil` (only ever at the top level: tables do not store nil).
    Nil,
    /// A boolean.
    Boolean(bool),
    /// A number. Non-finite numbers serialize as the strings `"inf"`, `"-inf"` and `"nan"`, so JSON can
    /// hold them.
    Number(#[serde(with = "lua_number")] f64),
    /// A string (a Lua string that is not UTF-8 is stored with U+FFFD replacements).
    String(String),
    /// A table: its entries sorted by key (booleans, then numbers ascending, then strings by bytes).
    Table(Vec<SnapshotEntry>),
}

/// One key/value pair of a table in a [`Snapshot`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotEntry {
    /// The key.
    pub key: SnapshotKey,
    /// The value (never [`SnapshotValue::Nil`] when produced by a snapshot).
    pub value: SnapshotValue,
}

/// A table key in a [`Snapshot`]: Lua allows any non-nil, non-NaN value as a key, snapshots keep the data
/// ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotKey {
    /// A boolean key.
    Boolean(bool),
    /// A number key (never NaN; may be infinite).
    Number(#[serde(with = "lua_number")] f64),
    /// A string key.
    String(String),
}

impl SnapshotKey {
    /// The sort rank of the key's type.
    fn rank(&self) -> u8 {
        match self {
            SnapshotKey::Boolean(_) => 0,
            SnapshotKey::Number(_) => 1,
            SnapshotKey::String(_) => 2,
        }
    }

    /// The deterministic order used for table entries.
    pub(crate) fn order(&self, other: &SnapshotKey) -> std::cmp::Ordering {
        match (self, other) {
            (SnapshotKey::Boolean(a), SnapshotKey::Boolean(b)) => a.cmp(b),
            (SnapshotKey::Number(a), SnapshotKey::Number(b)) => a.total_cmp(b),
            (SnapshotKey::String(a), SnapshotKey::String(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

/// Serde codec for numbers that JSON cannot hold: finite numbers stay numbers, the others become strings.
mod lua_number {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(n: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if n.is_finite() {
            serializer.serialize_f64(*n)
        } else if n.is_nan() {
            serializer.serialize_str("nan")
        } else if *n > 0.0 {
            serializer.serialize_str("inf")
        } else {
            serializer.serialize_str("-inf")
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        match Repr::deserialize(deserializer)? {
            Repr::Number(n) => Ok(n),
            Repr::Text(t) => match t.as_str() {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "nan" => Ok(f64::NAN),
                other => Err(serde::de::Error::custom(format!("not a number: {other:?}"))),
            },
        }
    }
}
