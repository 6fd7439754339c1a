//! The runner behind the [`Engine`] seam: [`RunnerEngine`], and the document it plays prepared
//! once: [`PreparedPlaybook`].
//!
//! What never changes while a playbook is played (its [`PlayContext`], its fingerprint, its
//! anchors) is read once into a [`PreparedPlaybook`], which engines borrow
//! ([`RunnerEngine::with`]) or share ([`RunnerEngine::shared`]): a host that restores a session
//! per request makes an engine in the time it takes to copy a seed (decision H30 in
//! `docs/design/host-contract.md`). [`RunnerEngine::new`] still prepares its own document.
//!
//! A step through the seam costs a step: [`Engine::take_lent`] lends the step's events as the
//! runner reports them (borrowed from the context), into a buffer the engine reuses, and the
//! state id and description are written without strings of their own (H31).

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use stagehand_playbook::{fingerprint, Fragment, Node, Playbook};
use stagehand_protocol::{Command, Engine, EngineError, Event, OwnedEvent, PlainEvent, ReplayMark, StateMark, Waiting};

use crate::context::PlayContext;
use crate::state::{Availability, Entropy, Moment, PlayState, Resume, Situation};

/// A playbook read once for playing: its [`PlayContext`], its fingerprint and its anchors.
/// Engines of the playbook borrow it or share it, so making one costs nothing that grows with
/// the playbook.
#[derive(Debug)]
pub struct PreparedPlaybook<'p> {
    context: PlayContext<'p>,
    fingerprint: String,
    anchors: Vec<String>,
}

impl<'p> PreparedPlaybook<'p> {
    /// Prepares `playbook`: builds its context and computes its fingerprint.
    pub fn new(playbook: &'p Playbook) -> Self {
        PreparedPlaybook::with_fingerprint(playbook, fingerprint(playbook).to_hex())
    }

    /// Prepares `playbook` whose fingerprint the host already knows (lowercase hex, as
    /// [`stagehand_playbook::fingerprint`] gives it): only the context is built. A wrong
    /// fingerprint makes saves of another document look like saves of this one, so pass only
    /// one computed from this playbook.
    pub fn with_fingerprint(playbook: &'p Playbook, fingerprint: String) -> Self {
        PreparedPlaybook {
            context: PlayContext::new(playbook),
            fingerprint,
            anchors: playbook.anchors.keys().cloned().collect(),
        }
    }

    /// The context.
    pub fn context(&self) -> &PlayContext<'p> {
        &self.context
    }

    /// The playbook.
    pub fn playbook(&self) -> &'p Playbook {
        self.context.playbook()
    }

    /// The playbook's fingerprint (lowercase hex).
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The anchors, in the playbook's order.
    pub fn anchors(&self) -> &[String] {
        &self.anchors
    }
}

/// How an engine holds its prepared playbook.
#[derive(Debug, Clone)]
enum Held<'d> {
    Lent(&'d PreparedPlaybook<'d>),
    Shared(Arc<PreparedPlaybook<'d>>),
}

impl<'d> Held<'d> {
    fn get(&self) -> &PreparedPlaybook<'d> {
        match self {
            Held::Lent(prepared) => prepared,
            Held::Shared(prepared) => prepared,
        }
    }
}

/// A run of a DialogueDown playbook as an [`Engine`].
#[derive(Debug, Clone)]
pub struct RunnerEngine<'p> {
    held: Held<'p>,
    state: PlayState,
    /// The events of the last step, kept until the next (their room is reused, H31) when
    /// the prepared playbook is lent.
    buffer: Vec<Event<'p>>,
    /// An emptied event buffer, for an engine sharing its prepared playbook (the events borrow
    /// the engine itself then, so they cannot be kept in it).
    spare: Vec<Event<'static>>,
    /// The events of the last step as plain ones, when the prepared playbook is lent and every
    /// one of them is (H49): a line's words borrowed from the playbook.
    plain: Vec<PlainEvent<'p>>,
    /// Whether every event of the last step went into `plain`.
    all_plain: bool,
    /// Warnings not yet taken ([`Engine::take_log`]): a dynamic draw whose weights stray from 100.
    log: Vec<String>,
}

/// An empty event buffer with another lifetime, keeping its room (collecting an emptied vector
/// into one of a type of the same size reuses its allocation).
// `filter_map` is what changes the item's lifetime here; `filter` would keep the old one.
#[allow(clippy::unnecessary_filter_map)]
fn recycle<'b>(mut events: Vec<Event<'_>>) -> Vec<Event<'b>> {
    events.clear();
    events.into_iter().filter_map(|_| None).collect()
}

impl<'p> RunnerEngine<'p> {
    /// A run of `playbook`, its entropy seeded with `seed`. The playbook is prepared here, for
    /// this engine alone; prepare it once with [`PreparedPlaybook`] and use
    /// [`with`](Self::with) or [`shared`](Self::shared) to make many engines of it.
    pub fn new(playbook: &'p Playbook, seed: u64) -> Self {
        RunnerEngine::shared(Arc::new(PreparedPlaybook::new(playbook)), seed)
    }

    /// A run of a prepared playbook the caller keeps, its entropy seeded with `seed`. Nothing
    /// is computed.
    pub fn with(prepared: &'p PreparedPlaybook<'p>, seed: u64) -> Self {
        RunnerEngine {
            held: Held::Lent(prepared),
            state: PlayState::seeded(seed),
            buffer: Vec::new(),
            spare: Vec::new(),
            plain: Vec::new(),
            all_plain: false,
            log: Vec::new(),
        }
    }

    /// A run of a prepared playbook shared with other engines, its entropy seeded with `seed`.
    /// Nothing is computed.
    pub fn shared(prepared: Arc<PreparedPlaybook<'p>>, seed: u64) -> Self {
        RunnerEngine {
            held: Held::Shared(prepared),
            state: PlayState::seeded(seed),
            buffer: Vec::new(),
            spare: Vec::new(),
            plain: Vec::new(),
            all_plain: false,
            log: Vec::new(),
        }
    }

    /// The run's state.
    pub fn state(&self) -> &PlayState {
        &self.state
    }

    /// The context, built once.
    pub fn context(&self) -> &PlayContext<'p> {
        self.held.get().context()
    }

    /// The prepared playbook.
    pub fn prepared(&self) -> &PreparedPlaybook<'p> {
        self.held.get()
    }
}

impl<'p> RunnerEngine<'p> {
    /// The node and total of a dynamic draw this `supply` answers, if its weights stray from 100.
    fn drift(&self, command: &Command<'_>) -> Option<(usize, f64)> {
        let (Command::Supply(answers), Situation::AwaitingSupply { node, moment: Moment::ToPlay(0), .. }) =
            (command, &self.state.situation)
        else {
            return None;
        };
        let playbook = self.context().playbook();
        let at = playbook.nodes.get(*node).filter(|n| matches!(n, Node::RandomChoice { .. }))?;
        crate::stepping::drawing::drift(at, answers).map(|total| (*node, total))
    }

    /// Steps, lending each event to `sink`.
    fn step_lent(&mut self, command: Command<'_>, sink: &mut dyn FnMut(&Event<'_>)) {
        match &self.held {
            // The context outlives the engine: its events go straight into the engine's buffer.
            Held::Lent(prepared) => {
                let context: &'p PlayContext<'p> = prepared.context();
                self.buffer.clear();
                self.state = crate::step_into(context, &self.state, command, &mut self.buffer);
                self.plain.clear();
                self.all_plain = true;
                for event in &self.buffer {
                    sink(event);
                    match PlainEvent::of_borrowed(event) {
                        Some(event) => self.plain.push(event),
                        None => self.all_plain = false,
                    }
                }
            }
            Held::Shared(prepared) => {
                let mut events = recycle(std::mem::take(&mut self.spare));
                self.state = crate::step_into(prepared.context(), &self.state, command, &mut events);
                for event in &events {
                    sink(event);
                }
                self.spare = recycle(events);
            }
        }
    }
}

impl<'p> Engine for RunnerEngine<'p> {
    type Snapshot = RunnerSnapshot;

    fn take(&mut self, command: Command<'_>, events: &mut Vec<OwnedEvent>) {
        self.take_lent(command, &mut |event| events.push(event.clone().into_owned()));
    }

    fn take_lent(&mut self, command: Command<'_>, sink: &mut dyn FnMut(&Event<'_>)) {
        // Only a supply answering a draw whose weights stray is watched for a refusal; every
        // other step (a `next` at a line among them) goes straight through.
        let Some((node, total)) = self.drift(&command) else {
            return self.step_lent(command, sink);
        };
        let mut refused = false;
        self.step_lent(command, &mut |event: &Event<'_>| {
            refused |= matches!(event, Event::Refused { .. });
            sink(event)
        });
        if !refused {
            self.log.push(format!(
                "the random choice at node {node} drew from weights totalling {total}, not 100; its odds were normalized"
            ));
        }
    }

    fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }

    #[inline]
    fn waiting(&self) -> Waiting {
        match self.state.situation {
            Situation::NotStarted => Waiting::Start,
            Situation::AtNode(_) => Waiting::Next,
            Situation::AwaitingDone { .. } => Waiting::Effect,
            Situation::AwaitingSupply { .. } => Waiting::Answers,
            Situation::AwaitingChoice { .. } => Waiting::Choice,
            Situation::AtEnd => Waiting::Ended,
        }
    }

    fn snapshot(&mut self) -> Result<RunnerSnapshot, EngineError> {
        Ok(RunnerSnapshot::of(&self.state))
    }

    fn restore(&mut self, snapshot: &RunnerSnapshot) -> Result<(), EngineError> {
        self.state = snapshot.to_state(self.context().playbook().nodes.len())?;
        Ok(())
    }

    fn fingerprint(&self) -> String {
        self.held.get().fingerprint().to_owned()
    }

    fn state_id(&self) -> String {
        let mut id = String::new();
        self.write_state_id(&mut id);
        id
    }

    fn write_state_id(&self, out: &mut String) {
        let (situation, node, segment) = situation_parts(&self.state.situation);
        write_parts(situation, node, segment, out);
    }

    #[inline]
    fn state_mark(&self) -> Option<StateMark> {
        let (name, node, segment) = match &self.state.situation {
            Situation::NotStarted => (0, None, None),
            Situation::AtNode(node) => (1, Some(*node), None),
            Situation::AwaitingDone { node, resume, .. } => match resume {
                Resume::From(s) => (2, Some(*node), Some(*s)),
                Resume::FromNodeEnd => (2, Some(*node), None),
            },
            Situation::AwaitingSupply { node, moment, .. } => match moment {
                Moment::ToPlay(s) => (3, Some(*node), Some(*s)),
                Moment::ToLeave => (3, Some(*node), None),
            },
            Situation::AwaitingChoice { node, .. } => (4, Some(*node), None),
            Situation::AtEnd => (5, None, None),
        };
        // The segment shares a word with the name and two flags; one too large to fit is
        // written at once instead (never so in a real playbook).
        let segment_word = match segment {
            Some(segment) if (segment as u64) < (1 << 56) => (segment as u64) << 8 | 1 << 5,
            Some(_) => return None,
            None => 0,
        };
        let node_flag = u64::from(node.is_some()) << 4;
        Some(StateMark([name | node_flag | segment_word, node.unwrap_or(0) as u64]))
    }

    #[inline]
    fn replay_mark(&self) -> Option<ReplayMark> {
        // Only an engine lending its prepared playbook keeps its events (a shared one cannot
        // keep events that borrow itself).
        match self.held {
            Held::Lent(_) => replay_mark(&self.state),
            Held::Shared(_) => None,
        }
    }

    fn retake_lent(&self, mark: ReplayMark, command: Command<'_>, sink: &mut dyn FnMut(&Event<'_>)) -> bool {
        let Some(state) = replayed_state(mark) else { return false };
        let mut events = Vec::new();
        crate::step_into(self.context(), &state, command, &mut events);
        for event in &events {
            sink(event);
        }
        true
    }

    fn last_lent(&self, sink: &mut dyn FnMut(&Event<'_>)) -> bool {
        match self.held {
            Held::Lent(_) => {
                self.buffer.iter().for_each(sink);
                true
            }
            Held::Shared(_) => false,
        }
    }

    #[inline]
    fn last_plain(&self) -> Option<&[PlainEvent<'_>]> {
        // Only an engine lending its prepared playbook fills `plain`.
        self.all_plain.then_some(&self.plain[..])
    }

    fn write_state_mark(&self, mark: StateMark, out: &mut String) {
        let [word, node] = mark.0;
        let Some(situation) = SITUATIONS.get((word & 0xf) as usize) else { return };
        let node = (word & 1 << 4 != 0).then_some(node as usize);
        let segment = (word & 1 << 5 != 0).then_some((word >> 8) as usize);
        write_parts(situation, node, segment, out);
    }
    fn describe(&self) -> String {
        let mut sentence = String::new();
        self.write_description(&mut sentence);
        sentence
    }

    fn write_description(&self, out: &mut String) {
        let playbook = self.context().playbook();
        let situation = &self.state.situation;
        let node = situation.node().and_then(|index| playbook.nodes.get(index));
        let (speaker, text) = match node {
            Some(Node::Line { speaker, speech, .. }) => (
                playbook.speaker(stagehand_playbook::position(*speaker)).and_then(|s| s.name.as_deref()),
                Some(&speech[..]),
            ),
            Some(Node::Control { effects, .. }) => (None, Some(&effects[..])),
            _ => (None, None),
        };
        if let Some(text) = text {
            // The words, trimmed, after the speaker's name; a full stop when they have none.
            // Nothing is said of words that are all blank.
            let start = out.len();
            if let Some(speaker) = speaker {
                out.push_str(speaker);
                out.push_str(": ");
            }
            let words = out.len();
            flatten(text, out);
            let written = &out[words..];
            let (lead, kept) = (written.len() - written.trim_start().len(), written.trim().len());
            if kept == 0 {
                out.truncate(start);
            } else {
                out.truncate(words + lead + kept);
                if lead > 0 {
                    out.replace_range(words..words + lead, "");
                }
                if !out.ends_with(['.', '!', '?', '…']) {
                    out.push('.');
                }
                out.push(' ');
            }
        }
        let waiting = situation.describe();
        let mut chars = waiting.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
        }
        out.push_str(chars.as_str());
        out.push('.');
    }

    fn anchors(&self) -> Vec<String> {
        self.held.get().anchors().to_vec()
    }

    fn anchor_names(&self) -> Cow<'_, [String]> {
        Cow::Borrowed(self.held.get().anchors())
    }
}

/// The whole state as a [`ReplayMark`] (decision H49): its state mark as
/// [`Engine::state_mark`] makes it (the situation's position in [`SITUATIONS`], flags and
/// segment in the first word, the node in the second; a menu's flag of limited availability
/// besides, which writing a state id ignores), then the nodes passed (or a menu's
/// availability) and the generator's state. `None` for a
/// state that does not fit (a menu of more than 64 options with some unavailable; a segment of
/// 2^56 or more): never so in a real playbook.
#[inline]
fn replay_mark(state: &PlayState) -> Option<ReplayMark> {
    const NODE: u64 = 1 << 4;
    const SEGMENT: u64 = 1 << 5;
    const ONLY: u64 = 1 << 6;
    let segment = |s: usize| u64::try_from(s).ok().filter(|s| *s < 1 << 56).map(|s| s << 8 | SEGMENT);
    let (word, node, third) = match &state.situation {
        Situation::NotStarted => (0, 0, 0),
        Situation::AtNode(node) => (1 | NODE, u64::try_from(*node).ok()?, 0),
        Situation::AwaitingDone { node, resume, passed } => {
            let resume = match resume {
                Resume::From(s) => segment(*s)?,
                Resume::FromNodeEnd => 0,
            };
            (2 | NODE | resume, u64::try_from(*node).ok()?, u64::try_from(*passed).ok()?)
        }
        Situation::AwaitingSupply { node, moment, passed } => {
            let moment = match moment {
                Moment::ToPlay(s) => segment(*s)?,
                Moment::ToLeave => 0,
            };
            (3 | NODE | moment, u64::try_from(*node).ok()?, u64::try_from(*passed).ok()?)
        }
        Situation::AwaitingChoice { node, available } => {
            let (only, words) = match available {
                Availability::All => (0, 0),
                Availability::Only(words) if words.len() == 1 => (ONLY, words[0]),
                Availability::Only(_) => return None,
            };
            (4 | NODE | only, u64::try_from(*node).ok()?, words)
        }
        Situation::AtEnd => (5, 0, 0),
    };
    Some(ReplayMark { state: StateMark([word, node]), more: [third, state.entropy.state] })
}

/// The state a [`replay_mark`] was made of.
fn replayed_state(mark: ReplayMark) -> Option<PlayState> {
    let ([word, node], [third, entropy]) = (mark.state.0, mark.more);
    let segment = (word & 1 << 5 != 0).then(|| usize::try_from(word >> 8).ok()).flatten();
    let situation = match word & 0xf {
        0 => Situation::NotStarted,
        1 => Situation::AtNode(node.try_into().ok()?),
        2 => Situation::AwaitingDone {
            node: node.try_into().ok()?,
            resume: segment.map_or(Resume::FromNodeEnd, Resume::From),
            passed: third.try_into().ok()?,
        },
        3 => Situation::AwaitingSupply {
            node: node.try_into().ok()?,
            moment: segment.map_or(Moment::ToLeave, Moment::ToPlay),
            passed: third.try_into().ok()?,
        },
        4 => Situation::AwaitingChoice {
            node: node.try_into().ok()?,
            available: if word & 1 << 6 != 0 { Availability::Only(Box::new([third])) } else { Availability::All },
        },
        5 => Situation::AtEnd,
        _ => return None,
    };
    Some(PlayState { situation, entropy: Entropy { state: entropy } })
}

/// The situations' names, as state ids and snapshots spell them; a [`StateMark`] holds a
/// name's position here.
const SITUATIONS: [&str; 6] =
    ["not-started", "at-node", "awaiting-done", "awaiting-supply", "awaiting-choice", "at-end"];

/// Writes a state id: the situation's name, then `:NODE` and `#SEGMENT` where it has them.
fn write_parts(situation: &str, node: Option<usize>, segment: Option<usize>, out: &mut String) {
    out.push_str(situation);
    if let Some(node) = node {
        out.push(':');
        out.push_str(itoa::Buffer::new().format(node));
    }
    if let Some(segment) = segment {
        out.push('#');
        out.push_str(itoa::Buffer::new().format(segment));
    }
}

/// Speech as plain text, queries as their placeholders (`{Key}`): what
/// [`stagehand_playbook::plain_text_with`] gives with no answers, written into `out`.
fn flatten(speech: &[Fragment], out: &mut String) {
    for fragment in speech {
        match fragment {
            Fragment::Text { text } => out.push_str(text),
            Fragment::Styled { children, .. } => flatten(children, out),
            Fragment::Link { label, .. } => flatten(label, out),
            Fragment::Image { alt, .. } => flatten(alt, out),
            Fragment::Break => out.push(' '),
            Fragment::Query { key } => out.push_str(&stagehand_playbook::placeholder_for(key)),
            Fragment::Tag { .. } | Fragment::DefaultCommand { .. } | Fragment::CustomCommand { .. } => {}
        }
    }
}

/// A situation's name, node and segment, as its snapshot and its state id spell them.
fn situation_parts(situation: &Situation) -> (&'static str, Option<usize>, Option<usize>) {
    match situation {
        Situation::NotStarted => ("not-started", None, None),
        Situation::AtNode(node) => ("at-node", Some(*node), None),
        Situation::AwaitingDone { node, resume, .. } => {
            let segment = match resume {
                Resume::From(s) => Some(*s),
                Resume::FromNodeEnd => None,
            };
            ("awaiting-done", Some(*node), segment)
        }
        Situation::AwaitingSupply { node, moment, .. } => {
            let segment = match moment {
                Moment::ToPlay(s) => Some(*s),
                Moment::ToLeave => None,
            };
            ("awaiting-supply", Some(*node), segment)
        }
        Situation::AwaitingChoice { node, .. } => ("awaiting-choice", Some(*node), None),
        Situation::AtEnd => ("at-end", None, None),
    }
}

/// A [`PlayState`] as plain data: where the run stands and the generator's state. Node indices
/// are checked against the playbook when it is restored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunnerSnapshot {
    /// The situation's name: `not-started`, `at-node`, `awaiting-done`, `awaiting-supply`,
    /// `awaiting-choice`, `at-end`.
    pub situation: String,
    /// The node the run stands at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<usize>,
    /// Awaiting done: the segment the line resumes from (none: from the node's end). Awaiting
    /// supply: the segment to play (none: the node is being left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<usize>,
    /// Awaiting a choice: the bit set of available options (none: all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available: Option<Vec<u64>>,
    /// Awaiting done or supply: the nodes the walk has passed since the person last had the turn
    /// (the endless-loop bound counts on from here).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub passed: usize,
    /// The generator's state.
    pub entropy: u64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl RunnerSnapshot {
    /// The snapshot of a state.
    pub fn of(state: &PlayState) -> RunnerSnapshot {
        let (situation, node, segment, available, passed) = match &state.situation {
            Situation::NotStarted => ("not-started", None, None, None, 0),
            Situation::AtNode(node) => ("at-node", Some(*node), None, None, 0),
            Situation::AwaitingDone { node, resume, passed } => {
                let segment = match resume {
                    Resume::From(s) => Some(*s),
                    Resume::FromNodeEnd => None,
                };
                ("awaiting-done", Some(*node), segment, None, *passed)
            }
            Situation::AwaitingSupply { node, moment, passed } => {
                let segment = match moment {
                    Moment::ToPlay(s) => Some(*s),
                    Moment::ToLeave => None,
                };
                ("awaiting-supply", Some(*node), segment, None, *passed)
            }
            Situation::AwaitingChoice { node, available } => {
                let available = match available {
                    Availability::All => None,
                    Availability::Only(words) => Some(words.to_vec()),
                };
                ("awaiting-choice", Some(*node), None, available, 0)
            }
            Situation::AtEnd => ("at-end", None, None, None, 0),
        };
        let situation = situation.to_owned();
        RunnerSnapshot { situation, node, segment, available, passed, entropy: state.entropy.state }
    }

    /// The state it records, checked against a playbook of `nodes` nodes.
    pub fn to_state(&self, nodes: usize) -> Result<PlayState, EngineError> {
        let node = || match self.node {
            Some(node) if node < nodes => Ok(node),
            Some(node) => {
                Err(EngineError::new(format!("the snapshot stands at node {node}; the playbook has {nodes}")))
            }
            None => Err(EngineError::new(format!("a snapshot {} names no node", self.situation))),
        };
        let situation = match self.situation.as_str() {
            "not-started" => Situation::NotStarted,
            "at-node" => Situation::AtNode(node()?),
            "awaiting-done" => Situation::AwaitingDone {
                node: node()?,
                resume: self.segment.map_or(Resume::FromNodeEnd, Resume::From),
                passed: self.passed,
            },
            "awaiting-supply" => Situation::AwaitingSupply {
                node: node()?,
                moment: self.segment.map_or(Moment::ToLeave, Moment::ToPlay),
                passed: self.passed,
            },
            "awaiting-choice" => Situation::AwaitingChoice {
                node: node()?,
                available: self
                    .available
                    .as_ref()
                    .map_or(Availability::All, |words| Availability::Only(words.clone().into_boxed_slice())),
            },
            "at-end" => Situation::AtEnd,
            other => {
                return Err(EngineError::new(format!("the snapshot names no situation the runner has: {other:?}")))
            }
        };
        Ok(PlayState { situation, entropy: Entropy { state: self.entropy } })
    }
}

#[cfg(test)]
mod tests {
    use stagehand_playbook::{smallvec, Edge, Fragment, Node, Playbook, Speaker};
    use stagehand_protocol::{Answer, Answers, Command, Engine};

    use super::{PreparedPlaybook, RunnerEngine};

    /// The sentence as it was composed from [`crate::describe`] before it was written in place.
    fn composed(engine: &RunnerEngine<'_>) -> String {
        let description = crate::describe(engine.context(), engine.state(), None);
        let mut sentence = String::new();
        if let Some(text) = description.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            if let Some(speaker) = &description.speaker {
                sentence.push_str(&format!("{speaker}: "));
            }
            sentence.push_str(text);
            if !text.ends_with(['.', '!', '?', '…']) {
                sentence.push('.');
            }
            sentence.push(' ');
        }
        let waiting = description.waiting;
        sentence.push_str(&waiting[..1].to_uppercase());
        sentence.push_str(&waiting[1..]);
        sentence.push('.');
        sentence
    }

    #[test]
    fn the_description_and_state_id_are_written_as_they_were_composed() {
        let mut playbook = Playbook::new("t.dialogue.md");
        playbook.speakers.push(Speaker::named("Alice"));
        playbook.speakers.push(Speaker::anonymous_default());
        let line = |speaker, speech: Vec<Fragment>, target| Node::Line {
            speaker,
            speech: speech.into(),
            condition: None,
            out: smallvec![Edge::Succession { target }],
        };
        playbook.nodes = vec![
            line(0, vec![Fragment::text("  Hello, "), Fragment::query("Name"), Fragment::text("  ")], 1),
            line(1, vec![Fragment::text("No speaker! ")], 2),
            line(0, vec![Fragment::text("   ")], 3),
            line(0, vec![Fragment::text("Wait"), Fragment::Break, Fragment::text("…")], 4),
            Node::Control {
                effects: vec![Fragment::DefaultCommand { action: "wave".into() }, Fragment::text(" waves")].into(),
                condition: None,
                out: smallvec![Edge::Succession { target: 5 }],
            },
            Node::End,
        ];
        let prepared = PreparedPlaybook::new(&playbook);
        let mut engine = RunnerEngine::with(&prepared, 1);
        let (mut ids, mut marks) = (Vec::new(), Vec::new());
        let supply = Command::Supply([("Name", Answer::Text("Sam".into()))].into_iter().collect::<Answers<'_>>());
        let commands =
            [Command::start(), supply, Command::Next, Command::Next, Command::Next, Command::Next, Command::Done];
        for command in commands {
            assert_eq!(engine.describe(), composed(&engine));
            ids.push(engine.state_id());
            marks.push(engine.state_mark().expect("the runner marks every state"));
            engine.take(command, &mut Vec::new());
        }
        assert_eq!(engine.describe(), composed(&engine));
        assert_eq!(
            ids,
            [
                "not-started",
                "awaiting-supply:0#0",
                "at-node:0",
                "at-node:1",
                "at-node:2",
                "at-node:3",
                "awaiting-done:4"
            ]
        );
        // A mark made at each state writes that state's id later, after the engine moved on.
        let later: Vec<String> = marks
            .iter()
            .map(|mark| {
                let mut id = String::new();
                engine.write_state_mark(*mark, &mut id);
                id
            })
            .collect();
        assert_eq!(later, ids);
    }

    /// An engine lending its prepared playbook marks each state whole (H49): taking a command
    /// again from the mark lends what the take lent, the mark's state part is the state mark,
    /// and the engine keeps its last events; one sharing its playbook marks nothing.
    #[test]
    fn a_replay_mark_takes_a_command_again_as_it_was_taken() {
        use stagehand_protocol::{Event, OwnedEvent, PlainEvent};
        let mut playbook = Playbook::new("t.dialogue.md");
        playbook.speakers.push(Speaker::named("Alice"));
        let line = |speech: Vec<Fragment>, target| Node::Line {
            speaker: 0,
            speech: speech.into(),
            condition: None,
            out: smallvec![Edge::Succession { target }],
        };
        playbook.nodes = vec![
            line(vec![Fragment::text("Hello, "), Fragment::query("Name")], 1),
            line(vec![Fragment::text("Plain words.")], 2),
            Node::Control {
                effects: vec![Fragment::DefaultCommand { action: "wave".into() }].into(),
                condition: None,
                out: smallvec![Edge::Succession { target: 3 }],
            },
            line(vec![Fragment::text("After the wave.")], 4),
            Node::End,
        ];
        let prepared = PreparedPlaybook::new(&playbook);
        let mut engine = RunnerEngine::with(&prepared, 4);
        let supply = Command::Supply([("Name", Answer::Text("Sam".into()))].into_iter().collect::<Answers<'_>>());
        let commands = [Command::start(), supply, Command::Next, Command::Next, Command::Done, Command::Next];
        let mut plained = 0;
        for command in commands {
            let mark = engine.replay_mark().expect("every state here is marked whole");
            assert_eq!(Some(mark.state), engine.state_mark());
            let mut taken: Vec<OwnedEvent> = Vec::new();
            engine.take(command.clone(), &mut taken);
            let mut again: Vec<OwnedEvent> = Vec::new();
            assert!(engine.retake_lent(mark, command, &mut |e: &Event<'_>| again.push(e.clone().into_owned())));
            assert_eq!(again, taken, "taken again from the mark");
            let mut last: Vec<OwnedEvent> = Vec::new();
            assert!(engine.last_lent(&mut |e: &Event<'_>| last.push(e.clone().into_owned())));
            assert_eq!(last, taken, "the last events kept");
            let words = |e: &PlainEvent<'_>| (e.kind, e.speaker.map(str::to_owned), e.text.map(str::to_owned));
            let read: Option<Vec<_>> = engine.last_plain().map(|events| events.iter().map(words).collect());
            if let Some(read) = read {
                let plain: Vec<_> = taken.iter().map(|e| PlainEvent::of(&e.lend()).as_ref().map(words)).collect();
                assert_eq!(plain, read.into_iter().map(Some).collect::<Vec<_>>(), "the events read as plain");
                plained += 1;
            }
        }
        assert!(plained >= 2, "the plain lines and the end are read where they are kept");
        let shared = RunnerEngine::new(&playbook, 4);
        assert_eq!(shared.replay_mark(), None);
        assert!(!shared.last_lent(&mut |_| {}));
    }
}
