//! The standard checkers, one rule each, in the order the reader runs them.

use std::ops::RangeInclusive;

use super::{Checker, Document, JsonPath, Refusal, Rule};
use crate::document::Format;
use crate::edge::{Edge, EdgeKind};
use crate::node::{Node, NodeKind};

/// Refuses a `format.version` outside the range this build reads.
#[derive(Debug, Clone)]
pub struct VersionChecker {
    versions: RangeInclusive<u64>,
}

impl VersionChecker {
    /// A checker accepting exactly these versions.
    pub fn new(versions: RangeInclusive<u64>) -> Self {
        VersionChecker { versions }
    }
}

impl Checker for VersionChecker {
    fn check_header(&self, format: &Format) -> Result<(), Refusal> {
        if self.versions.contains(&format.version) {
            return Ok(());
        }
        let (low, high) = (self.versions.start(), self.versions.end());
        let readable = if low == high { format!("version {low}") } else { format!("versions {low} to {high}") };
        let why = if format.version > *high { "newer than" } else { "older than" };
        Err(Refusal::new(
            Rule::Version,
            JsonPath::root().key("format").key("version"),
            format!("format version {} is {why} this reader, which reads {readable}", format.version),
        ))
    }
}

/// Refuses a capability in `format.requires` this build does not support. `uses` is advisory and
/// never refused.
#[derive(Debug, Clone)]
pub struct CapabilityChecker {
    supported: Vec<String>,
}

impl CapabilityChecker {
    /// A checker supporting exactly these capabilities.
    pub fn new(supported: impl IntoIterator<Item = String>) -> Self {
        CapabilityChecker { supported: supported.into_iter().collect() }
    }
}

impl Checker for CapabilityChecker {
    fn check_header(&self, format: &Format) -> Result<(), Refusal> {
        match format.requires.iter().position(|name| !self.supported.contains(name)) {
            None => Ok(()),
            Some(i) => Err(Refusal::new(
                Rule::Capability,
                JsonPath::root().key("format").key("requires").index(i),
                format!(
                    "the document requires the capability {:?}, which this reader does not support (it supports {})",
                    format.requires[i],
                    self.supported.iter().map(|c| format!("{c:?}")).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }
}

/// Refuses a node whose `id` is not its position, which also proves ids unique and gapless.
#[derive(Debug, Clone, Copy, Default)]
pub struct NodePositionChecker;

impl Checker for NodePositionChecker {
    fn check(&self, document: &Document<'_>) -> Result<(), Refusal> {
        for (position, &id) in document.claimed_ids.iter().enumerate() {
            if id != position as u64 {
                return Err(Refusal::new(
                    Rule::NodePosition,
                    JsonPath::root().key("nodes").index(position).key("id"),
                    format!("the node at position {position} claims the id {id}; a node's id must be its position"),
                ));
            }
        }
        Ok(())
    }
}

/// Refuses an entry, anchor, edge target or speaker index that lands nowhere. Two speakers may
/// share an id: speakers are addressed by position, and the schema allows it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReferenceChecker;

impl Checker for ReferenceChecker {
    fn check(&self, document: &Document<'_>) -> Result<(), Refusal> {
        let playbook = document.playbook;
        let nodes = playbook.nodes.len();
        // The path is built only for a refusal: most references land.
        let lands = |target: usize, path: &dyn Fn() -> JsonPath, what: &str| {
            if target < nodes {
                Ok(())
            } else {
                Err(Refusal::new(
                    Rule::Reference,
                    path(),
                    format!("{what} {target} lands nowhere: the playbook has {nodes} node(s), numbered from 0"),
                ))
            }
        };
        lands(playbook.entry, &|| JsonPath::root().key("entry"), "the entry")?;
        for (slug, &target) in &playbook.anchors {
            lands(target, &|| JsonPath::root().key("anchors").key(slug.as_str()), "the anchor's node")?;
        }
        for (position, node) in playbook.nodes.iter().enumerate() {
            let node_path = || JsonPath::root().key("nodes").index(position);
            if let Some(speaker) = node.speaker() {
                if speaker >= playbook.speakers.len() {
                    return Err(Refusal::new(
                        Rule::Reference,
                        node_path().key("speaker"),
                        format!(
                            "the speaker {speaker} lands nowhere: the playbook has {} speaker(s), numbered from 0",
                            playbook.speakers.len()
                        ),
                    ));
                }
            }
            for (i, edge) in node.out().iter().enumerate() {
                lands(edge.target(), &|| node_path().key("out").index(i).key("target"), "the edge's target")?;
            }
        }
        Ok(())
    }
}

/// The arm kind a node kind offers, if any.
pub(crate) fn arm_kind(kind: NodeKind) -> Option<EdgeKind> {
    match kind {
        NodeKind::Line | NodeKind::Control => Some(EdgeKind::Divert),
        NodeKind::Choice => Some(EdgeKind::Option),
        NodeKind::RandomChoice => Some(EdgeKind::RandomOption),
        NodeKind::Branch => Some(EdgeKind::Branch),
        NodeKind::End => None,
    }
}

/// Refuses a node whose ways out break the outward-shape rule: a non-`end` node's `out` holds
/// its arms (every edge of the one arm kind its node kind offers) and at most one `succession`
/// fall-through, which must be there when the node is conditional or has no open arm.
#[derive(Debug, Clone, Copy, Default)]
pub struct OutwardShapeChecker;

impl Checker for OutwardShapeChecker {
    fn check(&self, document: &Document<'_>) -> Result<(), Refusal> {
        for (position, node) in document.playbook.nodes.iter().enumerate() {
            let out_path = || JsonPath::root().key("nodes").index(position).key("out");
            let kind = node.kind();
            let Some(arm) = arm_kind(kind) else { continue };
            let (mut arms, mut open_arms, mut successions) = (0usize, 0usize, 0usize);
            for (i, edge) in node.out().iter().enumerate() {
                match edge.kind() {
                    EdgeKind::Succession => {
                        successions += 1;
                        if successions > 1 {
                            return Err(Refusal::new(
                                Rule::OutwardShape,
                                out_path().index(i),
                                format!("a {kind} node may fall through by one succession at most; this is its second"),
                            ));
                        }
                    }
                    edge_kind if edge_kind == arm => {
                        arms += 1;
                        if edge.condition().is_none() {
                            open_arms += 1;
                        }
                    }
                    foreign => {
                        return Err(Refusal::new(
                            Rule::OutwardShape,
                            out_path().index(i).key("kind"),
                            format!("a {kind} node's ways out are {arm} arms and a succession, not a {foreign}"),
                        ))
                    }
                }
            }
            match kind {
                NodeKind::Line | NodeKind::Control if arms > 1 => {
                    return Err(Refusal::new(
                        Rule::OutwardShape,
                        out_path(),
                        format!("a {kind} node may carry one divert at most; this one carries {arms}"),
                    ))
                }
                NodeKind::Choice | NodeKind::RandomChoice | NodeKind::Branch if arms == 0 => {
                    return Err(Refusal::new(
                        Rule::OutwardShape,
                        out_path(),
                        format!("a {kind} node needs at least one {arm} arm; this one has none"),
                    ))
                }
                _ => {}
            }
            let needs_fall_through = node.condition().is_some() || open_arms == 0;
            if needs_fall_through && successions == 0 {
                let why = if node.condition().is_some() {
                    "it is conditional"
                } else if arms == 0 {
                    "it has no arm"
                } else {
                    "every arm is gated"
                };
                return Err(Refusal::new(
                    Rule::OutwardShape,
                    out_path(),
                    format!("this {kind} node leads nowhere: {why}, and it has no succession to fall through to"),
                ));
            }
        }
        Ok(())
    }
}

/// Refuses a `branch` that lacks a gated arm, or whose else is not its last arm (which also
/// refuses a second else).
#[derive(Debug, Clone, Copy, Default)]
pub struct BranchArmOrderChecker;

impl Checker for BranchArmOrderChecker {
    fn check(&self, document: &Document<'_>) -> Result<(), Refusal> {
        for (position, node) in document.playbook.nodes.iter().enumerate() {
            let Node::Branch { out } = node else { continue };
            let out_path = || JsonPath::root().key("nodes").index(position).key("out");
            let arms: Vec<(usize, &Edge)> =
                out.iter().enumerate().filter(|(_, edge)| matches!(edge, Edge::Branch { .. })).collect();
            if !arms.iter().any(|(_, edge)| edge.condition().is_some()) {
                return Err(Refusal::new(
                    Rule::BranchArmOrder,
                    out_path(),
                    "a branch needs at least one gated arm; an else alone has nothing to fall back from",
                ));
            }
            let before_last = &arms[..arms.len() - 1];
            if let Some(&(i, _)) = before_last.iter().find(|(_, edge)| edge.condition().is_none()) {
                return Err(Refusal::new(
                    Rule::BranchArmOrder,
                    out_path().index(i),
                    "an else must be the branch's last arm, tried only after every gated arm",
                ));
            }
        }
        Ok(())
    }
}
