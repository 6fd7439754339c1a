//! Leaving a node: ask which way out when its ways out are guarded, then go.

use stagehand_playbook::{Edge, Node};

use super::answers::holds;
use super::{Arrived, Stepper};
use crate::protocol::{Answers, Event, RefusalReason};
use crate::state::{Moment, Situation};

impl<'c, 'p: 'c, 'e> Stepper<'c, 'p, 'e> {
    /// Leaves `index`. Without answers, a node whose ways out are guarded asks the world first
    /// (one `Resolve` carrying every guard, A1); with them, the way the answers allow is taken.
    pub(crate) fn leave(&mut self, index: usize, answers: Option<&Answers<'_>>) -> Arrived {
        let onward = match answers {
            None => {
                let asks = self.context.questions_to_leave(index);
                if !asks.is_empty() {
                    self.events.push(Event::Resolve { questions: asks.into() });
                    return Arrived::Stands(Situation::AwaitingSupply {
                        node: index,
                        moment: Moment::ToLeave,
                        passed: self.passed,
                    });
                }
                self.context.onward(index)
            }
            Some(answers) => self.node(index).and_then(|node| way_out(node, Some(answers))),
        };
        match onward {
            Some(next) => Arrived::WalkOn(next),
            None => {
                let what =
                    self.node(index).map_or_else(|| "not in the playbook".to_owned(), |n| format!("a {}", n.kind()));
                self.refuse(
                    RefusalReason::LeadsNowhere,
                    format!(
                        "node {index} ({what}) has no way onward: no jump or arm was taken and it has no succession"
                    ),
                );
                Arrived::Stands(Situation::AtNode(index))
            }
        }
    }
}

/// Where a node leads: the first jump or arm taken, then the succession. A way out is taken when
/// nothing guards it, or when the answers say its guard holds; without answers, only an
/// unguarded way is taken, because nobody asked the world about the rest.
pub(crate) fn way_out(node: &Node, answers: Option<&Answers<'_>>) -> Option<usize> {
    let taken = |edge: &Edge| match edge.condition() {
        None => true,
        Some(condition) => answers.is_some_and(|answers| holds(condition, answers)),
    };
    let arm = match node {
        Node::Line { out, .. } | Node::Control { out, .. } => {
            out.iter().find(|edge| matches!(edge, Edge::Divert { .. })).filter(|edge| taken(edge))
        }
        Node::Branch { out } => out.iter().find(|edge| matches!(edge, Edge::Branch { .. }) && taken(edge)),
        _ => None,
    };
    arm.map(Edge::target).or_else(|| node.succession())
}
