//! Where a session starts and the world it plays with, as `POST /v1/sessions` takes them
//! (decisions S17, S18).
//!
//! - `start`: a DialogueDown anchor or a ChatMapper conversation (by id or title). One the
//!   engine refuses is `422 invalid-start`, and no session is made.
//! - `world`: `{"facts": {…}}`, the facts a `.world.json` file holds (nested objects name keys
//!   with dots). It is stored with the session and, after the opening and after every executed
//!   apply or input, answers what the session asks through the worlds driver (`resolve` keys it
//!   knows, `perform` commands, which facts carry out by doing nothing), so a client sees only
//!   what a person must decide. A Lua world is refused (`422 invalid-world`): its state lives in
//!   the interpreter, which no snapshot carries, and every request restores its session from the
//!   store on any server (S13).

use serde_json::{json, Map, Value};
use stagehand_protocol::Reported;
use stagehand_session::host::{AnySession, Pending};
use stagehand_worlds::{drive, FactsWorld, Stop};

use crate::problem::{Kind, Problem};

/// The member of `world` that holds facts.
pub const FACTS: &str = "facts";

/// Reads the `world` of a create request: the text to store with the session, or `422
/// invalid-world` saying what is wrong.
pub fn read(asked: &Value) -> Result<String, Problem> {
    let Some(object) = asked.as_object() else {
        return Err(invalid("world must be an object: {\"facts\": {…}}"));
    };
    if object.contains_key("lua") {
        return Err(invalid(
            "a Lua world is not served over HTTP: its state lives in the Lua interpreter, which no snapshot \
             carries, and each request restores its session on any server; give the facts it would answer as \
             {\"facts\": {…}}",
        ));
    }
    if let Some(other) = object.keys().find(|k| k.as_str() != FACTS) {
        return Err(invalid(format!("world takes only \"facts\"; it has {other:?}")));
    }
    let facts = object.get(FACTS).ok_or_else(|| invalid("world must be {\"facts\": {…}}"))?;
    let text = json!({ FACTS: facts }).to_string();
    open(&text)?;
    Ok(text)
}

/// The world stored with a session.
pub fn open(stored: &str) -> Result<FactsWorld, Problem> {
    let value: Value = serde_json::from_str(stored).map_err(|e| invalid(format!("the world is not JSON: {e}")))?;
    let facts = value.get(FACTS).cloned().unwrap_or_else(|| Value::Object(Map::new()));
    FactsWorld::from_json(&facts.to_string()).map_err(|e| invalid(format!("world.facts: {e}")))
}

fn invalid(detail: impl Into<String>) -> Problem {
    Problem::new(Kind::InvalidWorld, detail)
}

/// What a world did for a request: the events its moves reported, and its last error.
#[derive(Debug, Default)]
pub struct Settled {
    /// What the engine reported on the world's moves, in order.
    pub reported: Vec<Reported>,
    /// The last error the world gave (a fact of the wrong kind), if any.
    pub error: Option<String>,
}

/// Plays `session` on with the stored world until a person must act (nothing without one).
pub fn settle(session: &mut dyn AnySession, world: Option<&str>, now: u64) -> Result<Settled, Problem> {
    let Some(stored) = world else { return Ok(Settled::default()) };
    let mut world =
        open(stored).map_err(|p| Problem::internal(format!("a stored world no longer reads: {}", p.detail)))?;
    let driven = drive(session, &mut world, now);
    let error = match driven.stop {
        Stop::Failed(reason) => Some(reason),
        Stop::Person | Stop::Ended => driven.world_error,
    };
    Ok(Settled { reported: driven.reported, error })
}

impl Settled {
    /// Adds what the world did to a response body (a JSON object): `driven`, the events of its
    /// moves, and `worldError`. The body is unchanged when the world did nothing.
    pub fn attach(&self, body: String) -> String {
        if self.reported.is_empty() && self.error.is_none() {
            return body;
        }
        let Ok(Value::Object(mut object)) = serde_json::from_str::<Value>(&body) else { return body };
        object.insert("driven".into(), json!(self.reported));
        if let Some(error) = &self.error {
            object.insert("worldError".into(), json!(error));
        }
        Value::Object(object).to_string()
    }
}

/// The refusal of a start the engine could not make: the session is stuck at its opening.
pub fn refused_start(session: &dyn AnySession, start: &str) -> Option<Problem> {
    match session.pending() {
        Pending::Stuck { error } => {
            Some(Problem::new(Kind::InvalidStart, format!("cannot start at {start:?}: {error}")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_read_and_everything_else_is_refused_with_its_reason() {
        let stored = read(&json!({"facts": {"Alice": {"InClub": true}, "Fear": 2}})).unwrap();
        assert_eq!(open(&stored).unwrap().len(), 2);
        let refused = |asked: Value| read(&asked).unwrap_err();
        let lua = refused(json!({"lua": "function query() end"}));
        assert_eq!(lua.kind, Kind::InvalidWorld);
        assert!(lua.detail.contains("Lua world is not served"), "{}", lua.detail);
        assert!(refused(json!([1])).detail.contains("must be an object"));
        assert!(refused(json!({"facts": {}, "more": 1})).detail.contains("\"more\""));
        assert!(refused(json!({})).detail.contains("{\"facts\""));
        let wrong = refused(json!({"facts": {"list": [1, 2]}}));
        assert!(wrong.detail.starts_with("world.facts: ") && wrong.detail.contains("list"), "{}", wrong.detail);
        assert!(refused(json!({"facts": 3})).detail.contains("object"));
    }

    #[test]
    fn a_body_gains_what_the_world_did_only_when_it_did_something() {
        let nothing = Settled::default();
        assert_eq!(nothing.attach("{\"a\":1}".into()), "{\"a\":1}");
        let said =
            Reported { kind: "said".into(), speaker: Some("Alice".into()), text: Some("Hi.".into()), speech: None };
        let settled = Settled { reported: vec![said], error: Some("a fact of the wrong kind".into()) };
        let body: Value = serde_json::from_str(&settled.attach("{\"a\":1}".into())).unwrap();
        assert_eq!(body["a"], 1);
        assert_eq!(body["driven"][0]["text"], "Hi.");
        assert_eq!(body["worldError"], "a fact of the wrong kind");
    }
}
