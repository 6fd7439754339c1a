//! `stagehand run` and `stagehand run resume` through the real binary: a run parks (exit 3) with
//! an `awaiting` envelope, a replayed `--key` prints the same envelope and advances once, a run
//! played to its end exits 0 and its record is gone, on a DialogueDown script and on a ChatMapper
//! project (issue 12, item 6). Every test has its own `XDG_STATE_HOME`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)
}

/// Runs the binary with `state` as `XDG_STATE_HOME`; the exit status and standard output.
fn stagehand(state: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_stagehand"))
        .args(args)
        .env("XDG_STATE_HOME", state)
        .env_remove("HOME")
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    (output.status.code().expect("an exit status"), stdout, stderr)
}

/// One envelope, and nothing else, on standard output.
fn envelope(stdout: &str) -> Value {
    assert_eq!(stdout.lines().count(), 1, "exactly one envelope: {stdout}");
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn action_ids(envelope: &Value) -> Vec<String> {
    envelope["view"]["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_owned())
        .collect()
}

fn record(state: &Path, id: &str) -> PathBuf {
    state.join("stagehand").join("sessions").join(format!("{id}.json"))
}

/// Starts a run of `file`: it parks at a menu. The envelope.
fn parked_at_a_menu(state: &Path, file: &str) -> Value {
    let (code, out, err) = stagehand(state, &["run", &example(file).display().to_string(), "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    let parked = envelope(&out);
    assert!(out.starts_with("{\"outcome\":\"awaiting\",\"sessionId\":"), "the contract's order: {out}");
    assert_eq!(parked["outcome"], "awaiting", "{parked}");
    assert!(action_ids(&parked).iter().any(|id| id.starts_with("choose:")), "{parked}");
    assert!(!parked["said"].as_array().unwrap().is_empty(), "what was said is printed: {parked}");
    parked
}

/// Takes the first action (a choice, else `next`, else an answer) until the run ends.
fn play_to_the_end(state: &Path, id: &str) {
    for turn in 0..200 {
        let (code, out, err) = stagehand(state, &["run", "resume", id, "--json"]);
        assert_eq!(code, 3, "{out}{err}");
        let view = envelope(&out);
        let ids = action_ids(&view);
        let action = if !view["view"]["pendingQuestions"].as_array().unwrap().is_empty() {
            "yes".to_owned()
        } else {
            ids.iter().find(|a| a.starts_with("choose:") || *a == "next" || *a == "done").expect("a way on").clone()
        };
        let (code, out, err) =
            stagehand(state, &["run", "resume", id, &action, "--key", &format!("t{turn}"), "--json"]);
        let after = envelope(&out);
        match code {
            0 => {
                assert_eq!(after["outcome"], "ended", "{after}");
                assert!(!record(state, id).exists(), "an ended run's record is deleted");
                let (code, _, err) = stagehand(state, &["run", "resume", id]);
                assert_eq!(code, 1, "an ended run is unknown: {err}");
                return;
            }
            3 => assert_eq!(after["outcome"], "awaiting", "{after}"),
            _ => panic!("exit {code}: {out}{err}"),
        }
    }
    panic!("the story did not end in 200 turns");
}

fn replayed_key_advances_once(file: &str) {
    let state = tempfile::tempdir().expect("a folder");
    let parked = parked_at_a_menu(state.path(), file);
    let id = parked["sessionId"].as_str().expect("an id").to_owned();
    assert!(record(state.path(), &id).is_file());

    let (code, first, err) = stagehand(state.path(), &["run", "resume", &id, "choose:0", "--key", "k1", "--json"]);
    assert!(code == 3 || code == 0, "{first}{err}");
    let once = envelope(&first);
    assert_eq!(once["receipt"]["disposition"], "executed", "{once}");
    let state_after_one = (code == 3).then(|| stagehand(state.path(), &["run", "resume", &id, "--json"]).1);

    let (again_code, second, err) =
        stagehand(state.path(), &["run", "resume", &id, "choose:0", "--key", "k1", "--json"]);
    assert_eq!(again_code, code, "{err}");
    assert_eq!(second, first, "the same key prints the same envelope");
    if let Some(view) = state_after_one {
        let (_, now, _) = stagehand(state.path(), &["run", "resume", &id, "--json"]);
        assert_eq!(now, view, "the story advanced once");
        let (code, _, err) = stagehand(state.path(), &["run", "resume", &id, "next", "--key", "k1", "--json"]);
        assert_eq!(code, 1, "a key reused for another action is refused: {err}");
        play_to_the_end(state.path(), &id);
    } else {
        assert_eq!(once["outcome"], "ended", "{once}");
        assert!(!record(state.path(), &id).exists(), "an ended run's record is deleted");
        let (code, _, err) = stagehand(state.path(), &["run", "resume", &id, "--json"]);
        assert_eq!(code, 1, "without its key an ended run is unknown: {err}");
        let (code, _, err) = stagehand(state.path(), &["run", "resume", &id, "choose:1", "--key", "k1"]);
        assert_eq!(code, 1, "its key with another action is refused: {err}");
    }
}

#[test]
fn a_script_parks_at_its_menu_a_replayed_key_advances_once_and_it_plays_to_its_end() {
    replayed_key_advances_once("club-fair.dialogue.md");
}

#[test]
fn a_chatmapper_project_parks_replays_a_key_once_and_plays_to_its_end() {
    replayed_key_advances_once("the-crossing.json");
}

#[cfg(unix)]
#[test]
fn the_record_is_private_and_the_last_run_resumes_by_last() {
    use std::os::unix::fs::PermissionsExt;
    let state = tempfile::tempdir().expect("a folder");
    let parked = parked_at_a_menu(state.path(), "club-fair.dialogue.md");
    let id = parked["sessionId"].as_str().unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&state.path().join("stagehand").join("sessions")), 0o700);
    assert_eq!(mode(&record(state.path(), id)), 0o600);
    let (code, out, _) = stagehand(state.path(), &["run", "resume", "--last", "--json"]);
    assert_eq!(code, 3);
    assert_eq!(envelope(&out)["sessionId"], id);
}

#[test]
fn a_bad_id_an_unreadable_record_and_a_stale_action_are_exit_1() {
    let state = tempfile::tempdir().expect("a folder");
    let (code, _, err) = stagehand(state.path(), &["run", "resume", "no-such-run"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no-such-run"), "{err}");
    let (code, _, _) = stagehand(state.path(), &["run", "resume", "../../etc/passwd"]);
    assert_eq!(code, 1);
    let parked = parked_at_a_menu(state.path(), "club-fair.dialogue.md");
    let id = parked["sessionId"].as_str().unwrap();
    let before = std::fs::read(record(state.path(), id)).unwrap();
    let (code, _, err) = stagehand(state.path(), &["run", "resume", id, "choose:99"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.matches("choose:99").count(), 1, "the action is named once: {err}");
    assert_eq!(err.matches("choose:0").count(), 1, "the actions are listed once: {err}");
    assert_eq!(std::fs::read(record(state.path(), id)).unwrap(), before, "a rejected action changes nothing");
    let (code, _, err) = stagehand(state.path(), &["run", "resume", id, ""]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("the action is empty") && err.contains("choose:0"), "{err}");
    assert_eq!(std::fs::read(record(state.path(), id)).unwrap(), before, "an empty action changes nothing");
    std::fs::write(record(state.path(), id), "{ not a record").unwrap();
    let (code, _, err) = stagehand(state.path(), &["run", "resume", id]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot be read"), "{err}");
}

#[test]
fn a_record_whose_document_changed_is_replayed_into_it_or_refused_naming_the_step() {
    let state = tempfile::tempdir().expect("a folder");
    let dir = tempfile::tempdir().expect("a folder");
    let script = dir.path().join("story.dialogue.md");
    let menus = "Mira: Hello.\n\n- Stay.\n\n- Go.\n\n  Mira: Where to?\n\n  - North.\n\n  - South.\n";
    std::fs::write(&script, menus).unwrap();
    let (code, out, err) = stagehand(state.path(), &["run", &script.display().to_string(), "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    let id = envelope(&out)["sessionId"].as_str().unwrap().to_owned();
    let (code, out, err) = stagehand(state.path(), &["run", "resume", &id, "choose:1", "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("Where to?"), "{out}");
    // An edit of the words: the run's moves are taken again on the edited script.
    std::fs::write(&script, menus.replace("Where to?", "Which way?").replace("South.", "South, then.")).unwrap();
    let (code, out, err) = stagehand(state.path(), &["run", "resume", &id, "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(err.contains("document changed") && err.contains("taken again"), "{err}");
    assert!(action_ids(&envelope(&out)).contains(&"choose:1".to_owned()), "{out}");
    assert!(out.contains("South, then."), "the edited menu: {out}");
    let saved = std::fs::read(record(state.path(), &id)).unwrap();
    // An edit that takes away the option the run chose: refused, naming the step; kept as it was.
    std::fs::write(&script, menus.replace("- Stay.\n\n", "")).unwrap();
    let (code, out, err) = stagehand(state.path(), &["run", "resume", &id, "choose:0", "--json"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("document changed") && err.contains("step 3") && err.contains("choose:1"), "{err}");
    assert_eq!(std::fs::read(record(state.path(), &id)).unwrap(), saved, "the record is kept as it was");
}

#[test]
fn a_parked_run_prints_its_actions_on_standard_output_and_the_hint_to_continue_on_standard_error() {
    // CONTRACT.md §3: "stdout gets the question text; stderr gets a hint" (decision P20).
    let state = tempfile::tempdir().unwrap();
    let file = example("club-fair.dialogue.md").display().to_string();
    let (code, out, err) = stagehand(state.path(), &["run", &file]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("1. Join the art club.  [choose:0]"), "{out}");
    assert!(!out.contains("stagehand run resume"), "no hint on standard output: {out}");
    let id = std::fs::read_dir(state.path().join("stagehand/sessions"))
        .unwrap()
        .flatten()
        .find_map(|e| e.file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
        .expect("a record");
    assert!(err.contains(&format!("continue with: stagehand run resume {id} ACTION")), "{err}");
    // With --json too: the envelope alone on standard output, the hint on standard error.
    let (code, out, err) = stagehand(state.path(), &["run", "resume", &id, "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    envelope(&out);
    assert!(err.contains(&format!("continue with: stagehand run resume {id} ACTION")), "{err}");
}
