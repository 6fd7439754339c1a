//! `Document`: every kind opens from bytes, plays behind `AnySession`, and restores from its
//! snapshot value to the same view and the same future.

use stagehand_documents::{Document, Kind, OpenError, OpenOptions};
use stagehand_protocol::{Receipt, Status};

fn example(name: &str) -> Vec<u8> {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Plays by taking the first action each time, until the end or `turns` runs out; the action ids.
fn play(session: &mut dyn stagehand_session::host::AnySession, turns: usize, from: usize) -> Vec<String> {
    let mut taken = Vec::new();
    for n in 0..turns {
        let view = session.describe();
        let id = if let Some(question) = view.pending_questions.first() {
            let receipt = session.input(&question.question_id, "yes", &format!("k{}", from + n), 10);
            assert!(!matches!(receipt, Receipt::Rejected { .. }), "{receipt:?}");
            format!("answer:{}", question.question_id)
        } else {
            let Some(action) =
                view.actions.iter().find(|a| a.id != "undo" && a.id != "restart" && !a.id.starts_with("jump:"))
            else {
                break;
            };
            let receipt = session.apply(&action.id, &format!("k{}", from + n), 10);
            assert!(matches!(receipt, Receipt::Executed { .. }), "{}: {receipt:?}", action.id);
            action.id.clone()
        };
        taken.push(id);
    }
    taken
}

#[test]
fn every_example_opens_as_its_kind_and_plays_behind_one_trait() {
    let options = OpenOptions::default();
    for (name, kind) in [
        ("club-fair.dialogue.md", Kind::Script),
        ("the-crossing.json", Kind::ChatMapper),
        ("the-crossing.xml", Kind::ChatMapper),
        ("the-lighthouse.xml", Kind::ChatMapper),
    ] {
        let bytes = example(name);
        let document = Document::open(name, &bytes, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(document.kind(), kind, "{name}");
        let again = Document::open(name, &bytes, &options).unwrap();
        assert_eq!(document.fingerprint(), again.fingerprint(), "{name}: the same bytes, the same fingerprint");
        let mut session = document.start("s", 3, 1).unwrap();
        assert_eq!(session.fingerprint(), document.fingerprint());
        assert_eq!(session.describe().status, Status::Active, "{name}");
        let taken = play(session.as_mut(), 3, 0);
        assert!(!taken.is_empty(), "{name}: something to apply");

        // A snapshot restores to the same view, and both go on the same way.
        let value = session.snapshot_value().unwrap();
        let mut restored = document.restore(value).unwrap();
        assert_eq!(restored.describe(), session.describe(), "{name}");
        let ahead = play(session.as_mut(), 20, 100);
        let restored_ahead = play(restored.as_mut(), 20, 100);
        assert_eq!(ahead, restored_ahead, "{name}: the same future");
        assert_eq!(restored.describe(), session.describe(), "{name}");
        assert!(restored.take_trace().iter().all(|r| r.kind != "session.started"), "{name}: a restore starts nothing");
    }
}

#[test]
fn a_compiled_playbook_opens_as_the_script_does_with_the_same_fingerprint() {
    let script = example("club-fair.dialogue.md");
    let document = Document::open("club-fair.dialogue.md", &script, &OpenOptions::default()).unwrap();
    let json = stagehand_playbook::write(document.playbook().unwrap());
    let compiled = Document::open("club-fair.json", json.as_bytes(), &OpenOptions::default()).unwrap();
    assert_eq!(compiled.kind(), Kind::Playbook);
    assert_eq!(compiled.fingerprint(), document.fingerprint());
}

#[test]
fn a_script_that_does_not_compile_is_refused_with_its_diagnostics() {
    let error =
        Document::open("bad.dialogue.md", b"# Scene\n\nAlice: Hello.\n=> [On](#nowhere)\n", &OpenOptions::default())
            .expect_err("a divert to a missing anchor does not compile");
    let OpenError::Compile { diagnostics } = &error else { panic!("{error:?}") };
    let first = diagnostics.iter().find(|d| d.is_error()).expect("an error");
    assert_eq!((first.file.as_str(), first.line), ("bad.dialogue.md", 4), "{first:?}");
    assert!(error.to_string().contains("bad.dialogue.md:4:"), "{error}");
}

#[test]
fn unreadable_bytes_name_the_file_and_a_snapshot_of_another_document_is_refused() {
    let error = Document::open("broken.json", b"{\"format\": 0, \"nodes\": [", &OpenOptions::default()).unwrap_err();
    assert!(matches!(&error, OpenError::Unreadable(m) if m.starts_with("broken.json:")), "{error:?}");

    let options = OpenOptions::default();
    let fair = Document::open("club-fair.dialogue.md", &example("club-fair.dialogue.md"), &options).unwrap();
    let crossing = Document::open("the-crossing.json", &example("the-crossing.json"), &options).unwrap();
    let value = fair.start("s", 0, 1).unwrap().snapshot_value().unwrap();
    assert!(crossing.restore(value.clone()).is_err(), "a runner snapshot is not a ChatMapper one");
    let other = Document::open("other.dialogue.md", b"# Scene\n\nAlice: Hello.\n", &options).unwrap();
    let refused = other.restore(value).err().expect("another document's snapshot is refused");
    assert!(refused.to_string().contains("another document"), "{refused}");
}

#[test]
fn a_run_of_an_edited_project_or_script_is_replayed_into_it_and_a_lost_move_is_named() {
    let options = OpenOptions::default();
    let bytes = example("the-crossing.json");
    let crossing = Document::open("the-crossing.json", &bytes, &options).unwrap();
    let mut session = crossing.start("run", 3, 1).unwrap();
    let taken = play(session.as_mut(), 4, 0);
    let value = session.snapshot_value().unwrap();
    let edited =
        String::from_utf8(bytes).unwrap().replace("The river runs high tonight.", "The river is loud tonight.");
    let edited = Document::open("the-crossing.json", edited.as_bytes(), &options).unwrap();
    assert_ne!(edited.fingerprint(), crossing.fingerprint());
    assert!(edited.restore(value.clone()).is_err(), "a restore needs the same document");
    let mut replayed = edited.replay(value, 3).expect("an edit of the words replays");
    assert_eq!(replayed.id(), "run");
    assert_eq!(replayed.describe().actions, session.describe().actions, "after {taken:?}");
    assert_eq!(play(replayed.as_mut(), 20, 100), play(session.as_mut(), 20, 100), "the same future");
    assert!(replayed.take_trace().iter().all(|r| r.kind != "session.started"), "a replay starts nothing");

    let script = "Mira: Hello.\n\n- Stay.\n\n- Go.\n\n  Mira: Where to?\n\n  - North.\n\n  - South.\n";
    let document = Document::open("s.dialogue.md", script.as_bytes(), &options).unwrap();
    let mut session = document.start("run", 0, 1).unwrap();
    session.apply("next", "k1", 2);
    assert!(matches!(session.apply("choose:1", "k2", 3), Receipt::Executed { .. }));
    let value = session.snapshot_value().unwrap();
    let fewer = Document::open("s.dialogue.md", script.replace("- Stay.\n\n", "").as_bytes(), &options).unwrap();
    let refused = fewer.replay(value, 0).err().expect("the chosen option is gone");
    assert!(refused.to_string().contains("step 3 of its journal (choose:1)"), "{refused}");
}
