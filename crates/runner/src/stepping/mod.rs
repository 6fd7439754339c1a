//! Stepping: the protocol matrix, and one module per part of a step.
//!
//! | Module | Owns |
//! | --- | --- |
//! | this one | what may be sent where: one `match (situation, command)` |
//! | `arrival` | the walk: visit a node, carry on only while it hands the host nothing; the loop bound |
//! | `playing` | what a node hands the host, by kind; the host's `done` |
//! | `choosing` | a menu's offer, and the `choose` that answers it |
//! | `drawing` | a random choice's draw |
//! | `departure` | leaving a node by the way the world allows |
//! | `answers` | holding a `supply` to what was asked; reading conditions; filling speech |

pub(crate) mod answers;
mod arrival;
mod choosing;
pub(crate) mod departure;
pub(crate) mod drawing;
mod playing;

use std::borrow::Cow;

use stagehand_playbook::Node;

use crate::context::PlayContext;
use crate::protocol::{Answers, Command, Event, RefusalReason};
use crate::state::{Entropy, Moment, Situation};

/// What arriving at (or playing, or leaving) a node decided.
pub(crate) enum Arrived {
    /// The run stands here now.
    Stands(Situation),
    /// The node handed the host nothing: the walk carries on to this node.
    WalkOn(usize),
}

/// One step in progress: the context, the events reported so far, and the entropy.
pub(crate) struct Stepper<'c, 'p, 'e> {
    pub(crate) context: &'c PlayContext<'p>,
    pub(crate) events: &'e mut Vec<Event<'c>>,
    pub(crate) entropy: Entropy,
    /// Nodes walked since the run last gave the person the turn (said a line, offered a menu),
    /// counted across the host's `done` and `supply`: the endless-loop bound's count.
    pub(crate) passed: usize,
}

static NO_ANSWERS: Answers<'static> = Answers::EMPTY;

impl<'c, 'p: 'c, 'e> Stepper<'c, 'p, 'e> {
    pub(crate) fn node(&self, index: usize) -> Option<&'p Node> {
        self.context.playbook().nodes.get(index)
    }

    pub(crate) fn refuse(&mut self, reason: RefusalReason, explanation: impl Into<String>) {
        self.events.push(Event::Refused { reason, explanation: explanation.into() });
    }

    /// Refuses and leaves the situation as it was.
    fn refuse_here(&mut self, situation: &Situation, reason: RefusalReason, explanation: String) -> Situation {
        self.refuse(reason, explanation);
        situation.clone()
    }

    /// The protocol matrix: what may be sent where.
    pub(crate) fn step(&mut self, situation: &Situation, command: Command<'_>) -> Situation {
        match (situation, command) {
            (_, Command::Start { anchor }) => self.start(situation, anchor),
            (Situation::NotStarted, Command::Next) => self.refuse_here(
                situation,
                RefusalReason::NotStarted,
                "next arrived before start: begin the run with start first".into(),
            ),
            (Situation::AtEnd, Command::Next) => self.refuse_here(
                situation,
                RefusalReason::AlreadyEnded,
                "next arrived after the run ended; start begins it again".into(),
            ),
            (Situation::AtNode(node), Command::Next) => self.depart(*node),
            (Situation::AwaitingDone { node, resume, passed }, Command::Done) => {
                self.passed = *passed;
                self.done(situation, *node, *resume)
            }
            // A failure settles nothing: the run stands where it is and reports nothing.
            (Situation::AwaitingDone { .. }, Command::Failed { .. }) => situation.clone(),
            (Situation::AwaitingSupply { node, moment, passed }, Command::Supply(answers)) => {
                self.passed = *passed;
                self.supply(situation, *node, *moment, &answers)
            }
            (Situation::AwaitingChoice { node, available }, Command::Choose(index)) => {
                self.choose(situation, *node, available, index)
            }
            (situation, command) => {
                let explanation = format!("{} cannot be taken here: {}", command.name(), situation.describe());
                self.refuse_here(situation, RefusalReason::Misplaced, explanation)
            }
        }
    }

    fn start(&mut self, situation: &Situation, anchor: Option<Cow<'_, str>>) -> Situation {
        let playbook = self.context.playbook();
        let target = match anchor {
            None => playbook.entry,
            Some(slug) => match playbook.anchor(&slug) {
                Some(target) => target,
                None => {
                    let known: Vec<&str> = playbook.anchors.keys().map(String::as_str).collect();
                    let explanation = if known.is_empty() {
                        format!("the playbook has no anchor {slug:?}; it has no anchors at all")
                    } else {
                        format!("the playbook has no anchor {slug:?}; its anchors are {}", known.join(", "))
                    };
                    return self.refuse_here(situation, RefusalReason::NoSuchAnchor, explanation);
                }
            },
        };
        self.walk(target, situation.clone())
    }

    fn supply(&mut self, situation: &Situation, node: usize, moment: Moment, answers: &Answers<'_>) -> Situation {
        if !self.moment_exists(node, moment) {
            let explanation = format!("supply cannot be taken here: node {node} has no such moment to answer");
            return self.refuse_here(situation, RefusalReason::Misplaced, explanation);
        }
        if let Some((key, first, second)) = self.context.conflict(node) {
            let explanation =
                format!("this node needs the key {key:?} both as {first} and as {second}, which one answer cannot be");
            return self.refuse_here(situation, RefusalReason::KeyNeededBothWays, explanation);
        }
        let asked = self.context.questions(node, moment);
        if let Err((reason, explanation)) = answers::check(asked, answers) {
            return self.refuse_here(situation, reason, explanation);
        }
        let arrived = match moment {
            Moment::ToPlay(segment) => self.play(node, segment, answers),
            Moment::ToLeave => self.leave(node, Some(answers)),
        };
        self.settle(arrived, node)
    }

    /// Whether a wait for the world at this node and moment is one the runner could have made.
    fn moment_exists(&self, node: usize, moment: Moment) -> bool {
        match (self.node(node), moment) {
            (None, _) | (Some(Node::End), _) => false,
            // Every node but a line plays in one segment, so this is `segment == 0` for them.
            (Some(_), Moment::ToPlay(segment)) => segment < self.context.segment_count(node),
            (Some(_), Moment::ToLeave) => true,
        }
    }

    /// Finishes a step that stopped at or walked on from `node`.
    pub(crate) fn settle(&mut self, arrived: Arrived, node: usize) -> Situation {
        match arrived {
            Arrived::Stands(situation) => situation,
            Arrived::WalkOn(next) => self.walk(next, Situation::AtNode(node)),
        }
    }

    /// Next, at a node: leave it by the way the world allows.
    fn depart(&mut self, node: usize) -> Situation {
        let arrived = self.leave(node, None);
        self.settle(arrived, node)
    }
}

pub(crate) fn no_answers() -> &'static Answers<'static> {
    &NO_ANSWERS
}
