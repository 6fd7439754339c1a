//! The context a run needs and never changes: the playbook, and what the runner read off each
//! node once, at load, so a step never has to gather it again.

use std::ops::Range;

use stagehand_playbook::{has_keys, segments, Edge, Fragment, Node, Playbook, Weight};

use crate::protocol::{AnswerKind, OfferedOption, Question};

/// What a run needs and never changes.
///
/// Building one walks every node once to gather the keys each moment asks (so `Resolve` can
/// borrow them, and a step allocates nothing to ask), to find a key a node needs in two ways,
/// and to note what a step would otherwise read again and again: where an unguarded node leads,
/// whether a line can be said exactly as written, and the offer of a menu that asks nothing.
/// That work is proportional to the playbook and done once; stepping is not.
#[derive(Debug, Clone)]
pub struct PlayContext<'p> {
    playbook: &'p Playbook,
    questions: Vec<Question<'p>>,
    plans: Vec<NodePlan<'p>>,
    segments: Vec<Range<u32>>,
    conflicts: Vec<(&'p str, AnswerKind, AnswerKind)>,
    offers: Vec<Vec<OfferedOption<'p>>>,
}

/// Marks an absent index in a [`NodePlan`].
const NONE: u32 = u32::MAX;

/// What the runner read off one node: indices into the context's tables, kept small so a walk
/// over many nodes stays in cache.
#[derive(Debug, Clone)]
struct NodePlan<'p> {
    /// A key this node needs in two ways, as an index into `conflicts`.
    conflict: u32,
    /// The questions asked before playing from each segment: a range of `segments`, each of
    /// which is a range of `questions`.
    to_play: Range<u32>,
    /// The questions asked before leaving, as a range of `questions`.
    to_leave: Range<u32>,
    /// Where the node leads when nothing is asked on leaving it.
    onward: u32,
    /// Its `succession` fall-through.
    succession: u32,
    /// A line with neither commands nor queries: said exactly as written.
    quiet: bool,
    /// A quiet line with no condition: what arriving at it says (speaker, words), read here so
    /// a walk through plain lines never touches the nodes themselves.
    said: Option<(Option<&'p str>, &'p [Fragment])>,
    /// A menu that asks nothing: its offer, as an index into `offers`.
    offer: u32,
}

fn index(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(NONE)
}

fn present(value: u32) -> Option<usize> {
    (value != NONE).then_some(value as usize)
}

impl<'p> PlayContext<'p> {
    /// Reads a playbook for playing.
    pub fn new(playbook: &'p Playbook) -> Self {
        let mut context = PlayContext {
            playbook,
            questions: Vec::new(),
            plans: Vec::with_capacity(playbook.nodes.len()),
            segments: Vec::with_capacity(playbook.nodes.len()),
            conflicts: Vec::new(),
            offers: Vec::new(),
        };
        for node in &playbook.nodes {
            let plan = context.plan(node);
            context.plans.push(plan);
        }
        context
    }

    /// The playbook being played.
    pub fn playbook(&self) -> &'p Playbook {
        self.playbook
    }

    /// The questions asked before playing `node` from `segment`, in the order the node needs
    /// them, each key once. Empty for a node or segment that asks nothing (or does not exist).
    pub fn questions_to_play(&self, node: usize, segment: usize) -> &[Question<'p>] {
        let Some(plan) = self.plans.get(node) else { return &[] };
        let first = plan.to_play.start as usize;
        let last = plan.to_play.end as usize;
        match first.checked_add(segment) {
            Some(at) if at < last => self.slice(self.segments[at].clone()),
            _ => &[],
        }
    }

    /// The questions asked before leaving `node`: the conditions on its ways out.
    pub fn questions_to_leave(&self, node: usize) -> &[Question<'p>] {
        self.plans.get(node).map_or(&[], |plan| self.slice(plan.to_leave.clone()))
    }

    /// The questions a moment at a node asks.
    pub fn questions(&self, node: usize, moment: crate::Moment) -> &[Question<'p>] {
        match moment {
            crate::Moment::ToPlay(segment) => self.questions_to_play(node, segment),
            crate::Moment::ToLeave => self.questions_to_leave(node),
        }
    }

    /// A key `node` needs in two ways, with both kinds, if there is one.
    pub fn conflict(&self, node: usize) -> Option<(&'p str, AnswerKind, AnswerKind)> {
        self.plans.get(node).and_then(|plan| present(plan.conflict)).map(|i| self.conflicts[i])
    }

    /// Where `node` leads when nothing is asked on leaving it.
    pub(crate) fn onward(&self, node: usize) -> Option<usize> {
        self.plans.get(node).and_then(|plan| present(plan.onward))
    }

    /// The `succession` fall-through of `node`.
    pub(crate) fn succession(&self, node: usize) -> Option<usize> {
        self.plans.get(node).and_then(|plan| present(plan.succession))
    }

    /// How many segments `node` plays in: a line's commands split it; every other node is one.
    pub fn segment_count(&self, node: usize) -> usize {
        self.plans.get(node).map_or(0, |plan| plan.to_play.len())
    }

    /// What arriving at `node` says, when it is a quiet line with no condition.
    pub(crate) fn said(&self, node: usize) -> Option<(Option<&'p str>, &'p [Fragment])> {
        self.plans.get(node).and_then(|plan| plan.said)
    }

    /// Whether `node` is a line with neither commands nor queries.
    pub(crate) fn quiet(&self, node: usize) -> bool {
        self.plans.get(node).is_some_and(|plan| plan.quiet)
    }

    /// The offer of a menu that asks nothing.
    pub(crate) fn fixed_offer(&self, node: usize) -> Option<&[OfferedOption<'p>]> {
        self.plans.get(node).and_then(|plan| present(plan.offer)).map(|i| self.offers[i].as_slice())
    }

    fn slice(&self, range: Range<u32>) -> &[Question<'p>] {
        &self.questions[range.start as usize..range.end as usize]
    }

    fn push_group(&mut self, group: &[Question<'p>]) -> Range<u32> {
        let start = self.questions.len() as u32;
        for question in group {
            if !self.questions[start as usize..].iter().any(|q| q.key == question.key) {
                self.questions.push(*question);
            }
        }
        start..self.questions.len() as u32
    }

    fn plan(&mut self, node: &'p Node) -> NodePlan<'p> {
        let NodeAsks { to_play: play_groups, to_leave: leave } = NodeAsks::of(node);
        let quiet = match node {
            Node::Line { speech, .. } => !speech.iter().any(Fragment::is_command) && !has_keys(speech),
            _ => false,
        };
        let mut offer = NONE;
        if let Node::Choice { out, .. } = node {
            if play_groups.iter().all(Vec::is_empty) {
                let options: Vec<OfferedOption<'p>> = out
                    .iter()
                    .filter_map(|edge| match edge {
                        // No label asks anything here, so filling leaves each as written.
                        Edge::Option { label, .. } => Some(OfferedOption {
                            label: crate::stepping::answers::label(label, crate::stepping::no_answers()),
                            available: true,
                        }),
                        _ => None,
                    })
                    .collect();
                if !options.is_empty() {
                    offer = index(self.offers.len());
                    self.offers.push(options);
                }
            }
        }
        let conflict = match find_conflict(play_groups.iter().flatten().chain(leave.iter())) {
            Some(conflict) => {
                self.conflicts.push(conflict);
                index(self.conflicts.len() - 1)
            }
            None => NONE,
        };
        let first = self.segments.len() as u32;
        for group in &play_groups {
            let range = self.push_group(group);
            self.segments.push(range);
        }
        let to_play = first..self.segments.len() as u32;
        let to_leave = self.push_group(&leave);
        let onward = crate::stepping::departure::way_out(node, None).map_or(NONE, index);
        let succession = node.succession().map_or(NONE, index);
        let said = match node {
            Node::Line { speaker, speech, condition: None, .. } if quiet => Some((
                self.playbook.speaker(stagehand_playbook::position(*speaker)).and_then(|s| s.name.as_deref()),
                &speech[..],
            )),
            _ => None,
        };
        NodePlan { conflict, to_play, to_leave, onward, succession, quiet, said, offer }
    }
}

/// The questions one node asks, exactly as a [`PlayContext`] records them for it: before playing
/// each of its segments, and before leaving it. A tool that looks at every node once (`stagehand
/// check`'s key lints) reads them node by node through this, without holding a context for a
/// whole big playbook.
#[derive(Debug, Clone, Default)]
pub struct NodeAsks<'p> {
    /// The questions asked before playing from each segment, in the order the node needs them
    /// (a key may appear twice, as written).
    pub to_play: Vec<Vec<Question<'p>>>,
    /// The questions asked before leaving: the conditions on the node's ways out.
    pub to_leave: Vec<Question<'p>>,
}

impl<'p> NodeAsks<'p> {
    /// What `node` asks.
    pub fn of(node: &'p Node) -> Self {
        let mut play_groups: Vec<Vec<Question<'p>>> = Vec::new();
        let mut leave: Vec<Question<'p>> = Vec::new();
        let truth = |key: &'p str| Question { key, kind: AnswerKind::Truth };
        match node {
            Node::Line { speech, condition, out, .. } => {
                for (i, segment) in segments(speech).enumerate() {
                    let mut group = Vec::new();
                    if i == 0 {
                        group.extend(condition.as_ref().map(|c| truth(c.key_name())));
                    }
                    text_keys(segment.words, &mut group);
                    play_groups.push(group);
                }
                divert_keys(out, &mut leave);
            }
            Node::Control { condition, out, .. } => {
                play_groups.push(condition.as_ref().map(|c| truth(c.key_name())).into_iter().collect());
                divert_keys(out, &mut leave);
            }
            Node::Choice { out, .. } => {
                let mut group = Vec::new();
                for edge in out {
                    if let Edge::Option { label, condition, .. } = edge {
                        group.extend(condition.as_ref().map(|c| truth(c.key_name())));
                        text_keys(label, &mut group);
                    }
                }
                play_groups.push(group);
            }
            Node::RandomChoice { out } => {
                let mut group = Vec::new();
                for edge in out {
                    if let Edge::RandomOption { weight, condition, .. } = edge {
                        group.extend(condition.as_ref().map(|c| truth(c.key_name())));
                        if let Weight::Query { key } = weight {
                            group.push(Question { key, kind: AnswerKind::Number });
                        }
                    }
                }
                play_groups.push(group);
            }
            Node::Branch { out } => {
                play_groups.push(Vec::new());
                for edge in out {
                    if let Edge::Branch { condition: Some(c), .. } = edge {
                        leave.push(truth(c.key_name()));
                    }
                }
            }
            Node::End => play_groups.push(Vec::new()),
        }
        NodeAsks { to_play: play_groups, to_leave: leave }
    }

    /// Every question the node asks: to play, then to leave.
    pub fn questions(&self) -> impl Iterator<Item = &Question<'p>> {
        self.to_play.iter().flatten().chain(self.to_leave.iter())
    }

    /// A key the node needs in two ways, with both kinds, if there is one (what
    /// [`PlayContext::conflict`] reports for it).
    pub fn conflict(&self) -> Option<(&'p str, AnswerKind, AnswerKind)> {
        find_conflict(self.questions())
    }
}

fn text_keys<'p>(speech: &'p [Fragment], into: &mut Vec<Question<'p>>) {
    stagehand_playbook::for_each_key(speech, &mut |key| into.push(Question { key, kind: AnswerKind::Text }));
}

fn divert_keys<'p>(out: &'p [Edge], into: &mut Vec<Question<'p>>) {
    for edge in out {
        if let Edge::Divert { condition: Some(c), .. } = edge {
            into.push(Question { key: c.key_name(), kind: AnswerKind::Truth });
        }
    }
}

fn find_conflict<'a, 'p: 'a>(
    questions: impl Iterator<Item = &'a Question<'p>>,
) -> Option<(&'p str, AnswerKind, AnswerKind)> {
    let mut seen: std::collections::HashMap<&'p str, AnswerKind> = std::collections::HashMap::new();
    for question in questions {
        match seen.get(question.key) {
            Some(&kind) if kind != question.kind => return Some((question.key, kind, question.kind)),
            Some(_) => {}
            None => {
                seen.insert(question.key, question.kind);
            }
        }
    }
    None
}
