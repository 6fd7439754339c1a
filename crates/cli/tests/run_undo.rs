//! `undo` on a parked run takes back the person's last move, not the line the driver walked
//! past (decision P22). Every test has its own `XDG_STATE_HOME`.

mod common;

use std::path::Path;

use serde_json::Value;

/// Two menus, with lines between them.
const STORY: &str = "# Start\n\nAnn: Pick.\n\n- Red.\n\n  Ann: Red.\n\n- Blue.\n\n  Ann: Blue.\n\n\
                     Ann: Again.\n\n- Up.\n\n  Ann: Up.\n\n- Down.\n\n  Ann: Down.\n";

fn stagehand(place: &Path, args: &[&str]) -> (i32, Value) {
    let (code, out, err) = common::stagehand(place, args);
    let envelope = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (code, envelope)
}

fn labels(envelope: &Value) -> Vec<String> {
    let actions = envelope["view"]["actions"].as_array().expect("actions");
    actions.iter().map(|a| a["label"].as_str().expect("a label").to_owned()).collect()
}

#[test]
fn undo_goes_back_to_the_menu_the_person_chose_at() {
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::write(dir.path().join("story.dialogue.md"), STORY).expect("the script");
    let (code, first) = stagehand(dir.path(), &["run", "story.dialogue.md", "--json"]);
    assert_eq!(code, 3, "{first}");
    let id = first["sessionId"].as_str().expect("an id").to_owned();
    let (code, second) = stagehand(dir.path(), &["run", "resume", &id, "choose:0", "--json"]);
    assert_eq!(code, 3, "{second}");
    assert!(labels(&second).contains(&"Up.".to_owned()), "{second}");
    let (code, undone) = stagehand(dir.path(), &["run", "resume", &id, "undo", "--key", "u1", "--json"]);
    assert_eq!(code, 3, "{undone}");
    assert_eq!(undone["receipt"]["disposition"], "executed", "{undone}");
    assert!(labels(&undone).contains(&"Red.".to_owned()), "back at the first menu: {undone}");
    assert_eq!(undone["view"]["stateId"], first["view"]["stateId"], "{undone}");
    // Retried under its key: the same envelope; the run is not taken back twice.
    let (code, again) = stagehand(dir.path(), &["run", "resume", &id, "undo", "--key", "u1", "--json"]);
    assert_eq!((code, &again), (3, &undone));
    let (code, blue) = stagehand(dir.path(), &["run", "resume", &id, "choose:1", "--json"]);
    assert_eq!(code, 3, "{blue}");
    assert!(blue["said"].to_string().contains("Ann\",\"text\":\"Blue."), "{blue}");
}

#[test]
fn undo_after_a_reply_given_to_run_goes_back_to_where_it_was_given() {
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::write(dir.path().join("story.dialogue.md"), STORY).expect("the script");
    let (code, first) = stagehand(dir.path(), &["run", "story.dialogue.md", "1", "--json"]);
    assert_eq!(code, 3, "{first}");
    let id = first["sessionId"].as_str().expect("an id").to_owned();
    let (code, undone) = stagehand(dir.path(), &["run", "resume", &id, "undo", "--json"]);
    assert_eq!(code, 3, "{undone}");
    assert!(labels(&undone).contains(&"Blue.".to_owned()), "back at the first menu: {undone}");
}
