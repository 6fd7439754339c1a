//! A world of fixed facts, read from a TOML or JSON file.

use std::collections::BTreeMap;

use stagehand_playbook::Fragment;
use stagehand_protocol::{Answer, AnswerKind};

use crate::world::{World, WorldError};

/// One fact: a truth, words, or a number (a dynamic weight).
#[derive(Debug, Clone, PartialEq)]
enum Fact {
    Truth(bool),
    Text(String),
    Number(f64),
}

/// A world of fixed facts: key → true/false, words, or a number (for weights).
///
/// Nested tables name their keys with dots, so `[Alice]` `InClub = true` in TOML, or
/// `{"Alice": {"InClub": true}}` in JSON, answers the key `Alice.InClub`; a key may also be
/// written whole (`"Alice.InClub" = true`). Commands are carried out by doing nothing: facts never
/// change.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactsWorld {
    facts: BTreeMap<String, Fact>,
}

impl FactsWorld {
    /// Reads facts from TOML.
    pub fn from_toml(source: &str) -> Result<FactsWorld, WorldError> {
        let value: toml::Table = toml::from_str(source).map_err(|e| WorldError(format!("facts do not read: {e}")))?;
        let mut world = FactsWorld::default();
        world.add_toml("", &toml::Value::Table(value))?;
        Ok(world)
    }

    /// Reads facts from JSON (an object at the top).
    pub fn from_json(source: &str) -> Result<FactsWorld, WorldError> {
        let value: serde_json::Value =
            serde_json::from_str(source).map_err(|e| WorldError(format!("facts do not read: {e}")))?;
        if !value.is_object() {
            return Err(WorldError("facts must be a JSON object of keys".into()));
        }
        let mut world = FactsWorld::default();
        world.add_json("", &value)?;
        Ok(world)
    }

    /// How many facts there are.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    fn add_toml(&mut self, prefix: &str, value: &toml::Value) -> Result<(), WorldError> {
        let fact = match value {
            toml::Value::Table(table) => {
                for (key, value) in table {
                    self.add_toml(&join(prefix, key), value)?;
                }
                return Ok(());
            }
            toml::Value::Boolean(b) => Fact::Truth(*b),
            toml::Value::String(s) => Fact::Text(s.clone()),
            toml::Value::Integer(n) => Fact::Number(*n as f64),
            toml::Value::Float(n) => Fact::Number(*n),
            other => {
                return Err(WorldError(format!(
                    "fact {prefix} is a {}, not a truth, words or a number",
                    other.type_str()
                )))
            }
        };
        self.facts.insert(prefix.to_owned(), fact);
        Ok(())
    }

    fn add_json(&mut self, prefix: &str, value: &serde_json::Value) -> Result<(), WorldError> {
        let fact = match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    self.add_json(&join(prefix, key), value)?;
                }
                return Ok(());
            }
            serde_json::Value::Bool(b) => Fact::Truth(*b),
            serde_json::Value::String(s) => Fact::Text(s.clone()),
            serde_json::Value::Number(n) => Fact::Number(n.as_f64().unwrap_or(0.0)),
            _ => return Err(WorldError(format!("fact {prefix} is not a truth, words or a number"))),
        };
        self.facts.insert(prefix.to_owned(), fact);
        Ok(())
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

impl World for FactsWorld {
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        let Some(fact) = self.facts.get(key) else { return Ok(None) };
        let answer = match (fact, kind) {
            (Fact::Truth(b), AnswerKind::Truth) => Answer::Truth(*b),
            (Fact::Text(s), AnswerKind::Text) => Answer::Text(s.clone().into()),
            (Fact::Truth(b), AnswerKind::Text) => Answer::Text(b.to_string().into()),
            (Fact::Number(n), AnswerKind::Text) => Answer::Text(stagehand_lua::format_number(*n).into()),
            (Fact::Number(n), AnswerKind::Number) => Answer::Number(*n),
            (fact, kind) => {
                let what = match fact {
                    Fact::Truth(_) => "a truth",
                    Fact::Text(_) => "words",
                    Fact::Number(_) => "a number",
                };
                return Err(WorldError(format!("the fact {key} is {what}, but the script asks for {kind}")));
            }
        };
        Ok(Some(answer))
    }

    fn perform(&mut self, _effect: &Fragment) -> Result<(), WorldError> {
        Ok(())
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_tables_name_keys_with_dots() {
        let mut world = FactsWorld::from_toml("name = \"Bo\"\n[Alice]\nInClub = true\nCourage = 30\n").unwrap();
        assert_eq!(world.answer("Alice.InClub", AnswerKind::Truth), Ok(Some(Answer::Truth(true))));
        assert_eq!(world.answer("Alice.Courage", AnswerKind::Number), Ok(Some(Answer::Number(30.0))));
        assert_eq!(world.answer("name", AnswerKind::Text), Ok(Some(Answer::Text("Bo".into()))));
        assert_eq!(world.answer("missing", AnswerKind::Truth), Ok(None));
        assert!(world.answer("name", AnswerKind::Truth).is_err());
    }

    #[test]
    fn json_reads_the_same() {
        let mut world = FactsWorld::from_json(r#"{"Alice": {"InClub": false}, "Fear": 2.5}"#).unwrap();
        assert_eq!(world.answer("Alice.InClub", AnswerKind::Truth), Ok(Some(Answer::Truth(false))));
        assert_eq!(world.answer("Fear", AnswerKind::Number), Ok(Some(Answer::Number(2.5))));
        assert!(FactsWorld::from_json("[1]").is_err());
        assert!(FactsWorld::from_toml("x = [1]").is_err());
    }
}
