//! The ChatMapper conformance battery (`conformance/chatmapper/`): one named test per case, each
//! held by the harness with the ChatMapper loader plugged in (`stagehand_documents::conform`).
//! Every case is listed in `conformance/expected.txt`, so every case must conform.

mod common;

cases! {
    a_chain_of_a_hundred_and_fifty_false_passthrough_entries_is_followed => "chatmapper/a-chain-of-a-hundred-and-fifty-false-passthrough-entries-is-followed",
    a_chain_of_a_hundred_and_fifty_groups_is_followed => "chatmapper/a-chain-of-a-hundred-and-fifty-groups-is-followed",
    a_choice_whose_menu_text_renders_to_nothing_is_labelled_by_its_dialogue_text => "chatmapper/a-choice-whose-menu-text-renders-to-nothing-is-labelled-by-its-dialogue-text",
    a_conversation_whose_root_condition_is_false_cannot_start => "chatmapper/a-conversation-whose-root-condition-is-false-cannot-start",
    a_cross_conversation_link_keeps_state => "chatmapper/a-cross-conversation-link-keeps-state",
    a_failing_script_is_logged_and_play_goes_on => "chatmapper/a-failing-script-is-logged-and-play-goes-on",
    a_false_high_priority_candidate_suppresses_nothing => "chatmapper/a-false-high-priority-candidate-suppresses-nothing",
    a_group_script_is_not_run_when_no_child_is_chosen => "chatmapper/a-group-script-is-not-run-when-no-child-is-chosen",
    a_line_plays_before_any_choice => "chatmapper/a-line-plays-before-any-choice",
    a_link_into_a_root_whose_condition_is_false_is_dropped => "chatmapper/a-link-into-a-root-whose-condition-is-false-is-dropped",
    a_link_past_another_conversations_root_does_not_ask_it => "chatmapper/a-link-past-another-conversations-root-does-not-ask-it",
    a_missing_asset_has_no_status_and_shares_none => "chatmapper/a-missing-asset-has-no-status-and-shares-none",
    a_node_reached_only_from_another_conversation_competes_with_nobody => "chatmapper/a-node-reached-only-from-another-conversation-competes-with-nobody",
    a_ring_of_groups_is_refused_as_a_possible_loop => "chatmapper/a-ring-of-groups-is-refused-as-a-possible-loop",
    a_root_condition_reads_its_own_conversations_dialog_table => "chatmapper/a-root-condition-reads-its-own-conversations-dialog-table",
    a_root_script_runs_and_the_root_says_nothing => "chatmapper/a-root-script-runs-and-the-root-says-nothing",
    a_single_choice_plays_straight_through => "chatmapper/a-single-choice-plays-straight-through",
    a_supply_that_does_not_fit_is_refused => "chatmapper/a-supply-that-does-not-fit-is-refused",
    an_empty_condition_is_true => "chatmapper/an-empty-condition-is-true",
    an_endless_condition_is_stopped_by_the_budget => "chatmapper/an-endless-condition-is-stopped-by-the-budget",
    an_endless_script_is_stopped_by_the_budget => "chatmapper/an-endless-script-is-stopped-by-the-budget",
    an_input_prompt_answer_takes_its_variables_type => "chatmapper/an-input-prompt-answer-takes-its-variables-type",
    an_input_prompt_asks_then_speaks => "chatmapper/an-input-prompt-asks-then-speaks",
    an_unevaluable_condition_counts_as_true => "chatmapper/an-unevaluable-condition-counts-as-true",
    bars_split_a_line_into_segments => "chatmapper/bars-split-a-line-into-segments",
    conditions_and_scripts => "chatmapper/conditions-and-scripts",
    delay_sim_status_waits_for_the_next_offered_set => "chatmapper/delay-sim-status-waits-for-the-next-offered-set",
    emphasis_becomes_styled_speech => "chatmapper/emphasis-becomes-styled-speech",
    empty_segments_are_dropped => "chatmapper/empty-segments-are-dropped",
    f_forces_a_menu_for_one_choice => "chatmapper/f-forces-a-menu-for-one-choice",
    math_random_is_deterministic_under_a_seed => "chatmapper/math-random-is-deterministic-under-a-seed",
    menu_text_of_only_whitespace_is_a_line => "chatmapper/menu-text-of-only-whitespace-is-a-line",
    names_and_titles_in_a_json_export_stay_text => "chatmapper/names-and-titles-in-a-json-export-stay-text",
    nested_groups_expand_and_carry_their_scripts => "chatmapper/nested-groups-expand-and-carry-their-scripts",
    passthrough_children_can_be_choices => "chatmapper/passthrough-children-can-be-choices",
    passthrough_puts_the_children_in_place => "chatmapper/passthrough-puts-the-children-in-place",
    picture_tokens_are_stripped => "chatmapper/picture-tokens-are-stripped",
    player_lines_without_menu_text_play_as_lines => "chatmapper/player-lines-without-menu-text-play-as-lines",
    priority_is_scoped_by_group => "chatmapper/priority-is-scoped-by-group",
    priority_suppression_keeps_the_best => "chatmapper/priority-suppression-keeps-the-best",
    refusals_out_of_place => "chatmapper/refusals-out-of-place",
    status_and_relationship_functions => "chatmapper/status-and-relationship-functions",
    statuses_and_variables_persist_across_conversations => "chatmapper/statuses-and-variables-persist-across-conversations",
    the_crossing_as_xml => "chatmapper/the-crossing-as-xml",
    the_crossing_as_utf16_xml => "chatmapper/the-crossing-as-utf16-xml",
    the_crossing_staying_ashore => "chatmapper/the-crossing-staying-ashore",
    the_crossing_taking_the_ferry => "chatmapper/the-crossing-taking-the-ferry",
    the_crossing_without_the_token_script => "chatmapper/the-crossing-without-the-token-script",
    the_runaway_guard_stops_a_loop => "chatmapper/the-runaway-guard-stops-a-loop",
    the_var_equals_question_prompt_form => "chatmapper/the-var-equals-question-prompt-form",
    var_substitution_formats_numbers_as_lua => "chatmapper/var-substitution-formats-numbers-as-lua",
    was_offered_never_downgrades_was_displayed => "chatmapper/was-offered-never-downgrades-was-displayed",
    without_delay_sim_status_the_mark_is_immediate => "chatmapper/without-delay-sim-status-the-mark-is-immediate",
}

#[test]
fn every_case_on_disk_has_a_test() {
    common::every_case_has_a_test("chatmapper", CASES);
    assert!(CASES.len() >= 30, "the battery has {} cases", CASES.len());
}
