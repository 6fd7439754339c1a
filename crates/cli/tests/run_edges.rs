//! `stagehand run` at its edges, through the real binary (decision H54): a number or a text
//! retried under its key, two resumes of one run at once, bad arguments, a reply given to `run`,
//! a trace named by a relative path, a record that holds another run, and a turn whose trace
//! cannot be written. Every test has its own `XDG_STATE_HOME`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A script that asks a question (no world answers `Name`), then offers two menus.
const STORY: &str = "# Start\n\nAnn: Hello. Your name is `\"Name\"`.\n\n- Go left.\n\n  Ann: Left it is.\n\n\
                     - Go right.\n\n  Ann: Right it is.\n\n# Middle\n\nAnn: Pick again.\n\n- Red.\n\n  Ann: Red.\n\n\
                     - Blue.\n\n  Ann: Blue.\n\n# Finale\n\nAnn: Bye.\n\n=> [End](#END)\n";

struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().expect("a folder");
        std::fs::write(dir.path().join("story.dialogue.md"), STORY).expect("the script");
        Place { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn sessions(&self) -> PathBuf {
        self.path().join("state").join("stagehand").join("sessions")
    }

    /// The binary, run in `cwd` with this place's state folder.
    fn command(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_stagehand"));
        command.args(args).current_dir(cwd).env("XDG_STATE_HOME", self.path().join("state")).env_remove("HOME");
        command
    }

    fn run_in(&self, cwd: &Path, args: &[&str]) -> (i32, String, String) {
        let Output { status, stdout, stderr } = self.command(cwd, args).output().expect("the binary runs");
        let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
        (status.code().expect("an exit status"), text(stdout), text(stderr))
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_in(self.path(), args)
    }

    /// Starts the story: it parks at its question. The run's id.
    fn parked(&self, more: &[&str]) -> String {
        let mut args = vec!["run", "story.dialogue.md", "--json"];
        args.extend_from_slice(more);
        let (code, out, err) = self.run(&args);
        assert_eq!(code, 3, "{out}{err}");
        let envelope: Value = serde_json::from_str(&out).expect("one envelope");
        envelope["sessionId"].as_str().expect("an id").to_owned()
    }

    fn records(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.sessions())
            .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.retain(|n| n.ends_with(".json"));
        names.sort();
        names
    }
}

#[test]
fn a_number_or_a_text_retried_under_its_key_prints_the_same_envelope_and_advances_once() {
    let place = Place::new();
    let id = place.parked(&[]);
    let first = place.run(&["run", "resume", &id, "Bob", "--key", "q1", "--json"]);
    assert_eq!(first.0, 3, "{first:?}");
    assert!(first.1.contains("Your name is Bob."), "{first:?}");
    let again = place.run(&["run", "resume", &id, "Bob", "--key", "q1", "--json"]);
    assert_eq!(again, first, "the same text under the same key");
    // "2" is the second action of the view the menu came with: "Go right".
    let chose = place.run(&["run", "resume", &id, "2", "--key", "n1", "--json"]);
    assert_eq!(chose.0, 3, "{chose:?}");
    assert!(chose.1.contains("Right it is."), "{chose:?}");
    let again = place.run(&["run", "resume", &id, "2", "--key", "n1", "--json"]);
    assert_eq!(again, chose, "the same number under the same key, though the view moved on");
    // The run advanced once: it is at the second menu, whose second option is "Blue".
    let (code, out, _) = place.run(&["run", "resume", &id, "2", "--key", "n2", "--json"]);
    assert_eq!(code, 0, "the story ends after the second menu: {out}");
    assert!(out.contains("\"Blue.\"") && !out.contains("Right it is."), "{out}");
    // The same key with other words is still refused.
    let (code, out, err) = place.run(&["run", "resume", &id, "1", "--key", "n1", "--json"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("n1"), "{err}");
}

#[test]
fn two_resumes_of_one_run_at_once_take_turns_and_neither_is_lost() {
    let place = Place::new();
    // A long scene nobody visits: opening the script takes each resume a while, so the two
    // overlap (each reads the record, then compiles, then writes).
    let filler: String = (0..20_000).map(|n| format!("Ann: Filler line {n}.\n\n")).collect();
    std::fs::write(place.path().join("story.dialogue.md"), format!("{STORY}\n# Filler\n\n{filler}")).unwrap();
    let id = place.parked(&[]);
    let (code, _, err) = place.run(&["run", "resume", &id, "Bob", "--key", "q1"]);
    assert_eq!(code, 3, "{err}");
    for round in 0..3 {
        let (a, b) = (format!("a{round}"), format!("b{round}"));
        let spawn = |key: &str, action: &str| {
            place
                .command(place.path(), &["run", "resume", &id, action, "--key", key, "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("the binary starts")
        };
        let (first, second) = (spawn(&a, "jump:start"), spawn(&b, "jump:start"));
        let mut parked = Vec::new();
        for (key, child) in [(&a, first), (&b, second)] {
            let output = child.wait_with_output().expect("it ends");
            assert_eq!(output.status.code(), Some(3), "round {round}, key {key}: {output:?}");
            parked.push((key, String::from_utf8(output.stdout).expect("UTF-8")));
        }
        // Both turns are in the record: neither overwrote the other.
        let path = place.sessions().join(format!("{id}.json"));
        let record: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for (key, printed) in parked {
            let kept = &record["envelopes"][key.as_str()]["envelope"];
            assert_eq!(kept, &serde_json::from_str::<Value>(&printed).unwrap(), "round {round}, key {key}");
        }
    }
}

#[test]
fn bad_arguments_to_run_exit_1() {
    let place = Place::new();
    for args in [
        &["run", "--seed", "abc", "story.dialogue.md"][..],
        &["run", "story.dialogue.md", "--bogus"],
        &["run", "resume", "a", "b", "c"],
        &["run", "resume", "x", "--key"],
        &["run"],
    ] {
        let (code, out, err) = place.run(args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(!err.is_empty(), "{args:?} says why");
    }
    assert!(place.records().is_empty(), "nothing parked");
}

#[test]
fn a_reply_given_to_run_prints_the_opening_too_and_a_reply_it_cannot_take_parks_nothing() {
    let place = Place::new();
    let lines = "# Start\n\nAnn: Hello there.\n\n- Left.\n\n  Ann: Left it is.\n\n- Right.\n\n  Ann: Right it is.\n";
    std::fs::write(place.path().join("menu.dialogue.md"), lines).expect("a script");
    let before = place.records();
    let (code, out, err) = place.run(&["run", "menu.dialogue.md", "choose:1", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let envelope: Value = serde_json::from_str(&out).expect("one envelope");
    let said: Vec<&str> = envelope["said"].as_array().unwrap().iter().map(|s| s["text"].as_str().unwrap()).collect();
    assert_eq!(said, ["Hello there.", "Right.", "Right it is."], "{envelope}");
    let trace = place.path().join("bogus.jsonl");
    let (code, out, err) =
        place.run(&["run", "menu.dialogue.md", "bogus", "--json", "--trace", &trace.display().to_string()]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("bogus"), "{err}");
    assert_eq!(place.records(), before, "no record is left behind");
    assert!(!trace.exists(), "no trace is written for a turn not taken");
}

#[test]
fn a_relative_trace_path_is_the_same_file_from_another_folder() {
    let place = Place::new();
    let id = place.parked(&["--trace", "trace.jsonl"]);
    let elsewhere = place.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("a folder");
    let (code, _, err) = place.run_in(&elsewhere, &["run", "resume", &id, "Bob"]);
    assert_eq!(code, 3, "{err}");
    assert!(!elsewhere.join("trace.jsonl").exists(), "nothing written beside the second folder");
    let text = std::fs::read_to_string(place.path().join("trace.jsonl")).expect("the trace");
    let sequences: Vec<u64> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["sequence"].as_u64().unwrap()).collect();
    assert!(sequences.len() > 3, "{text}");
    assert_eq!(sequences, (1..=sequences.len() as u64).collect::<Vec<_>>(), "one contiguous trace");
}

#[test]
fn a_record_that_holds_another_run_is_refused_and_the_other_run_is_kept() {
    let place = Place::new();
    let (a, b) = (place.parked(&[]), place.parked(&[]));
    assert_ne!(a, b);
    let path = place.sessions().join(format!("{a}.json"));
    let mut record: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    record["session"]["sessionId"] = Value::from(b.clone());
    std::fs::write(&path, record.to_string()).unwrap();
    let (code, out, err) = place.run(&["run", "resume", &a, "jump:finale", "--json"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains(&b), "{err}");
    assert_eq!(place.records(), [format!("{a}.json"), format!("{b}.json")], "both records are as they were");
}

#[test]
fn a_turn_whose_trace_cannot_be_written_is_not_kept_and_exits_2() {
    let place = Place::new();
    let trace = place.path().join("trace.jsonl");
    let id = place.parked(&["--trace", &trace.display().to_string()]);
    let path = place.sessions().join(format!("{id}.json"));
    let before = std::fs::read(&path).unwrap();
    let written = std::fs::read_to_string(&trace).unwrap();
    // The trace's place is taken by a folder: appending to it fails.
    std::fs::remove_file(&trace).unwrap();
    std::fs::create_dir(&trace).unwrap();
    let (code, out, err) = place.run(&["run", "resume", &id, "Bob", "--json"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("trace") && err.contains("not kept"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "the record is as it was");
    // Once the trace can be written, the same turn is taken and the trace goes on unbroken.
    std::fs::remove_dir(&trace).unwrap();
    std::fs::write(&trace, written).unwrap();
    let (code, _, err) = place.run(&["run", "resume", &id, "Bob", "--json"]);
    assert_eq!(code, 3, "{err}");
    let text = std::fs::read_to_string(&trace).unwrap();
    let sequences: Vec<u64> =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["sequence"].as_u64().unwrap()).collect();
    assert_eq!(sequences, (1..=sequences.len() as u64).collect::<Vec<_>>(), "{text}");
}

#[test]
fn a_world_that_keeps_state_stands_where_the_run_left_it_on_every_resume() {
    // The example's world lets the chess sign-up fail once, counting the tries in a Lua global.
    let place = Place::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/club-fair.dialogue.md");
    let (code, out, err) = place.run(&["run", &script.display().to_string(), "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    let id = serde_json::from_str::<Value>(&out).unwrap()["sessionId"].as_str().unwrap().to_owned();
    let (code, out, err) = place.run(&["run", "resume", &id, "choose:1", "--json"]);
    assert!(code == 2 || code == 3, "{code}: {out}{err}");
    assert!(out.contains("\"retry\""), "the sign-up failed once and can be tried again: {out}");
    let (code, out, err) = place.run(&["run", "resume", &id, "retry", "--json"]);
    assert_eq!(code, 0, "the second try, in another process, succeeds: {out}{err}");
    assert!(out.contains("In you go."), "{out}");
}

#[test]
fn a_number_given_while_a_question_waits_answers_it_and_an_action_is_taken_by_its_id() {
    // "2" to "Name?" is the answer, not the second action (a jump) (decision P21).
    let place = Place::new();
    let id = place.parked(&[]);
    let (code, out, err) = place.run(&["run", "resume", &id]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("? Name?") && !out.contains("1. "), "no numbers while a question waits: {out}");
    let (code, out, err) = place.run(&["run", "resume", &id, "2", "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("Your name is 2."), "{out}");
    // At the menu no question waits: a number is the action's.
    let (code, out, err) = place.run(&["run", "resume", &id, "2", "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("Right it is."), "{out}");
    // An action id is an action even while a question waits.
    let other = place.parked(&[]);
    let (code, out, err) = place.run(&["run", "resume", &other, "jump:finale", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Bye."), "{out}");
}
