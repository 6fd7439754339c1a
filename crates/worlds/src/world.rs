//! Worlds: who answers a run's `resolve` and carries out its `perform`. The runner never owns game
//! state; a world does.
//!
//! | World | Answers a key with | Carries out a command by |
//! | --- | --- | --- |
//! | [`FactsWorld`] | the fact of that name in a TOML or JSON file | doing nothing (it succeeds) |
//! | [`LuaWorld`] | `query(key)`, else the global at the dotted path | calling a Lua function (see [`LuaWorld`]) |
//! | [`NoWorld`] | nothing: every key is unknown | doing nothing (it succeeds) |
//!
//! A key a world does not know is left to a person: the driver stops there, and a player asks
//! the person or answers with a default (false, empty words, 0) and says so.

use stagehand_playbook::Fragment;
use stagehand_protocol::{Answer, AnswerKind, PortAnswer, PortCall};

/// A world's failure: a command it could not carry out, or a key it could not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WorldError(pub String);

/// Who answers a run's questions and carries out its commands.
pub trait World {
    /// What the world holds for `key`, read as `kind`; `Ok(None)` when it does not know.
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError>;

    /// Carries out one command fragment (a `default-command` or `custom-command`).
    fn perform(&mut self, effect: &Fragment) -> Result<(), WorldError>;

    /// Makes one port call of an agent playbook (a player, the Captain, the judge, a script)
    /// and gives its typed answer; `None` when the world binds no ports (the default), and the
    /// call is left pending (decision H45).
    fn call(&mut self, _call: &PortCall) -> Option<PortAnswer> {
        None
    }

    /// Puts the world back as it was before the run began (for undo and load, which replay).
    fn reset(&mut self) -> Result<(), WorldError>;

    /// Whether performing changes what the world answers later (so a replay must perform again).
    fn keeps_state(&self) -> bool {
        false
    }

    /// Lines the world wrote for the person (a Lua world's `print`), since the last call.
    fn take_log(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// The world named for a played file, if `exists` finds one beside it: `<stem>.world.lua`,
/// `.toml` or `.json`, where the stem is the file name before its first `.`
/// (`club-fair.dialogue.md` → `club-fair.world.lua`).
pub fn world_beside(file: &std::path::Path, exists: impl Fn(&std::path::Path) -> bool) -> Option<std::path::PathBuf> {
    let name = file.file_name()?.to_str()?;
    let stem = name.split('.').next().filter(|stem| !stem.is_empty())?;
    ["lua", "toml", "json"]
        .iter()
        .map(|extension| file.with_file_name(format!("{stem}.world.{extension}")))
        .find(|candidate| candidate.as_path() != file && exists(candidate))
}

/// A world read from a file's text by its extension: `lua` (a [`LuaWorld`](crate::LuaWorld)),
/// `toml` or `json` (a [`FactsWorld`](crate::FactsWorld)). The error names the file.
pub fn world_of(name: &str, extension: Option<&str>, text: &str, seed: u64) -> Result<Box<dyn World>, String> {
    let world: Result<Box<dyn World>, WorldError> = match extension {
        Some("lua") => crate::LuaWorld::new(name, text, seed).map(|w| Box::new(w) as Box<dyn World>),
        Some("toml") => crate::FactsWorld::from_toml(text).map(|w| Box::new(w) as Box<dyn World>),
        Some("json") => crate::FactsWorld::from_json(text).map(|w| Box::new(w) as Box<dyn World>),
        _ => return Err(format!("{name}: a world is a .lua script or a .toml or .json file of facts")),
    };
    world.map_err(|e| format!("{name}: {e}"))
}

/// How a person is asked a key: given the key and a hint of the kind of answer, their line
/// (`None` when they have gone).
pub type Ask = Box<dyn FnMut(&str, &str) -> Option<String>>;

/// A world with a person standing by: a key the world does not know is asked of the person
/// through `ask` (given the key and a hint of the kind of answer; `None` when the person has
/// gone), again until the answer reads as that kind. Without `ask` the key is left unknown.
pub struct Attended {
    /// The world itself.
    pub inner: Box<dyn World>,
    /// How the person is asked.
    pub ask: Option<Ask>,
}

impl World for Attended {
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        if let Some(answer) = self.inner.answer(key, kind)? {
            return Ok(Some(answer));
        }
        let Some(ask) = &mut self.ask else { return Ok(None) };
        let hint = match kind {
            AnswerKind::Truth => "yes/no",
            AnswerKind::Text => "words",
            AnswerKind::Number => "a number, 0 or more",
        };
        loop {
            let Some(line) = ask(key, hint) else { return Ok(None) };
            if let Some(answer) = parse_answer(&line, kind) {
                return Ok(Some(answer));
            }
        }
    }

    fn perform(&mut self, effect: &Fragment) -> Result<(), WorldError> {
        self.inner.perform(effect)
    }

    fn call(&mut self, call: &PortCall) -> Option<PortAnswer> {
        self.inner.call(call)
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        self.inner.reset()
    }

    fn keeps_state(&self) -> bool {
        self.inner.keeps_state()
    }

    fn take_log(&mut self) -> Vec<String> {
        self.inner.take_log()
    }
}

/// No world at all: every key is unknown and every command succeeds.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoWorld;

impl World for NoWorld {
    fn answer(&mut self, _key: &str, _kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        Ok(None)
    }

    fn perform(&mut self, _effect: &Fragment) -> Result<(), WorldError> {
        Ok(())
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        Ok(())
    }
}

impl<W: World + ?Sized> World for Box<W> {
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        (**self).answer(key, kind)
    }

    fn perform(&mut self, effect: &Fragment) -> Result<(), WorldError> {
        (**self).perform(effect)
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        (**self).reset()
    }

    fn keeps_state(&self) -> bool {
        (**self).keeps_state()
    }

    fn take_log(&mut self) -> Vec<String> {
        (**self).take_log()
    }
}

/// The answer a session gives for a key nobody knows: false, empty words, or 0.
pub fn default_answer(kind: AnswerKind) -> Answer<'static> {
    match kind {
        AnswerKind::Truth => Answer::Truth(false),
        AnswerKind::Text => Answer::Text("".into()),
        AnswerKind::Number => Answer::Number(0.0),
    }
}

/// A command fragment as its author wrote it: `("Alice joins Art")` or `JoinClub("Alice", "Art")`
/// (the protocol spells it, for the view and for worlds alike).
pub fn command_text(effect: &Fragment) -> String {
    stagehand_protocol::effect_text(effect)
}

/// Reads a text as the kind of answer asked for: `true`/`yes`/`y`/`1` and `false`/`no`/`n`/`0`
/// for a truth, a finite non-negative number for a weight, anything for words.
pub fn parse_answer(text: &str, kind: AnswerKind) -> Option<Answer<'static>> {
    let trimmed = text.trim();
    match kind {
        AnswerKind::Truth => match trimmed.to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" => Some(Answer::Truth(true)),
            "false" | "no" | "n" | "0" => Some(Answer::Truth(false)),
            _ => None,
        },
        AnswerKind::Text => Some(Answer::Text(text.to_owned().into())),
        AnswerKind::Number => trimmed.parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0).map(Answer::Number),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_as_written() {
        let custom =
            Fragment::CustomCommand { name: "JoinClub".into(), args: vec!["Alice".into(), "Art".into()].into() };
        assert_eq!(command_text(&custom), r#"JoinClub("Alice", "Art")"#);
        assert_eq!(command_text(&Fragment::DefaultCommand { action: "fade in".into() }), r#"("fade in")"#);
    }

    #[test]
    fn answers_parse_by_kind() {
        assert_eq!(parse_answer(" Yes ", AnswerKind::Truth), Some(Answer::Truth(true)));
        assert_eq!(parse_answer("maybe", AnswerKind::Truth), None);
        assert_eq!(parse_answer("2.5", AnswerKind::Number), Some(Answer::Number(2.5)));
        assert_eq!(parse_answer("-1", AnswerKind::Number), None);
        assert_eq!(parse_answer("Bo", AnswerKind::Text), Some(Answer::Text("Bo".into())));
    }
}
