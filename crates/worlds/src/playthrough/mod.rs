//! [`Playthrough`]: a person playing a document of any kind, with a world beside them — the
//! terminal player's core, as a library (decisions P8–P11 in `docs/design/player.md`).
//!
//! Every move goes through a host session ([`AnySession`]) under an idempotency key; the world
//! answers what the session leaves pending (as [`drive`](crate::drive) does), outside the session.
//! Beside the session's journal the playthrough keeps who made each move (the person or the
//! world), the label of each option taken, the engine's events of each move (for the history),
//! and the effects the world carried out (so undo and load can rebuild a world that keeps state).
//!
//! - Undo takes back the person's last move and the world's answers after it (the session
//!   replays its journal), then rebuilds the world: reset, and every effect carried out again.
//! - A failed command holds the run: retry carries it out again, skip carries on without it
//!   (journalled as the person's `done`).
//! - Saves ([`Save`]) load into the document they were made of, or into an edited one, by
//!   replaying their journal; a move the story no longer takes, or an option that moved, refuses
//!   the load, naming the move.

use serde_json::Value;
use stagehand_documents::Document;
use stagehand_playbook::Fragment;
use stagehand_protocol::{Answer, AnswerKind, OwnedEvent, Receipt, RefusalReason};
use stagehand_session::host::{AnySession, HostError, Move, Pending};
use stagehand_session::{Entry, Save, Sender};

use crate::world::{default_answer, World, WorldError};

mod replay;
mod what;

pub use what::{Happening, LoadError, Loaded, Record, ReplayError, Taken, Waiting};

/// A person's playthrough of one document, with the world that answers it.
pub struct Playthrough<'d> {
    document: &'d Document,
    session: Box<dyn AnySession + 'd>,
    world: Box<dyn World>,
    seed: u64,
    records: Vec<Record>,
    /// The effects of the pending perform, and how many the world has carried out.
    effects: Vec<Fragment>,
    performed: usize,
    /// The next idempotency key's number.
    keys: u64,
    /// Lines moved past in a row with nobody pacing them ([`move_on_unattended`](Self::move_on_unattended)),
    /// and the key number after the last of them: any other move takes a key, so a different
    /// number means the row was broken.
    unattended: (usize, u64),
}

/// How many lines beyond the document's places a run may move past in a row, nobody pacing it,
/// before it is taken for a ring that would play for ever (decision P14).
pub const UNATTENDED_MARGIN: usize = 10_000;

/// The session's id for a playthrough (the player keeps one session at a time).
const SESSION_ID: &str = "play";

impl<'d> Playthrough<'d> {
    /// Starts a playthrough of `document` at `anchor` (or its entry), random choices drawn from
    /// `seed`, with `world` answering; what the opening showed. A start the engine refuses leaves
    /// the run [`Waiting::NotStarted`] with the refusal among the happenings.
    pub fn start(
        document: &'d Document,
        world: Box<dyn World>,
        seed: u64,
        anchor: Option<&str>,
    ) -> Result<(Playthrough<'d>, Vec<Happening>), HostError> {
        let (mut playthrough, mut out) = Self::open(document, world, seed, anchor)?;
        playthrough.answer(&mut out);
        Ok((playthrough, out))
    }

    /// [`start`](Self::start) without letting the world answer the opening.
    fn open(
        document: &'d Document,
        world: Box<dyn World>,
        seed: u64,
        anchor: Option<&str>,
    ) -> Result<(Playthrough<'d>, Vec<Happening>), HostError> {
        let mut session = document.start_at(SESSION_ID, seed, anchor, 0)?;
        session.keep_events();
        // Its keys are fresh and never leave the process, and saves are journals: the receipts
        // would only grow (H39).
        session.retain_receipts(false);
        let events = session.take_opening_events();
        let mut playthrough = Playthrough {
            document,
            session,
            world,
            seed,
            records: Vec::new(),
            effects: Vec::new(),
            performed: 0,
            keys: 0,
            unattended: (0, 0),
        };
        let entry = Entry { by: Sender::Player, step: Move::Start { anchor: anchor.map(str::to_owned) }, label: None };
        let mut out = playthrough.logs();
        out.extend(events.iter().cloned().map(Happening::Event));
        playthrough.note_effects(&events);
        playthrough.record(entry, events, Vec::new(), None);
        Ok((playthrough, out))
    }

    /// The document played.
    pub fn document(&self) -> &'d Document {
        self.document
    }

    /// The world, given back (to reuse it elsewhere, or to replace it).
    pub fn into_world(self) -> Box<dyn World> {
        self.world
    }

    /// Every move with what the run reported for it.
    pub fn history(&self) -> &[Record] {
        &self.records
    }

    /// What the run waits for.
    pub fn waiting(&self) -> Waiting {
        match self.session.pending() {
            Pending::Start => Waiting::NotStarted,
            // The opening start was refused: nothing has started.
            Pending::Stuck { .. } if self.records.len() <= 1 => Waiting::NotStarted,
            Pending::Line => Waiting::Next,
            Pending::Menu { options } => {
                let offered = self.records.iter().rev().flat_map(|r| r.events.iter().rev()).find_map(|e| match e {
                    OwnedEvent::Offer { options, .. } => Some(options.clone()),
                    _ => None,
                });
                let options = offered.filter(|o| o.len() == options.len()).unwrap_or_else(|| {
                    options.iter().map(|o| (vec![Fragment::text(o.label.clone())], o.available)).collect()
                });
                Waiting::Choice { options }
            }
            Pending::Perform { effect, .. } => Waiting::Held {
                effect: self.effects.get(self.performed).cloned().unwrap_or_else(|| Fragment::text(effect.clone())),
            },
            Pending::Resolve { asked } => {
                let keys: Vec<&str> = asked.iter().map(|a| a.key.as_str()).collect();
                Waiting::Stuck { waiting: format!("an input prompt waits for {}", keys.join(", ")) }
            }
            Pending::Call { call } => Waiting::Stuck { waiting: format!("a port call waits: {}", call.describe()) },
            Pending::Ended => Waiting::Ended,
            Pending::Stopped => {
                Waiting::Stuck { waiting: "the conversation was stopped as a possible loop".to_owned() }
            }
            Pending::Stuck { error } => Waiting::Stuck { waiting: error.clone() },
        }
    }

    /// The session's control view (where it stands, its state id, the actions).
    pub fn view(&self) -> stagehand_protocol::View {
        self.session.describe()
    }

    /// Where the run stands and why each way out is open or closed, in words.
    pub fn why(&mut self) -> String {
        self.document.why(self.session.as_mut())
    }

    /// Takes a line of the person's input (not a `:` command) as a move where the run stands:
    /// Enter moves on (or retries a held command), a number picks an option (counting from 1).
    pub fn take_line(&mut self, line: &str) -> Taken {
        let waiting = self.waiting();
        match (&waiting, line) {
            (Waiting::Next, "") => Taken::Moved { retrying: None, happenings: self.move_on() },
            (Waiting::Held { effect }, "") => Taken::Moved { retrying: Some(effect.clone()), happenings: self.retry() },
            (Waiting::Choice { options }, text) if text.parse::<i64>().is_ok() => {
                let number = text.parse::<i64>().unwrap_or(0);
                let happenings = self.choose(number.saturating_sub(1));
                let Some(Happening::Event(OwnedEvent::Refused { reason, .. })) = happenings.first() else {
                    return Taken::Moved { retrying: None, happenings };
                };
                let why = match usize::try_from(number.saturating_sub(1)).ok().and_then(|n| options.get(n)) {
                    Some(_) => format!("option {number} is not available now (:why says why)"),
                    None => format!("there is no option {number}; choose 1 to {}", options.len()),
                };
                Taken::Refused(format!("refused ({}): {why}", reason.as_str()))
            }
            (Waiting::Choice { options }, _) => {
                Taken::Invalid(format!("{line:?} is not an option: choose one by its number, 1 to {}", options.len()))
            }
            (Waiting::Ended, _) => Taken::Ended,
            _ => Taken::Invalid(format!("{line:?}: press Enter to move on, or type :help")),
        }
    }

    /// The person's `next`.
    pub fn move_on(&mut self) -> Vec<Happening> {
        self.person("next", Move::Next, None)
    }

    /// `next` with nobody pacing the lines (the player's choices pace): `Err` with why, nothing
    /// moved, once the run has moved past more lines in a row than the document has places and
    /// [`UNATTENDED_MARGIN`] more — round a ring of lines with no menu or question on it, which
    /// would play for ever and keep every line for undo (decision P14). Any other move of the
    /// person's starts the count again.
    pub fn move_on_unattended(&mut self) -> Result<Vec<Happening>, String> {
        let (count, after) = self.unattended;
        let count = if after == self.keys { count } else { 0 };
        let most = self.document.places().saturating_add(UNATTENDED_MARGIN);
        if count >= most {
            return Err(format!(
                "the story moved past {count} lines in a row with no menu or question (its {} places and \
                 {UNATTENDED_MARGIN} more): it goes round for ever at this pace, so it was stopped; \
                 `--pace enter` plays it a line at a time",
                self.document.places()
            ));
        }
        let happenings = self.person("next", Move::Next, None);
        self.unattended = (count + 1, self.keys);
        Ok(happenings)
    }

    /// The person's choice of the option at `position` (from 0). An option the menu lacks, or
    /// closes, is refused as the engine refuses it, and nothing happens.
    pub fn choose(&mut self, position: i64) -> Vec<Happening> {
        let Pending::Menu { options } = self.session.pending() else {
            let why = "no menu waits for a choice".to_owned();
            return vec![Happening::Event(OwnedEvent::Refused { reason: RefusalReason::Misplaced, explanation: why })];
        };
        let option = usize::try_from(position).ok().and_then(|p| options.get(p));
        let (reason, explanation) = match option {
            Some(option) if option.available => {
                let label = Some(option.label.trim().to_owned());
                return self.person(&format!("choose:{position}"), Move::Choose { position }, label);
            }
            Some(_) => (RefusalReason::UnavailableOption, format!("option {position} is not available")),
            None => (RefusalReason::NoSuchOption, format!("the menu has no option {position}")),
        };
        vec![Happening::Event(OwnedEvent::Refused { reason, explanation })]
    }

    /// Starts at `anchor` (a scene's anchor, a ChatMapper conversation), or at the entry, in the
    /// same playthrough: random choices draw on, a project's variables are kept.
    pub fn begin(&mut self, anchor: Option<&str>) -> Vec<Happening> {
        let id = anchor.map_or_else(|| "start".to_owned(), |a| format!("start:{a}"));
        self.person(&id, Move::Start { anchor: anchor.map(str::to_owned) }, None)
    }

    /// Starts again from the opening's place with the world reset; journalled like any move, so
    /// it can be undone, and random choices draw on rather than repeat.
    pub fn restart(&mut self) -> Result<Vec<Happening>, WorldError> {
        self.world.reset()?;
        let anchor = match self.records.first().map(|r| &r.entry.step) {
            Some(Move::Start { anchor }) => anchor.clone(),
            _ => None,
        };
        Ok(self.begin(anchor.as_deref()))
    }

    /// Asks the world again to carry out the command it failed.
    pub fn retry(&mut self) -> Vec<Happening> {
        if !matches!(self.session.pending(), Pending::Perform { failed: Some(_), .. }) {
            return Vec::new();
        }
        let mut out = Vec::new();
        self.apply("retry");
        self.answer(&mut out);
        out
    }

    /// Carries on without the command the world failed (and any after it on the same line): the
    /// person's `done`. Nothing happens unless the run holds on a failed command.
    pub fn skip(&mut self) -> Vec<Happening> {
        if !matches!(self.session.pending(), Pending::Perform { failed: Some(_), .. }) {
            return Vec::new();
        }
        self.apply("retry");
        self.person("done", Move::Done, None)
    }

    /// Takes back the person's last move and the world's answers after it; `false` when only
    /// the opening is left.
    pub fn undo(&mut self) -> Result<bool, ReplayError> {
        let Some(keep) = self.records.iter().rposition(|r| r.entry.by == Sender::Player).filter(|&k| k > 0) else {
            return Ok(false);
        };
        while self.session.journal().len() > keep {
            if let Receipt::Rejected { reason } | Receipt::Failed { error: reason } = self.apply("undo").0 {
                return Err(ReplayError::Diverged { step: keep, command: "undo".into(), explanation: reason });
            }
        }
        self.session.take_events();
        self.session.take_log();
        self.records.truncate(keep);
        self.rebuild()?;
        Ok(true)
    }

    /// [`undo`](Self::undo), and unless `lines` is set, undo again while the run stands at a
    /// line: back to where the person last chose (a player that moved past lines on its own).
    pub fn undo_to(&mut self, lines: bool) -> Result<bool, ReplayError> {
        let undone = self.undo()?;
        while undone && !lines && self.waiting() == Waiting::Next {
            if !self.undo()? {
                break;
            }
        }
        Ok(undone)
    }

    /// The run as a save.
    pub fn save(&self) -> Save {
        Save {
            kind: self.document.save_kind(),
            document: self.document.name().to_owned(),
            fingerprint: self.document.fingerprint().to_owned(),
            seed: self.seed,
            journal: self.records.iter().map(|r| r.entry.clone()).collect(),
        }
    }

    /// A move of the person's, then whatever the world answers after it.
    fn person(&mut self, action: &str, step: Move, label: Option<String>) -> Vec<Happening> {
        let mut out = Vec::new();
        let (receipt, events) = self.apply(action);
        out.extend(self.logs());
        match receipt {
            Receipt::Rejected { reason } => {
                out.push(Happening::Rejected(reason));
                return out;
            }
            Receipt::Executed { .. } | Receipt::Failed { .. } => {}
        }
        out.extend(events.iter().cloned().map(Happening::Event));
        self.record(Entry { by: Sender::Player, step, label }, events, Vec::new(), None);
        self.answer(&mut out);
        out
    }

    /// Applies an action under a fresh key; how it settled and the engine's events. The
    /// receipt's own copy of the events is not rendered (the engine's events come beside it).
    fn apply(&mut self, action: &str) -> (Receipt, Vec<OwnedEvent>) {
        let key = self.key();
        let applied = self.session.act(action, &key, 0);
        let receipt = match (applied.outcome(), applied.reason(), applied.error()) {
            (Some(outcome), _, _) => Receipt::Executed { outcome, events: Vec::new() },
            (None, Some(reason), _) => Receipt::Rejected { reason: reason.to_owned() },
            (None, None, error) => Receipt::Failed { error: error.unwrap_or_default().to_owned() },
        };
        // The player keeps no trace: drop it as it comes.
        self.session.discard_trace();
        let events = self.session.take_events();
        self.note_effects(&events);
        (receipt, events)
    }

    fn key(&mut self) -> String {
        self.keys += 1;
        format!("play:{}", self.keys)
    }

    /// Keeps the effects a move asked to be carried out.
    fn note_effects(&mut self, events: &[OwnedEvent]) {
        let asked: Vec<Fragment> = events
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::Perform { effect } => Some(effect.clone()),
                _ => None,
            })
            .collect();
        if !asked.is_empty() {
            self.effects = asked;
            self.performed = 0;
        }
    }

    /// Journals a move the session took (the session's journal grew by one).
    fn record(&mut self, entry: Entry, events: Vec<OwnedEvent>, performed: Vec<Fragment>, failure: Option<String>) {
        if self.session.journal().len() > self.records.len() {
            self.records.push(Record { entry, events, performed, failure });
        }
    }

    /// What the engine logged: a project's `print` for the person, the rest its diagnostics,
    /// each once with how often it came.
    fn logs(&mut self) -> Vec<Happening> {
        let mut lines: Vec<(String, usize)> = Vec::new();
        for line in self.session.take_log() {
            match lines.iter_mut().find(|(seen, _)| *seen == line) {
                Some((_, count)) => *count += 1,
                None => lines.push((line, 1)),
            }
        }
        lines
            .into_iter()
            .map(|(line, count)| match (line.strip_prefix("print: "), count) {
                (Some(printed), _) => Happening::Log(printed.to_owned()),
                (None, 1) => Happening::Diagnostic(line),
                (None, n) => Happening::Diagnostic(format!("{line} ({n} times)")),
            })
            .collect()
    }

    /// Lets the world answer what the session has pending, until a person must act.
    fn answer(&mut self, out: &mut Vec<Happening>) {
        for _ in 0..crate::MAX_MOVES {
            match self.session.pending().clone() {
                Pending::Perform { failed: None, .. } => {
                    if !self.perform(out) {
                        return;
                    }
                }
                Pending::Resolve { asked } => {
                    let questions: Vec<(String, AnswerKind)> =
                        asked.iter().filter(|a| a.given.is_none()).map(|a| (a.key.clone(), kind_of(&a.kind))).collect();
                    let mut answers = Vec::new();
                    for (key, kind) in questions {
                        let answer = self.ask(&key, kind, out);
                        answers.push((key, answer));
                    }
                    out.extend(self.world.take_log().into_iter().map(Happening::Log));
                    let mut receipt = Receipt::Rejected { reason: "nothing was asked".into() };
                    for (key, answer) in &answers {
                        let key_now = self.key();
                        receipt = self.session.input(key, &answer_text(answer), &key_now, 0);
                        self.session.discard_trace();
                    }
                    let events = self.session.take_events();
                    out.extend(self.logs());
                    out.extend(events.iter().cloned().map(Happening::Event));
                    self.note_effects(&events);
                    let step =
                        Move::Supply { answers: answers.iter().map(|(k, a)| (k.clone(), value_of(a))).collect() };
                    self.record(Entry { by: Sender::World, step, label: None }, events, Vec::new(), None);
                    if !matches!(receipt, Receipt::Executed { .. }) {
                        return;
                    }
                }
                _ => return,
            }
        }
    }

    /// The world carries out the pending effects: `done` when all succeed, `failed` at the first
    /// that does not (the run then holds). Whether play goes on.
    fn perform(&mut self, out: &mut Vec<Happening>) -> bool {
        let mut performed = Vec::new();
        while let Some(effect) = self.effects.get(self.performed).cloned() {
            let result = self.world.perform(&effect);
            let log = self.world.take_log();
            match result {
                Ok(()) => {
                    self.performed += 1;
                    out.push(Happening::Performed { effect: effect.clone() });
                    out.extend(log.into_iter().map(Happening::Log));
                    performed.push(effect);
                }
                Err(WorldError(explanation)) => {
                    out.extend(log.into_iter().map(Happening::Log));
                    performed.push(effect.clone());
                    out.push(Happening::Failed { effect, explanation: explanation.clone() });
                    let (_, events) = self.apply("failed");
                    let step = Move::Failed { explanation: explanation.clone() };
                    self.record(Entry { by: Sender::World, step, label: None }, events, performed, Some(explanation));
                    return false;
                }
            }
        }
        let (receipt, events) = self.apply("done");
        out.extend(self.logs());
        out.extend(events.iter().cloned().map(Happening::Event));
        self.record(Entry { by: Sender::World, step: Move::Done, label: None }, events, performed, None);
        matches!(receipt, Receipt::Executed { .. })
    }

    /// Asks the world one question; a key it does not know (or answers in the wrong kind) is the
    /// default for its kind, reported as guessed.
    fn ask(&mut self, key: &str, kind: AnswerKind, out: &mut Vec<Happening>) -> Answer<'static> {
        match self.world.answer(key, kind) {
            Ok(Some(answer)) if answer.fits(kind) => {
                out.push(Happening::Answered { key: key.to_owned(), answer: answer.clone() });
                answer
            }
            other => {
                let problem = match other {
                    Err(WorldError(problem)) => Some(problem),
                    Ok(Some(answer)) => {
                        Some(format!("the world answered {}, which is not {kind}", answer_text(&answer)))
                    }
                    Ok(None) => None,
                };
                let answer = default_answer(kind);
                out.push(Happening::Guessed { key: key.to_owned(), answer: answer.clone(), problem });
                answer
            }
        }
    }

    /// Rebuilds the world after the journal was cut: reset, then every effect carried out again
    /// (reset again at every later start).
    fn rebuild(&mut self) -> Result<(), WorldError> {
        self.world.reset()?;
        if self.world.keeps_state() {
            for (index, record) in self.records.iter().enumerate() {
                if index > 0 && matches!(record.entry.step, Move::Start { .. }) {
                    self.world.reset()?;
                }
                for effect in &record.performed {
                    let _ = self.world.perform(effect);
                }
            }
        }
        self.world.take_log();
        // What is pending now, and how much of it the world carried out.
        self.effects.clear();
        self.performed = 0;
        if let Some(at) =
            self.records.iter().rposition(|r| r.events.iter().any(|e| matches!(e, OwnedEvent::Perform { .. })))
        {
            self.note_effects(&self.records[at].events.clone());
            self.performed =
                self.records[at + 1..].iter().map(|r| r.performed.len() - usize::from(r.failure.is_some())).sum();
        }
        Ok(())
    }
}

/// A player's `:` command: its name and its argument (`:save run.json` → `("save", "run.json")`);
/// `None` for a line that is not one.
pub fn command_of(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix(':')?;
    Some(match rest.split_once(char::is_whitespace) {
        Some((name, argument)) => (name, argument.trim()),
        None => (rest, ""),
    })
}

fn kind_of(name: &str) -> AnswerKind {
    match name {
        "truth" => AnswerKind::Truth,
        "number" => AnswerKind::Number,
        _ => AnswerKind::Text,
    }
}

/// An answer as the session's `input` reads it (a number as Lua 5.1 writes it).
fn answer_text(answer: &Answer<'_>) -> String {
    match answer {
        Answer::Truth(truth) => truth.to_string(),
        Answer::Number(number) => stagehand_lua::format_number(*number),
        Answer::Text(text) => text.to_string(),
    }
}

/// An answer as a bare JSON value.
fn value_of(answer: &Answer<'_>) -> Value {
    match answer {
        Answer::Truth(truth) => Value::Bool(*truth),
        Answer::Number(number) => serde_json::Number::from_f64(*number).map_or(Value::Null, Value::Number),
        Answer::Text(text) => Value::String(text.to_string()),
    }
}
