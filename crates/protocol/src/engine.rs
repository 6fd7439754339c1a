//! The seam a host holds an engine by: [`Engine`].

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

use std::borrow::Cow;

use stagehand_playbook::Fragment;

use crate::vocabulary::{Command, Event, OwnedEvent};

/// What an engine waits for now: the one thing that moves it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Waiting {
    /// Nothing has started: only `start` is taken.
    Start,
    /// A line was said: the player's `next`.
    Next,
    /// A menu was offered: the player's `choose`.
    Choice,
    /// Effects were asked for: the host's `done` or `failed`; or a port call
    /// (`Event::Call`): the host's `answer`.
    Effect,
    /// Keys were asked about: the world's (or the person's) `supply`.
    Answers,
    /// The run ended.
    Ended,
    /// The engine stopped the run itself (a runaway guard); only a new `start` is taken.
    Stopped,
}

/// A small, copyable mark of an engine's state, from which the engine writes that state's id
/// later ([`Engine::write_state_mark`]), after it has moved on: a session keeps one per trace
/// record instead of the id's text (decision H37 in `docs/design/host-contract.md`). What the
/// numbers mean is the engine's own; a mark is only ever given back to the engine that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StateMark(pub [u64; 2]);

/// A small, copyable mark of an engine's whole state, from which the engine takes a command
/// again without changing ([`Engine::retake_lent`]): a session keeps one per receipt instead of
/// the receipt's words, and writes the words only when they are read again (decision H49 in
/// `docs/design/host-contract.md`). What the numbers mean is the engine's own; a mark is only
/// ever given back to the engine that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReplayMark {
    /// The state's [`StateMark`]: what [`Engine::state_mark`] gives of the same state.
    pub state: StateMark,
    /// The rest of the state.
    pub more: [u64; 2],
}

/// An event as a receipt reports it, when that needs no words written (decision H49): a line
/// or its continuation whose speech is one plain text (its words are that text), or the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainEvent<'a> {
    /// The event's name: `said`, `continued` or `ended`.
    pub kind: &'static str,
    /// Who spoke, for `said` (`None` for the anonymous default speaker).
    pub speaker: Option<&'a str>,
    /// The words, for `said` and `continued`.
    pub text: Option<&'a str>,
}

impl<'a> PlainEvent<'a> {
    /// The event as a plain one, if it is one.
    #[inline]
    pub fn of(event: &'a Event<'_>) -> Option<PlainEvent<'a>> {
        match event {
            Event::Said { speaker, speech } => Self::said(*speaker, speech),
            Event::Continued { speech } => Self::continued(speech),
            Event::Ended => Some(Self::ENDED),
            _ => None,
        }
    }

    /// [`of`](Self::of), for an event whose speech is borrowed for `'a` (a runner's, from its
    /// playbook): the words keep that lifetime, not the event's. An event whose speech the
    /// engine made (owned) is not plain here.
    #[inline]
    pub fn of_borrowed(event: &Event<'a>) -> Option<PlainEvent<'a>> {
        match event {
            Event::Said { speaker, speech: Cow::Borrowed(speech) } => Self::said(*speaker, speech),
            Event::Continued { speech: Cow::Borrowed(speech) } => Self::continued(speech),
            Event::Ended => Some(Self::ENDED),
            _ => None,
        }
    }

    const ENDED: PlainEvent<'static> = PlainEvent { kind: "ended", speaker: None, text: None };

    #[inline]
    fn said(speaker: Option<&'a str>, speech: &'a [Fragment]) -> Option<Self> {
        Some(PlainEvent { kind: "said", speaker, text: Some(Self::words(speech)?) })
    }

    #[inline]
    fn continued(speech: &'a [Fragment]) -> Option<Self> {
        Some(PlainEvent { kind: "continued", speaker: None, text: Some(Self::words(speech)?) })
    }

    /// The words of speech that is one plain text.
    #[inline]
    fn words(speech: &'a [Fragment]) -> Option<&'a str> {
        match speech {
            [Fragment::Text { text }] => Some(text.as_str()),
            _ => None,
        }
    }
}

/// Why an engine could not take a snapshot or restore one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineError {
    /// What went wrong, in words a person reads.
    pub message: String,
}

impl EngineError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        EngineError { message: message.into() }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EngineError {}

/// One playthrough of one document by some engine (the DialogueDown runner, the ChatMapper
/// engine, ...), driven one command at a time.
///
/// An engine is deterministic: the same document, options and commands give the same events.
/// It never reads a clock and never does I/O of its own; the world is reached only through the
/// requests it reports (`perform`, `resolve`, `offer`), answered by commands.
pub trait Engine {
    /// The engine's whole state as a plain value (no handles, no borrowed data), serialisable
    /// for a save and restored with [`restore`](Self::restore) on an engine of the same
    /// document and options.
    type Snapshot: Serialize + DeserializeOwned + Clone;

    /// Begins at the entry, or at an anchor (a DialogueDown anchor, a ChatMapper conversation):
    /// the same as taking `Command::Start`.
    fn start(&mut self, anchor: Option<&str>, events: &mut Vec<OwnedEvent>) {
        self.take(Command::Start { anchor: anchor.map(|a| a.to_owned().into()) }, events);
    }

    /// Takes one command, appending what it reported to `events`. Never panics: a command that
    /// does not fit is refused as an event.
    fn take(&mut self, command: Command<'_>, events: &mut Vec<OwnedEvent>);

    /// What the engine waits for now.
    fn waiting(&self) -> Waiting;

    /// The engine's state now. (It may take `&mut self` to ask an embedded interpreter what it
    /// holds; nothing changes.)
    fn snapshot(&mut self) -> Result<Self::Snapshot, EngineError>;

    /// Puts a snapshot back. A snapshot that does not fit the document is refused, and the
    /// engine is left as it was or at a state it could restore; never half-restored silently.
    fn restore(&mut self, snapshot: &Self::Snapshot) -> Result<(), EngineError>;

    /// The document's fingerprint (lowercase hex), so a host can tell a save made of another
    /// document, or of an edited one.
    fn fingerprint(&self) -> String;

    /// A stable id of where the run stands: the same state always has the same id, and states
    /// a person would tell apart have different ones.
    fn state_id(&self) -> String;

    /// Where the run stands, in a sentence written for a person.
    fn describe(&self) -> String;

    /// The words of the question the pending key `key` stands for, as its asker put it (an
    /// agent player's question to Boss: CONTRACT.md §1.9's `question`), when the engine has
    /// them; `None` (the default) lets the host word it from the key and its kind.
    fn question_text(&self, key: &str) -> Option<String> {
        let _ = key;
        None
    }

    /// The places a run may be started at by name (DialogueDown anchors), in a stable order.
    /// Engines without such places list none.
    fn anchors(&self) -> Vec<String> {
        Vec::new()
    }

    /// The engine's own actions now, each `{id, label}`, beyond those the host session derives
    /// from what the engine waits for (an agent playbook's `retry:EVENT` and `jump:STATE`,
    /// labelled from its states' descriptions). Applying one gives the engine
    /// `Command::Act`. Engines without such actions list none (decision H46).
    fn actions(&self) -> Vec<crate::view::Action> {
        Vec::new()
    }

    /// Whether the engine's questions (its `resolve`s) ask the person who plays rather than a
    /// world: an agent playbook's Boss question is the contract's quiescent, capturable rest
    /// (CONTRACT.md §1.6, §1.7), so a session waiting on one is at rest (decision H60), and so is a
    /// ChatMapper input prompt, which asks the player (H61). A DialogueDown resolve is the world's
    /// to answer: false.
    fn asks_the_person(&self) -> bool {
        false
    }

    /// What the engine logged since it was last asked, a line each (a ChatMapper condition that
    /// could not be evaluated, a project script's `print` as `print: …`). Engines that log
    /// nothing give nothing.
    fn take_log(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Takes one command and lends each event it reported to `sink`, in order, without
    /// detaching them: an engine that can report borrowed events (the runner) copies nothing.
    /// The same events as [`take`](Self::take) reports; by default it is `take` and a loan of
    /// each owned event.
    fn take_lent(&mut self, command: Command<'_>, sink: &mut dyn FnMut(&Event<'_>)) {
        let mut events = Vec::new();
        self.take(command, &mut events);
        for event in &events {
            sink(&event.lend());
        }
    }

    /// Appends [`state_id`](Self::state_id) to `out` (an engine may write it without a `String`
    /// of its own).
    fn write_state_id(&self, out: &mut String) {
        out.push_str(&self.state_id());
    }

    /// Appends [`describe`](Self::describe) to `out` (an engine may write it without a `String`
    /// of its own).
    fn write_description(&self, out: &mut String) {
        out.push_str(&self.describe());
    }

    /// A mark of the state now, if the engine can write its id later from a mark
    /// ([`write_state_mark`](Self::write_state_mark)); by default none, and a host writes the id
    /// at once.
    fn state_mark(&self) -> Option<StateMark> {
        None
    }

    /// Appends the id of the state `mark` was made of (by [`state_mark`](Self::state_mark) on
    /// this engine): the same text [`write_state_id`](Self::write_state_id) wrote then. An
    /// engine that makes no marks writes nothing.
    fn write_state_mark(&self, mark: StateMark, out: &mut String) {
        let _ = (mark, out);
    }

    /// A mark of the whole state now, when the engine can take a command again from it later
    /// ([`retake_lent`](Self::retake_lent)) **and** keeps the events of its next take for
    /// [`last_lent`](Self::last_lent) and [`last_plain`](Self::last_plain); its
    /// [`state`](ReplayMark::state) is what [`state_mark`](Self::state_mark) gives now. By
    /// default none, and a host writes down what it needs of the events as they are lent
    /// (decision H49).
    fn replay_mark(&self) -> Option<ReplayMark> {
        None
    }

    /// Takes `command` again from the state `mark` was made of (by
    /// [`replay_mark`](Self::replay_mark) on this engine), lending `sink` the same events, in
    /// the same order, as the take made from that state lent then; the engine itself does not
    /// change. False (and nothing lent) when the engine cannot; by default it cannot.
    fn retake_lent(&self, mark: ReplayMark, command: Command<'_>, sink: &mut dyn FnMut(&Event<'_>)) -> bool {
        let _ = (mark, command, sink);
        false
    }

    /// Lends `sink` the events the last take lent, again, in order, when the engine keeps them
    /// until its next take (an engine that gave a [`replay_mark`](Self::replay_mark) before the
    /// take does); false (and nothing lent) when it does not. By default it does not.
    fn last_lent(&self, sink: &mut dyn FnMut(&Event<'_>)) -> bool {
        let _ = sink;
        false
    }

    /// The events the last take lent, read where the engine keeps them, when it keeps every one
    /// of them as a [`PlainEvent`] (each what [`PlainEvent::of`] reads of it; an engine may keep
    /// fewer kinds, the runner only words borrowed from its playbook); by default none.
    fn last_plain(&self) -> Option<&[PlainEvent<'_>]> {
        None
    }

    /// Lends each record of the engine's own trace made since it was last asked to `sink`, in
    /// order: the record's type as the engine spells it and its JSON payload (an agent
    /// playbook's schema-2 events). A host session writes each as a trace record of its own,
    /// inside the boundary of the move that caused it (decision H48 in
    /// `docs/design/host-contract.md`). Engines that trace nothing lend nothing.
    fn drain_trace(&mut self, sink: &mut dyn FnMut(&str, serde_json::Value)) {
        let _ = sink;
    }

    /// Drops what the engine traced while a host put it back where it was (a restore, or the
    /// replay of its moves an undo or restart makes): those records are not new. An engine
    /// whose own trace is numbered (an agent runtime) keeps its numbering past what it lent
    /// before, and keeps, numbered again, the records of a boundary the replay left open, which
    /// the host writes as new (decisions H71 and A49). By default it drains into nothing.
    fn forget_trace(&mut self) {
        self.drain_trace(&mut |_, _| {});
    }

    /// Tells a fresh engine that is about to be put back on another version of its document, by
    /// taking again the moves of the session `old` was written for (a host's replay), how far
    /// that session's own numbering went: an engine whose trace and ids are numbered (an agent
    /// runtime) numbers its ids past those the session gave, and after
    /// [`forget_trace`](Self::forget_trace) its records go on from the last one it lent
    /// (decision H72). By default it does nothing.
    fn continue_after(&mut self, old: &Self::Snapshot) {
        let _ = old;
    }

    /// Tells the engine the host's time (Unix milliseconds) before a move: the engine reads no
    /// clock, so an engine that stamps its own trace records ([`drain_trace`](Self::drain_trace))
    /// stamps them with the time of the move that caused them. A host session calls it before
    /// every move it takes (decision H52 in `docs/design/host-contract.md`); engines that stamp
    /// nothing ignore it.
    fn set_now(&mut self, now: u64) {
        let _ = now;
    }

    /// Ends the engine's own session, for good: a host session calls it once, when it is
    /// disposed, after [`set_now`](Self::set_now) and before it writes its own
    /// `session.disposed`; what the engine traces as it ends is then drained
    /// ([`drain_trace`](Self::drain_trace)) into the session's trace, before that record
    /// (decision H70 in `docs/design/host-contract.md`). Engines with nothing to end ignore it.
    fn dispose(&mut self) {}

    /// [`anchors`](Self::anchors), lent where the engine keeps them (the same names, in the same
    /// order).
    fn anchor_names(&self) -> Cow<'_, [String]> {
        Cow::Owned(self.anchors())
    }
}
