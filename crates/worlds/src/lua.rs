//! A world written in Lua, run in Stagehand's sandbox.

use stagehand_lua::{format_number, Key, Limits, Sandbox, ScriptError, ScriptHost, Value};
use stagehand_playbook::Fragment;
use stagehand_protocol::{Answer, AnswerKind};

use crate::world::{World, WorldError};

/// The Lua function that answers keys, when the world defines it.
pub const QUERY_FUNCTION: &str = "query";
/// The Lua function that carries out default commands, when the world defines it.
pub const PERFORM_FUNCTION: &str = "perform";

/// A world written in Lua (`--world world.lua`), run in the sandboxed Lua 5.1 host.
///
/// The convention:
///
/// - **Keys** (conditions, queries, dynamic weights): `query(key, kind)` answers when the world
///   defines it and it returns something other than `nil` (`kind` is `"truth"`, `"text"` or
///   `"number"`); otherwise the key is read as a path into the globals, split at dots, so
///   `Alice.InClub` reads `Alice["InClub"]`. `nil` means the world does not know. A truth is
///   Lua's truthiness; words are a string, or a number or boolean written out; a weight is a
///   number (or a numeric string).
/// - **Custom commands**: `JoinClub("Alice", "Art")` calls the global function `JoinClub` with the
///   arguments as strings. A world without that function fails the command.
/// - **Default commands**: `("Alice joins Art")` calls `perform("Alice joins Art")` when the
///   world defines `perform`; without it a default command is scenery, and succeeds.
/// - **Failure**: a function that raises an error (`error("the club is full")`) or returns
///   `false` fails the command; the run holds until it is retried or the person quits.
///
/// The sandbox's `print` writes lines the player shows; `math.random` draws from the run's seed.
///
/// Undo and load rebuild the world from its source and carry out every journalled command again,
/// in order; the answers to keys come from the journal. So only commands should change the
/// world: a `query` that changes it would not be replayed.
#[derive(Debug)]
pub struct LuaWorld {
    name: String,
    source: String,
    seed: u64,
    host: Sandbox,
}

fn lua_error(error: ScriptError) -> WorldError {
    WorldError(error.message)
}

impl LuaWorld {
    /// Loads a world from its source; `name` labels its errors (a file name).
    pub fn new(name: &str, source: &str, seed: u64) -> Result<LuaWorld, WorldError> {
        let host = Self::build(name, source, seed)?;
        Ok(LuaWorld { name: name.to_owned(), source: source.to_owned(), seed, host })
    }

    fn build(name: &str, source: &str, seed: u64) -> Result<Sandbox, WorldError> {
        let mut host = Sandbox::new(Limits::default(), seed).map_err(lua_error)?;
        host.load(name, source).map_err(lua_error)?;
        Ok(host)
    }

    /// Reads a value from the globals by dotted path (for tests and tools).
    pub fn read(&self, key: &str) -> Result<Value, WorldError> {
        let path: Vec<Key<'_>> = key.split('.').map(Key::Name).collect();
        self.host.get(&path).map_err(lua_error)
    }

    fn call(&mut self, function: &str, args: &[Value]) -> Result<(), WorldError> {
        match self.host.call(function, args) {
            Ok(Value::Boolean(false)) => Err(WorldError(format!("{function} returned false"))),
            Ok(_) => Ok(()),
            Err(error) => Err(lua_error(error)),
        }
    }
}

fn kind_name(kind: AnswerKind) -> &'static str {
    match kind {
        AnswerKind::Truth => "truth",
        AnswerKind::Text => "text",
        AnswerKind::Number => "number",
    }
}

fn convert(key: &str, value: Value, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
    Ok(Some(match (value, kind) {
        (Value::Nil, _) => return Ok(None),
        (value, AnswerKind::Truth) => Answer::Truth(value.is_truthy()),
        (Value::String(s), AnswerKind::Text) => Answer::Text(s.into()),
        (Value::Number(n), AnswerKind::Text) => Answer::Text(format_number(n).into()),
        (Value::Boolean(b), AnswerKind::Text) => Answer::Text(b.to_string().into()),
        (Value::Number(n), AnswerKind::Number) => Answer::Number(n),
        (Value::String(s), AnswerKind::Number) => match s.trim().parse::<f64>() {
            Ok(n) => Answer::Number(n),
            Err(_) => return Err(WorldError(format!("{key} is {s:?}, not a number"))),
        },
        (Value::Boolean(b), AnswerKind::Number) => return Err(WorldError(format!("{key} is {b}, not a number"))),
    }))
}

impl World for LuaWorld {
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        if self.host.has_function(QUERY_FUNCTION) {
            let value = self.host.call(QUERY_FUNCTION, &[key.into(), kind_name(kind).into()]).map_err(lua_error)?;
            if value != Value::Nil {
                return convert(key, value, kind);
            }
        }
        let value = self.read(key)?;
        convert(key, value, kind)
    }

    fn perform(&mut self, effect: &Fragment) -> Result<(), WorldError> {
        match effect {
            Fragment::CustomCommand { name, args } => {
                if !self.host.has_function(name) {
                    return Err(WorldError(format!("the world {} defines no function {name}", self.name)));
                }
                let args: Vec<Value> = args.iter().map(|a| Value::String(a.to_string())).collect();
                self.call(name, &args)
            }
            Fragment::DefaultCommand { action } => {
                if self.host.has_function(PERFORM_FUNCTION) {
                    self.call(PERFORM_FUNCTION, &[Value::String(action.to_string())])
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        self.host = Self::build(&self.name, &self.source, self.seed)?;
        Ok(())
    }

    fn keeps_state(&self) -> bool {
        true
    }

    fn take_log(&mut self) -> Vec<String> {
        self.host.take_log()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLUB: &str = r#"
Alice = { InClub = false, Name = "Alice" }
Weights = { Luck = 3 }
function JoinClub(who, club)
  if club == "Chess" then error("the chess club is full") end
  _G[who].InClub = true
  _G[who].Club = club
  print(who .. " joins " .. club)
end
function Refuse() return false end
"#;

    fn join(world: &mut LuaWorld, club: &str) -> Result<(), WorldError> {
        world.perform(&Fragment::CustomCommand {
            name: "JoinClub".into(),
            args: vec!["Alice".into(), club.into()].into(),
        })
    }

    #[test]
    fn a_command_changes_what_later_keys_read() {
        let mut world = LuaWorld::new("club.lua", CLUB, 1).unwrap();
        assert_eq!(world.answer("Alice.InClub", AnswerKind::Truth), Ok(Some(Answer::Truth(false))));
        join(&mut world, "Art").unwrap();
        assert_eq!(world.take_log(), ["Alice joins Art"]);
        assert_eq!(world.answer("Alice.InClub", AnswerKind::Truth), Ok(Some(Answer::Truth(true))));
        assert_eq!(world.answer("Alice.Club", AnswerKind::Text), Ok(Some(Answer::Text("Art".into()))));
        assert_eq!(world.answer("Weights.Luck", AnswerKind::Number), Ok(Some(Answer::Number(3.0))));
        assert_eq!(world.answer("Bob.InClub", AnswerKind::Truth), Ok(None));
        world.reset().unwrap();
        assert_eq!(world.answer("Alice.InClub", AnswerKind::Truth), Ok(Some(Answer::Truth(false))));
    }

    #[test]
    fn errors_and_false_fail_the_command() {
        let mut world = LuaWorld::new("club.lua", CLUB, 1).unwrap();
        let error = join(&mut world, "Chess").unwrap_err();
        assert!(error.0.contains("the chess club is full"), "{error}");
        assert!(world.perform(&Fragment::CustomCommand { name: "Refuse".into(), args: vec![].into() }).is_err());
        assert!(world.perform(&Fragment::CustomCommand { name: "Missing".into(), args: vec![].into() }).is_err());
        assert_eq!(world.perform(&Fragment::DefaultCommand { action: "wave".into() }), Ok(()));
    }

    #[test]
    fn query_answers_first() {
        let source = "function query(key, kind) if key == 'Lucky' then return kind == 'truth' end end";
        let mut world = LuaWorld::new("q.lua", source, 1).unwrap();
        assert_eq!(world.answer("Lucky", AnswerKind::Truth), Ok(Some(Answer::Truth(true))));
        assert_eq!(world.answer("Other", AnswerKind::Truth), Ok(None));
        assert!(LuaWorld::new("bad.lua", "this is not lua", 1).is_err());
    }
}
