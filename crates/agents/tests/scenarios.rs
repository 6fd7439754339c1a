//! The agent-playbook contract battery (`conformance/agents/`): one named test per case. With
//! `STAGEHAND_BLESS=1` a case's expected `log` is rewritten from what it produced (review the
//! diff like code).

use std::path::PathBuf;

use stagehand_agents::scenario::{bless_case, discover, run_case};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/agents")
}

fn check(name: &str) {
    let dir = root().join(name);
    let verdict = if std::env::var_os("STAGEHAND_BLESS").is_some() {
        bless_case(&dir).unwrap_or_else(|e| panic!("{name}: {e}"))
    } else {
        run_case(&dir)
    };
    assert!(verdict.passed(), "case {name}:\n  {}", verdict.failures.join("\n  "));
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
    dispose_after_a_failed_init_still_works => "dispose-after-a-failed-init-still-works",
    a_second_dispose_joins_the_teardown => "a-second-dispose-joins-the-teardown",
    a_waiting_group_refuses_other_events => "a-waiting-group-refuses-other-events",
    boss_input_while_init_waits_is_refused => "boss-input-while-init-waits-is-refused",
    abort_fired_from_the_trace_sink_at_judge_start => "abort-fired-from-the-trace-sink-at-judge-start",
    abort_mid_adjudication => "abort-mid-adjudication",
    abort_mid_player_call => "abort-mid-player-call",
    adjudication_missing_required_field_rejects => "adjudication-missing-required-field-rejects",
    adjudication_recovers_fenced_with_prose => "adjudication-recovers-fenced-with-prose",
    adjudication_recovers_first_object_wins => "adjudication-recovers-first-object-wins",
    adjudication_recovers_trailing_comma => "adjudication-recovers-trailing-comma",
    adjudication_recovers_truncated_object => "adjudication-recovers-truncated-object",
    adjudication_undeclared_guard_rejects => "adjudication-undeclared-guard-rejects",
    adjudication_without_object_rejects => "adjudication-without-object-rejects",
    apply_at_a_final_state_is_rejected => "apply-at-a-final-state-is-rejected",
    apply_abort_in_the_started_window => "apply-abort-in-the-started-window",
    apply_abort_mid_execution_is_failed => "apply-abort-mid-execution-is-failed",
    apply_drain_failure_is_folded_to_failed => "apply-drain-failure-is-folded-to-failed",
    apply_finish_sink_failure_keeps_executed => "apply-finish-sink-failure-keeps-executed",
    apply_input_errors_throw => "apply-input-errors-throw",
    apply_receipt_survives_a_restart => "apply-receipt-survives-a-restart",
    apply_rejects_an_unadvertised_action => "apply-rejects-an-unadvertised-action",
    apply_start_sink_failure_throws => "apply-start-sink-failure-throws",
    boss_interrupt_redirects => "boss-interrupt-redirects",
    boss_turn_refused_while_a_child_is_pending => "boss-turn-refused-while-a-child-is-pending",
    canonical_status_profile => "canonical-status-profile",
    captain_calls_carry_visibility => "captain-calls-carry-visibility",
    captain_empty_ok_reasks_once => "captain-empty-ok-reasks-once",
    captain_question_is_asked_by_captain => "captain-question-is-asked-by-captain",
    captain_result_failure_is_recoverable => "captain-result-failure-is-recoverable",
    child_session_identity_is_checked => "child-session-identity-is-checked",
    classification_closed_set_is_enforced => "classification-closed-set-is-enforced",
    classification_event_the_state_cannot_take => "classification-event-the-state-cannot-take",
    classification_extra_key_is_refused => "classification-extra-key-is-refused",
    classification_judge_aborted => "classification-judge-aborted",
    classification_judge_throws_rejects => "classification-judge-throws-rejects",
    classification_messy_json_is_recovered => "classification-messy-json-is-recovered",
    classification_no_action => "classification-no-action",
    classification_no_action_with_members_is_refused => "classification-no-action-with-members-is-refused",
    classification_without_object_is_no_action => "classification-without-object-is-no-action",
    code_classification_starts_coding => "code-classification-starts-coding",
    code_failed_advertises_retry_and_jumps => "code-failed-advertises-retry-and-jumps",
    code_parks_round_trips_and_resumes => "code-parks-round-trips-and-resumes",
    code_review_findings_are_answered => "code-review-findings-are-answered",
    conditional_jump_is_refused_when_its_guard_fails => "conditional-jump-is-refused-when-its-guard-fails",
    continuity_order_of_operations => "continuity-order-of-operations",
    describe_projects_only_named_context => "describe-projects-only-named-context",
    describe_without_projection_has_no_context => "describe-without-projection-has-no-context",
    dispose_at_a_question_discards_tokens => "dispose-at-a-question-discards-tokens",
    dispose_emits_only_session_disposed => "dispose-emits-only-session-disposed",
    draft_loop_counter_stops_at_two => "draft-loop-counter-stops-at-two",
    emission_failure_surfaces_at_the_next_boundary => "emission-failure-surfaces-at-the-next-boundary",
    empty_input_is_no_action => "empty-input-is-no-action",
    empty_ok_reasks_once => "empty-ok-reasks-once",
    empty_ok_twice_fails => "empty-ok-twice-fails",
    entry_event_the_hub_cannot_take => "entry-event-the-hub-cannot-take",
    entry_from_failed_when_enabled => "entry-from-failed-when-enabled",
    entry_not_from_failed_by_default => "entry-not-from-failed-by-default",
    fresh_directive_abandons_the_question => "fresh-directive-abandons-the-question",
    init_sink_failure_unbinds => "init-sink-failure-unbinds",
    init_twice_is_refused => "init-twice-is-refused",
    legacy_status_profile => "legacy-status-profile",
    legacy_status_profile_asks_and_fails => "legacy-status-profile-asks-and-fails",
    nested_call_settles_error => "nested-call-settles-error",
    nested_call_settles_ok => "nested-call-settles-ok",
    nested_call_suspends_and_resumes => "nested-call-suspends-and-resumes",
    nested_child_shares_the_root_tokens => "nested-child-shares-the-root-tokens",
    nested_dispose_disposes_the_child_first => "nested-dispose-disposes-the-child-first",
    nested_dynamic_target => "nested-dynamic-target",
    nested_dynamic_target_may_not_be_itself => "nested-dynamic-target-may-not-be-itself",
    nested_dynamic_target_may_not_be_blank => "nested-dynamic-target-may-not-be-blank",
    nested_dynamic_call_is_not_repeated => "nested-dynamic-call-is-not-repeated",
    nested_dynamic_target_outside_the_catalogue => "nested-dynamic-target-outside-the-catalogue",
    parallel_group_joins_when_all_are_done => "parallel-group-joins-when-all-are-done",
    parallel_keyed_question => "parallel-keyed-question",
    parallel_member_failure_fails_the_group => "parallel-member-failure-fails-the-group",
    parallel_two_questions_need_an_id => "parallel-two-questions-need-an-id",
    parallel_reply_needs_its_question_id => "parallel-reply-needs-its-question-id",
    player_aborted_result_is_failure => "player-aborted-result-is-failure",
    player_error_is_recoverable_failure => "player-error-is-recoverable-failure",
    player_port_throws_keeps_the_token => "player-port-throws-keeps-the-token",
    reply_requires_a_pending_question => "reply-requires-a-pending-question",
    labels_are_never_bare_ids => "labels-are-never-bare-ids",
    reply_to_an_unknown_question_is_refused => "reply-to-an-unknown-question-is-refused",
    apply_executed_survives_a_finish_sink_failure => "apply-executed-survives-a-finish-sink-failure",
    restore_keeps_neither_receipts_nor_the_last_boss_event => "restore-keeps-neither-receipts-nor-the-last-boss-event",
    restore_refuses_bad_snapshots => "restore-refuses-bad-snapshots",
    restore_then_dispose_continues_the_sequence => "restore-then-dispose-continues-the-sequence",
    retry_executes_and_replays_its_receipt => "retry-executes-and-replays-its-receipt",
    script_status_and_telemetry => "script-status-and-telemetry",
    second_boundary_while_active_is_refused => "second-boundary-while-active-is-refused",
    slash_commands_are_plain_text => "slash-commands-are-plain-text",
    snapshot_round_trip_at_every_safe_point => "snapshot-round-trip-at-every-safe-point",
    start_sink_failure_finishes_the_pair => "start-sink-failure-finishes-the-pair",
    terminal_without_declared_output_has_none => "terminal-without-declared-output-has-none",
    unrouted_guard_fails => "unrouted-guard-fails",
    use_before_init_is_refused => "use-before-init-is-refused",
    workflow_argues_and_loops_to_its_limits => "workflow-argues-and-loops-to-its-limits",
    workflow_clean_review => "workflow-clean-review",
    workflow_reviewer_asks_the_boss => "workflow-reviewer-asks-the-boss",
    workflow_round_trips_between_every_turn => "workflow-round-trips-between-every-turn",
    workflow_script_failure_then_retry => "workflow-script-failure-then-retry",
    workflow_terminal_restarts_only_on_a_real_event => "workflow-terminal-restarts-only-on-a-real-event",
    writer_entry_is_deterministic => "writer-entry-is-deterministic",
    compat_declaring_this_runtime_loads => "compat-declaring-this-runtime-loads",
    compat_unsupported_artifact_schema_is_refused => "compat-unsupported-artifact-schema-is-refused",
    compat_other_runtime_abi_is_refused => "compat-other-runtime-abi-is-refused",
    compat_both_wrong_reports_the_schema_alone => "compat-both-wrong-reports-the-schema-alone",
    compat_malformed_is_refused_at_its_member => "compat-malformed-is-refused-at-its-member",
    dispose_while_init_waits_tears_down_after_the_start => "dispose-while-init-waits-tears-down-after-the-start",
    dispose_failures_are_reported_after_the_session_ends => "dispose-failures-are-reported-after-the-session-ends",
}

#[test]
fn every_case_directory_is_listed_and_there_are_at_least_fifty() {
    let found: Vec<String> = discover(&root())
        .iter()
        .map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .collect();
    for name in &found {
        assert!(CASES.contains(&name.as_str()), "case directory {name} is not listed in tests/scenarios.rs");
    }
    for name in CASES {
        assert!(found.iter().any(|f| f == name), "listed case {name} has no directory");
    }
    assert!(CASES.len() >= 50, "only {} cases", CASES.len());
}

/// A copy of `case` with `edit` applied, in a fresh directory under the system's temp dir.
fn edited_copy(case: &str, tag: &str, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let text = std::fs::read_to_string(root().join(case).join("case.json")).expect("the case reads");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["machine"] = serde_json::json!(root().join("machines/writer.json").to_string_lossy());
    edit(&mut v);
    let dir = std::env::temp_dir().join(format!("stagehand-agents-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    std::fs::write(dir.join("case.json"), v.to_string()).expect("written");
    dir
}

#[test]
fn the_runner_names_the_first_log_line_that_differs() {
    let dir = edited_copy("writer-entry-is-deterministic", "log", |v| {
        v["log"][3] = serde_json::json!("4 status.emitted t=1 message=elsewhere");
    });
    let verdict = run_case(&dir);
    assert!(!verdict.passed());
    assert!(
        verdict.failures.iter().any(|f| f.starts_with("log line 4: expected `4 status.emitted")),
        "{:?}",
        verdict.failures
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_runner_reports_a_missing_reply_and_the_start_left_open() {
    let dir = edited_copy("writer-entry-is-deterministic", "reply", |v| {
        v["steps"][1]["replies"].as_array_mut().expect("replies").pop();
    });
    let verdict = run_case(&dir);
    assert!(verdict.failures.iter().any(|f| f.contains("no reply scripted for")), "{:?}", verdict.failures);
    assert!(
        verdict.failures.iter().any(|f| f.contains("judge.call.started judge-1 never finished")),
        "{:?}",
        verdict.failures
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_runner_reports_a_wrong_settlement() {
    let dir = edited_copy("writer-entry-is-deterministic", "settle", |v| {
        v["steps"][1]["expect"]["outcome"] = serde_json::json!("failed");
    });
    let verdict = run_case(&dir);
    assert!(verdict.failures.iter().any(|f| f.starts_with("step 2: settled: at $.outcome")), "{:?}", verdict.failures);
    let _ = std::fs::remove_dir_all(dir);
}
