//! The harness with every engine: the ChatMapper loader opens ChatMapper exports only, and the
//! harness plays a case of each kind.

use std::path::Path;

use stagehand_conformance::{Case, Loader, Outcome};
use stagehand_documents::conform::{harness, ChatMapperLoader};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn the_loader_opens_chatmapper_exports_only() {
    let crossing = std::fs::read(root().join("examples/the-crossing.json")).unwrap();
    assert!(matches!(ChatMapperLoader.open(Path::new("x.json"), &crossing, 0), Some(Ok(_))));
    let xml = std::fs::read(root().join("examples/the-crossing.xml")).unwrap();
    assert!(matches!(ChatMapperLoader.open(Path::new("x.xml"), &xml, 0), Some(Ok(_))));
    let playbook = std::fs::read(root().join("conformance/dialoguedown/playable/linear-speech/playbook.json")).unwrap();
    assert!(ChatMapperLoader.open(Path::new("playbook.json"), &playbook, 0).is_none());
    assert!(ChatMapperLoader.open(Path::new("notes.txt"), b"hello", 0).is_none());
    let native = ChatMapperLoader.open(Path::new("story.cmp"), b"\x35\x19", 0);
    assert!(matches!(native, Some(Err(ref e)) if e.contains("export")), "{:?}", native.map(|o| o.err()));
}

#[test]
fn the_harness_plays_a_script_a_playbook_and_a_project() {
    for case in [
        "conformance/stagehand/random-static-weights",
        "conformance/dialoguedown/playable/linear-speech",
        "conformance/chatmapper/conditions-and-scripts",
    ] {
        let dir = root().join(case);
        let outcome = harness().run(&Case { name: case.to_owned(), dir });
        assert_eq!(outcome, Outcome::Conformed, "{case}");
    }
}
