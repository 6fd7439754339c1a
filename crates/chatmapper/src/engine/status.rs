//! SimStatus: each entry's status in the playthrough, kept where Lua reads and writes it,
//! `Conversation[c].Dialog[d].SimStatus`.

use serde::{Deserialize, Serialize};
use stagehand_lua::{Key, ScriptHost, Value};

use crate::model::Id;

/// An entry's status for the current playthrough (the page's "SimStatus" table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SimStatus {
    /// Initial.
    Untouched,
    /// The entry appeared in a menu (never downgrades `WasDisplayed`).
    WasOffered,
    /// The entry was entered.
    WasDisplayed,
}

impl SimStatus {
    /// The spelling Lua sees: `"Untouched"`, `"WasOffered"`, `"WasDisplayed"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SimStatus::Untouched => "Untouched",
            SimStatus::WasOffered => "WasOffered",
            SimStatus::WasDisplayed => "WasDisplayed",
        }
    }

    /// The status a spelling names; anything else (a script may write anything) is `None`.
    pub fn parse(text: &str) -> Option<SimStatus> {
        [SimStatus::Untouched, SimStatus::WasOffered, SimStatus::WasDisplayed].into_iter().find(|s| s.as_str() == text)
    }
}

fn path(conversation: Id, entry: Id) -> [Key<'static>; 5] {
    [
        Key::Name("Conversation"),
        Key::Index(conversation),
        Key::Name("Dialog"),
        Key::Index(entry),
        Key::Name("SimStatus"),
    ]
}

/// The status Lua holds for an entry, as written (a script may have written anything).
pub(crate) fn read(host: &dyn ScriptHost, conversation: Id, entry: Id) -> Value {
    host.get(&path(conversation, entry)).unwrap_or(Value::Nil)
}

/// Writes an entry's status. Fails only if a script replaced a table on the way by a scalar.
pub(crate) fn write(
    host: &mut dyn ScriptHost,
    conversation: Id,
    entry: Id,
    status: SimStatus,
) -> Result<(), stagehand_lua::ScriptError> {
    host.set(&path(conversation, entry), Value::from(status.as_str()))
}

/// Marks an entry `WasOffered` unless it is already `WasDisplayed`.
pub(crate) fn offer(host: &mut dyn ScriptHost, conversation: Id, entry: Id) -> Result<(), stagehand_lua::ScriptError> {
    if read(host, conversation, entry) == Value::from(SimStatus::WasDisplayed.as_str()) {
        return Ok(());
    }
    write(host, conversation, entry, SimStatus::WasOffered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_their_lua_spelling() {
        for status in [SimStatus::Untouched, SimStatus::WasOffered, SimStatus::WasDisplayed] {
            assert_eq!(SimStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(SimStatus::parse("wasdisplayed"), None);
    }
}
