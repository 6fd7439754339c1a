//! Properties over drawn playbooks: the reader accepts every one, reading what the writer wrote
//! gives the playbook back, and a driver that answers every request never meets a panic, never
//! has an answer it built from the request turned away, and only ever stands where the playbook
//! has a node (and, inside a line, at a resume place the line has).

mod common;

use common::generate;
use proptest::prelude::*;
use stagehand_playbook::{read, segments, write, Node, Playbook};
use stagehand_runner::{
    step, Answer, AnswerKind, Answers, Command, Event, Moment, PlayContext, PlayState, RefusalReason, Resume, Situation,
};

/// Where a run may stand, given its playbook.
fn stands_where_the_playbook_has_a_node(playbook: &Playbook, situation: &Situation) -> Result<(), String> {
    let Some(index) = situation.node() else { return Ok(()) };
    let node = playbook.nodes.get(index).ok_or(format!("stands at node {index}, which does not exist"))?;
    match situation {
        Situation::AwaitingDone { resume: Resume::From(k), .. } => match node {
            Node::Line { speech, .. } if *k < segments(speech).count() => Ok(()),
            _ => Err(format!("resumes from segment {k} of node {index}, which has no such segment")),
        },
        Situation::AwaitingSupply { moment: Moment::ToPlay(k), .. } if *k > 0 => match node {
            Node::Line { speech, .. } if *k < segments(speech).count() => Ok(()),
            _ => Err(format!("asks before segment {k} of node {index}, which has no such segment")),
        },
        Situation::AwaitingChoice { .. } if !matches!(node, Node::Choice { .. }) => {
            Err(format!("waits for a choice at node {index}, which is not a menu"))
        }
        _ => Ok(()),
    }
}

/// A drawn driver's decisions: answers, choices, and when to fail an effect once.
#[derive(Debug, Clone)]
struct Driver {
    coins: Vec<u8>,
    at: usize,
}

impl Driver {
    fn coin(&mut self) -> u8 {
        let coin = self.coins.get(self.at % self.coins.len().max(1)).copied().unwrap_or(0);
        self.at += 1;
        coin
    }

    /// What to send after a step: a fresh start at the end or after a refusal, else the answer.
    fn after(&mut self, events: &[Event<'_>], situation: &Situation, failed_last: &mut bool) -> Command<'static> {
        let stuck = events.iter().any(|e| matches!(e, Event::Refused { .. }));
        if *situation == Situation::AtEnd || stuck {
            Command::start()
        } else {
            self.answer(events, failed_last)
        }
    }

    /// The command answering the last step's events, or `next` when they asked nothing.
    fn answer(&mut self, events: &[Event<'_>], failed_last: &mut bool) -> Command<'static> {
        if *failed_last && events.is_empty() {
            // After a failure the run stands still, waiting on the host: retry.
            *failed_last = false;
            return Command::Done;
        }
        for event in events.iter().rev() {
            match event {
                Event::Perform { .. } => {
                    if !*failed_last && self.coin().is_multiple_of(5) {
                        *failed_last = true;
                        return Command::failed("not now");
                    }
                    *failed_last = false;
                    return Command::Done;
                }
                Event::Resolve { questions } => {
                    let mut answers = Answers::with_capacity(questions.len());
                    for question in questions.iter() {
                        let coin = self.coin();
                        let answer = match question.kind {
                            AnswerKind::Truth => Answer::Truth(coin.is_multiple_of(2)),
                            AnswerKind::Text => Answer::Text(["", "Robin", "ä"][usize::from(coin % 3)].into()),
                            AnswerKind::Number => Answer::Number(f64::from(coin % 4) * 25.0),
                        };
                        answers.insert(question.key.to_owned(), answer);
                    }
                    return Command::Supply(answers);
                }
                Event::Offer { options, .. } => {
                    let open: Vec<usize> = (0..options.len()).filter(|&i| options[i].available).collect();
                    let pick = open[usize::from(self.coin()) % open.len()];
                    return Command::Choose(pick as i64);
                }
                _ => {}
            }
        }
        Command::Next
    }
}

/// Refusals a driver answering every request faithfully must never meet.
fn driver_was_at_fault(reason: RefusalReason) -> bool {
    !matches!(reason, RefusalReason::LeadsNowhere | RefusalReason::EndlessLoop | RefusalReason::AlreadyEnded)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn every_drawn_playbook_passes_the_reader_and_round_trips(playbook in generate::playbook(12)) {
        let written = write(&playbook);
        let read_back = read(&written).map_err(|e| TestCaseError::fail(format!("{e}\n{written}")))?;
        prop_assert_eq!(&read_back, &playbook);
        prop_assert_eq!(write(&read_back), written);
    }

    #[test]
    fn a_driver_that_answers_every_request_is_never_turned_away(
        playbook in generate::playbook(12),
        coins in prop::collection::vec(any::<u8>(), 1..64),
        seed in any::<u64>(),
    ) {
        let context = PlayContext::new(&playbook);
        let mut state = PlayState::seeded(seed);
        let mut driver = Driver { coins, at: 0 };
        let mut failed_last = false;
        let mut command = Command::start();
        for _ in 0..200 {
            let result = step(&context, &state, command);
            for event in &result.events {
                if let Event::Refused { reason, explanation } = event {
                    prop_assert!(!driver_was_at_fault(*reason), "refused {reason}: {explanation}");
                }
            }
            stands_where_the_playbook_has_a_node(&playbook, &result.state.situation).map_err(TestCaseError::fail)?;
            command = driver.after(&result.events, &result.state.situation, &mut failed_last);
            state = result.state;
        }
    }

    #[test]
    fn stepping_is_deterministic(playbook in generate::playbook(8), seed in any::<u64>()) {
        let context = PlayContext::new(&playbook);
        let once = step(&context, &PlayState::seeded(seed), Command::start());
        let twice = step(&context, &PlayState::seeded(seed), Command::start());
        prop_assert_eq!(once, twice);
    }
}

/// The generator and the walk keep pace with the format: every node kind is drawn, and some walk
/// stops inside a line, waits on the host, asks the world, and offers a menu.
#[test]
fn the_generator_draws_every_kind_and_the_walk_meets_every_situation() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;

    let mut runner = TestRunner::deterministic();
    let strategy = generate::playbook(12);
    let mut kinds = BTreeSet::new();
    let mut situations = BTreeSet::new();
    for round in 0..400u64 {
        let playbook = strategy.new_tree(&mut runner).expect("a playbook").current();
        kinds.extend(playbook.nodes.iter().map(Node::kind));
        let context = PlayContext::new(&playbook);
        let mut state = PlayState::seeded(round);
        let mut driver = Driver { coins: (0..32).map(|i| (i * 37 + round as usize) as u8).collect(), at: 0 };
        let mut failed_last = false;
        let mut command = Command::start();
        for _ in 0..60 {
            let result = step(&context, &state, command);
            situations.insert(match &result.state.situation {
                Situation::NotStarted => "not-started",
                Situation::AtNode(_) => "at-node",
                Situation::AwaitingDone { resume: Resume::From(_), .. } => "stopped-inside-a-line",
                Situation::AwaitingDone { .. } => "awaiting-done",
                Situation::AwaitingSupply { moment: Moment::ToLeave, .. } => "asked-before-leaving",
                Situation::AwaitingSupply { .. } => "asked-before-playing",
                Situation::AwaitingChoice { .. } => "awaiting-choice",
                Situation::AtEnd => "at-end",
            });
            command = driver.after(&result.events, &result.state.situation, &mut failed_last);
            state = result.state;
        }
    }
    assert_eq!(kinds.len(), stagehand_playbook::NodeKind::ALL.len(), "drawn: {kinds:?}");
    for wanted in [
        "at-node",
        "stopped-inside-a-line",
        "awaiting-done",
        "asked-before-leaving",
        "asked-before-playing",
        "awaiting-choice",
        "at-end",
    ] {
        assert!(situations.contains(wanted), "no walk reached {wanted}: {situations:?}");
    }
}
