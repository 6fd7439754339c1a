//! `stagehand run resume --last` retried under its `--key` (decision P18): the retry means the run
//! the key was used on, not whichever run was parked since, parked or ended. Every test has its
//! own `XDG_STATE_HOME`.

mod common;

use common::stagehand;
use std::path::Path;

/// A script that asks a question (no world answers `Name`), then offers a menu.
const STORY: &str = "# Start\n\nAnn: Hello. Your name is `\"Name\"`.\n\n- Go left.\n\n  Ann: Left it is.\n\n\
                     - Go right.\n\n  Ann: Right it is.\n";

/// Parks a new run of `file`; its id.
fn parked(place: &Path, file: &str) -> String {
    let (code, out, err) = stagehand(place, &["run", file, "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    let envelope: serde_json::Value = serde_json::from_str(&out).expect("one envelope");
    envelope["sessionId"].as_str().expect("an id").to_owned()
}

fn record(place: &Path, id: &str) -> String {
    std::fs::read_to_string(place.join("state/stagehand/sessions").join(format!("{id}.json"))).expect("the record")
}

#[test]
fn a_retry_with_last_and_the_same_key_means_the_run_the_key_was_used_on() {
    let dir = tempfile::tempdir().expect("a folder");
    let place = dir.path();
    std::fs::write(place.join("story.dialogue.md"), STORY).expect("the script");
    let crossing = std::fs::canonicalize("../../examples/the-crossing.json").expect("the example");
    let crossing = crossing.to_str().expect("UTF-8");

    // A parked run answered under a key, then another run parked after it: the retry is the
    // first run's envelope again, and the other run is left as it was.
    let first = parked(place, "story.dialogue.md");
    let answered = stagehand(place, &["run", "resume", "--last", "Bob", "--key", "k1", "--json"]);
    assert_eq!(answered.0, 3, "{answered:?}");
    assert!(answered.1.contains(&first) && answered.1.contains("Your name is Bob."), "{answered:?}");
    let other = parked(place, "story.dialogue.md");
    let untouched = record(place, &other);
    let again = stagehand(place, &["run", "resume", "--last", "Bob", "--key", "k1", "--json"]);
    assert_eq!(again, answered, "the same key with --last is the same turn of the same run");
    assert_eq!(record(place, &other), untouched, "the run parked since is not touched");

    // A run that ended under a key: the retry prints its envelope again (exit 0), not "no run
    // is parked", and does not answer the other run's question with the action.
    parked(place, crossing);
    let ended = stagehand(place, &["run", "resume", "--last", "1", "--key", "e1", "--json"]);
    assert_eq!(ended.0, 0, "{ended:?}");
    let again = stagehand(place, &["run", "resume", "--last", "1", "--key", "e1", "--json"]);
    assert_eq!(again, ended, "the ended run's envelope, again");
    assert_eq!(record(place, &other), untouched, "the parked run is not answered with the retry");

    // A key no run used: --last is the run parked last, as before.
    let fresh = stagehand(place, &["run", "resume", "--last", "Ann", "--key", "n1", "--json"]);
    assert_eq!(fresh.0, 3, "{fresh:?}");
    assert!(fresh.1.contains(&other) && fresh.1.contains("Your name is Ann."), "{fresh:?}");
}
