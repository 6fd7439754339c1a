//! The actions a session advertises, and what applying one does (decisions H3 and H4).

use std::borrow::Cow;
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

/// How many moves undo keeps: every move but the last, and never the opening `start`.
fn undo_point(journal: &[Move]) -> Option<usize> {
    (journal.len() > 1).then(|| journal.len() - 1)
}

/// What an action id does now, or why it cannot be applied. The id is read without building
/// the list of actions: only a refusal lists them (H31).
#[inline]
pub(crate) fn parse<E: Engine>(session: &Session<E>, action_id: &str) -> Result<Act, String> {
    // A line's `next`, the common case, first.
    if action_id == "next" && matches!(session.pending, Pending::Line) {
        return Ok(Act::Take(Move::Next));
    }
    parse_any(session, action_id)
}

/// [`parse`], every case.
fn parse_any<E: Engine>(session: &Session<E>, action_id: &str) -> Result<Act, String> {
    if let Some(act) = lookup(session, action_id) {
        return Ok(act);
    }
    // `start` and `start:NAME` are taken though not advertised: the names are open-ended (H40).
    if action_id == "start" || action_id.starts_with("start:") {
        let anchor = action_id.strip_prefix("start:").map(str::to_owned);
        return Ok(Act::Begin(Move::Start { anchor }));
    }
    let look = session.look();
    let ids: Vec<String> = look
        .actions()
        .map(|action| {
            let mut id = String::new();
            look.write_id(action, &mut id);
            id
        })
        .collect();
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
        return Err(match question_id {
            // No id named: a host's "the first pending one" (the server's input), of which there is none.
            "" => "no question is pending, so the text answers nothing (take one of the actions)".to_owned(),
            id => format!("no question is pending, so {id:?} cannot be answered"),
        });
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

/// One action a session advertises, as a value (decision H38): [`Look::write_id`] writes its
/// id (`choose:2`, `jump:intro`), [`Look::write_label`] its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionId {
    /// `next`.
    Next,
    /// `choose:N`: the option at this position of the menu.
    Choose(usize),
    /// `done`.
    Done,
    /// `failed`.
    Failed,
    /// `retry`.
    Retry,
    /// `undo`.
    Undo,
    /// `restart`.
    Restart,
    /// `jump:ANCHOR`: the engine's anchor at this position of its list.
    Jump(usize),
    /// One of the engine's own actions (H46), at this position of its list.
    Engine(usize),
}

impl ActionId {
    /// The id, when it is one word with nothing to fill in (all but `choose:N` and `jump:…`).
    pub fn as_static(self) -> Option<&'static str> {
        Some(match self {
            ActionId::Next => "next",
            ActionId::Done => "done",
            ActionId::Failed => "failed",
            ActionId::Retry => "retry",
            ActionId::Undo => "undo",
            ActionId::Restart => "restart",
            ActionId::Choose(_) | ActionId::Jump(_) | ActionId::Engine(_) => return None,
        })
    }
}

/// A session's view, read on demand: what [`Session::look`] gives. The status, whether it is
/// at rest and the actions are read off the session as it stands; the description, the state
/// id, the labels and the questions are written only when asked for, the same words
/// [`Session::describe`] gives (it is this, written out).
pub struct Look<'s, E: Engine> {
    session: &'s Session<E>,
}

impl<'s, E: Engine> Look<'s, E> {
    #[inline]
    pub(crate) fn of(session: &'s Session<E>) -> Self {
        Look { session }
    }

    /// The engine's anchors (lent by the runner; no engine lists many of its own).
    fn anchors(&self) -> Cow<'s, [String]> {
        self.session.engine.anchor_names()
    }

    /// The engine's own actions (H46; none for the dialogue engines), asked of the engine once
    /// per move: the session keeps them until its next.
    fn engine_actions(&self) -> &'s [Action] {
        self.session.engine_actions.get_or_init(|| self.session.engine.actions())
    }

    /// The session's status (decision H1).
    pub fn status(&self) -> Status {
        match self.session.pending {
            Pending::Ended => Status::Done,
            Pending::Stopped => Status::Stopped,
            Pending::Stuck { .. } => Status::Error,
            _ => Status::Active,
        }
    }

    /// Whether no request waits on the world (decisions H2, H60: an engine whose questions
    /// ask the person is at rest while they wait).
    pub fn at_rest(&self) -> bool {
        match self.session.pending {
            Pending::Resolve { .. } => self.session.engine.asks_the_person(),
            Pending::Perform { failed: None, .. } | Pending::Call { .. } => false,
            _ => true,
        }
    }

    /// The actions that may be applied, in the order the view lists them.
    #[inline]
    pub fn actions(&self) -> Actions<'_> {
        Actions { look: Counted(self), pending: &self.session.pending, stage: Stage::Moves, position: 0 }
    }

    /// Appends an action's id (what `apply` takes).
    pub fn write_id(&self, action: ActionId, out: &mut String) {
        match action {
            ActionId::Choose(position) => {
                out.push_str("choose:");
                let _ = write!(out, "{position}");
            }
            ActionId::Jump(index) => {
                out.push_str("jump:");
                out.push_str(self.anchors().get(index).map_or("", String::as_str));
            }
            ActionId::Engine(index) => out.push_str(self.engine_actions().get(index).map_or("", |a| a.id.as_str())),
            other => out.push_str(other.as_static().unwrap_or_default()),
        }
    }

    /// Appends an action's label (for a person).
    pub fn write_label(&self, action: ActionId, out: &mut String) {
        let effect = match &self.session.pending {
            Pending::Perform { effect, .. } => effect.as_str(),
            _ => "",
        };
        match action {
            ActionId::Next => out.push_str("Next"),
            ActionId::Choose(position) => {
                let label = match &self.session.pending {
                    Pending::Menu { options } => options.get(position).map_or("", |o| o.label.as_str()),
                    _ => "",
                };
                if label.trim().is_empty() {
                    let _ = write!(out, "Option {} (it has no words)", position + 1);
                } else {
                    out.push_str(label);
                }
            }
            ActionId::Done => {
                let _ = write!(out, "Done: {effect}");
            }
            ActionId::Failed => {
                let _ = write!(out, "Failed: {effect}");
            }
            ActionId::Retry => {
                let _ = write!(out, "Retry: {effect}");
            }
            ActionId::Undo => out.push_str("Undo the last move"),
            ActionId::Restart => out.push_str("Restart from the beginning"),
            ActionId::Jump(index) => {
                let _ = write!(out, "Jump to {}", self.anchors().get(index).map_or("", String::as_str));
            }
            ActionId::Engine(index) => out.push_str(self.engine_actions().get(index).map_or("", |a| a.label.as_str())),
        }
    }

    /// Appends the state id (what [`Engine::write_state_id`] writes).
    pub fn write_state_id(&self, out: &mut String) {
        self.session.engine.write_state_id(out);
    }

    /// Appends the description, for a person.
    pub fn write_description(&self, out: &mut String) {
        self.session.engine.write_description(out);
        if let Pending::Call { call } = &self.session.pending {
            let _ = write!(out, " It asks the host to call {}.", call.describe());
        }
        if let Pending::Perform { effect, failed, .. } = &self.session.pending {
            match failed {
                None => {
                    let _ = write!(out, " It asks the host to carry out {effect}.");
                }
                Some(why) => {
                    let _ = write!(out, " Carrying out {effect} failed: {why}.");
                }
            }
        }
    }

    /// The view, written out: what [`Session::describe`] gives.
    pub fn to_view(&self) -> View {
        let mut view = View::empty();
        self.write_into(&mut view);
        view
    }

    /// The view written into `view`, reusing its room (H31).
    pub fn write_into(&self, view: &mut View) {
        let pending = &self.session.pending;
        view.status = self.status();
        view.at_rest = self.at_rest();
        view.pending_questions.clear();
        if let Pending::Resolve { asked } = pending {
            view.pending_questions.extend(asked.iter().filter(|a| a.given.is_none()).map(|a| {
                PendingQuestion {
                    question_id: a.key.clone(),
                    text: (self.session.engine.question_text(&a.key))
                        .unwrap_or_else(|| format!("{}? ({})", a.key, kind_words(&a.kind))),
                }
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
        self.write_description(&mut view.description);
        view.state_id.clear();
        self.write_state_id(&mut view.state_id);
        let mut slots = Slots { actions: &mut view.actions, filled: 0 };
        for action in self.actions() {
            slots.put(|id, label| {
                self.write_id(action, id);
                self.write_label(action, label);
            });
        }
        let filled = slots.filled;
        view.actions.truncate(filled);
    }
}

/// Where an [`Actions`] iterator stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Moves,
    Engine,
    Undo,
    Restart,
    Jumps,
}

/// The actions a [`Look`] lists, in order: the move the run waits for, the engine's own
/// actions (H46), then `undo`, `restart` and the jumps.
#[derive(Debug, Clone)]
pub struct Actions<'l> {
    look: Counted<'l>,
    pending: &'l Pending,
    stage: Stage,
    position: usize,
}

/// What an [`Actions`] asks its [`Look`] past the move the run waits for, when it gets there.
trait Counts {
    fn engine_actions(&self) -> usize;
    fn undo(&self) -> bool;
    fn restart(&self) -> bool;
    fn anchors(&self) -> usize;
}

impl<E: Engine> Counts for Look<'_, E> {
    fn engine_actions(&self) -> usize {
        Look::engine_actions(self).len()
    }

    fn undo(&self) -> bool {
        undo_point(&self.session.journal).is_some()
    }

    fn restart(&self) -> bool {
        self.session.journal.len() > 1
    }

    fn anchors(&self) -> usize {
        Look::anchors(self).len()
    }
}

/// The look an [`Actions`] counts the rest of its actions on.
#[derive(Clone, Copy)]
struct Counted<'l>(&'l dyn Counts);

impl std::fmt::Debug for Counted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Look")
    }
}

impl Iterator for Actions<'_> {
    type Item = ActionId;

    #[inline]
    fn next(&mut self) -> Option<ActionId> {
        loop {
            match self.stage {
                Stage::Moves => {
                    let position = self.position;
                    self.position += 1;
                    match self.pending {
                        Pending::Line if position == 0 => return Some(ActionId::Next),
                        Pending::Menu { options } => {
                            if let Some(offset) = options.iter().skip(position).position(|o| o.available) {
                                self.position = position + offset + 1;
                                return Some(ActionId::Choose(position + offset));
                            }
                        }
                        Pending::Perform { failed: None, .. } if position == 0 => return Some(ActionId::Done),
                        Pending::Perform { failed: None, .. } if position == 1 => return Some(ActionId::Failed),
                        Pending::Perform { failed: Some(_), .. } if position == 0 => return Some(ActionId::Retry),
                        _ => {}
                    }
                    self.stage = Stage::Engine;
                    self.position = 0;
                }
                Stage::Engine => {
                    if self.position < self.look.0.engine_actions() {
                        self.position += 1;
                        return Some(ActionId::Engine(self.position - 1));
                    }
                    self.stage = Stage::Undo;
                }
                Stage::Undo => {
                    self.stage = Stage::Restart;
                    if self.look.0.undo() {
                        return Some(ActionId::Undo);
                    }
                }
                Stage::Restart => {
                    self.stage = Stage::Jumps;
                    self.position = 0;
                    if self.look.0.restart() {
                        return Some(ActionId::Restart);
                    }
                }
                Stage::Jumps => {
                    if self.position < self.look.0.anchors() {
                        self.position += 1;
                        return Some(ActionId::Jump(self.position - 1));
                    }
                    return None;
                }
            }
        }
    }
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
