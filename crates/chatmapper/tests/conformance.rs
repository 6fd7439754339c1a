//! The ChatMapper conformance battery (`conformance/chatmapper/`): one named test per case, each
//! held by the conformance harness with [`ConformanceLoader`] plugged in; every case must conform.

use std::sync::Arc;

use stagehand_chatmapper::ConformanceLoader;
use stagehand_conformance::{discover, repository_root, Case, Harness, Outcome};

fn check(name: &str) {
    let dir = repository_root().join("conformance/chatmapper").join(name);
    let harness = Harness::new().with_loader(Arc::new(ConformanceLoader));
    let outcome = harness.run(&Case { name: name.to_owned(), dir });
    assert_eq!(outcome, Outcome::Conformed, "{name}");
}

/// Generates one `#[test]` per case, and `CASES`, the list of them.
macro_rules! cases {
    ($($test:ident => $name:literal,)*) => {
        const CASES: &[&str] = &[$($name),*];
        $(
            #[test]
            fn $test() {
                check($name);
            }
        )*
    };
}

cases! {
    a_conversation_whose_root_condition_is_false_cannot_start => "a-conversation-whose-root-condition-is-false-cannot-start",
    a_cross_conversation_link_keeps_state => "a-cross-conversation-link-keeps-state",
    a_failing_script_is_logged_and_play_goes_on => "a-failing-script-is-logged-and-play-goes-on",
    a_false_high_priority_candidate_suppresses_nothing => "a-false-high-priority-candidate-suppresses-nothing",
    a_group_script_is_not_run_when_no_child_is_chosen => "a-group-script-is-not-run-when-no-child-is-chosen",
    a_line_plays_before_any_choice => "a-line-plays-before-any-choice",
    a_link_into_a_root_whose_condition_is_false_is_dropped => "a-link-into-a-root-whose-condition-is-false-is-dropped",
    a_node_reached_only_from_another_conversation_competes_with_nobody =>
        "a-node-reached-only-from-another-conversation-competes-with-nobody",
    a_ring_of_groups_is_refused_as_a_possible_loop => "a-ring-of-groups-is-refused-as-a-possible-loop",
    a_root_script_runs_and_the_root_says_nothing => "a-root-script-runs-and-the-root-says-nothing",
    a_single_choice_plays_straight_through => "a-single-choice-plays-straight-through",
    a_supply_that_does_not_fit_is_refused => "a-supply-that-does-not-fit-is-refused",
    an_empty_condition_is_true => "an-empty-condition-is-true",
    an_endless_condition_is_stopped_by_the_budget => "an-endless-condition-is-stopped-by-the-budget",
    an_endless_script_is_stopped_by_the_budget => "an-endless-script-is-stopped-by-the-budget",
    an_input_prompt_asks_then_speaks => "an-input-prompt-asks-then-speaks",
    an_unevaluable_condition_counts_as_true => "an-unevaluable-condition-counts-as-true",
    bars_split_a_line_into_segments => "bars-split-a-line-into-segments",
    conditions_and_scripts => "conditions-and-scripts",
    delay_sim_status_waits_for_the_next_offered_set => "delay-sim-status-waits-for-the-next-offered-set",
    emphasis_becomes_styled_speech => "emphasis-becomes-styled-speech",
    empty_segments_are_dropped => "empty-segments-are-dropped",
    f_forces_a_menu_for_one_choice => "f-forces-a-menu-for-one-choice",
    math_random_is_deterministic_under_a_seed => "math-random-is-deterministic-under-a-seed",
    nested_groups_expand_and_carry_their_scripts => "nested-groups-expand-and-carry-their-scripts",
    passthrough_children_can_be_choices => "passthrough-children-can-be-choices",
    passthrough_puts_the_children_in_place => "passthrough-puts-the-children-in-place",
    picture_tokens_are_stripped => "picture-tokens-are-stripped",
    player_lines_without_menu_text_play_as_lines => "player-lines-without-menu-text-play-as-lines",
    priority_is_scoped_by_group => "priority-is-scoped-by-group",
    priority_suppression_keeps_the_best => "priority-suppression-keeps-the-best",
    refusals_out_of_place => "refusals-out-of-place",
    status_and_relationship_functions => "status-and-relationship-functions",
    statuses_and_variables_persist_across_conversations => "statuses-and-variables-persist-across-conversations",
    the_crossing_as_xml => "the-crossing-as-xml",
    the_crossing_staying_ashore => "the-crossing-staying-ashore",
    the_crossing_taking_the_ferry => "the-crossing-taking-the-ferry",
    the_crossing_without_the_token_script => "the-crossing-without-the-token-script",
    the_runaway_guard_stops_a_loop => "the-runaway-guard-stops-a-loop",
    the_var_equals_question_prompt_form => "the-var-equals-question-prompt-form",
    var_substitution_formats_numbers_as_lua => "var-substitution-formats-numbers-as-lua",
    was_offered_never_downgrades_was_displayed => "was-offered-never-downgrades-was-displayed",
    without_delay_sim_status_the_mark_is_immediate => "without-delay-sim-status-the-mark-is-immediate",
}

#[test]
fn every_case_folder_has_a_test() {
    let root = repository_root().join("conformance/chatmapper");
    let cases = discover(std::slice::from_ref(&root)).expect("the battery folder");
    let names: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
    for name in &names {
        assert!(CASES.contains(&name.as_str()), "{name} has no test: add it to the cases! list");
    }
    for name in CASES {
        assert!(root.join(name).join("fixture.json").is_file(), "{name} is listed but missing");
    }
    assert!(names.len() >= 30, "the battery has {} cases", names.len());
}
