//! The `script` invoke: `sh -c`, a time limit, two guards (PT6).

use stagehand_ports::{run_script, Abort, FailureClass, PortErrorKind, ScriptGuard, ScriptOptions, ScriptRequest};

fn run(command: &str, timeout_ms: u64) -> Result<stagehand_ports::ScriptOutcome, stagehand_ports::PortError> {
    run_script(&ScriptRequest { command: command.into(), timeout_ms }, &ScriptOptions::default(), &Abort::new())
}

#[test]
fn exit_zero_selects_ok_with_the_output() {
    let outcome = run("echo built; echo warned >&2", 60_000).unwrap();
    assert_eq!(outcome.guard, ScriptGuard::Ok);
    assert_eq!(outcome.guard.as_str(), "ok");
    assert_eq!((outcome.exit_code, outcome.timed_out), (Some(0), false));
    assert_eq!((outcome.stdout.as_str(), outcome.stderr.as_str()), ("built\n", "warned\n"));
    assert_eq!(outcome.status, "exit status 0");
}

#[test]
fn a_nonzero_exit_selects_failed() {
    let outcome = run("exit 4", 60_000).unwrap();
    assert_eq!((outcome.guard, outcome.exit_code), (ScriptGuard::Failed, Some(4)));
    assert_eq!(outcome.guard.as_str(), "failed");
}

#[test]
fn a_script_past_its_limit_is_killed_and_selects_failed() {
    let outcome = run("sleep 30", 300).unwrap();
    assert_eq!((outcome.guard, outcome.exit_code, outcome.timed_out), (ScriptGuard::Failed, None, true));
    assert_eq!(outcome.status, "timed out after 300 ms");
}

#[test]
fn a_script_reads_an_empty_standard_input() {
    assert_eq!(run("cat; echo end", 60_000).unwrap().stdout, "end\n");
}

#[test]
fn a_script_runs_in_the_working_directory_given() {
    let dir = std::env::temp_dir();
    let options = ScriptOptions { cwd: Some(dir.clone()), ..ScriptOptions::default() };
    let request = ScriptRequest { command: "pwd -P".into(), timeout_ms: 60_000 };
    let outcome = run_script(&request, &options, &Abort::new()).unwrap();
    assert_eq!(outcome.stdout.trim(), dir.canonicalize().unwrap().to_str().unwrap());
}

#[test]
fn a_script_that_cannot_start_or_is_aborted_is_an_error() {
    let options = ScriptOptions { cwd: Some("/nonexistent/stagehand".into()), ..ScriptOptions::default() };
    let request = ScriptRequest { command: "true".into(), timeout_ms: 60_000 };
    let error = run_script(&request, &options, &Abort::new()).unwrap_err();
    assert_eq!((error.kind(), error.class()), (PortErrorKind::Spawn, FailureClass::ControlPlane));

    let abort = Abort::new();
    abort.abort();
    let request = ScriptRequest { command: "sleep 30".into(), timeout_ms: 60_000 };
    let error = run_script(&request, &ScriptOptions::default(), &abort).unwrap_err();
    assert_eq!((error.kind(), error.class()), (PortErrorKind::Aborted, FailureClass::Abort));
}

#[test]
fn the_request_is_the_machine_documents_script_invoke() {
    let request: ScriptRequest = serde_json::from_str(r#"{"command": "make", "timeoutMs": 5000}"#).unwrap();
    assert_eq!(request, ScriptRequest { command: "make".into(), timeout_ms: 5000 });
    assert!(serde_json::from_str::<ScriptRequest>(r#"{"command": "make", "timeout": 5}"#).is_err());
}
