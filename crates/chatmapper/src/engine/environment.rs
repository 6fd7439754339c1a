//! The Lua environment of a playthrough (FORMAT.md §6): the asset tables keyed by
//! [`lua_key`](crate::lua_key), `Variable` seeded from coerced Initial Values, `Conversation[c]`
//! with its fields and `Dialog[d].SimStatus`, the `Dialog` alias, and the status and relationship
//! functions.
//!
//! Each asset's fields are keyed by `lua_key` of their titles too (`Actor["Kick_Hart"].Display_Name`).

use stagehand_lua::{ChunkId, Key, ScriptError, ScriptHost, Value};

use crate::coerce::{lua_key, Coerced};
use crate::model::{Asset, Project};

use super::status::{self, SimStatus};

/// The Lua code of the surface: the tables, the functions and the host's helpers.
const SURFACE: &str = include_str!("environment.lua");

/// The global the host calls to point `Dialog` at a conversation.
pub(crate) const ENTER: &str = "__stagehand_enter";

/// The global the host calls to list the globals a snapshot saves.
pub(crate) const GLOBALS: &str = "__stagehand_globals";

impl From<Coerced> for Value {
    fn from(value: Coerced) -> Value {
        match value {
            Coerced::Boolean(b) => Value::Boolean(b),
            Coerced::Number(n) => Value::Number(n),
            Coerced::String(s) => Value::String(s),
        }
    }
}

/// Evaluates a compiled condition: the Lua truthiness of its first value (true if it has none).
pub(crate) fn evaluate(host: &mut dyn ScriptHost, condition: ChunkId) -> Result<bool, ScriptError> {
    host.evaluate(condition)
}

/// Runs a compiled script.
pub(crate) fn run(host: &mut dyn ScriptHost, script: ChunkId) -> Result<(), ScriptError> {
    host.run(script)
}

/// A failed condition or script for a log line that already names its entry: what went wrong and
/// Lua's message (`runtime error: script:1: attempt to call a nil value`). The chunk's own name is
/// left out: chunks are shared by identical sources, so it could name another entry (M8).
pub(crate) fn failure(error: &ScriptError) -> String {
    format!("{}: {}", error.kind, error.message)
}

/// The path of `Variable[key]`, for a name already made a Lua key by [`lua_key`].
pub(crate) fn variable_path(key: &str) -> [Key<'_>; 2] {
    [Key::Name("Variable"), Key::Name(key)]
}

/// The value of `Variable[lua_key(name)]`.
pub(crate) fn read_variable(host: &dyn ScriptHost, name: &str) -> Result<Value, ScriptError> {
    host.get(&variable_path(&lua_key(name)))
}

/// The type of `Variable[lua_key(name)]` when it is a value [`read_variable`] cannot give (a
/// table, function, thread or userdata), or `None`. A table is found by reading through it; the
/// other types by the type name the host's refusal ends with (`Variable["f"] is a function`).
pub(crate) fn variable_type(host: &dyn ScriptHost, name: &str) -> Option<&'static str> {
    let key = lua_key(name);
    let error = host.get(&variable_path(&key)).err()?;
    if host.get(&[Key::Name("Variable"), Key::Name(&key), Key::Name("")]).is_ok() {
        return Some("table");
    }
    let (_, kind) = error.message.rsplit_once(" is a ")?;
    ["table", "function", "thread", "userdata"].into_iter().find(|known| *known == kind)
}

/// Loads the surface's functions (again, after a restore: they are code, not state).
pub(crate) fn load_surface(host: &mut dyn ScriptHost) -> Result<(), ScriptError> {
    host.load("stagehand-chatmapper-surface", SURFACE)
}

fn fill_assets(host: &mut dyn ScriptHost, table: &str, assets: &[Asset]) -> Result<(), ScriptError> {
    for asset in assets {
        let key = lua_key(asset.name());
        for field in &asset.fields {
            let title = lua_key(&field.title);
            host.set(&[Key::Name(table), Key::Name(&key), Key::Name(&title)], field.lua_value().into())?;
        }
    }
    Ok(())
}

/// Creates the tables of a fresh playthrough: assets, variables (from Initial Values), conversations
/// and every entry's `SimStatus` as `Untouched`. The project script is the caller's to run.
pub(crate) fn create(host: &mut dyn ScriptHost, project: &Project) -> Result<(), ScriptError> {
    load_surface(host)?;
    fill_assets(host, "Actor", &project.actors)?;
    fill_assets(host, "Item", &project.items)?;
    fill_assets(host, "Location", &project.locations)?;
    for variable in &project.user_variables {
        let key = lua_key(variable.name());
        let value = variable.field("Initial Value").map_or(Value::String(String::new()), |f| f.lua_value().into());
        host.set(&variable_path(&key), value)?;
    }
    for conversation in &project.conversations {
        let id = Key::Index(conversation.id);
        for field in &conversation.fields {
            let title = lua_key(&field.title);
            if title != "Dialog" {
                host.set(&[Key::Name("Conversation"), id, Key::Name(&title)], field.lua_value().into())?;
            }
        }
        for entry in &conversation.entries {
            status::write(host, conversation.id, entry.id, SimStatus::Untouched)?;
        }
    }
    Ok(())
}
