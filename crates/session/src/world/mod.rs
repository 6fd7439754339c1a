//! Worlds: who answers a run's `resolve` and carries out its `perform`. The runner never owns game
//! state; a world does.
//!
//! | World | Answers a key with | Carries out a command by |
//! | --- | --- | --- |
//! | [`FactsWorld`] | the fact of that name in a TOML or JSON file | doing nothing (it succeeds) |
//! | [`LuaWorld`] | `query(key)`, else the global at the dotted path | calling a Lua function (see [`LuaWorld`]) |
//! | [`NoWorld`] | nothing: every key is unknown | doing nothing (it succeeds) |
//!
//! A key a world does not know is answered by the session with a default (false, empty words, 0)
//! and reported as [`Happening::Guessed`](crate::Happening::Guessed), unless the front-end wraps
//! the world to ask a person.

mod facts;
mod lua;

use stagehand_playbook::Fragment;
use stagehand_runner::{Answer, AnswerKind};

pub use facts::FactsWorld;
pub use lua::{LuaWorld, PERFORM_FUNCTION, QUERY_FUNCTION};

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
