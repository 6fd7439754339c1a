//! Documents and helpers shared by the host-session tests: a small DialogueDown playbook, a
//! small ChatMapper project, and a driver that answers whatever a view asks.

#![allow(dead_code)]

use stagehand_chatmapper::{load, ChatMapperEngine, Options as ChatMapperOptions, Project};
use stagehand_dialoguedown::{compile, Options};
use stagehand_playbook::Playbook;
use stagehand_protocol::{Engine, Receipt, View};
use stagehand_session::host::{Session, TraceRecord, TraceType};

/// A fair: a resolve (a condition on an option), a menu with an unavailable option, a perform,
/// and three anchors.
pub const FAIR: &str = r#"# The Fair

Mira: Welcome to the club fair!

- Join the art club.

  `JoinClub("You", "Art")` Mira hands you a paintbrush.

- Join the chess club.

  Mira hands you a pawn.

- `You.Rich?` Buy your way into the yacht club.

# The party

Mira: Now, about the party tonight.

`You.InClub?` Mira: Members get in free!

Mira: See you there.
"#;

/// The fair, compiled.
pub fn fair() -> Playbook {
    compile(FAIR, "fair.dialogue.md", &Options::default()).playbook.expect("the fair compiles")
}

/// The crossing example (a ChatMapper JSON export).
pub fn crossing() -> Project {
    let path = format!("{}/../../examples/the-crossing.json", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load(&bytes, &path).unwrap_or_else(|e| panic!("{e}"))
}

/// A fresh engine of the crossing.
pub fn crossing_engine(project: &Project) -> ChatMapperEngine {
    ChatMapperEngine::new(project.clone(), ChatMapperOptions::seeded(3)).expect("an engine")
}

/// The ids of a view's actions.
pub fn ids(view: &View) -> Vec<String> {
    view.actions.iter().map(|a| a.id.clone()).collect()
}

/// An answer that fits a pending question's text (it names the kind it needs).
pub fn fitting_answer(text: &str) -> &'static str {
    if text.contains("truth") {
        "no"
    } else if text.contains("number") {
        "1"
    } else {
        "Sam"
    }
}

/// One move a driver makes from a view: the `pick`-th action, or, when a question is pending
/// and `pick` says so (or there is nothing else but undo and restart), an answer to it.
pub enum Choice {
    /// Apply this action.
    Apply(String),
    /// Answer this question with this text.
    Input(String, String),
}

/// Chooses a move from a view with `pick`.
pub fn choose(view: &View, pick: usize) -> Option<Choice> {
    let n = view.actions.len() + view.pending_questions.len();
    if n == 0 {
        return None;
    }
    let i = pick % n;
    Some(match view.actions.get(i) {
        Some(action) => Choice::Apply(action.id.clone()),
        None => {
            let q = &view.pending_questions[i - view.actions.len()];
            Choice::Input(q.question_id.clone(), fitting_answer(&q.text).to_owned())
        }
    })
}

/// Makes a move under an idempotency key.
pub fn make<E: Engine>(session: &mut Session<E>, choice: &Choice, key: &str, now: u64) -> Receipt {
    match choice {
        Choice::Apply(id) => session.apply(id, key, now),
        Choice::Input(q, text) => session.input(q, text, key, now),
    }
}

/// Checks a trace: contiguous from `first`, one session id, and every boundary's start followed by
/// exactly one finish with the same call id before the next start (boundaries do not overlap in
/// a session, which has one boundary at a time).
pub fn check_trace(trace: &[TraceRecord], first: u64) -> Result<(), String> {
    let mut open: Option<(&str, TraceType)> = None;
    for (i, record) in trace.iter().enumerate() {
        if record.sequence != first + i as u64 {
            return Err(format!("record {i} has sequence {}, not {}", record.sequence, first + i as u64));
        }
        if record.session_id != trace[0].session_id {
            return Err(format!("record {i} belongs to session {}", record.session_id));
        }
        let kind = record.trace_type().ok_or_else(|| format!("record {i} has an unknown type {}", record.kind))?;
        match (open, kind.finish()) {
            (None, Some(_)) => open = Some((record.call_id.as_deref().unwrap_or(""), kind)),
            (Some(_), Some(_)) => return Err(format!("record {i} starts a boundary inside another")),
            (Some((call, started)), None) => {
                if started.finish() != Some(kind) || record.call_id.as_deref() != Some(call) {
                    return Err(format!("record {i} ({}) does not finish {call}", record.kind));
                }
                open = None;
            }
            (None, None) => {
                if matches!(kind, TraceType::ApplyFinished | TraceType::InputSettled) {
                    return Err(format!("record {i} finishes a boundary that never started"));
                }
            }
        }
    }
    match open {
        Some((call, _)) => Err(format!("{call} never finished")),
        None => Ok(()),
    }
}
