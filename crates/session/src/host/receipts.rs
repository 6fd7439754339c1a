//! The receipts a session recorded, by idempotency key, kept flat (decision H32): every key,
//! action id, text and reported word in one growing string, every event in one array, and the
//! keys found through a hash table of indices. Recording a receipt copies its words into the
//! string and allocates nothing of its own once the arrays have grown; a receipt is rebuilt as
//! a [`Receipt`] when it is replayed or saved.

use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::ops::Range;

use foldhash::fast::FixedState;
use hashbrown::HashTable;
use stagehand_protocol::{Event, Outcome, Receipt, Reported};

use super::Recorded;

/// A range of the log's text.
type Span = Range<usize>;

/// One recorded event.
#[derive(Debug, Clone)]
struct Word {
    kind: Span,
    speaker: Option<Span>,
    text: Option<Span>,
    /// Styled speech, as its JSON text (rare: plain lines carry none).
    speech: Option<Span>,
}

/// How a recorded receipt settled (receipts that were rejected are never recorded).
#[derive(Debug, Clone)]
enum Settled {
    Executed { outcome: Outcome, events: Range<usize> },
    Failed { error: Span },
}

/// One recorded receipt.
#[derive(Debug, Clone)]
struct Entry {
    key: Span,
    action: Span,
    text: Option<Span>,
    settled: Settled,
}

/// Every receipt recorded, by key.
#[derive(Debug, Clone)]
pub(crate) struct Receipts {
    text: String,
    words: Vec<Word>,
    entries: Vec<Entry>,
    index: HashTable<usize>,
    hasher: FixedState,
}

/// What [`Receipts::find`] found under a key.
pub(crate) struct Found<'r> {
    receipts: &'r Receipts,
    entry: &'r Entry,
}

impl Found<'_> {
    /// The action id it was recorded for.
    pub(crate) fn action_id(&self) -> &str {
        self.receipts.span(&self.entry.action)
    }

    /// The text an `input` carried.
    pub(crate) fn text(&self) -> Option<&str> {
        self.entry.text.as_ref().map(|t| self.receipts.span(t))
    }

    /// The receipt.
    pub(crate) fn receipt(&self) -> Receipt {
        let mut receipt = Receipt::Rejected { reason: String::new() };
        self.fill(&mut receipt);
        receipt
    }

    /// Writes the receipt into `receipt`, reusing its room.
    pub(crate) fn fill(&self, receipt: &mut Receipt) {
        let log = self.receipts;
        match &self.entry.settled {
            Settled::Failed { error } => set_failed(receipt, log.span(error)),
            Settled::Executed { outcome, events } => {
                let reported = executed(receipt, *outcome);
                let words = &log.words[events.clone()];
                reported.truncate(words.len());
                for (i, word) in words.iter().enumerate() {
                    let speaker = word.speaker.as_ref().map(|s| log.span(s));
                    let text = word.text.as_ref().map(|t| log.span(t));
                    let kind = log.span(&word.kind);
                    let speech = word.speech.as_ref().and_then(|s| serde_json::from_str(log.span(s)).ok());
                    match reported.get_mut(i) {
                        Some(slot) => {
                            overwrite(slot, kind, speaker, text);
                            slot.speech = speech;
                        }
                        None => reported.push(Reported {
                            kind: kind.to_owned(),
                            speaker: speaker.map(str::to_owned),
                            text: text.map(str::to_owned),
                            speech,
                        }),
                    }
                }
            }
        }
    }
}

/// Makes `receipt` an executed one with `outcome`, keeping its events' room; its events.
pub(crate) fn executed(receipt: &mut Receipt, outcome: Outcome) -> &mut Vec<Reported> {
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
pub(crate) fn set_failed(receipt: &mut Receipt, error: &str) {
    match receipt {
        Receipt::Failed { error: slot } => {
            slot.clear();
            slot.push_str(error);
        }
        _ => *receipt = Receipt::Failed { error: error.to_owned() },
    }
}

/// Makes `receipt` a rejected one with `reason`.
pub(crate) fn set_rejected(receipt: &mut Receipt, reason: String) {
    *receipt = Receipt::Rejected { reason };
}

/// Overwrites a reported event, reusing its strings' room.
pub(crate) fn overwrite(slot: &mut Reported, kind: &str, speaker: Option<&str>, text: Option<&str>) {
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
        let seed = FixedState::with_seed(0x5eed).hash_one(session_id);
        Receipts {
            text: String::new(),
            words: Vec::new(),
            entries: Vec::new(),
            index: HashTable::new(),
            hasher: FixedState::with_seed(seed),
        }
    }

    fn span(&self, span: &Span) -> &str {
        &self.text[span.clone()]
    }

    fn push(&mut self, text: &str) -> Span {
        let start = self.text.len();
        self.text.push_str(text);
        start..self.text.len()
    }

    /// How many receipts are recorded.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The receipt recorded under `key`.
    pub(crate) fn find(&self, key: &str) -> Option<Found<'_>> {
        let hash = self.hasher.hash_one(key);
        let found = self.index.find(hash, |&i| self.span(&self.entries[i].key) == key)?;
        Some(Found { receipts: self, entry: &self.entries[*found] })
    }

    /// Records an executed receipt under a key not recorded yet, its events as `events` lends
    /// them.
    pub(crate) fn record_executed<'e>(
        &mut self,
        key: &str,
        action_id: &str,
        text: Option<&str>,
        outcome: Outcome,
        events: impl IntoIterator<Item = &'e Reported>,
    ) {
        let first = self.words.len();
        for reported in events {
            let kind = self.push(&reported.kind);
            let speaker = reported.speaker.as_deref().map(|s| self.push(s));
            let text = reported.text.as_deref().map(|t| self.push(t));
            let speech = reported.speech.as_ref().map(|v| self.push(&v.to_string()));
            self.words.push(Word { kind, speaker, text, speech });
        }
        let settled = Settled::Executed { outcome, events: first..self.words.len() };
        self.insert(key, action_id, text, settled);
    }

    /// Records a failed receipt under a key not recorded yet.
    pub(crate) fn record_failed(&mut self, key: &str, action_id: &str, text: Option<&str>, error: &str) {
        let error = self.push(error);
        self.insert(key, action_id, text, Settled::Failed { error });
    }

    /// Records a receipt as a snapshot holds it.
    pub(crate) fn record(&mut self, key: &str, recorded: &Recorded) {
        let text = recorded.text.as_deref();
        match &recorded.receipt {
            Receipt::Rejected { .. } => {}
            Receipt::Failed { error } => self.record_failed(key, &recorded.action_id, text, error),
            Receipt::Executed { outcome, events } => {
                self.record_executed(key, &recorded.action_id, text, *outcome, events)
            }
        }
    }

    fn insert(&mut self, key: &str, action_id: &str, text: Option<&str>, settled: Settled) {
        let key_span = self.push(key);
        let action = self.push(action_id);
        let text = text.map(|t| self.push(t));
        let index = self.entries.len();
        self.entries.push(Entry { key: key_span, action, text, settled });
        let hash = self.hasher.hash_one(key);
        let (entries, text_log, hasher) = (&self.entries, &self.text, &self.hasher);
        self.index.insert_unique(hash, index, |&i| hasher.hash_one(&text_log[entries[i].key.clone()]));
    }

    /// Serialises every receipt as a snapshot spells them: an object by key, in key order (one
    /// receipt rebuilt at a time).
    pub(crate) fn serialize_by_key<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut order: Vec<&Entry> = self.entries.iter().collect();
        order.sort_unstable_by(|a, b| self.span(&a.key).cmp(self.span(&b.key)));
        let mut map = serializer.serialize_map(Some(order.len()))?;
        for entry in order {
            let found = Found { receipts: self, entry };
            let recorded = Recorded {
                action_id: found.action_id().to_owned(),
                text: found.text().map(str::to_owned),
                receipt: found.receipt(),
            };
            map.serialize_entry(self.span(&entry.key), &recorded)?;
        }
        map.end()
    }

    /// Every receipt, by key, as a snapshot holds them.
    pub(crate) fn to_map(&self) -> BTreeMap<String, Recorded> {
        self.entries
            .iter()
            .map(|entry| {
                let found = Found { receipts: self, entry };
                let recorded = Recorded {
                    action_id: found.action_id().to_owned(),
                    text: found.text().map(str::to_owned),
                    receipt: found.receipt(),
                };
                (self.span(&entry.key).to_owned(), recorded)
            })
            .collect()
    }
}

/// Writes what a receipt reports for a lent event over `slot` (reusing its strings' room): the
/// same as [`Reported::of_event`] gives.
pub(crate) fn report_into(slot: &mut Reported, event: &Event<'_>) {
    slot.kind.clear();
    slot.kind.push_str(event.name());
    match event {
        Event::Said { speaker, speech } => {
            put(&mut slot.speaker, *speaker);
            let text = slot.text.get_or_insert_with(String::new);
            text.clear();
            plain_text_into(speech, text);
            slot.speech = stagehand_protocol::styled_speech(speech);
        }
        Event::Continued { speech } => {
            slot.speaker = None;
            let text = slot.text.get_or_insert_with(String::new);
            text.clear();
            plain_text_into(speech, text);
            slot.speech = stagehand_protocol::styled_speech(speech);
        }
        Event::Ended => {
            slot.speaker = None;
            slot.text = None;
            slot.speech = None;
        }
        _ => {
            let reported = Reported::of_event(event);
            slot.speaker = reported.speaker;
            slot.text = reported.text;
            slot.speech = None;
        }
    }
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
