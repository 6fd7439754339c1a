//! Each construct: what arriving reports, and which party the run then waits on.

mod common;

use common::*;
use stagehand_playbook::{smallvec, Fragment, Node, Weight};
use stagehand_runner::{Answer, Command, Moment, Resume, Situation};

fn end() -> Node {
    Node::End
}

#[test]
fn lines_play_their_words_and_commands_in_written_order() {
    let cases: Vec<(Vec<Fragment>, &str)> = vec![
        (text("Hello."), "said Alice \"Hello.\""),
        (vec![Fragment::text("Hello. "), wave()], "said Alice \"Hello. \" | perform Wave()"),
        (vec![wave()], "said Alice \"\" | perform Wave()"),
        (vec![wave(), Fragment::text(" Hello.")], "said Alice \"\" | perform Wave() | continued \" Hello.\""),
        (
            vec![Fragment::text("Hi. "), call("Bow"), Fragment::text(" "), wave(), Fragment::text(" Bye.")],
            "said Alice \"Hi. \" | perform Bow() | perform Wave() | continued \" Bye.\"",
        ),
    ];
    for (speech, want) in cases {
        let book = playbook(vec![line(0, speech, vec![next(1)]), end()]);
        let mut run = Run::new(&book);
        assert_eq!(run.send(Command::start()), want);
        if want.contains("perform") {
            assert_eq!(run.send(Command::Next), "refused misplaced", "the host must be done first");
            assert_eq!(run.send(Command::Done), "", "once the host is done, the player has the turn");
            assert_eq!(run.situation(), &Situation::AtNode(0));
        }
        assert_eq!(run.send(Command::Next), "ended");
    }
}

#[test]
fn a_query_after_a_command_stops_the_step_and_is_asked_once_the_host_is_done() {
    let speech = vec![
        Fragment::text("A "),
        call("One"),
        Fragment::text(" B "),
        call("Two"),
        Fragment::text(" "),
        Fragment::query("k"),
        Fragment::text("."),
    ];
    let book = playbook(vec![line(0, speech, vec![next(1)]), end()]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "said Alice \"A \" | perform One() | continued \" B \" | perform Two()");
    assert_eq!(run.situation(), &Situation::AwaitingDone { node: 0, resume: Resume::From(2), passed: 0 });
    assert_eq!(run.send(Command::Done), "resolve [k]");
    assert_eq!(run.send(supply(&[says("k", "15")])), "continued \" 15.\"");
    assert_eq!(run.send(Command::Next), "ended");
}

#[test]
fn a_condition_and_a_query_are_asked_in_one_resolve_and_a_withheld_line_is_stepped_over() {
    let speech = vec![Fragment::text("Hello, "), Fragment::query("name"), Fragment::text(".")];
    let book = playbook(vec![
        Node::Line {
            speaker: 0,
            speech: speech.into(),
            condition: Some(stagehand_playbook::Condition::key("met")),
            out: smallvec![divert(2, None), next(1)],
        },
        line(0, text("Onward."), vec![next(2)]),
        end(),
    ]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "resolve [met, name]");
    assert_eq!(run.send(supply(&[yes("met"), says("name", "Robin")])), "said Alice \"Hello, Robin.\"");
    // Withheld: stepped over by its succession, never by its own jump.
    let mut run = Run::new(&book);
    run.send(Command::start());
    assert_eq!(run.send(supply(&[no("met"), says("name", "Robin")])), "said Alice \"Onward.\"");
}

#[test]
fn answers_that_do_not_fit_the_question_are_refused_and_the_run_keeps_waiting() {
    let book = playbook(vec![guarded_line(0, "k", text("Hi."), vec![next(1)]), end()]);
    let mut run = Run::new(&book);
    run.send(Command::start());
    let waiting = run.state.clone();
    assert_eq!(run.send(supply(&[])), "refused unanswered-key");
    assert_eq!(run.send(supply(&[yes("k"), yes("other")])), "refused unasked-key");
    assert_eq!(run.send(supply(&[says("k", "yes")])), "refused wrong-answer-kind");
    assert_eq!(run.state, waiting);
    assert_eq!(run.send(supply(&[yes("k")])), "said Alice \"Hi.\"");
}

#[test]
fn a_key_needed_both_ways_is_refused_before_anything_is_asked() {
    let speech = vec![Fragment::query("k")];
    let book = playbook(vec![
        Node::Line {
            speaker: 0,
            speech: speech.into(),
            condition: Some(stagehand_playbook::Condition::key("k")),
            out: smallvec![next(1)],
        },
        end(),
    ]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "refused key-needed-both-ways");
    assert_eq!(run.situation(), &Situation::AtNode(0));
    // Restored straight into the wait, the answer is refused too.
    run.state.situation = Situation::AwaitingSupply { node: 0, moment: Moment::ToPlay(0), passed: 0 };
    assert_eq!(run.send(supply(&[yes("k")])), "refused key-needed-both-ways");
}

#[test]
fn a_control_node_with_two_effects_asks_twice_and_waits_once_then_moves_on() {
    let book = playbook(vec![
        control(vec![call("FadeIn"), call("Music")], vec![next(1)]),
        line(0, text("Hi."), vec![next(2)]),
        end(),
    ]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "perform FadeIn() | perform Music()");
    assert_eq!(run.send(Command::Done), "said Alice \"Hi.\"");
}

#[test]
fn a_jump_on_its_own_line_is_walked_past_and_a_guarded_one_asks_first() {
    let book = playbook(vec![
        control(vec![], vec![divert(2, None), next(1)]),
        line(0, text("Skipped."), vec![next(2)]),
        control(vec![], vec![divert(4, Some("rainy")), next(3)]),
        line(0, text("Dry."), vec![next(5)]),
        line(0, text("Wet."), vec![next(5)]),
        end(),
    ]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "resolve [rainy]");
    assert_eq!(run.situation(), &Situation::AwaitingSupply { node: 2, moment: Moment::ToLeave, passed: 2 });
    assert_eq!(run.send(supply(&[yes("rainy")])), "said Alice \"Wet.\"");
    let mut run = Run::new(&book);
    run.send(Command::start());
    assert_eq!(run.send(supply(&[no("rainy")])), "said Alice \"Dry.\"");
}

#[test]
fn a_branch_takes_the_first_arm_that_holds_and_asks_every_arm_at_once() {
    let book = playbook(vec![
        Node::Branch { out: smallvec![arm(1, Some("a")), arm(2, Some("b")), arm(3, None)] },
        line(0, text("A."), vec![next(4)]),
        line(0, text("B."), vec![next(4)]),
        line(0, text("Else."), vec![next(4)]),
        end(),
    ]);
    for (answers, want) in [
        ([yes("a"), yes("b")], "said Alice \"A.\""),
        ([no("a"), yes("b")], "said Alice \"B.\""),
        ([no("a"), no("b")], "said Alice \"Else.\""),
    ] {
        let mut run = Run::new(&book);
        assert_eq!(run.send(Command::start()), "resolve [a, b]");
        assert_eq!(run.send(supply(&answers)), want);
    }
}

#[test]
fn a_branch_with_no_arm_holding_and_no_else_skips_the_block() {
    let book = playbook(vec![
        Node::Branch { out: smallvec![arm(1, Some("a")), next(2)] },
        line(0, text("A."), vec![next(2)]),
        line(0, text("After."), vec![next(3)]),
        end(),
    ]);
    let mut run = Run::new(&book);
    run.send(Command::start());
    assert_eq!(run.send(supply(&[no("a")])), "said Alice \"After.\"");
}

#[test]
fn a_ring_that_concerns_nobody_is_refused_and_a_walk_the_length_of_the_playbook_is_not() {
    let ring = playbook(vec![control(vec![], vec![divert(1, None)]), control(vec![], vec![divert(0, None)])]);
    let mut run = Run::new(&ring);
    assert_eq!(run.send(Command::start()), "refused endless-loop");
    assert!(matches!(run.situation(), Situation::AtNode(_)));
    // Three silent nodes then the end: the walk passes exactly as many nodes as there are.
    let exact = playbook(vec![
        control(vec![], vec![divert(1, None)]),
        control(vec![], vec![divert(2, None)]),
        control(vec![], vec![divert(3, None)]),
        end(),
    ]);
    assert_eq!(Run::new(&exact).send(Command::start()), "ended");
}

#[test]
fn a_loop_back_to_a_guarded_node_asks_again() {
    let book =
        playbook(vec![guarded_line(0, "k", text("Now."), vec![next(1)]), control(vec![], vec![divert(0, None)])]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "resolve [k]");
    assert_eq!(run.send(supply(&[no("k")])), "resolve [k]");
    assert_eq!(run.send(supply(&[no("k")])), "resolve [k]");
    assert_eq!(run.send(supply(&[yes("k")])), "said Alice \"Now.\"");
}

#[test]
fn leading_nowhere_is_refused_where_the_run_stands() {
    let book = playbook(vec![line(0, text("Stuck."), vec![])]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "said Alice \"Stuck.\"");
    assert_eq!(run.send(Command::Next), "refused leads-nowhere");
    assert_eq!(run.situation(), &Situation::AtNode(0));
}

fn menu(ordered: bool, out: Vec<stagehand_playbook::Edge>) -> Node {
    Node::Choice { ordered, out: out.into() }
}

#[test]
fn a_menu_offers_every_option_and_refuses_what_it_cannot_take() {
    let book = playbook(vec![
        menu(true, vec![option(1, "Open the door", Some("key")), option(2, "Wait here", None)]),
        line(1, text("Open the door"), vec![next(3)]),
        line(1, text("Wait here"), vec![next(3)]),
        end(),
    ]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "resolve [key]");
    assert_eq!(run.send(supply(&[no("key")])), "offer ordered [(Open the door), Wait here]");
    assert_eq!(run.send(Command::Choose(0)), "refused unavailable-option");
    assert_eq!(run.send(Command::Choose(2)), "refused no-such-option");
    assert_eq!(run.send(Command::Choose(-1)), "refused no-such-option");
    assert_eq!(run.send(Command::Next), "refused misplaced");
    assert_eq!(run.send(Command::Choose(1)), "said - \"Wait here\"");
}

#[test]
fn a_menu_with_nothing_available_is_walked_past_or_leads_nowhere() {
    let with_fall_through = playbook(vec![
        menu(false, vec![option(1, "Open", Some("key")), next(2)]),
        line(1, text("Open"), vec![next(2)]),
        line(0, text("Past the menu."), vec![next(3)]),
        end(),
    ]);
    let mut run = Run::new(&with_fall_through);
    run.send(Command::start());
    assert_eq!(run.send(supply(&[no("key")])), "said Alice \"Past the menu.\"");
    let without =
        playbook(vec![menu(false, vec![option(1, "Open", Some("key"))]), line(1, text("Open"), vec![next(2)]), end()]);
    let mut run = Run::new(&without);
    run.send(Command::start());
    assert_eq!(run.send(supply(&[no("key")])), "refused leads-nowhere");
}

#[test]
fn a_label_is_offered_with_queries_filled_and_commands_removed() {
    let label = vec![Fragment::text("Greet "), Fragment::query("name"), Fragment::text(" "), wave()];
    let book = playbook(vec![
        menu(false, vec![stagehand_playbook::Edge::Option { target: 1, label: label.into(), condition: None }]),
        end(),
    ]);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "resolve [name]");
    assert_eq!(run.send(supply(&[says("name", "Bob")])), "offer [Greet Bob ]");
    assert_eq!(run.send(Command::Choose(0)), "ended");
}

#[test]
fn a_random_choice_draws_by_weight_from_the_seeded_entropy() {
    let book = playbook(vec![
        Node::RandomChoice {
            out: smallvec![
                random_arm(1, Weight::Number { percentage: 50.0 }, None),
                random_arm(2, Weight::Number { percentage: 50.0 }, None),
            ],
        },
        line(0, text("Heads."), vec![next(3)]),
        line(0, text("Tails."), vec![next(3)]),
        end(),
    ]);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..64 {
        let first = Run::seeded(&book, seed).send(Command::start());
        let again = Run::seeded(&book, seed).send(Command::start());
        assert_eq!(first, again, "one seed, one story");
        seen.insert(first);
    }
    assert_eq!(seen.len(), 2, "both sides come up over 64 seeds");
}

#[test]
fn a_random_choice_asks_conditions_and_dynamic_weights_and_leaves_out_what_fails() {
    let book = playbook(vec![
        Node::RandomChoice {
            out: smallvec![
                random_arm(1, Weight::Number { percentage: 50.0 }, Some("angry")),
                random_arm(2, Weight::Query { key: "mood".into() }, None),
            ],
        },
        line(0, text("Glare."), vec![next(3)]),
        line(0, text("Wave."), vec![next(3)]),
        end(),
    ]);
    for seed in 0..16 {
        let mut run = Run::seeded(&book, seed);
        assert_eq!(run.send(Command::start()), "resolve [angry, mood]");
        assert_eq!(run.send(supply(&[no("angry"), ("mood", Answer::Number(1.0))])), "said Alice \"Wave.\"");
    }
    let mut run = Run::new(&book);
    run.send(Command::start());
    assert_eq!(run.send(supply(&[no("angry"), ("mood", Answer::Number(-3.0))])), "refused wrong-answer-kind");
    assert_eq!(run.send(supply(&[no("angry"), ("mood", Answer::Truth(true))])), "refused wrong-answer-kind");
}

#[test]
fn a_random_choice_with_nothing_to_draw_falls_through() {
    let book = playbook(vec![
        Node::RandomChoice {
            out: smallvec![
                random_arm(1, Weight::Number { percentage: 0.0 }, None),
                random_arm(1, Weight::Number { percentage: 0.0 }, None),
                next(2)
            ],
        },
        line(0, text("Never."), vec![next(3)]),
        line(0, text("After."), vec![next(3)]),
        end(),
    ]);
    assert_eq!(Run::new(&book).send(Command::start()), "said Alice \"After.\"");
}

#[test]
fn a_random_choice_of_one_option_takes_it_whatever_it_weighs_unless_its_condition_fails() {
    let book = |weight: Weight, key: Option<&str>| {
        playbook(vec![
            Node::RandomChoice { out: smallvec![random_arm(1, weight, key), next(2)] },
            line(0, text("Always."), vec![next(3)]),
            line(0, text("After."), vec![next(3)]),
            end(),
        ])
    };
    for weight in [Weight::Number { percentage: 0.0 }, Weight::Number { percentage: 40.0 }, Weight::Auto] {
        for seed in 0..8 {
            let run = Run::seeded(&book(weight.clone(), None), seed).send(Command::start());
            assert_eq!(run, "said Alice \"Always.\"", "{weight:?}, seed {seed}");
        }
    }
    let guarded = book(Weight::Number { percentage: 0.0 }, Some("open"));
    let mut run = Run::new(&guarded);
    assert_eq!(run.send(Command::start()), "resolve [open]");
    assert_eq!(run.send(supply(&[no("open")])), "said Alice \"After.\"");
    let mut run = Run::new(&guarded);
    run.send(Command::start());
    assert_eq!(run.send(supply(&[("open", Answer::Truth(true))])), "said Alice \"Always.\"");
}

/// Drives a run, answering every `perform` with `done` and every `resolve` with "no", until it
/// stops handing the host things; returns the last step's report and how many commands were sent.
fn drive_the_world(run: &mut Run<'_>, first: Command<'static>, limit: usize) -> (String, usize) {
    let mut report = run.send(first);
    for sent in 1..=limit {
        let last = report.rsplit(" | ").next().unwrap_or_default();
        let command = if report.contains("refused") {
            return (report, sent);
        } else if last.starts_with("perform") {
            Command::Done
        } else if last.starts_with("resolve [k]") {
            supply(&[no("k")])
        } else {
            return (report, sent);
        };
        report = run.send(command);
    }
    (report, limit)
}

#[test]
fn a_ring_that_only_performs_is_refused_across_the_hand_offs() {
    // `("tick")` on a ring of two control nodes: each step hands the host a command, so the walk
    // never passes more nodes than the playbook has in one step, but it never gives the person
    // the turn either.
    let ring = playbook(vec![control(vec![wave()], vec![divert(1, None)]), control(vec![], vec![divert(0, None)])]);
    let mut run = Run::new(&ring);
    let (report, sent) = drive_the_world(&mut run, Command::start(), 1_000_000);
    assert!(report.contains("refused endless-loop"), "after {sent} commands: {report}");
}

#[test]
fn a_ring_that_only_asks_is_refused_across_the_hand_offs() {
    // A ring of guarded lines the world always withholds: only questions, never a line.
    let ring = playbook(vec![
        guarded_line(0, "k", text("One."), vec![next(1)]),
        guarded_line(0, "k", text("Two."), vec![next(0)]),
    ]);
    let mut run = Run::new(&ring);
    let (report, sent) = drive_the_world(&mut run, Command::start(), 1_000_000);
    assert!(report.contains("refused endless-loop"), "after {sent} commands: {report}");
}

#[test]
fn many_commands_between_lines_are_not_a_loop() {
    // A line, then a long run of commands (longer than the playbook is, counted over the whole
    // session), then the line again: each round says a line, so no round is refused.
    let mut nodes = vec![line(0, text("Again."), vec![next(1)])];
    for i in 1..=50 {
        nodes.push(control(vec![wave()], vec![next(i + 1)]));
    }
    nodes.push(control(vec![], vec![divert(0, None)]));
    let book = playbook(nodes);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start()), "said Alice \"Again.\"");
    for _ in 0..20 {
        let (report, _) = drive_the_world(&mut run, Command::Next, 1_000);
        assert_eq!(report, "said Alice \"Again.\"");
    }
}
