//! What a case is held against: a [`Subject`], one document opened for playing, which makes
//! fresh engines of the protocol's one [`Engine`] trait. Each engine's subject is generic code
//! over that trait ([`judge`]); the trait object only hides which engine it is.

use serde_json::Value;
use stagehand_playbook::Playbook;
use stagehand_protocol::Engine;
use stagehand_runner::RunnerEngine;

use crate::case::Outcome;
use crate::fixture::{Fixture, FixtureKind};
use crate::host::hold_host;
use crate::session::{hold, hold_final, Divergence};

/// One document opened for a case: it holds a fixture's playable parts against fresh engines of
/// the document. A [`Loader`](crate::Loader) returns one for the documents it reads; implement
/// it by calling [`judge`] with a way to make engines.
pub trait Subject {
    /// Holds `fixture` (a playable one) against this document.
    fn judge(&self, fixture: &Fixture) -> Outcome;
}

/// Holds a playable fixture against engines made by `fresh`: its `session` on one engine, turn
/// by turn through [`Engine::take`], with its `final` claims held to what `observe` sees of that
/// engine afterwards (`None`: the engine observes nothing); then its `host` script on a host
/// session over another. A readable fixture is left to the harness (conformed here).
pub fn judge<E: Engine>(
    fixture: &Fixture,
    fresh: &dyn Fn() -> Result<E, String>,
    observe: &dyn Fn(&E) -> Option<Value>,
) -> Outcome {
    let FixtureKind::Playable { session, host } = &fixture.kind else {
        return Outcome::Conformed;
    };
    if let Some(session) = session {
        let mut engine = match fresh() {
            Ok(engine) => engine,
            Err(error) => return Outcome::Broken(format!("{}: {error}", fixture.document)),
        };
        let held = hold(session, &mut engine).and_then(|()| match &fixture.final_state {
            Some(claims) => hold_final(claims, observe(&engine), session.len()),
            None => Ok(()),
        });
        if let Err(Divergence { turn, message }) = held {
            return Outcome::Diverged(format!("at turn {turn}: {message}"));
        }
    }
    if let Some(host) = host {
        if let Err(Divergence { turn, message }) = hold_host(host, fresh) {
            return Outcome::Diverged(format!("at host step {turn}: {message}"));
        }
    }
    Outcome::Conformed
}

/// A playbook, played by the DialogueDown runner's [`RunnerEngine`] (the harness's own subject).
#[derive(Debug, Clone)]
pub struct PlaybookSubject {
    playbook: Playbook,
    seed: u64,
}

impl PlaybookSubject {
    /// `playbook`, its runs seeded with `seed`.
    pub fn new(playbook: Playbook, seed: u64) -> Self {
        PlaybookSubject { playbook, seed }
    }
}

impl Subject for PlaybookSubject {
    fn judge(&self, fixture: &Fixture) -> Outcome {
        // The runner observes nothing beyond where it stands, so `final` claims diverge.
        judge(fixture, &|| Ok(RunnerEngine::new(&self.playbook, self.seed)), &|_| None)
    }
}
