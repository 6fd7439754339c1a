//! The worlds driver: answers what a host session ([`AnySession`]) has pending from a [`World`] and stops where a
//! person must act (decision H11).
//!
//! - A line is taken with `next`.
//! - A `perform` is carried out by the world: `done` when it succeeds, `failed` when it does not
//!   (then the session offers `retry`, and the driver stops: a person decides).
//! - A `resolve` is answered by the world through `input`, key by key; a key the world does not
//!   know is left for a person, and the driver stops.
//! - A port call (an agent playbook's) is made by the world (`World::call`) and answered with
//!   `answer`; a world that binds no ports leaves it to a person.
//! - A menu, the end, a stopped run and an engine that cannot go on stop the driver.
//!
//! The driver reads no clock either: it gives the session the `now` it was given.

use stagehand_protocol::{Answer, AnswerKind, Receipt, Reported};
use stagehand_session::host::{AnySession, Call, Pending};

use crate::World;

/// Why the driver stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// A person must act: a menu, a question no world answers, or a command that failed.
    Person,
    /// The story ended.
    Ended,
    /// The run cannot go on: the engine stopped it or refused the move it needs, or an apply
    /// failed. The words say why.
    Failed(String),
}

/// What a drive did.
#[derive(Debug, Clone, PartialEq)]
pub struct Driven {
    /// What the engine reported on the way, in order (lines said, menus offered, ...).
    pub reported: Vec<Reported>,
    /// Lines the world wrote for the person (a Lua world's `print`).
    pub log: Vec<String>,
    /// The last error the world gave (a command it could not carry out, a key it could not read).
    pub world_error: Option<String>,
    /// Why it stopped.
    pub stop: Stop,
    /// Each command the world carried out (or tried to), with how many moves the session's
    /// journal held then.
    pub performed: Vec<(usize, Call)>,
}

/// A key the session has not recorded, for the driver's (and a player's) own applies.
pub fn fresh_key(session: &dyn AnySession) -> String {
    let mut n = session.receipt_count();
    loop {
        let key = format!("world:{n}");
        if !session.has_key(&key) {
            return key;
        }
        n += 1;
    }
}

fn answer_text(answer: &Answer<'_>) -> String {
    match answer {
        Answer::Truth(truth) => truth.to_string(),
        Answer::Number(number) => number.to_string(),
        Answer::Text(text) => text.to_string(),
    }
}

fn kind_of(name: &str) -> AnswerKind {
    match name {
        "truth" => AnswerKind::Truth,
        "number" => AnswerKind::Number,
        _ => AnswerKind::Text,
    }
}

/// Plays `session` on, with `world` answering its requests, until a person must act, the story
/// ends, or the run cannot go on. Every move goes through the session's `apply` or `input`
/// under a fresh key, so the receipts and the trace record it like any other.
pub fn drive(session: &mut dyn AnySession, world: &mut dyn World, now: u64) -> Driven {
    let mut driven =
        Driven { reported: Vec::new(), log: Vec::new(), world_error: None, stop: Stop::Person, performed: Vec::new() };
    // Each pass applies one move or stops. A story of lines that never ends is parked at a
    // line after `MAX_MOVES`, so a drive is bounded in time and memory.
    for _ in 0..MAX_MOVES {
        let receipt = match session.pending().clone() {
            Pending::Line => session.apply("next", &fresh_key(&*session), now),
            Pending::Perform { failed: None, call, .. } => {
                let outcome = match call {
                    Some(call) => {
                        let outcome = world.perform(&call.fragment());
                        driven.performed.push((session.journal().len(), call));
                        outcome
                    }
                    None => Ok(()),
                };
                driven.log.extend(world.take_log());
                match outcome {
                    Ok(()) => session.apply("done", &fresh_key(&*session), now),
                    Err(error) => {
                        driven.world_error = Some(error.to_string());
                        session.apply("failed", &fresh_key(&*session), now)
                    }
                }
            }
            Pending::Resolve { asked } => {
                let Some(open) = asked.iter().find(|a| a.given.is_none()) else {
                    driven.stop = Stop::Person;
                    return driven;
                };
                let known = world.answer(&open.key, kind_of(&open.kind));
                driven.log.extend(world.take_log());
                match known {
                    Ok(Some(answer)) => session.input(&open.key, &answer_text(&answer), &fresh_key(&*session), now),
                    Ok(None) => {
                        driven.stop = Stop::Person;
                        return driven;
                    }
                    Err(error) => {
                        driven.world_error = Some(error.to_string());
                        driven.stop = Stop::Person;
                        return driven;
                    }
                }
            }
            Pending::Call { call } => {
                let answer = world.call(&call);
                driven.log.extend(world.take_log());
                match answer {
                    Some(answer) => session.answer(answer, &fresh_key(&*session), now),
                    None => {
                        driven.stop = Stop::Person;
                        return driven;
                    }
                }
            }
            Pending::Ended => {
                driven.stop = Stop::Ended;
                return driven;
            }
            Pending::Stopped => {
                driven.stop = Stop::Failed("the engine stopped the run".to_owned());
                return driven;
            }
            Pending::Stuck { error } => {
                driven.stop = Stop::Failed(error);
                return driven;
            }
            Pending::Menu { .. } | Pending::Perform { failed: Some(_), .. } | Pending::Start => {
                driven.stop = Stop::Person;
                return driven;
            }
        };
        match receipt {
            Receipt::Executed { events, .. } => driven.reported.extend(events),
            Receipt::Failed { error } => {
                driven.stop = Stop::Failed(error);
                return driven;
            }
            Receipt::Rejected { reason } => {
                // The world's answer did not fit the question: a person answers it instead.
                driven.world_error = Some(reason);
                driven.stop = Stop::Person;
                return driven;
            }
        }
    }
    driven
}

/// The most moves one drive makes before it parks (at a line, to be taken on with `next`).
pub const MAX_MOVES: usize = 10_000;
