//! The vendored DialogueDown corpus: one named test per case. Each case listed in
//! `conformance/expected.txt` must conform; any other must not (so a case that starts to
//! conform, or that diverges, is noticed either way).

mod common;

cases! {
    playable_a_choice_after_the_menu_is_left => "dialoguedown/playable/a-choice-after-the-menu-is-left",
    playable_a_choice_the_menu_did_not_offer => "dialoguedown/playable/a-choice-the-menu-did-not-offer",
    playable_a_command_ending_a_line => "dialoguedown/playable/a-command-ending-a-line",
    playable_a_command_in_a_label => "dialoguedown/playable/a-command-in-a-label",
    playable_a_command_mid_line => "dialoguedown/playable/a-command-mid-line",
    playable_a_command_opening_a_line => "dialoguedown/playable/a-command-opening-a-line",
    playable_a_command_too_late => "dialoguedown/playable/a-command-too-late",
    playable_a_conditional_block => "dialoguedown/playable/a-conditional-block",
    playable_a_conditional_jump => "dialoguedown/playable/a-conditional-jump",
    playable_a_conditional_line => "dialoguedown/playable/a-conditional-line",
    playable_a_divert_option => "dialoguedown/playable/a-divert-option",
    playable_a_failed_command_in_a_line => "dialoguedown/playable/a-failed-command-in-a-line",
    playable_a_failed_effect => "dialoguedown/playable/a-failed-effect",
    playable_a_jump => "dialoguedown/playable/a-jump",
    playable_a_line_that_is_only_a_command => "dialoguedown/playable/a-line-that-is-only-a-command",
    playable_a_next_at_a_menu => "dialoguedown/playable/a-next-at-a-menu",
    playable_a_next_while_waiting => "dialoguedown/playable/a-next-while-waiting",
    playable_a_numbered_menu => "dialoguedown/playable/a-numbered-menu",
    playable_a_player_choice => "dialoguedown/playable/a-player-choice",
    playable_a_query_after_a_command => "dialoguedown/playable/a-query-after-a-command",
    playable_a_query_in_a_link => "dialoguedown/playable/a-query-in-a-link",
    playable_a_query_in_speech => "dialoguedown/playable/a-query-in-speech",
    playable_an_effect => "dialoguedown/playable/an-effect",
    playable_an_unavailable_option => "dialoguedown/playable/an-unavailable-option",
    playable_linear_speech => "dialoguedown/playable/linear-speech",
    playable_styled_speech => "dialoguedown/playable/styled-speech",
    playable_two_options_with_the_same_label => "dialoguedown/playable/two-options-with-the-same-label",
    readable_a_foreign_way_out => "dialoguedown/readable/a-foreign-way-out",
    readable_an_else_alone => "dialoguedown/readable/an-else-alone",
    readable_anchor_is_negative => "dialoguedown/readable/anchor-is-negative",
    readable_anchor_leads_nowhere => "dialoguedown/readable/anchor-leads-nowhere",
    readable_baseline => "dialoguedown/readable/baseline",
    readable_edge_leads_nowhere => "dialoguedown/readable/edge-leads-nowhere",
    readable_else_arm_not_last => "dialoguedown/readable/else-arm-not-last",
    readable_entry_leads_nowhere => "dialoguedown/readable/entry-leads-nowhere",
    readable_newer_version => "dialoguedown/readable/newer-version",
    readable_no_way_onward => "dialoguedown/readable/no-way-onward",
    readable_node_out_of_position => "dialoguedown/readable/node-out-of-position",
    readable_reference_is_not_a_number => "dialoguedown/readable/reference-is-not-a-number",
    readable_speaker_leads_nowhere => "dialoguedown/readable/speaker-leads-nowhere",
    readable_truncated_document => "dialoguedown/readable/truncated-document",
    readable_two_else_arms => "dialoguedown/readable/two-else-arms",
    readable_two_fall_throughs => "dialoguedown/readable/two-fall-throughs",
    readable_unknown_property => "dialoguedown/readable/unknown-property",
    readable_unknown_requires => "dialoguedown/readable/unknown-requires",
    readable_unknown_uses => "dialoguedown/readable/unknown-uses",
}

#[test]
fn every_case_on_disk_has_a_test() {
    common::every_case_has_a_test("dialoguedown", CASES);
}
