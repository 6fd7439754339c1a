//! Nodes: the steps of a playthrough.

use crate::condition::Condition;
use crate::edge::{Edge, Edges};
use crate::reference::position;
use crate::speech::Speech;

/// One step of a playthrough. Every kind but [`Node::End`] holds its ways out in `out`, in the
/// order written; the reader's outward-shape rule says which edge kinds each may hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A line somebody says.
    Line {
        /// The speaker's position in the speaker table (a `u32`, as every reference in the model:
        /// PB7; [`Node::speaker`] gives it as a `usize`).
        speaker: u32,
        /// What is said, including any commands written inside it.
        speech: Speech,
        /// What must hold for the line to play; a line the world withholds is stepped over.
        condition: Option<Condition>,
        /// At most one divert and at most one succession.
        out: Edges,
    },
    /// A choice the player makes. An option's text is on the edge that offers it.
    Choice {
        /// Whether the host must show the options in the order given.
        ordered: bool,
        /// The options, plus at most one succession to fall through to.
        out: Edges,
    },
    /// A choice the engine makes, by weight.
    RandomChoice {
        /// The random options, plus at most one succession to fall through to.
        out: Edges,
    },
    /// A conditional block: its arms are tried in order.
    Branch {
        /// The arms (the else last), plus at most one succession.
        out: Edges,
    },
    /// Effects and nothing else: nothing is said.
    Control {
        /// What the host performs here, in order.
        effects: Speech,
        /// What must hold for the effects to be performed.
        condition: Option<Condition>,
        /// At most one divert and at most one succession.
        out: Edges,
    },
    /// Where a run stops.
    End,
}

/// The kind of a node, as the wire spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKind {
    /// `line`
    Line,
    /// `choice`
    Choice,
    /// `random-choice`
    RandomChoice,
    /// `branch`
    Branch,
    /// `control`
    Control,
    /// `end`
    End,
}

impl NodeKind {
    /// Every node kind the format defines, in schema order.
    pub const ALL: [NodeKind; 6] =
        [NodeKind::Line, NodeKind::Choice, NodeKind::RandomChoice, NodeKind::Branch, NodeKind::Control, NodeKind::End];

    /// The wire spelling of the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Line => "line",
            NodeKind::Choice => "choice",
            NodeKind::RandomChoice => "random-choice",
            NodeKind::Branch => "branch",
            NodeKind::Control => "control",
            NodeKind::End => "end",
        }
    }

    /// The kind a wire spelling names, if any.
    pub fn parse(name: &str) -> Option<NodeKind> {
        NodeKind::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

impl std::fmt::Display for NodeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

static NO_EDGES: [Edge; 0] = [];

impl Node {
    /// The node's kind.
    pub fn kind(&self) -> NodeKind {
        match self {
            Node::Line { .. } => NodeKind::Line,
            Node::Choice { .. } => NodeKind::Choice,
            Node::RandomChoice { .. } => NodeKind::RandomChoice,
            Node::Branch { .. } => NodeKind::Branch,
            Node::Control { .. } => NodeKind::Control,
            Node::End => NodeKind::End,
        }
    }

    /// The node's ways out, in the order written; empty for an end.
    pub fn out(&self) -> &[Edge] {
        match self {
            Node::Line { out, .. }
            | Node::Choice { out, .. }
            | Node::RandomChoice { out }
            | Node::Branch { out }
            | Node::Control { out, .. } => out,
            Node::End => &NO_EDGES,
        }
    }

    /// The node's ways out, to change; `None` for an end, which has none and can get none.
    pub fn out_mut(&mut self) -> Option<&mut Edges> {
        match self {
            Node::Line { out, .. }
            | Node::Choice { out, .. }
            | Node::RandomChoice { out }
            | Node::Branch { out }
            | Node::Control { out, .. } => Some(out),
            Node::End => None,
        }
    }

    /// The speaker's position in the speaker table, for a line.
    pub fn speaker(&self) -> Option<usize> {
        match self {
            Node::Line { speaker, .. } => Some(position(*speaker)),
            _ => None,
        }
    }

    /// The node's own condition, for the kinds that may carry one.
    pub fn condition(&self) -> Option<&Condition> {
        match self {
            Node::Line { condition, .. } | Node::Control { condition, .. } => condition.as_ref(),
            _ => None,
        }
    }

    /// The node's single `succession` fall-through, if it has one (the first, if a hand-built
    /// node has several).
    pub fn succession(&self) -> Option<usize> {
        self.out().iter().find_map(|edge| match edge {
            Edge::Succession { target } => Some(position(*target)),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Condition, Fragment, Speech, Weight};

    /// The in-memory sizes the playbook's memory figures rest on (BENCHMARKS.md): a compiled
    /// script's playbook is mostly nodes, edges and fragments, so growing one of these grows
    /// every big playbook's memory with it.
    #[test]
    fn the_model_types_stay_small() {
        use std::mem::size_of;
        assert_eq!(size_of::<Speech>(), 16, "speech");
        assert_eq!(size_of::<Option<Condition>>(), 8, "an optional condition");
        assert!(size_of::<Fragment>() <= 32, "a fragment is {} bytes", size_of::<Fragment>());
        assert_eq!(size_of::<Weight>(), 16, "a weight");
        assert!(size_of::<Edge>() <= 32, "an edge is {} bytes", size_of::<Edge>());
        assert!(size_of::<Node>() <= 72, "a node is {} bytes", size_of::<Node>());
    }
}
