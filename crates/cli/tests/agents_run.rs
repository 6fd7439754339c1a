//! `stagehand run` on an agent machine through the real binary (issue 13, "Done when"): the
//! example in `examples/agents/` with its shell-script `exec:` players ends (exit 0) or parks on
//! the reviewer's question (exit 3) with the right `--json` envelope; `stagehand run resume`
//! continues it with the bindings kept in the parked record; a failing player exits 2 and keeps
//! the record; the `--trace` file has contiguous sequences and paired boundaries across turns.
//! Each test has its own `XDG_STATE_HOME`; the binary runs from the repository's root, as the
//! example's README says.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const MACHINE: &str = "examples/agents/write-review-revise.toml";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository's root")
}

/// Runs the binary in the repository's root with `state` as `XDG_STATE_HOME`.
fn stagehand(state: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_stagehand"))
        .args(args)
        .current_dir(root())
        .env("XDG_STATE_HOME", state)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    (output.status.code().expect("an exit status"), stdout, stderr)
}

/// The example's bindings, the reviewer's command given.
fn bindings(reviewer: &str) -> Vec<String> {
    vec![
        "--player".into(),
        "writer=exec:sh examples/agents/writer.sh".into(),
        "--player".into(),
        format!("reviewer=exec:{reviewer}"),
        "--judge".into(),
        "exec:sh examples/agents/judge.sh".into(),
    ]
}

/// `stagehand run MACHINE TASK --json --trace TRACE` with the example's bindings.
fn run(state: &Path, task: &str, reviewer: &str, trace: &Path) -> (i32, Value, String) {
    let trace = trace.display().to_string();
    let mut args = vec!["run", MACHINE, task, "--json", "--trace", &trace];
    let bound = bindings(reviewer);
    args.extend(bound.iter().map(String::as_str));
    let (code, out, err) = stagehand(state, &args);
    (code, envelope(&out, &err), err)
}

/// One envelope, and nothing else, on standard output.
fn envelope(stdout: &str, stderr: &str) -> Value {
    assert_eq!(stdout.lines().count(), 1, "exactly one envelope: {stdout}{stderr}");
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"))
}

fn record(state: &Path, id: &str) -> PathBuf {
    state.join("stagehand").join("sessions").join(format!("{id}.json"))
}

fn said_text(envelope: &Value) -> String {
    envelope["said"].as_array().expect("said").iter().map(|s| s["text"].as_str().unwrap_or("")).collect()
}

/// The trace file's records: sequences contiguous from 1, every `*.received`/`*.started` closed
/// by its `*.settled`/`*.finished` (same call id) before the next opens, `session.started` once
/// first. The runtime's own records (`"engine": true`, H48) stand inside those boundaries after
/// the opening (or, at a dispose, right before the host's `session.disposed`), their sequence
/// (in the payload) contiguous, each of their `*.started` finished
/// once by the same call id. The host records' types, in order, and the runtime's.
fn paired_trace(trace: &Path) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(trace).expect("the trace file");
    let records: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert!(!records.is_empty(), "the trace has records");
    let mut open: BTreeMap<String, String> = BTreeMap::new();
    let mut engine_open: BTreeMap<String, String> = BTreeMap::new();
    let mut engine_types = Vec::new();
    let mut opened = false;
    for (i, record) in records.iter().enumerate() {
        assert_eq!(record["sequence"], (i + 1) as u64, "contiguous sequences: {text}");
        let kind = record["type"].as_str().expect("a type");
        if record["engine"] == true {
            let event = &record["payload"];
            assert_eq!(event["type"], kind, "{record}");
            assert_eq!(event["sequence"], engine_types.len() as u64 + 1, "the runtime's order: {record}");
            // ... or, what the runtime traced as the session's dispose ended it, right before
            // the host's own session.disposed (H70).
            let closing = records[i..].iter().all(|r| r["engine"] == true || r["type"] == "session.disposed");
            assert!(!opened || !open.is_empty() || closing, "{kind} outside a host boundary: {text}");
            let call = event["callId"].as_str().unwrap_or("").to_owned();
            match kind.rsplit_once('.') {
                Some((start, "started")) if kind != "session.started" => {
                    assert!(engine_open.insert(call, start.to_owned()).is_none(), "{record}");
                }
                Some((finish, "finished")) => {
                    assert_eq!(engine_open.remove(&call).as_deref(), Some(finish), "{kind} {call} finishes: {text}");
                }
                _ => {}
            }
            engine_types.push(kind.to_owned());
            continue;
        }
        let call = record["callId"].as_str().unwrap_or("").to_owned();
        match kind.rsplit_once('.').map(|(_, end)| end) {
            Some("started" | "received") if kind != "session.started" => {
                assert!(open.is_empty(), "one boundary at a time: {kind} while {open:?} is open");
                open.insert(call, kind.to_owned());
                opened = true;
            }
            Some("finished" | "settled") => {
                assert!(open.remove(&call).is_some(), "{kind} {call} closes a boundary that was opened: {text}");
            }
            _ => {}
        }
    }
    assert!(open.is_empty(), "every boundary is closed: {open:?}");
    assert!(engine_open.is_empty(), "every call of the runtime's is finished: {engine_open:?}");
    let types: Vec<String> =
        records.iter().filter(|r| r["engine"] != true).map(|r| r["type"].as_str().unwrap().to_owned()).collect();
    assert_eq!(types.iter().filter(|t| *t == "session.started").count(), 1, "{types:?}");
    assert_eq!(types[0], "session.started");
    assert_eq!(engine_types.iter().filter(|t| *t == "session.started").count(), 1, "{engine_types:?}");
    // A disposed session disposed its runtime too, once, right before its own end (H70).
    if types.last().map(String::as_str) == Some("session.disposed") {
        assert_eq!(types.iter().filter(|t| *t == "session.disposed").count(), 1, "{types:?}");
        assert_eq!(engine_types.iter().filter(|t| *t == "session.disposed").count(), 1, "{engine_types:?}");
        assert_eq!(records[records.len() - 2]["type"], "session.disposed", "{text}");
        assert_eq!(records[records.len() - 2]["engine"], true, "{text}");
    }
    (types, engine_types)
}

#[test]
fn a_task_plays_to_its_end_with_the_examples_exec_players() {
    let state = tempfile::tempdir().unwrap();
    let trace = state.path().join("trace.jsonl");
    let (code, ended, err) = run(state.path(), "a short poem about rain", "sh examples/agents/reviewer.sh", &trace);
    assert_eq!(code, 0, "{ended}{err}");
    assert_eq!(ended["outcome"], "ended", "{ended}");
    let id = ended["sessionId"].as_str().expect("a session id");
    // The reviewer asked for changes once and approved the revision: the machine's output.
    let said = said_text(&ended);
    assert!(said.contains("Draft 2: a short poem about rain"), "{said}");
    assert!(said.contains("rounds: 1"), "{said}");
    assert!(!record(state.path(), id).exists(), "an ended run leaves no record");
    // The status lines of the turn go to standard error.
    assert!(err.contains("◇ ⤷ Reviewer: Reviewing"), "{err}");
    let (types, runtime) = paired_trace(&trace);
    assert_eq!(types.last().map(String::as_str), Some("session.disposed"), "{types:?}");
    // The Boss's task, then each port call answered: four players, four judges.
    assert_eq!(types.iter().filter(|t| *t == "input.received").count(), 1, "{types:?}");
    assert_eq!(types.iter().filter(|t| *t == "apply.started").count(), 8, "{types:?}");
    // The runtime's own records of those calls, started and finished (H48).
    for kind in ["player.call.started", "player.call.finished", "judge.call.started", "judge.call.finished"] {
        assert_eq!(runtime.iter().filter(|t| *t == kind).count(), 4, "{kind}: {runtime:?}");
    }
    assert_eq!(runtime.iter().filter(|t| *t == "boss.input.received").count(), 1, "{runtime:?}");
}

#[test]
fn a_question_parks_the_run_and_resume_continues_it_with_the_same_ports() {
    let state = tempfile::tempdir().unwrap();
    let trace = state.path().join("trace.jsonl");
    let (code, parked, err) = run(state.path(), "an essay with a title", "sh examples/agents/reviewer.sh", &trace);
    assert_eq!(code, 3, "{parked}{err}");
    assert_eq!(parked["outcome"], "awaiting", "{parked}");
    let id = parked["sessionId"].as_str().expect("a session id").to_owned();
    let question = &parked["said"][0];
    assert_eq!(question["speaker"], "reviewer", "{parked}");
    assert_eq!(question["text"], "Should the title be formal or playful?", "{parked}");
    assert_eq!(parked["view"]["stateId"], "awaitBossReply", "{parked}");
    assert_eq!(parked["view"]["pendingQuestions"][0]["questionId"], "review", "{parked}");
    // The record keeps the bindings as typed and where they run; it names no secret.
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(record(state.path(), &id)).unwrap()).unwrap();
    assert_eq!(kept["ports"]["lineup"]["players"][1]["spec"], "exec:sh examples/agents/reviewer.sh", "{kept}");
    assert_eq!(kept["ports"]["cwd"], root().display().to_string(), "{kept}");
    assert!(!kept.to_string().to_ascii_lowercase().contains("api_key"), "{kept}");

    // Resumed without flags: the Boss's reply goes to the reviewer, who approves.
    let (code, out, err) = stagehand(state.path(), &["run", "resume", &id, "Playful, please.", "--json"]);
    let ended = envelope(&out, &err);
    assert_eq!(code, 0, "{ended}{err}");
    assert_eq!(ended["outcome"], "ended", "{ended}");
    assert_eq!(ended["sessionId"], id.as_str());
    assert_eq!(ended["receipt"]["disposition"], "executed", "{ended}");
    assert!(said_text(&ended).contains("Draft 2: an essay with a title"), "{ended}");
    assert!(!record(state.path(), &id).exists(), "the ended run's record is gone");
    // One trace across both turns: contiguous, paired, one session.started, disposed last; the
    // runtime's sequence continues across the park and the resume.
    let (types, runtime) = paired_trace(&trace);
    assert_eq!(types.iter().filter(|t| *t == "input.received").count(), 2, "{types:?}");
    assert_eq!(runtime.iter().filter(|t| *t == "boss.input.received").count(), 2, "{runtime:?}");
    assert_eq!(types.last().map(String::as_str), Some("session.disposed"), "{types:?}");
}

#[test]
fn a_strict_reviewer_ends_the_run_out_of_rounds() {
    let state = tempfile::tempdir().unwrap();
    let trace = state.path().join("trace.jsonl");
    let reviewer = "REVIEWER_STRICT=1 sh examples/agents/reviewer.sh";
    let (code, ended, err) = run(state.path(), "a limerick", reviewer, &trace);
    assert_eq!(code, 0, "{ended}{err}");
    let said = said_text(&ended);
    assert!(said.contains("rounds: 2"), "two rounds of changes, then out of rounds: {said}");
    paired_trace(&trace);
}

#[test]
fn a_failing_player_fails_the_run_and_keeps_its_record() {
    let state = tempfile::tempdir().unwrap();
    let trace = state.path().join("trace.jsonl");
    let (code, failed, err) = run(state.path(), "a short poem", "echo no reviewer here >&2; exit 4", &trace);
    assert_eq!(code, 2, "{failed}{err}");
    assert_eq!(failed["outcome"], "failed", "{failed}");
    assert!(failed["error"].as_str().unwrap_or("").contains("exit status 4"), "{failed}");
    assert_eq!(failed["view"]["stateId"], "failed", "{failed}");
    let id = failed["sessionId"].as_str().unwrap();
    assert!(record(state.path(), id).exists(), "a failed run keeps its record");
    paired_trace(&trace);
}

#[test]
fn check_and_graph_read_the_machine() {
    let state = tempfile::tempdir().unwrap();
    let (code, out, err) = stagehand(state.path(), &["check", MACHINE]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 error(s), 0 warning(s)"), "{out}");
    let (code, out, err) = stagehand(state.path(), &["graph", MACHINE, "--format", "mermaid"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("flowchart LR"), "{out}");
    assert!(out.contains("write\\nplayer writer") || out.contains("write<br/>player writer"), "{out}");
    assert!(out.contains("|\"approved\"|"), "{out}");
    let (code, out, _) = stagehand(state.path(), &["graph", MACHINE]);
    assert_eq!(code, 0);
    assert!(out.starts_with("digraph \"writeReviewRevise\""), "{out}");
}

#[test]
fn a_machine_with_unbound_players_is_refused_before_it_starts() {
    let state = tempfile::tempdir().unwrap();
    let (code, out, err) =
        stagehand(state.path(), &["run", MACHINE, "a task", "--player", "writer=exec:sh examples/agents/writer.sh"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("--player reviewer=…") && err.contains("--judge …"), "{err}");
    assert!(
        !state.path().join("stagehand").join("sessions").exists()
            || std::fs::read_dir(state.path().join("stagehand").join("sessions")).unwrap().next().is_none()
    );
}

#[test]
fn port_flags_on_a_document_without_players_are_refused_before_it_starts() {
    // Only an agent machine has players (decision P17): a script or a ChatMapper project given
    // --player, --captain or --judge is refused, exit 1, and no run is parked.
    for (file, flag) in [
        ("examples/club-fair.dialogue.md", ["--player", "writer=exec:sh examples/agents/writer.sh"]),
        ("examples/the-crossing.xml", ["--player", "writer=exec:sh examples/agents/writer.sh"]),
        ("examples/the-crossing.xml", ["--captain", "exec:sh examples/agents/judge.sh"]),
        ("examples/club-fair.dialogue.md", ["--judge", "exec:sh examples/agents/judge.sh"]),
    ] {
        let state = tempfile::tempdir().unwrap();
        let (code, out, err) = stagehand(state.path(), &["run", file, flag[0], flag[1]]);
        assert_eq!(code, 1, "{file} {flag:?}: {out}{err}");
        assert!(err.contains("only an agent machine") && err.contains(flag[0]), "{file}: {err}");
        let sessions = state.path().join("stagehand").join("sessions");
        assert!(!sessions.exists() || std::fs::read_dir(&sessions).unwrap().next().is_none(), "{file}: parked");
    }
}
