//! Playing a node: what it hands the host, by kind, and what follows the host's `done`.

use std::borrow::Cow;

use stagehand_playbook::{segments, Node};

use super::answers::{fill, guard_holds};
use super::{no_answers, Arrived, Stepper};
use crate::protocol::{Answers, Event, RefusalReason};
use crate::state::{Moment, Resume, Situation};

impl<'c, 'p: 'c, 'e> Stepper<'c, 'p, 'e> {
    /// Plays `index` from `segment` with the answers its moment was given.
    pub(crate) fn play(&mut self, index: usize, segment: usize, answers: &Answers<'_>) -> Arrived {
        let Some(node) = self.node(index) else {
            self.refuse(RefusalReason::LeadsNowhere, format!("node {index} is not in the playbook"));
            return Arrived::Stands(Situation::AtNode(index));
        };
        if segment == 0 && !guard_holds(node.condition(), answers) {
            return self.step_over(index, "was withheld by the world (its condition does not hold)");
        }
        match node {
            Node::Line { .. } => Arrived::Stands(self.play_line(index, node, segment, answers)),
            Node::Control { effects, .. } => {
                let before = self.events.len();
                for effect in effects.iter().filter(|fragment| fragment.is_command()) {
                    self.events.push(Event::Perform { effect });
                }
                if self.events.len() > before {
                    Arrived::Stands(Situation::AwaitingDone {
                        node: index,
                        resume: Resume::FromNodeEnd,
                        passed: self.passed,
                    })
                } else {
                    // A control node with no effects concerns nobody: a jump on its own line.
                    self.leave(index, None)
                }
            }
            Node::Choice { .. } => self.offer(index, node, answers),
            Node::RandomChoice { .. } => self.draw(index, node, answers),
            Node::Branch { .. } => self.leave(index, None),
            Node::End => {
                self.events.push(Event::Ended);
                Arrived::Stands(Situation::AtEnd)
            }
        }
    }

    /// Plays a line's segments from `from` up to its next stop: the words before the first
    /// command open the line with `Said` (even when there are none), each command is a `Perform`,
    /// and the words after a command are a `Continued` when they say something. The step stops
    /// before a query written after a command, so the query reads the world the command left.
    fn play_line(&mut self, index: usize, node: &'p Node, from: usize, answers: &Answers<'_>) -> Situation {
        let Node::Line { speaker, speech, .. } = node else { return Situation::AtNode(index) };
        let playbook = self.context.playbook();
        let name = playbook.speaker(stagehand_playbook::position(*speaker)).and_then(|s| s.name.as_deref());
        if from == 0 && self.context.quiet(index) {
            // Neither commands nor queries: said exactly as written, without reading the words.
            self.passed = 0;
            self.events.push(Event::Said { speaker: name, speech: Cow::Borrowed(speech) });
            return Situation::AtNode(index);
        }
        let mut performed = false;
        for (k, segment) in segments(speech).enumerate().skip(from) {
            if performed && segment.has_keys() {
                return Situation::AwaitingDone { node: index, resume: Resume::From(k), passed: self.passed };
            }
            if k == 0 {
                self.passed = 0;
                self.events.push(Event::Said { speaker: name, speech: fill(segment.words, answers) });
            } else if segment.says_something() {
                self.events.push(Event::Continued { speech: fill(segment.words, answers) });
            }
            if let Some(effect) = segment.command {
                self.events.push(Event::Perform { effect });
                performed = true;
            }
        }
        if performed {
            Situation::AwaitingDone { node: index, resume: Resume::FromNodeEnd, passed: self.passed }
        } else {
            Situation::AtNode(index)
        }
    }

    /// The host's `done`: a line goes on from where it stopped or gives the player the turn; a
    /// control node leaves.
    pub(crate) fn done(&mut self, situation: &Situation, index: usize, resume: Resume) -> Situation {
        match (self.node(index), resume) {
            (Some(node @ Node::Line { .. }), Resume::From(segment)) => {
                let asks = self.context.questions_to_play(index, segment);
                if !asks.is_empty() {
                    self.events.push(Event::Resolve { questions: asks.into() });
                    return Situation::AwaitingSupply {
                        node: index,
                        moment: Moment::ToPlay(segment),
                        passed: self.passed,
                    };
                }
                self.play_line(index, node, segment, no_answers())
            }
            // Once the host is done, a line waits for the player: it belongs to a speaker.
            (Some(Node::Line { .. }), Resume::FromNodeEnd) => Situation::AtNode(index),
            // A control block belongs to nobody: once the host is done, the run moves on.
            (Some(Node::Control { .. }), Resume::FromNodeEnd) => {
                let arrived = self.leave(index, None);
                self.settle(arrived, index)
            }
            _ => {
                self.refuse(
                    RefusalReason::Misplaced,
                    format!("done cannot be taken here: node {index} asked nothing of the host"),
                );
                situation.clone()
            }
        }
    }
}
