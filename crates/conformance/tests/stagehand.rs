//! Stagehand's own cases: random choice with a seed, and the host contract of both engines
//! (`host-dialoguedown/`, `host-chatmapper/`: views, receipts, snapshots and traces through the
//! host session). One named test per case, held to `conformance/expected.txt`.

mod common;

cases! {
    stagehand_conditional_dangling_arrow => "stagehand/conditional-dangling-arrow",
    stagehand_escaped_arrow_jumps => "stagehand/escaped-arrow-jumps",
    stagehand_hyphenated_name_is_no_speaker => "stagehand/hyphenated-name-is-no-speaker",
    stagehand_jump_in_styling => "stagehand/jump-in-styling",
    stagehand_keys_with_quotes => "stagehand/keys-with-quotes",
    stagehand_option_first_line_guard => "stagehand/option-first-line-guard",
    stagehand_random_auto_weights => "stagehand/random-auto-weights",
    stagehand_random_conditional_option => "stagehand/random-conditional-option",
    stagehand_random_dynamic_weights => "stagehand/random-dynamic-weights",
    stagehand_random_static_weights => "stagehand/random-static-weights",
    host_cm_a_key_reused_for_another_action_is_rejected => "stagehand/host-chatmapper/cm-a-key-reused-for-another-action-is-rejected",
    host_cm_a_menu_advertises_each_player_line_by_its_menu_text => "stagehand/host-chatmapper/cm-a-menu-advertises-each-player-line-by-its-menu-text",
    host_cm_a_prompt_at_the_opening_is_a_pending_question => "stagehand/host-chatmapper/cm-a-prompt-at-the-opening-is-a-pending-question",
    host_cm_a_replayed_key_returns_the_same_receipt_and_executes_once => "stagehand/host-chatmapper/cm-a-replayed-key-returns-the-same-receipt-and-executes-once",
    host_cm_a_stale_action_is_rejected_and_changes_nothing => "stagehand/host-chatmapper/cm-a-stale-action-is-rejected-and-changes-nothing",
    host_cm_apply_after_restore_keeps_the_lua_state => "stagehand/host-chatmapper/cm-apply-after-restore-keeps-the-lua-state",
    host_cm_receipts_survive_a_snapshot_and_restore => "stagehand/host-chatmapper/cm-receipts-survive-a-snapshot-and-restore",
    host_cm_restart_asks_again => "stagehand/host-chatmapper/cm-restart-asks-again",
    host_cm_the_end_is_done => "stagehand/host-chatmapper/cm-the-end-is-done",
    host_cm_the_runaway_guard_stops_the_session => "stagehand/host-chatmapper/cm-the-runaway-guard-stops-the-session",
    host_cm_the_trace_is_checked_line_by_line => "stagehand/host-chatmapper/cm-the-trace-is-checked-line-by-line",
    host_cm_undo_replays_the_journal => "stagehand/host-chatmapper/cm-undo-replays-the-journal",
    host_dd_a_condition_is_a_pending_question_answered_by_input => "stagehand/host-dialoguedown/dd-a-condition-is-a-pending-question-answered-by-input",
    host_dd_a_failed_perform_then_retry => "stagehand/host-dialoguedown/dd-a-failed-perform-then-retry",
    host_dd_a_jump_starts_at_an_anchor => "stagehand/host-dialoguedown/dd-a-jump-starts-at-an-anchor",
    host_dd_a_key_reused_for_another_action_is_rejected => "stagehand/host-dialoguedown/dd-a-key-reused-for-another-action-is-rejected",
    host_dd_a_run_that_cannot_go_on_is_an_error => "stagehand/host-dialoguedown/dd-a-run-that-cannot-go-on-is-an-error",
    host_dd_a_replayed_key_returns_the_same_receipt_and_executes_once => "stagehand/host-dialoguedown/dd-a-replayed-key-returns-the-same-receipt-and-executes-once",
    host_dd_a_stale_action_is_rejected_and_changes_nothing => "stagehand/host-dialoguedown/dd-a-stale-action-is-rejected-and-changes-nothing",
    host_dd_an_option_whose_condition_holds_is_an_action => "stagehand/host-dialoguedown/dd-an-option-whose-condition-holds-is-an-action",
    host_dd_an_unavailable_option_is_shown_but_is_no_action => "stagehand/host-dialoguedown/dd-an-unavailable-option-is-shown-but-is-no-action",
    host_dd_apply_after_restore_continues_where_the_snapshot_was => "stagehand/host-dialoguedown/dd-apply-after-restore-continues-where-the-snapshot-was",
    host_dd_receipts_survive_a_snapshot_and_restore => "stagehand/host-dialoguedown/dd-receipts-survive-a-snapshot-and-restore",
    host_dd_restart_plays_from_the_beginning => "stagehand/host-dialoguedown/dd-restart-plays-from-the-beginning",
    host_dd_the_end_is_done_and_a_disposed_session_rejects_everything => "stagehand/host-dialoguedown/dd-the-end-is-done-and-a-disposed-session-rejects-everything",
    host_dd_the_opening_view_advertises_next_and_the_anchors => "stagehand/host-dialoguedown/dd-the-opening-view-advertises-next-and-the-anchors",
    host_dd_the_trace_is_checked_line_by_line => "stagehand/host-dialoguedown/dd-the-trace-is-checked-line-by-line",
    host_dd_undo_takes_back_the_last_move_by_replay => "stagehand/host-dialoguedown/dd-undo-takes-back-the-last-move-by-replay",
}

#[test]
fn every_case_on_disk_has_a_test() {
    common::every_case_has_a_test("stagehand", CASES);
    for engine in ["host-dialoguedown", "host-chatmapper"] {
        let count = CASES.iter().filter(|c| c.starts_with(&format!("stagehand/{engine}/"))).count();
        assert!(count >= 10, "{engine} has {count} host cases");
    }
}
