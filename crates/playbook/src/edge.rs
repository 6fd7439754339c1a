//! Edges: the ways out of a node.

use smallvec::SmallVec;

use crate::condition::{Condition, Weight};
use crate::reference::position;
use crate::speech::Speech;

/// A node's ways out, in order. Most nodes have exactly one — the succession — which is kept
/// inline, so such a node costs no allocation for it. Build one with [`smallvec!`](crate::smallvec)
/// (`smallvec![Edge::Succession { target: 1 }]`), `Edges::new()`, or `vec![…].into()`; it
/// dereferences to `[Edge]`.
pub type Edges = SmallVec<[Edge; 1]>;

/// A way out of a node. Its target is the node's position as a `u32` (PB7: a playbook holds at
/// most `u32::MAX + 1` nodes; the readers refuse a reference beyond that, the compiler never
/// makes one); [`Edge::target`] gives it as a `usize` to index with.
#[derive(Debug, Clone, PartialEq)]
pub enum Edge {
    /// Reading order: what follows when nothing says otherwise (the fall-through).
    Succession {
        /// The node it leads to.
        target: u32,
    },
    /// One arm a player may pick, with its label compiled in.
    Option {
        /// The node it leads to.
        target: u32,
        /// What the player reads to decide.
        label: Speech,
        /// What must hold for the option to be available.
        condition: Option<Condition>,
    },
    /// One arm the engine may pick. No label: nothing is shown.
    RandomOption {
        /// The node it leads to.
        target: u32,
        /// How often it is taken.
        weight: Weight,
        /// What must hold for the arm to be drawn at all.
        condition: Option<Condition>,
    },
    /// One arm of a conditional block, or its else when it has no condition.
    Branch {
        /// The node it leads to.
        target: u32,
        /// What must hold for the arm to be taken; none for the else.
        condition: Option<Condition>,
    },
    /// A jump that does not return.
    Divert {
        /// The node it leads to.
        target: u32,
        /// What the writer called the jump.
        label: Speech,
        /// What must hold for the jump to be taken.
        condition: Option<Condition>,
    },
}

/// The kind of an edge, as the wire spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// `succession`
    Succession,
    /// `option`
    Option,
    /// `random-option`
    RandomOption,
    /// `branch`
    Branch,
    /// `divert`
    Divert,
}

impl EdgeKind {
    /// Every edge kind the format defines, in schema order.
    pub const ALL: [EdgeKind; 5] =
        [EdgeKind::Succession, EdgeKind::Option, EdgeKind::RandomOption, EdgeKind::Branch, EdgeKind::Divert];

    /// The wire spelling of the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Succession => "succession",
            EdgeKind::Option => "option",
            EdgeKind::RandomOption => "random-option",
            EdgeKind::Branch => "branch",
            EdgeKind::Divert => "divert",
        }
    }

    /// The kind a wire spelling names, if any.
    pub fn parse(name: &str) -> Option<EdgeKind> {
        EdgeKind::ALL.into_iter().find(|kind| kind.as_str() == name)
    }
}

impl std::fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Edge {
    /// The edge's kind.
    pub fn kind(&self) -> EdgeKind {
        match self {
            Edge::Succession { .. } => EdgeKind::Succession,
            Edge::Option { .. } => EdgeKind::Option,
            Edge::RandomOption { .. } => EdgeKind::RandomOption,
            Edge::Branch { .. } => EdgeKind::Branch,
            Edge::Divert { .. } => EdgeKind::Divert,
        }
    }

    /// The node the edge leads to, as a position to index the node table with.
    pub fn target(&self) -> usize {
        position(self.target_u32())
    }

    /// The node the edge leads to, as stored.
    pub fn target_u32(&self) -> u32 {
        match self {
            Edge::Succession { target }
            | Edge::Option { target, .. }
            | Edge::RandomOption { target, .. }
            | Edge::Branch { target, .. }
            | Edge::Divert { target, .. } => *target,
        }
    }

    /// Points the edge at another node.
    pub fn set_target(&mut self, to: u32) {
        match self {
            Edge::Succession { target }
            | Edge::Option { target, .. }
            | Edge::RandomOption { target, .. }
            | Edge::Branch { target, .. }
            | Edge::Divert { target, .. } => *target = to,
        }
    }

    /// The edge's condition, if it carries one. A succession never does.
    pub fn condition(&self) -> Option<&Condition> {
        match self {
            Edge::Succession { .. } => None,
            Edge::Option { condition, .. }
            | Edge::RandomOption { condition, .. }
            | Edge::Branch { condition, .. }
            | Edge::Divert { condition, .. } => condition.as_ref(),
        }
    }

    /// Whether this edge is a `succession` fall-through.
    pub fn is_succession(&self) -> bool {
        matches!(self, Edge::Succession { .. })
    }
}
