//! A parked record written by another Stagehand version (decision P19): a session whose engine
//! state this build cannot read, for the same document, loads by replaying its moves, or is
//! refused naming the step that cannot be taken; it is never reset. Every test has its own
//! `XDG_STATE_HOME`.

mod common;

use common::stagehand;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// Two menus, one after the other.
const STORY: &str = "# Start\n\nAnn: Pick.\n\n- Red.\n\n  Ann: Red.\n\n- Blue.\n\n  Ann: Blue.\n\n\
                     Ann: Again.\n\n- Up.\n\n  Ann: Up.\n\n- Down.\n\n  Ann: Down.\n";

/// Parks a run that chose "Red." at the first menu, then makes its record look written by a
/// version whose engine state this one cannot read (`edit` may change it further); its id and
/// the record's path.
fn parked_by_another_version(place: &Path, edit: impl FnOnce(&mut Value)) -> (String, PathBuf) {
    std::fs::write(place.join("story.dialogue.md"), STORY).expect("the script");
    let (code, out, err) = stagehand(place, &["run", "story.dialogue.md", "1", "--json"]);
    assert_eq!(code, 3, "{out}{err}");
    let id =
        serde_json::from_str::<Value>(&out).expect("one envelope")["sessionId"].as_str().expect("an id").to_owned();
    let path = place.join("state/stagehand/sessions").join(format!("{id}.json"));
    let mut record: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("the record")).expect("JSON");
    record["session"]["engine"] = json!({"shapeOfAnotherVersion": [1, 2, 3]});
    record["session"]["initial"] = json!({"shapeOfAnotherVersion": []});
    edit(&mut record);
    std::fs::write(&path, record.to_string()).expect("the record");
    (id, path)
}

#[test]
fn a_record_whose_engine_state_cannot_be_read_loads_by_replaying_its_moves() {
    let dir = tempfile::tempdir().expect("a folder");
    let (id, _) = parked_by_another_version(dir.path(), |_| {});
    let (code, out, err) = stagehand(dir.path(), &["run", "resume", &id, "choose:1", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let envelope: Value = serde_json::from_str(&out).expect("one envelope");
    assert_eq!(envelope["outcome"], "ended", "{envelope}");
    // The move taken is the one after "Red.": the run was not reset to the first menu.
    assert!(out.contains("\"Down.\"") && !out.contains("Blue."), "{out}");
    assert!(err.contains("taken again"), "standard error says it was replayed: {err}");
}

#[test]
fn a_record_whose_moves_cannot_be_replayed_is_refused_naming_the_step_and_kept() {
    let dir = tempfile::tempdir().expect("a folder");
    let (id, path) = parked_by_another_version(dir.path(), |record| {
        let journal = record["session"]["journal"].as_array_mut().expect("a journal");
        let choose = journal.iter_mut().find(|step| step["command"] == "choose").expect("a choice");
        choose["position"] = json!(7);
    });
    let before = std::fs::read_to_string(&path).expect("the record");
    let (code, out, err) = stagehand(dir.path(), &["run", "resume", &id, "choose:1", "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.is_empty(), "no envelope: {out}");
    assert!(err.contains("step 3") && err.contains("choose:7"), "the step is named: {err}");
    assert_eq!(std::fs::read_to_string(&path).expect("the record"), before, "the record is kept as it was");
}
