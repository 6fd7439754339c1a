//! The actions a session advertises, and what applying one does (decisions H3 and H4).

use std::fmt::Write as _;

use serde_json::Value;
use stagehand_protocol::{Action, Engine, Outcome, PendingQuestion, Status, UnavailableOption, View};

use super::pending::{Asked, Move, Pending};
use super::Session;

/// What an applied action does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Act {
    /// Gives the engine a command.
    Take(Move),
    /// Gives the engine a `start` (H40): journalled when taken, forgotten when refused.
    Begin(Move),
    /// Puts a failed perform back to be carried out again.
    Retry,
    /// Keeps an answer given through `input` until the request's other questions are answered.
    Give(Vec<Asked>),
    /// Replays the first `n` moves of the journal.
    Undo(usize),
    /// Replays only the opening `start`.
    Restart,
}

/// The explanation a `failed` action gives the engine: the control surface never makes up the
/// host's own words (decision H3).
pub(crate) const FAILED_EXPLANATION: &str = "the host could not carry out the effect";

/// Each action now advertised, with what it does, in the order shown.
fn advertised<E: Engine>(session: &Session<E>) -> Vec<(Action, Act)> {
    let mut actions = Vec::new();
    match &session.pending {
        Pending::Line => actions.push((Action::new("next", "Next"), Act::Take(Move::Next))),
        Pending::Menu { options } => {
            for (position, option) in options.iter().enumerate().filter(|(_, o)| o.available) {
                let label = if option.label.trim().is_empty() {
                    format!("Option {} (it has no words)", position + 1)
                } else {
                    option.label.clone()
                };
                let id = format!("choose:{position}");
                actions.push((Action::new(id, label), Act::Take(Move::Choose { position: position as i64 })));
            }
        }
        Pending::Perform { effect, failed: None, .. } => {
            actions.push((Action::new("done", format!("Done: {effect}")), Act::Take(Move::Done)));
            let failed = Move::Failed { explanation: FAILED_EXPLANATION.to_owned() };
            actions.push((Action::new("failed", format!("Failed: {effect}")), Act::Take(failed)));
        }
        Pending::Perform { effect, failed: Some(_), .. } => {
            actions.push((Action::new("retry", format!("Retry: {effect}")), Act::Retry));
        }
        Pending::Start
        | Pending::Resolve { .. }
        | Pending::Call { .. }
        | Pending::Ended
        | Pending::Stopped
        | Pending::Stuck { .. } => {}
    }
    for action in session.engine.actions() {
        let step = Move::Act { action: action.id.clone() };
        actions.push((action, Act::Take(step)));
    }
    if let Some(keep) = undo_point(&session.journal) {
        actions.push((Action::new("undo", "Undo the last move"), Act::Undo(keep)));
    }
    // Restarting with nothing but the opening start in the journal would only do it again.
    if session.journal.len() > 1 {
        actions.push((Action::new("restart", "Restart from the beginning"), Act::Restart));
    }
    for anchor in session.engine.anchors() {
        let step = Move::Start { anchor: Some(anchor.clone()) };
        actions.push((Action::new(format!("jump:{anchor}"), format!("Jump to {anchor}")), Act::Take(step)));
    }
    actions
}

/// How many moves undo keeps: every move but the last, and never the opening `start`.
fn undo_point(journal: &[Move]) -> Option<usize> {
    (journal.len() > 1).then(|| journal.len() - 1)
}

/// What an action id does now, or why it cannot be applied. The id is read without building
/// the list of actions: only a refusal lists them (H31).
pub(crate) fn parse<E: Engine>(session: &Session<E>, action_id: &str) -> Result<Act, String> {
    if let Some(act) = lookup(session, action_id) {
        return Ok(act);
    }
    // `start` and `start:NAME` are taken though not advertised: the names are open-ended (H40).
    if action_id == "start" || action_id.starts_with("start:") {
        let anchor = action_id.strip_prefix("start:").map(str::to_owned);
        return Ok(Act::Begin(Move::Start { anchor }));
    }
    let advertised = advertised(session);
    let ids: Vec<&str> = advertised.iter().map(|(a, _)| a.id.as_str()).collect();
    let hint = if action_id.starts_with("answer:") { "; answer a question with input" } else { "" };
    Err(format!("{action_id} is not an action now (the actions are: {}){hint}", ids.join(", ")))
}

/// What `action_id` does if [`advertised`] lists it now.
fn lookup<E: Engine>(session: &Session<E>, action_id: &str) -> Option<Act> {
    let pending = &session.pending;
    match action_id {
        "next" if matches!(pending, Pending::Line) => return Some(Act::Take(Move::Next)),
        "done" if matches!(pending, Pending::Perform { failed: None, .. }) => return Some(Act::Take(Move::Done)),
        "failed" if matches!(pending, Pending::Perform { failed: None, .. }) => {
            return Some(Act::Take(Move::Failed { explanation: FAILED_EXPLANATION.to_owned() }))
        }
        "retry" if matches!(pending, Pending::Perform { failed: Some(_), .. }) => return Some(Act::Retry),
        "undo" => return undo_point(&session.journal).map(Act::Undo),
        "restart" if session.journal.len() > 1 => return Some(Act::Restart),
        _ => {}
    }
    if let (Some(position), Pending::Menu { options }) = (action_id.strip_prefix("choose:"), pending) {
        // Only the spelling `format!("choose:{n}")` gives: digits, no leading zero.
        let canonical = !position.is_empty()
            && position.bytes().all(|b| b.is_ascii_digit())
            && (position == "0" || !position.starts_with('0'));
        let position: usize = position.parse().ok().filter(|_| canonical)?;
        return options
            .get(position)
            .filter(|o| o.available)
            .map(|_| Act::Take(Move::Choose { position: position as i64 }));
    }
    if session.engine.actions().iter().any(|a| a.id == action_id) {
        return Some(Act::Take(Move::Act { action: action_id.to_owned() }));
    }
    if let Some(anchor) = action_id.strip_prefix("jump:") {
        let anchors = session.engine.anchor_names();
        return anchors.iter().any(|a| a == anchor).then(|| Act::Take(Move::Start { anchor: Some(anchor.to_owned()) }));
    }
    None
}

/// What answering `question_id` with `text` does, or why it cannot.
pub(crate) fn answer<E: Engine>(session: &Session<E>, question_id: &str, text: &str) -> Result<Act, String> {
    let Pending::Resolve { asked } = &session.pending else {
        return Err(format!("no question is pending, so {question_id:?} cannot be answered"));
    };
    let Some(index) = asked.iter().position(|a| a.key == question_id && a.given.is_none()) else {
        let open: Vec<&str> = asked.iter().filter(|a| a.given.is_none()).map(|a| a.key.as_str()).collect();
        return Err(format!("{question_id:?} is not a pending question (the pending ones are: {})", open.join(", ")));
    };
    let value = read_answer(&asked[index].kind, text)
        .ok_or_else(|| format!("{text:?} is not {} for {question_id:?}", kind_words(&asked[index].kind)))?;
    let mut asked = asked.clone();
    asked[index].given = Some(value);
    if asked.iter().all(|a| a.given.is_some()) {
        let answers = asked.into_iter().map(|a| (a.key, a.given.unwrap_or(Value::Null))).collect();
        Ok(Act::Take(Move::Supply { answers }))
    } else {
        Ok(Act::Give(asked))
    }
}

/// A text read as an answer of `kind`: a truth, a number, or the words themselves.
fn read_answer(kind: &str, text: &str) -> Option<Value> {
    let trimmed = text.trim();
    match kind {
        "truth" => match trimmed.to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" => Some(Value::Bool(true)),
            "false" | "no" | "n" => Some(Value::Bool(false)),
            _ => None,
        },
        "number" => trimmed
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        _ => Some(Value::String(text.to_owned())),
    }
}

fn kind_words(kind: &str) -> &'static str {
    match kind {
        "truth" => "a truth (true or false, yes or no)",
        "number" => "a finite, non-negative number",
        _ => "words",
    }
}

/// How the run stands, as a receipt's outcome.
pub(crate) fn outcome(pending: &Pending) -> Outcome {
    match pending {
        Pending::Ended => Outcome::Ended,
        Pending::Stopped | Pending::Stuck { .. } => Outcome::Stopped,
        _ => Outcome::Awaiting,
    }
}

/// The view `describe` returns, written into `view` reusing its room (H31).
pub(crate) fn view_into<E: Engine>(session: &Session<E>, view: &mut View) {
    let pending = &session.pending;
    view.status = match pending {
        Pending::Ended => Status::Done,
        Pending::Stopped => Status::Stopped,
        Pending::Stuck { .. } => Status::Error,
        _ => Status::Active,
    };
    view.at_rest =
        !matches!(pending, Pending::Resolve { .. } | Pending::Perform { failed: None, .. } | Pending::Call { .. });
    view.pending_questions.clear();
    if let Pending::Resolve { asked } = pending {
        view.pending_questions.extend(asked.iter().filter(|a| a.given.is_none()).map(|a| PendingQuestion {
            question_id: a.key.clone(),
            text: format!("{}? ({})", a.key, kind_words(&a.kind)),
        }));
    }
    view.last_error = match pending {
        Pending::Perform { failed: Some(why), .. } => Some(why.clone()),
        Pending::Stuck { error } => Some(error.clone()),
        _ => None,
    };
    view.unavailable.clear();
    if let Pending::Menu { options } = pending {
        view.unavailable.extend(options.iter().enumerate().filter(|(_, o)| !o.available).map(|(position, o)| {
            UnavailableOption { position, label: o.label.clone(), why: "its condition does not hold".to_owned() }
        }));
    }
    view.description.clear();
    session.engine.write_description(&mut view.description);
    if let Pending::Call { call } = pending {
        let _ = write!(view.description, " It asks the host to call {}.", call.describe());
    }
    if let Pending::Perform { effect, failed, .. } = pending {
        match failed {
            None => {
                let _ = write!(view.description, " It asks the host to carry out {effect}.");
            }
            Some(why) => {
                let _ = write!(view.description, " Carrying out {effect} failed: {why}.");
            }
        }
    }
    view.state_id.clear();
    session.engine.write_state_id(&mut view.state_id);
    let mut actions = Slots { actions: &mut view.actions, filled: 0 };
    match pending {
        Pending::Line => actions.put(|id, label| {
            id.push_str("next");
            label.push_str("Next");
        }),
        Pending::Menu { options } => {
            for (position, option) in options.iter().enumerate().filter(|(_, o)| o.available) {
                actions.put(|id, label| {
                    let _ = write!(id, "choose:{position}");
                    if option.label.trim().is_empty() {
                        let _ = write!(label, "Option {} (it has no words)", position + 1);
                    } else {
                        label.push_str(&option.label);
                    }
                });
            }
        }
        Pending::Perform { effect, failed: None, .. } => {
            actions.put(|id, label| {
                id.push_str("done");
                let _ = write!(label, "Done: {effect}");
            });
            actions.put(|id, label| {
                id.push_str("failed");
                let _ = write!(label, "Failed: {effect}");
            });
        }
        Pending::Perform { effect, failed: Some(_), .. } => actions.put(|id, label| {
            id.push_str("retry");
            let _ = write!(label, "Retry: {effect}");
        }),
        Pending::Start
        | Pending::Resolve { .. }
        | Pending::Call { .. }
        | Pending::Ended
        | Pending::Stopped
        | Pending::Stuck { .. } => {}
    }
    for action in session.engine.actions() {
        actions.put(|id, label| {
            id.push_str(&action.id);
            label.push_str(&action.label);
        });
    }
    if undo_point(&session.journal).is_some() {
        actions.put(|id, label| {
            id.push_str("undo");
            label.push_str("Undo the last move");
        });
    }
    if session.journal.len() > 1 {
        actions.put(|id, label| {
            id.push_str("restart");
            label.push_str("Restart from the beginning");
        });
    }
    for anchor in session.engine.anchor_names().iter() {
        actions.put(|id, label| {
            let _ = write!(id, "jump:{anchor}");
            let _ = write!(label, "Jump to {anchor}");
        });
    }
    let filled = actions.filled;
    view.actions.truncate(filled);
}

/// A view's actions, overwritten in order.
struct Slots<'v> {
    actions: &'v mut Vec<Action>,
    filled: usize,
}

impl Slots<'_> {
    /// Writes the next action's id and label (into strings cleared first).
    fn put(&mut self, write: impl FnOnce(&mut String, &mut String)) {
        if self.filled == self.actions.len() {
            self.actions.push(Action::new(String::new(), String::new()));
        }
        let action = &mut self.actions[self.filled];
        action.id.clear();
        action.label.clear();
        write(&mut action.id, &mut action.label);
        self.filled += 1;
    }
}
