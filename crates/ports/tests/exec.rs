//! The `exec:` port against real shell commands (PT4).

use std::thread;
use std::time::Duration;

use stagehand_ports::{
    split_resume_token, Abort, CallResult, CallStatus, ExecPort, FailureClass, FromOutcome, Port, PortErrorKind,
    PortReply, PortRequest, Who,
};

fn call(command: &str, prompt: &str) -> Result<PortReply, stagehand_ports::PortError> {
    ExecPort::new(command).call(&PortRequest::new(Who::player("writer"), prompt).with_timeout_ms(60_000), &Abort::new())
}

#[test]
fn the_prompt_is_standard_input_and_standard_output_the_final_text() {
    let reply = call("printf 'draft: '; cat", "a poem about rain").unwrap();
    assert_eq!(reply, PortReply { final_text: "draft: a poem about rain".into(), resume_token: None });
}

#[test]
fn trailing_line_ends_are_not_part_of_the_final_text() {
    assert_eq!(call("echo hello; echo", "").unwrap().final_text, "hello");
}

#[test]
fn a_large_prompt_passes_through_without_deadlock() {
    let prompt = "0123456789abcdef\n".repeat(64 * 1024);
    let reply = call("cat", &prompt).unwrap();
    assert_eq!(reply.final_text, prompt.trim_end());
}

#[test]
fn a_command_that_does_not_read_a_large_prompt_still_answers() {
    let prompt = "x".repeat(1024 * 1024);
    assert_eq!(call("echo ignored the prompt", &prompt).unwrap().final_text, "ignored the prompt");
}

#[test]
fn the_command_is_told_its_role_player_and_resume_token() {
    let command = r#"printf '%s|%s|%s' "$STAGEHAND_ROLE" "${STAGEHAND_PLAYER-none}" "${STAGEHAND_RESUME_TOKEN-none}""#;
    let port = ExecPort::new(command);
    let fresh = port.call(&PortRequest::new(Who::player("writer"), ""), &Abort::new()).unwrap();
    assert_eq!(fresh.final_text, "player|writer|none");
    let resumed = port.call(&PortRequest::new(Who::player("writer"), "").resuming("t-41"), &Abort::new()).unwrap();
    assert_eq!(resumed.final_text, "player|writer|t-41");
    let judge = port.call(&PortRequest::new(Who::Judge, ""), &Abort::new()).unwrap();
    assert_eq!(judge.final_text, "judge|none|none");
}

#[test]
fn a_marked_last_line_is_the_resume_token() {
    let reply = call("cat; echo; echo 'stagehand-resume-token: conv-7'", "the draft").unwrap();
    assert_eq!(reply, PortReply { final_text: "the draft".into(), resume_token: Some("conv-7".into()) });
}

#[test]
fn the_marker_counts_only_on_the_last_line() {
    assert_eq!(
        split_resume_token("stagehand-resume-token: a\nmore text\n"),
        ("stagehand-resume-token: a\nmore text".into(), None)
    );
    assert_eq!(split_resume_token("text\r\nstagehand-resume-token:  b \r\n"), ("text".into(), Some("b".into())));
    assert_eq!(split_resume_token("stagehand-resume-token:"), (String::new(), None));
    assert_eq!(split_resume_token("only\n\n"), ("only".into(), None));
    assert_eq!(split_resume_token(""), (String::new(), None));
}

#[test]
fn a_failing_command_is_an_exit_error_with_its_status_and_standard_error() {
    let error = call("echo 'no model configured' >&2; exit 3", "x").unwrap_err();
    assert_eq!(error.kind(), PortErrorKind::Exit);
    assert_eq!(error.class(), FailureClass::Recoverable);
    assert!(error.message().contains("exit status 3"), "{error}");
    assert!(error.message().contains("no model configured"), "{error}");
    assert!(error.message().contains("player writer"), "{error}");
    assert_eq!(error.normalized().name, "ExitError");
    let result = CallResult::from_outcome(Err(error)).unwrap();
    assert_eq!(result.status, CallStatus::Error);
    assert!(result.final_text.is_none());
}

#[test]
fn a_failing_command_that_gave_a_token_stays_resumable() {
    let error = call("echo 'stagehand-resume-token: kept'; exit 2", "x").unwrap_err();
    assert_eq!(error.resume_token(), Some("kept"));
    let result = CallResult::from_outcome(Err(error)).unwrap();
    assert_eq!((result.status, result.resume_token.as_deref()), (CallStatus::Error, Some("kept")));
}

#[test]
fn a_command_past_its_limit_is_killed_with_everything_it_started() {
    // The background `sleep` holds standard output open: unless the whole process group is
    // killed, the call would end in an `output` error, not a timeout.
    let port = ExecPort::new("sleep 30 & sleep 30; echo late");
    let error = port.call(&PortRequest::new(Who::Captain, "x").with_timeout_ms(300), &Abort::new()).unwrap_err();
    assert_eq!(error.kind(), PortErrorKind::Timeout, "{error}");
    assert_eq!(error.class(), FailureClass::Recoverable);
}

#[test]
fn background_work_left_behind_by_a_finished_command_does_not_hold_the_call() {
    let reply = call("(sleep 30; echo late) & echo now", "").unwrap();
    assert_eq!(reply.final_text, "now");
}

#[test]
fn an_abort_kills_the_command() {
    let abort = Abort::new();
    let raiser = abort.clone();
    let signaller = thread::spawn(move || {
        thread::sleep(Duration::from_millis(100));
        raiser.abort();
    });
    let port = ExecPort::new("sleep 30");
    let error = port.call(&PortRequest::new(Who::player("w"), "").with_timeout_ms(60_000), &abort).unwrap_err();
    signaller.join().unwrap();
    assert_eq!(error.kind(), PortErrorKind::Aborted);
    assert_eq!(error.class(), FailureClass::Abort);
    assert_eq!(CallResult::from_outcome(Err(error)).unwrap().status, CallStatus::Aborted);
}

#[test]
fn output_past_the_limit_is_an_output_error() {
    let port = ExecPort::new("printf 0123456789abcdef").with_max_output(10);
    let error = port.call(&PortRequest::new(Who::player("w"), ""), &Abort::new()).unwrap_err();
    assert_eq!(error.kind(), PortErrorKind::Output);
    assert_eq!(error.class(), FailureClass::ControlPlane);
}

#[test]
fn output_that_is_not_utf8_is_an_output_error() {
    let error = call(r"printf '\377\376'", "").unwrap_err();
    assert_eq!(error.kind(), PortErrorKind::Output);
}

#[test]
fn a_command_that_cannot_start_is_a_control_plane_error() {
    let port = ExecPort::new("true").with_cwd("/nonexistent/stagehand-ports-test");
    let error = port.call(&PortRequest::new(Who::player("w"), ""), &Abort::new()).unwrap_err();
    assert_eq!(error.kind(), PortErrorKind::Spawn);
    assert_eq!(CallResult::from_outcome(Err(error.clone())), Err(error));
}

#[test]
fn an_empty_final_text_is_a_reply_for_the_runtime_to_re_ask() {
    assert_eq!(call("true", "x").unwrap().final_text, "");
}
