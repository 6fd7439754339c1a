//! A menu: its offer, and the `choose` that answers it. Both halves read the same options, so
//! how the offer lists them and how a position is counted against them live together.

use std::borrow::Cow;

use stagehand_playbook::{Edge, Node};

use super::answers::{guard_holds, label};
use super::{Arrived, Stepper};
use crate::protocol::{Answers, Event, OfferedOption, RefusalReason};
use crate::state::{Availability, Situation};

/// A choice node's options, in the order written. Its succession is not an option.
fn options(node: &Node) -> impl Iterator<Item = &Edge> {
    node.out().iter().filter(|edge| matches!(edge, Edge::Option { .. }))
}

impl<'c, 'p: 'c, 'e> Stepper<'c, 'p, 'e> {
    /// Offers every option in the order written, each with its label and whether it can be
    /// taken; a menu with nothing available is walked past by its fall-through.
    pub(crate) fn offer(&mut self, index: usize, node: &'p Node, answers: &Answers<'_>) -> Arrived {
        let Node::Choice { ordered, .. } = node else { return Arrived::Stands(Situation::AtNode(index)) };
        if let Some(options) = self.context.fixed_offer(index) {
            // A menu that asks nothing offers what the context read off it at load.
            self.passed = 0;
            self.events.push(Event::Offer { ordered: *ordered, options: Cow::Borrowed(options) });
            return Arrived::Stands(Situation::AwaitingChoice { node: index, available: Availability::All });
        }
        let offered: Vec<OfferedOption<'c>> = options(node)
            .map(|edge| match edge {
                Edge::Option { label: words, condition, .. } => {
                    OfferedOption { label: label(words, answers), available: guard_holds(condition.as_ref(), answers) }
                }
                _ => OfferedOption { label: Default::default(), available: false },
            })
            .collect();
        if !offered.iter().any(|option| option.available) {
            let why =
                if offered.is_empty() { "is a menu with no options" } else { "is a menu with no option available" };
            return self.step_over(index, why);
        }
        let available = Availability::from_fn(offered.len(), |i| offered[i].available);
        self.passed = 0;
        self.events.push(Event::Offer { ordered: *ordered, options: Cow::Owned(offered) });
        Arrived::Stands(Situation::AwaitingChoice { node: index, available })
    }

    /// Takes the option at `position` among those offered, and arrives where it leads.
    pub(crate) fn choose(
        &mut self,
        situation: &Situation,
        index: usize,
        available: &Availability,
        position: i64,
    ) -> Situation {
        let Some(node @ Node::Choice { .. }) = self.node(index) else {
            self.refuse(RefusalReason::Misplaced, format!("choose cannot be taken here: node {index} is not a menu"));
            return situation.clone();
        };
        let count = options(node).count();
        let Some(edge) = usize::try_from(position).ok().and_then(|p| options(node).nth(p)) else {
            self.refuse(
                RefusalReason::NoSuchOption,
                format!(
                    "the menu offered {count} option(s), at positions 0 to {}; there is no option at {position}",
                    count.saturating_sub(1)
                ),
            );
            return situation.clone();
        };
        if !available.contains(position as usize) {
            self.refuse(
                RefusalReason::UnavailableOption,
                format!("the option at position {position} was offered as unavailable; choose another"),
            );
            return situation.clone();
        }
        self.walk(edge.target(), situation.clone())
    }
}
