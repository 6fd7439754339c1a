//! The receipts a session recorded, by idempotency key, kept compact (decisions H32 and H36):
//! every key, text and reported word in one growing string, every event in one array, the keys
//! found through a hash table of indices, and names the session spells itself (`next`, `said`)
//! kept as static strings rather than copied. An action's events are written here once, as the
//! engine lends them; the receipt `apply` returns ([`Applied`]) is read from this record, and a
//! [`Receipt`] is rendered from it only when a host asks for one, so a replayed key reads the
//! same record and gets the same bytes.

use std::collections::BTreeMap;
use std::ops::Range;

use stagehand_protocol::{Command, Event, Outcome, PlainEvent, Receipt, ReplayMark, Reported};

use super::chunked::Chunked;
use super::keys::{self, KeyIndex, Place};
use super::Recorded;

/// A range of the log's text.
type Span = Range<usize>;

/// A name: one the session spells itself, or one written into the log.
#[derive(Debug, Clone)]
enum Name {
    Known(&'static str),
    Written(Span),
}

/// The action ids and event kinds the session spells itself, kept as static strings (any other
/// is written into the log); an entry keeps a known action as its place in this list.
const KNOWN: [&str; 14] = [
    "next",
    "done",
    "failed",
    "retry",
    "undo",
    "restart",
    "start",
    "said",
    "continued",
    "ended",
    "refused",
    "perform",
    "resolve",
    "offer",
];

/// An action id or event kind kept as a static string (any other is written into the log).
#[inline]
fn known(name: &str) -> Option<&'static str> {
    KNOWN.iter().find(|known| **known == name).copied()
}

/// The place of `name` in [`KNOWN`].
#[inline]
fn known_at(name: &str) -> Option<usize> {
    KNOWN.iter().position(|known| *known == name)
}

/// One recorded event.
#[derive(Debug, Clone)]
struct Word {
    kind: Name,
    speaker: Option<Span>,
    text: Option<Span>,
    /// The styled speech's JSON (`Reported::speech`), only for words that are styled (W13).
    speech: Option<Span>,
}

/// How a recorded receipt settled (receipts that were rejected are never recorded); whether it
/// executed, and how the run then stood, is the entry's `outcome`.
#[derive(Debug, Clone)]
enum Settled {
    Executed {
        events: Range<usize>,
    },
    /// Executed, its events not written down: the engine takes `retake` again from `mark` to
    /// lend them when they are read after the action that made them (H49).
    Lent {
        mark: ReplayMark,
        retake: Retake,
    },
    Failed {
        error: Span,
    },
}

/// A move whose events a receipt may leave with the engine (H49): one that carries nothing
/// but its name (or a menu position), so the receipt can give it to the engine again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retake {
    Next,
    Done,
    Failed,
    /// A menu's option (a position past `u32` is not retaken: its receipt is written down).
    Choose(u32),
}

impl Retake {
    /// The retake of `step`, if it is one of these moves (a `failed` with the control surface's
    /// own explanation, the only one `apply` gives).
    pub(crate) fn of(step: &super::Move) -> Option<Retake> {
        use super::Move;
        match step {
            Move::Next => Some(Retake::Next),
            Move::Done => Some(Retake::Done),
            Move::Failed { explanation } if explanation == super::actions::FAILED_EXPLANATION => Some(Retake::Failed),
            Move::Choose { position } => u32::try_from(*position).ok().map(Retake::Choose),
            _ => None,
        }
    }

    /// The command the move gave the engine.
    pub(crate) fn command(self) -> Command<'static> {
        match self {
            Retake::Next => Command::Next,
            Retake::Done => Command::Done,
            Retake::Failed => Command::failed(super::actions::FAILED_EXPLANATION),
            Retake::Choose(position) => Command::Choose(i64::from(position)),
        }
    }
}

/// Marks an entry's action written into the log (its length in the low bits); any other
/// value is the action's place in [`KNOWN`].
const WRITTEN: u32 = 1 << 31;

/// Marks an entry with no input text.
const NO_TEXT: u32 = u32::MAX;

/// One recorded receipt, in 64 bytes: a session keeps one for every key it was given, so its
/// size is most of what a long session holds (H53). Its key, its action's name (when the
/// session does not spell it itself) and an input's text are written one after another into
/// the log, from `at`; each is shorter than 2 GiB ([`Receipts::fits`]).
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    at: usize,
    key_len: u32,
    /// The action: its place in [`KNOWN`], or [`WRITTEN`] and its length.
    action: u32,
    /// An input's text length, or [`NO_TEXT`].
    text_len: u32,
    /// How the run stood after the action, when it executed; whether it did is `settled`'s
    /// (read through [`Entry::outcome`]).
    outcome: Outcome,
    settled: Settled,
}

impl Entry {
    /// How the run stood after the action; `None` when it failed.
    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        match self.settled {
            Settled::Failed { .. } => None,
            Settled::Executed { .. } | Settled::Lent { .. } => Some(self.outcome),
        }
    }

    /// The key's span in the log.
    #[inline]
    fn key(&self) -> Span {
        self.at..self.at + self.key_len as usize
    }

    /// The span of the action's name in the log, when it is written there.
    fn action(&self) -> Result<Span, &'static str> {
        if self.action & WRITTEN == 0 {
            return Err(KNOWN.get(self.action as usize).copied().unwrap_or_default());
        }
        let start = self.key().end;
        Ok(start..start + (self.action & !WRITTEN) as usize)
    }

    /// The span of an input's text in the log.
    fn text(&self) -> Option<Span> {
        if self.text_len == NO_TEXT {
            return None;
        }
        let start = self.action().map_or(self.key().end, |action| action.end);
        Some(start..start + self.text_len as usize)
    }
}

/// Every receipt recorded, by key, and the events of the action under way.
#[derive(Debug, Clone)]
pub(crate) struct Receipts {
    text: String,
    words: Chunked<Word>,
    entries: Chunked<Entry>,
    /// Each receipt's index by its key (H50, H73).
    index: KeyIndex,
    /// Where the events of the action under way begin (in `words`, and in `text`).
    open: (usize, usize),
    /// The last speaker's name in the text (a run of lines by one speaker writes it once).
    speaker: Option<Span>,
    /// Whether every receipt is kept (the contract's default), or only the last (H39).
    retain: bool,
    /// Every receipt before this one has its events written down (H49).
    written_to: usize,
}

/// What a receipt is recorded under: its key (and where [`Receipts::find`] placed it), its action id
/// and, for an `input`, its text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Identity<'a> {
    pub(crate) key: &'a str,
    pub(crate) place: Place,
    pub(crate) action_id: &'a str,
    pub(crate) text: Option<&'a str>,
}

/// One event of a receipt, borrowed from where the session keeps it: a [`Reported`] without its
/// own strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportedRef<'a> {
    /// The event's name: `said`, `continued`, `ended`, `refused`, `perform`, `resolve`, `offer`.
    pub kind: &'a str,
    /// Who spoke, for `said`.
    pub speaker: Option<&'a str>,
    /// The words.
    pub text: Option<&'a str>,
    /// The styled speech as JSON text, when the words are styled (`Reported::speech`, W13).
    pub speech: Option<&'a str>,
}

impl ReportedRef<'_> {
    /// The event as an owned [`Reported`].
    pub fn to_owned(&self) -> Reported {
        Reported {
            kind: self.kind.to_owned(),
            speaker: self.speaker.map(str::to_owned),
            text: self.text.map(str::to_owned),
            speech: self.speech.and_then(|s| serde_json::from_str(s).ok()),
        }
    }
}

/// A receipt as the session holds it, read on demand (decision H36): what
/// [`Session::act`](super::Session::act) returns. [`to_receipt`](Self::to_receipt) and
/// [`write_into`](Self::write_into) render the [`Receipt`]; the same key replayed reads the same
/// record, so it renders the same bytes.
#[derive(Debug, Clone, Copy)]
pub struct Applied<'s> {
    receipts: &'s Receipts,
    what: What<'s>,
    /// The events of the action just taken, where the engine keeps them, for a receipt that
    /// left them there (H49).
    lent: Option<&'s [PlainEvent<'s>]>,
}

#[derive(Debug, Clone, Copy)]
enum What<'s> {
    Recorded(&'s Entry),
    Rejected(&'s str),
}

impl<'s> Applied<'s> {
    /// The receipt recorded as `index`, whose events are written down or, when it left them
    /// with the engine, are read from `lent`, the engine that took the action just now.
    #[inline]
    pub(crate) fn recorded(receipts: &'s Receipts, index: usize, lent: Option<&'s [PlainEvent<'s>]>) -> Self {
        match receipts.entries.get(index) {
            Some(entry) => Applied { receipts, what: What::Recorded(entry), lent },
            None => Applied { receipts, what: What::Rejected("no receipt is recorded there"), lent: None },
        }
    }

    pub(crate) fn rejected(receipts: &'s Receipts, reason: &'s str) -> Self {
        Applied { receipts, what: What::Rejected(reason), lent: None }
    }

    /// Whether the action ran (the receipt is `executed`).
    #[inline]
    pub fn is_executed(&self) -> bool {
        self.outcome().is_some()
    }

    /// How the run stands after an executed action; `None` for a rejected or failed one.
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        match self.what {
            What::Recorded(entry) => entry.outcome(),
            What::Rejected(_) => None,
        }
    }

    /// Why the action was rejected; `None` unless it was.
    pub fn reason(&self) -> Option<&'s str> {
        match self.what {
            What::Rejected(reason) => Some(reason),
            What::Recorded(_) => None,
        }
    }

    /// What went wrong, for a failed action; `None` unless it failed.
    pub fn error(&self) -> Option<&'s str> {
        match self.what {
            What::Recorded(Entry { settled: Settled::Failed { error }, .. }) => Some(self.receipts.span(error)),
            What::Recorded(_) | What::Rejected(_) => None,
        }
    }

    /// What the engine reported, for an executed action (nothing otherwise), in order.
    #[inline]
    pub fn events(&self) -> Events<'s> {
        let receipts = self.receipts;
        match self.what {
            What::Recorded(Entry { settled: Settled::Executed { events, .. }, .. }) => {
                Events { receipts, from: Source::Written(receipts.words.range(events.clone())) }
            }
            What::Recorded(Entry { settled: Settled::Lent { .. }, .. }) => {
                Events { receipts, from: Source::Lent(self.lent.unwrap_or_default().iter()) }
            }
            _ => Events { receipts, from: Source::Written(receipts.words.range(0..0)) },
        }
    }

    /// The receipt, rendered.
    pub fn to_receipt(&self) -> Receipt {
        let mut receipt = Receipt::Rejected { reason: String::new() };
        self.write_into(&mut receipt);
        receipt
    }

    /// The receipt, rendered into `receipt`, reusing the room it already has.
    pub fn write_into(&self, receipt: &mut Receipt) {
        match self.what {
            What::Rejected(reason) => match receipt {
                Receipt::Rejected { reason: slot } => {
                    slot.clear();
                    slot.push_str(reason);
                }
                _ => *receipt = Receipt::Rejected { reason: reason.to_owned() },
            },
            What::Recorded(Entry { settled: Settled::Failed { error }, .. }) => {
                set_failed(receipt, self.receipts.span(error))
            }
            What::Recorded(Entry { outcome, .. }) => {
                let reported = executed(receipt, *outcome);
                let events = self.events();
                reported.truncate(events.len());
                for (i, event) in events.enumerate() {
                    match reported.get_mut(i) {
                        Some(slot) => {
                            overwrite(slot, event.kind, event.speaker, event.text);
                            slot.speech = event.speech.and_then(|s| serde_json::from_str(s).ok());
                        }
                        None => reported.push(event.to_owned()),
                    }
                }
            }
        }
    }

    /// The action id it was recorded for (for `input`, `answer:QUESTION_ID`); `None` for a
    /// rejected one.
    pub(crate) fn action_id(&self) -> Option<&'s str> {
        match self.what {
            What::Recorded(entry) => Some(self.receipts.action_name(entry)),
            What::Rejected(_) => None,
        }
    }

    /// The text an `input` carried.
    pub(crate) fn text(&self) -> Option<&'s str> {
        match self.what {
            What::Recorded(entry) => entry.text().map(|t| self.receipts.span(&t)),
            What::Rejected(_) => None,
        }
    }
}

/// The events of a receipt, in order: what [`Applied::events`] gives.
#[derive(Debug, Clone)]
pub struct Events<'s> {
    receipts: &'s Receipts,
    from: Source<'s>,
}

#[derive(Debug, Clone)]
enum Source<'s> {
    Written(super::chunked::Span<'s, Word>),
    Lent(std::slice::Iter<'s, PlainEvent<'s>>),
}

impl<'s> Iterator for Events<'s> {
    type Item = ReportedRef<'s>;

    #[inline]
    fn next(&mut self) -> Option<ReportedRef<'s>> {
        match &mut self.from {
            Source::Written(words) => words.next().map(|word| self.receipts.reported(word)),
            Source::Lent(events) => {
                events.next().map(|e| ReportedRef { kind: e.kind, speaker: e.speaker, text: e.text, speech: None })
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.from {
            Source::Written(words) => words.size_hint(),
            Source::Lent(events) => events.size_hint(),
        }
    }
}

impl ExactSizeIterator for Events<'_> {}

/// Makes `receipt` an executed one with `outcome`, keeping its events' room; its events.
fn executed(receipt: &mut Receipt, outcome: Outcome) -> &mut Vec<Reported> {
    if !matches!(receipt, Receipt::Executed { .. }) {
        *receipt = Receipt::Executed { outcome, events: Vec::new() };
    }
    match receipt {
        Receipt::Executed { outcome: slot, events } => {
            *slot = outcome;
            events
        }
        _ => unreachable!("made executed above"),
    }
}

/// Makes `receipt` a failed one with `error`.
fn set_failed(receipt: &mut Receipt, error: &str) {
    match receipt {
        Receipt::Failed { error: slot } => {
            slot.clear();
            slot.push_str(error);
        }
        _ => *receipt = Receipt::Failed { error: error.to_owned() },
    }
}

/// Overwrites a reported event, reusing its strings' room.
fn overwrite(slot: &mut Reported, kind: &str, speaker: Option<&str>, text: Option<&str>) {
    slot.kind.clear();
    slot.kind.push_str(kind);
    put(&mut slot.speaker, speaker);
    put(&mut slot.text, text);
}

fn put(slot: &mut Option<String>, value: Option<&str>) {
    match (slot.as_mut(), value) {
        (Some(s), Some(v)) => {
            s.clear();
            s.push_str(v);
        }
        (_, v) => *slot = v.map(str::to_owned),
    }
}

impl Receipts {
    /// No receipts; keys are hashed with a seed drawn from the session's id (data the host
    /// chose, never entropy the session reads).
    pub(crate) fn new(session_id: &str) -> Self {
        Receipts {
            text: String::new(),
            words: Chunked::default(),
            entries: Chunked::default(),
            index: KeyIndex::new(session_id),
            open: (0, 0),
            speaker: None,
            retain: true,
            written_to: 0,
        }
    }

    fn span(&self, span: &Span) -> &str {
        &self.text[span.clone()]
    }

    /// The action id a receipt was recorded for.
    fn action_name(&self, entry: &Entry) -> &str {
        match entry.action() {
            Ok(span) => self.span(&span),
            Err(known) => known,
        }
    }

    fn name(&self, name: &Name) -> &str {
        match name {
            Name::Known(known) => known,
            Name::Written(span) => self.span(span),
        }
    }

    #[inline]
    fn push(&mut self, text: &str) -> Span {
        let start = self.text.len();
        self.text.push_str(text);
        start..self.text.len()
    }

    #[inline]
    fn push_name(&mut self, name: &str) -> Name {
        match known(name) {
            Some(known) => Name::Known(known),
            None => Name::Written(self.push(name)),
        }
    }

    fn reported(&self, word: &Word) -> ReportedRef<'_> {
        ReportedRef {
            kind: self.name(&word.kind),
            speaker: word.speaker.as_ref().map(|s| self.span(s)),
            text: word.text.as_ref().map(|t| self.span(t)),
            speech: word.speech.as_ref().map(|s| self.span(s)),
        }
    }

    /// How many receipts are recorded.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The index of the receipt recorded under `key`, or, for a fresh key, where it is to be
    /// recorded (its [`Identity::place`]).
    #[inline]
    pub(crate) fn find(&self, key: &str) -> Result<usize, Place> {
        self.index.find(key, |i| key_at(&self.entries, &self.text, i))
    }

    /// Begins the events of an action: what [`report`](Self::report) writes from now on is the
    /// next receipt's, until [`discard`](Self::discard).
    #[inline]
    pub(crate) fn open(&mut self) {
        self.open = (self.words.len(), self.text.len());
    }

    /// Keeps every receipt from now on (`true`, the default), or only the last one (H39).
    pub(crate) fn set_retain(&mut self, retain: bool) {
        self.retain = retain;
    }

    /// Whether every receipt is kept.
    #[inline]
    pub(crate) fn retains(&self) -> bool {
        self.retain
    }

    /// Begins an action: [`open`](Self::open), having forgotten every receipt first unless
    /// they are all kept.
    #[inline]
    pub(crate) fn begin(&mut self) {
        if !self.retain {
            self.text.clear();
            self.words.truncate(0);
            self.entries.truncate(0);
            self.index.clear();
            self.speaker = None;
            self.written_to = 0;
        }
        self.open();
    }

    /// Forgets the events reported since [`open`](Self::open).
    pub(crate) fn discard(&mut self) {
        self.words.truncate(self.open.0);
        self.text.truncate(self.open.1);
        if self.speaker.as_ref().is_some_and(|s| s.end > self.open.1) {
            self.speaker = None;
        }
    }

    /// Writes down what a receipt reports for a lent event: the same as [`Reported::of_event`]
    /// gives, its words written into the log once.
    pub(crate) fn report(&mut self, event: &Event<'_>) {
        let (speaker, text, speech) = match event {
            Event::Said { speaker, speech } => {
                let speaker = speaker.map(|s| self.speaker(s));
                let start = self.text.len();
                plain_text_into(speech, &mut self.text);
                let text = Some(start..self.text.len());
                (speaker, text, self.styled(speech))
            }
            Event::Continued { speech } => {
                let start = self.text.len();
                plain_text_into(speech, &mut self.text);
                let text = Some(start..self.text.len());
                (None, text, self.styled(speech))
            }
            Event::Ended => (None, None, None),
            _ => {
                let reported = Reported::of_event(event);
                let speaker = reported.speaker.as_deref().map(|s| self.push(s));
                (speaker, reported.text.as_deref().map(|t| self.push(t)), None)
            }
        };
        self.words.push(Word { kind: Name::Known(event.name()), speaker, text, speech });
    }

    /// The styled speech's JSON written into the log, when `speech` is styled (W13).
    fn styled(&mut self, speech: &[stagehand_playbook::Fragment]) -> Option<Span> {
        stagehand_protocol::styled_speech(speech).map(|value| self.push(&value.to_string()))
    }

    /// A speaker's name in the log: the last word's own span when it is the same speaker (a
    /// run of lines by one speaker writes the name once).
    fn speaker(&mut self, speaker: &str) -> Span {
        if let Some(span) = &self.speaker {
            if self.text.as_bytes().get(span.clone()) == Some(speaker.as_bytes()) {
                return span.clone();
            }
        }
        let span = self.push(speaker);
        self.speaker = Some(span.clone());
        span
    }

    /// Records an executed receipt under a key not recorded yet: the events reported since
    /// [`open`](Self::open). Its index.
    pub(crate) fn executed(&mut self, id: Identity<'_>, outcome: Outcome) -> usize {
        let settled = Settled::Executed { events: self.open.0..self.words.len() };
        self.insert(id, outcome, settled)
    }

    /// Records an executed receipt under a key not recorded yet, its events left with the
    /// engine: it gives them again when `retake` is taken from `mark` (H49). Its index.
    #[inline]
    pub(crate) fn lent(&mut self, id: Identity<'_>, outcome: Outcome, lent: (ReplayMark, Retake)) -> usize {
        let (mark, retake) = lent;
        self.insert(id, outcome, Settled::Lent { mark, retake })
    }

    /// The receipts whose events may still be lent, from the first: each one's index, mark and
    /// retake (H49). Write them with [`written`](Self::written).
    pub(crate) fn unwritten(&self) -> impl Iterator<Item = (usize, ReplayMark, Retake)> + '_ {
        let written_to = self.written_to;
        self.entries.range(written_to..self.entries.len()).enumerate().filter_map(move |(i, entry)| {
            match entry.settled {
                Settled::Lent { mark, retake, .. } => Some((written_to + i, mark, retake)),
                _ => None,
            }
        })
    }

    /// The receipt at `index` whose events were lent, if it is one: its mark and retake.
    pub(crate) fn lent_at(&self, index: usize) -> Option<(ReplayMark, Retake)> {
        match self.entries.get(index).map(|e| &e.settled) {
            Some(Settled::Lent { mark, retake, .. }) => Some((*mark, *retake)),
            _ => None,
        }
    }

    /// Begins writing down the events of a receipt whose events were lent: what
    /// [`report`](Self::report) writes from now on is its, until [`written`](Self::written).
    pub(crate) fn rewrite(&mut self) {
        self.open();
    }

    /// Marks the receipt at `index`, whose events were lent, as written down: the events
    /// reported since [`rewrite`](Self::rewrite).
    pub(crate) fn written(&mut self, index: usize) {
        let events = self.open.0..self.words.len();
        if let Some(entry) = self.entries.get_mut(index) {
            if let Settled::Lent { .. } = entry.settled {
                entry.settled = Settled::Executed { events };
            }
        }
        self.open();
    }

    /// The receipts of a session's snapshot, by key, each with its events written down.
    pub(crate) fn of_snapshot(session_id: &str, recorded: &BTreeMap<String, Recorded>) -> Self {
        let mut receipts = Receipts::new(session_id);
        // In the keys' order, not the map's (`k10` after `k9`), so keys a host counted up are
        // recorded in order again and the next ones stay in order after them (H73).
        let mut in_order: Vec<(&String, &Recorded)> = recorded.iter().collect();
        in_order.sort_by(|(a, _), (b, _)| keys::order(a.as_bytes(), b.as_bytes()));
        for (key, recorded) in in_order {
            receipts.record(key, recorded);
        }
        receipts.all_written();
        receipts
    }

    /// Notes that every receipt recorded so far has its events written down.
    pub(crate) fn all_written(&mut self) {
        self.written_to = self.entries.len();
    }

    /// Records a failed receipt under a key not recorded yet (the events reported since
    /// [`open`](Self::open) are forgotten). Its index.
    pub(crate) fn failed(&mut self, id: Identity<'_>, error: &str) -> usize {
        self.discard();
        let error = self.push(error);
        // A failed receipt's outcome is never read (`Entry::outcome`).
        self.insert(id, Outcome::Stopped, Settled::Failed { error })
    }

    /// Records a receipt as a snapshot holds it.
    pub(crate) fn record(&mut self, key: &str, recorded: &Recorded) {
        // A snapshot holds each key once.
        let Err(place) = self.find(key) else { return };
        let id = Identity { key, place, action_id: &recorded.action_id, text: recorded.text.as_deref() };
        if !Self::fits(&id) {
            // Never recorded by a session (it rejects such an apply before it runs): a
            // snapshot that holds one was not written by one.
            return;
        }
        self.open();
        match &recorded.receipt {
            Receipt::Rejected { .. } => {}
            Receipt::Failed { error } => {
                self.failed(id, error);
            }
            Receipt::Executed { outcome, events } => {
                for reported in events {
                    let speaker = reported.speaker.as_deref().map(|s| self.speaker(s));
                    let text = reported.text.as_deref().map(|t| self.push(t));
                    let kind = self.push_name(&reported.kind);
                    let speech = reported.speech.as_ref().map(|v| self.push(&v.to_string()));
                    self.words.push(Word { kind, speaker, text, speech });
                }
                self.executed(id, *outcome);
            }
        }
    }

    /// Whether a receipt under `id` can be recorded: its key, action id and text each shorter
    /// than 2 GiB (an entry keeps their lengths in 31 bits: H53).
    #[inline]
    pub(crate) fn fits(id: &Identity<'_>) -> bool {
        const MOST: usize = (WRITTEN - 1) as usize;
        id.key.len() <= MOST && id.action_id.len() <= MOST && id.text.is_none_or(|t| t.len() <= MOST)
    }

    #[inline]
    fn insert(&mut self, id: Identity<'_>, outcome: Outcome, settled: Settled) -> usize {
        debug_assert!(Self::fits(&id), "a receipt too long to record is rejected before it runs");
        let at = self.text.len();
        self.text.push_str(id.key);
        let action = match known_at(id.action_id) {
            Some(known) => known as u32,
            None => {
                self.text.push_str(id.action_id);
                WRITTEN | id.action_id.len() as u32
            }
        };
        let text_len = match id.text {
            Some(text) => {
                self.text.push_str(text);
                text.len() as u32
            }
            None => NO_TEXT,
        };
        let index = self.entries.len();
        let key_len = id.key.len() as u32;
        self.entries.push(Entry { at, key_len, action, text_len, outcome, settled });
        let (entries, text) = (&self.entries, &self.text);
        self.index.insert(index, id.key, id.place, |i| key_at(entries, text, i));
        self.open();
        index
    }

    /// The key, the action id and the text (for `input`) of receipt `index`.
    pub(crate) fn identity(&self, index: usize) -> (&str, &str, Option<&str>) {
        match self.entries.get(index) {
            Some(entry) => (self.span(&entry.key()), self.action_name(entry), entry.text().map(|t| self.span(&t))),
            None => ("", "", None),
        }
    }

    /// How receipt `index` settled, as a trace's finish reports it: its outcome when it
    /// executed, else its error.
    pub(crate) fn settled(&self, index: usize) -> Result<Outcome, &str> {
        match self.entries.get(index) {
            Some(Entry { settled: Settled::Failed { error }, .. }) => Err(self.span(error)),
            Some(entry) => Ok(entry.outcome),
            None => Err("no receipt is recorded there"),
        }
    }

    /// A receipt as a snapshot holds it (its events written down: see [`all_written`](Self::all_written)).
    fn recorded(&self, entry: &Entry) -> Recorded {
        debug_assert!(
            !matches!(entry.settled, Settled::Lent { .. }),
            "a receipt's events are written before it is saved"
        );
        let applied = Applied { receipts: self, what: What::Recorded(entry), lent: None };
        Recorded {
            action_id: self.action_name(entry).to_owned(),
            text: applied.text().map(str::to_owned),
            receipt: applied.to_receipt(),
        }
    }

    /// Serialises every receipt as a snapshot spells them: an object by key, in key order (one
    /// receipt rendered at a time).
    pub(crate) fn serialize_by_key<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut order: Vec<&Entry> = self.entries.iter().collect();
        order.sort_unstable_by(|a, b| self.span(&a.key()).cmp(self.span(&b.key())));
        let mut map = serializer.serialize_map(Some(order.len()))?;
        for entry in order {
            map.serialize_entry(self.span(&entry.key()), &self.recorded(entry))?;
        }
        map.end()
    }

    /// Every receipt, by key, as a snapshot holds them.
    pub(crate) fn to_map(&self) -> BTreeMap<String, Recorded> {
        self.entries.iter().map(|entry| (self.span(&entry.key()).to_owned(), self.recorded(entry))).collect()
    }
}

/// The key of receipt `index` as bytes (empty past the last), read from the receipts' `entries`
/// and log `text`: how the key index reads a receipt's key (a function of the two fields, not of
/// the receipts, so it can be lent while the index is borrowed to change).
#[inline]
fn key_at<'r>(entries: &'r Chunked<Entry>, text: &'r str, index: usize) -> &'r [u8] {
    entries.get(index).map_or(&[][..], |e| &text.as_bytes()[e.key()])
}

/// Speech as plain text, queries as their placeholders: [`stagehand_playbook::plain_text`]
/// written into `out`.
fn plain_text_into(speech: &[stagehand_playbook::Fragment], out: &mut String) {
    use stagehand_playbook::Fragment;
    for fragment in speech {
        match fragment {
            Fragment::Text { text } => out.push_str(text),
            Fragment::Styled { children, .. } => plain_text_into(children, out),
            Fragment::Link { label, .. } => plain_text_into(label, out),
            Fragment::Image { alt, .. } => plain_text_into(alt, out),
            Fragment::Break => out.push(' '),
            Fragment::Query { key } => out.push_str(&stagehand_playbook::placeholder_for(key)),
            Fragment::Tag { .. } | Fragment::DefaultCommand { .. } | Fragment::CustomCommand { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_64_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 64);
    }

    #[test]
    fn an_entry_gives_back_its_key_action_and_text() {
        let mut receipts = Receipts::new("s");
        let ids = [
            ("k1", "next", None),
            ("k2", "choose:3", None),
            ("k3", "answer:name", Some("Ada")),
            ("", "answer:empty", Some("")),
        ];
        for (key, action_id, text) in ids {
            receipts.begin();
            let place = receipts.find(key).expect_err("a fresh key");
            let index = receipts.executed(Identity { key, place, action_id, text }, Outcome::Awaiting);
            assert_eq!(receipts.identity(index), (key, action_id, text));
            assert_eq!(receipts.find(key), Ok(index));
        }
        receipts.begin();
        let place = receipts.find("k5").expect_err("a fresh key");
        let index = receipts.failed(Identity { key: "k5", place, action_id: "retry", text: None }, "it broke");
        assert_eq!(receipts.settled(index), Err("it broke"));
        assert_eq!(receipts.identity(index), ("k5", "retry", None));
    }
}
