//! Arriving: a walk. Visit a node, and carry on only while it hands the host nothing; the first
//! node that asks for something is where the run stands.

use stagehand_playbook::Node;

use super::{no_answers, Arrived, Stepper};
use crate::protocol::{Event, RefusalReason};
use crate::state::{Moment, Situation};

/// How many nodes more than the playbook has a run may pass without giving the person the turn,
/// once the host has had a say on the way (D10 of `docs/design/runner.md`): room for a loop the
/// world ends (a counter it ticks), and a bound on the time and memory of one that never ends.
pub(crate) const SILENT_ALLOWANCE: usize = 10_000;

impl<'c, 'p: 'c, 'e> Stepper<'c, 'p, 'e> {
    /// Walks from `target`, counting every node it passes (D10 of `docs/design/runner.md`).
    ///
    /// Within one step the bound is exact: a walk that passes more nodes than the playbook has
    /// must have visited one twice without handing the host anything, and nothing it reads
    /// changes as it goes, so it is in an endless loop. The count also carries over the host's
    /// `done` and `supply` (it lives in the situation) until the run next gives the person the
    /// turn, so a ring that only performs commands or only asks questions is caught too, once it
    /// has passed [`SILENT_ALLOWANCE`] nodes more than the playbook has.
    ///
    /// `fallback` is where the run stands if `target` is not a node at all (only a hand-built
    /// playbook can say so; the reader refuses such a document).
    pub(crate) fn walk(&mut self, target: usize, fallback: Situation) -> Situation {
        let bound = self.context.playbook().nodes.len();
        let mut here = target;
        let mut standing = fallback;
        let mut walked = 0usize;
        loop {
            if let Some((speaker, speech)) = self.context.said(here) {
                // A plain line: said as written, read off the context without touching the node.
                self.passed = 0;
                self.events.push(Event::Said { speaker, speech: speech.into() });
                return Situation::AtNode(here);
            }
            let Some(node) = self.node(here) else {
                self.refuse(
                    RefusalReason::LeadsNowhere,
                    format!("the way onward leads to node {here}, and the playbook has only {bound} node(s)"),
                );
                return standing;
            };
            walked += 1;
            self.passed = self.passed.saturating_add(1);
            if walked > bound {
                self.refuse(
                    RefusalReason::EndlessLoop,
                    format!(
                        "the walk passed {walked} nodes without handing the host anything, more than the playbook's \
                         {bound}: it is going round a loop (node {here} is on it)"
                    ),
                );
                return Situation::AtNode(here);
            }
            if self.passed > bound.saturating_add(SILENT_ALLOWANCE) {
                self.refuse(
                    RefusalReason::EndlessLoop,
                    format!(
                        "the run passed {} nodes since it last said a line or offered a menu, handing the host only \
                         commands and questions: it is going round a loop the world does not end (node {here} is on it)",
                        self.passed
                    ),
                );
                return Situation::AtNode(here);
            }
            match self.arrive_at(here, node) {
                Arrived::Stands(situation) => return situation,
                Arrived::WalkOn(next) => {
                    standing = Situation::AtNode(here);
                    here = next;
                }
            }
        }
    }

    /// Arriving at one node: refuse a node that needs a key two ways, ask what playing it needs,
    /// or play it.
    fn arrive_at(&mut self, index: usize, node: &'p Node) -> Arrived {
        if let Some((key, first, second)) = self.context.conflict(index) {
            self.refuse(
                RefusalReason::KeyNeededBothWays,
                format!(
                    "node {index} needs the key {key:?} both as {first} and as {second}, which one answer cannot be"
                ),
            );
            return Arrived::Stands(Situation::AtNode(index));
        }
        match node {
            Node::End => {
                self.events.push(Event::Ended);
                Arrived::Stands(Situation::AtEnd)
            }
            // A branch has nothing to ask on the way in: all its reading happens on the way out.
            Node::Branch { .. } => self.leave(index, None),
            _ => {
                let asks = self.context.questions_to_play(index, 0);
                if asks.is_empty() {
                    self.play(index, 0, no_answers())
                } else {
                    self.events.push(Event::Resolve { questions: asks.into() });
                    Arrived::Stands(Situation::AwaitingSupply {
                        node: index,
                        moment: Moment::ToPlay(0),
                        passed: self.passed,
                    })
                }
            }
        }
    }

    /// A node the world withholds, or a menu with nothing to take, is stepped over by its
    /// succession alone — never by its own jump.
    pub(crate) fn step_over(&mut self, index: usize, why: &str) -> Arrived {
        match self.context.succession(index) {
            Some(next) => Arrived::WalkOn(next),
            None => {
                self.refuse(
                    RefusalReason::LeadsNowhere,
                    format!("node {index} {why}, and it has no succession to fall through to"),
                );
                Arrived::Stands(Situation::AtNode(index))
            }
        }
    }
}
