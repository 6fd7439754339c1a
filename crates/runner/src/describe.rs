//! `describe`: a pure query beside `step` that says where a run stands and why each way out is
//! or is not open. It changes nothing and asks nobody; what the world last said is the caller's
//! to pass in (the runner remembers no answer).

use stagehand_playbook::{plain_text, plain_text_with, Edge, EdgeKind, NodeKind, Weight};

use crate::context::PlayContext;
use crate::protocol::{Answer, Answers};
use crate::state::PlayState;
use crate::stepping::{answers::holds, drawing};

/// Where a run stands, as a person reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    /// The node the run stands at, if any.
    pub node: Option<usize>,
    /// Its kind.
    pub kind: Option<NodeKind>,
    /// What the run is waiting for, in words.
    pub waiting: &'static str,
    /// The speaker's name, for a line.
    pub speaker: Option<String>,
    /// The node's words as plain text (queries named `{Key}` unless answered).
    pub text: Option<String>,
    /// The node's own condition's key, and what the answers made of it.
    pub condition: Option<(String, Option<bool>)>,
    /// Every way out, in the order written.
    pub ways_out: Vec<WayOut>,
}

/// One way out of a node.
#[derive(Debug, Clone, PartialEq)]
pub struct WayOut {
    /// The edge's kind.
    pub kind: EdgeKind,
    /// The node it leads to.
    pub target: usize,
    /// Its label as plain text (options and jumps).
    pub label: Option<String>,
    /// The key guarding it, if any.
    pub condition: Option<String>,
    /// What the answers made of the guard: `Some(true)` open, `Some(false)` closed, `None` not
    /// answered (or unguarded).
    pub holds: Option<bool>,
    /// For a random option, its share of the draw in percent under the answers given.
    pub chance: Option<f64>,
}

/// Describes where a run stands. `answers` are what the world last said (a driver passes the
/// last `supply` it sent); guards they do not mention are reported as unanswered.
pub fn describe(context: &PlayContext<'_>, state: &PlayState, answers: Option<&Answers<'_>>) -> Description {
    let playbook = context.playbook();
    let situation = &state.situation;
    let empty = Answers::new();
    let given = answers.unwrap_or(&empty);
    let verdict = |key: &str| match given.get(key) {
        Some(Answer::Truth(b)) => Some(*b),
        _ => None,
    };
    // Where the run stands at no node the playbook has, there is only the wait to describe.
    let bare = |node: Option<usize>| Description {
        node,
        kind: None,
        waiting: situation.describe(),
        speaker: None,
        text: None,
        condition: None,
        ways_out: Vec::new(),
    };
    let Some(index) = situation.node() else { return bare(None) };
    let Some(node) = playbook.nodes.get(index) else { return bare(Some(index)) };
    let words = |speech: &[stagehand_playbook::Fragment]| {
        plain_text_with(speech, |key| match given.get(key) {
            Some(Answer::Text(text)) => text.to_string().into(),
            _ => stagehand_playbook::placeholder_for(key).into(),
        })
    };
    let (speaker, text) = match node {
        stagehand_playbook::Node::Line { speaker, speech, .. } => {
            (playbook.speaker(stagehand_playbook::position(*speaker)).and_then(|s| s.name.clone()), Some(words(speech)))
        }
        stagehand_playbook::Node::Control { effects, .. } => (None, Some(plain_text(effects))),
        _ => (None, None),
    };
    let chances = (node.kind() == NodeKind::RandomChoice).then(|| {
        let weights = drawing::weights(node, given);
        let total: f64 = weights.iter().sum();
        weights.into_iter().map(move |w| if total > 0.0 { 100.0 * w / total } else { 0.0 })
    });
    let mut chances = chances.into_iter().flatten();
    let ways_out = node
        .out()
        .iter()
        .map(|edge| {
            let condition = edge.condition().map(|c| c.key_name().to_owned());
            let label = match edge {
                Edge::Option { label, .. } | Edge::Divert { label, .. } => Some(words(label)),
                Edge::RandomOption { weight: Weight::Query { key }, .. } => Some(format!("weight {{{key}}}")),
                _ => None,
            };
            WayOut {
                kind: edge.kind(),
                target: edge.target(),
                label,
                holds: edge.condition().and_then(|c| verdict(c.key_name())),
                condition,
                chance: matches!(edge, Edge::RandomOption { .. }).then(|| chances.next()).flatten(),
            }
        })
        .collect();
    let condition = node.condition().map(|c| (c.key_name().to_owned(), answers.map(|a| holds(c, a))));
    Description {
        node: Some(index),
        kind: Some(node.kind()),
        waiting: situation.describe(),
        speaker,
        text,
        condition,
        ways_out,
    }
}
