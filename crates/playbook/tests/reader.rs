//! The reader and writer against real documents (the vendored corpus and goldens), and each
//! refusal the corpus does not already pin.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use stagehand_playbook::{fingerprint, read, to_json, write, ReadError, Rule};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/dialoguedown")
}

/// Every accepted document in the corpus, and every golden.
fn accepted_documents() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for group in ["playable", "readable"] {
        for entry in std::fs::read_dir(root().join(group)).expect("the corpus") {
            let path = entry.expect("an entry").path().join("playbook.json");
            let text = std::fs::read_to_string(&path).expect("a playbook");
            if read(&text).is_ok() {
                paths.push(path);
            }
        }
    }
    for entry in std::fs::read_dir(root().join("goldens")).expect("the goldens") {
        paths.push(entry.expect("an entry").path());
    }
    paths.sort();
    paths
}

#[test]
fn the_writer_gives_back_every_document_the_reader_accepts() {
    let documents = accepted_documents();
    assert!(documents.len() >= 27 + 4 + 3, "found only {} documents", documents.len());
    for path in documents {
        let text = std::fs::read_to_string(&path).expect("readable");
        let playbook = read(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut original: Value = serde_json::from_str(&text).expect("JSON");
        // The one unknown property in the corpus is ignored by design, so it is not written back.
        if let Some(map) = original.as_object_mut() {
            map.retain(|key, _| key != "lineIds");
        }
        assert_eq!(to_json(&playbook), original, "{} does not write back as it was read", path.display());
        let again = read(&write(&playbook)).expect("the writer's output reads");
        assert_eq!(again, playbook);
        assert_eq!(fingerprint(&again), fingerprint(&playbook));
    }
}

fn refusal(document: Value) -> (Rule, String, String) {
    match read(&document.to_string()) {
        Err(ReadError::Refused(refusal)) => (refusal.rule, refusal.path.to_string(), refusal.message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn document(nodes: Value) -> Value {
    json!({
        "format": { "version": 0, "requires": ["core"], "uses": [] },
        "script": "s.dialogue.md", "entry": 0, "anchors": {},
        "speakers": [{ "name": "Alice", "tags": [] }, { "id": "a", "tags": [] }],
        "nodes": nodes
    })
}

fn hello(out: Value) -> Value {
    json!({ "kind": "line", "id": 0, "speaker": 0, "speech": [{ "kind": "text", "text": "Hi." }], "out": out })
}

#[test]
fn refusals_name_the_rule_and_the_path() {
    let end = json!({ "kind": "end", "id": 1, "out": [] });
    let two_diverts = document(json!([
        hello(json!([
            { "kind": "divert", "target": 1, "label": [] },
            { "kind": "divert", "target": 1, "label": [] }
        ])),
        end
    ]));
    assert_eq!(refusal(two_diverts).0, Rule::OutwardShape);

    let menu_without_options =
        document(json!([{ "kind": "choice", "id": 0, "out": [{ "kind": "succession", "target": 1 }] }, end]));
    let (rule, path, _) = refusal(menu_without_options);
    assert_eq!((rule, path.as_str()), (Rule::OutwardShape, "$.nodes[0].out"));

    let gated_menu = document(json!([{ "kind": "choice", "id": 0, "out": [
        { "kind": "option", "target": 1, "label": [], "condition": { "kind": "key", "key": "k" } }
    ] }, end]));
    assert!(refusal(gated_menu).2.contains("every arm is gated"));

    let end_with_edge = document(json!([hello(json!([{ "kind": "succession", "target": 1 }])),
        { "kind": "end", "id": 1, "out": [{ "kind": "succession", "target": 0 }] }]));
    assert_eq!(refusal(end_with_edge).1, "$.nodes[1].out");

    let unknown_kind = document(json!([{ "kind": "teleport", "id": 0, "out": [] }]));
    let (rule, path, message) = refusal(unknown_kind);
    assert_eq!((rule, path.as_str()), (Rule::Shape, "$.nodes[0].kind"));
    assert!(message.contains("teleport"));

    let conditional_without_fall_through = document(json!([
        { "kind": "line", "id": 0, "speaker": 0, "speech": [], "condition": { "kind": "key", "key": "k" },
          "out": [{ "kind": "divert", "target": 1, "label": [] }] },
        end
    ]));
    assert!(refusal(conditional_without_fall_through).2.contains("conditional"));

    let bad_style = document(json!([
        { "kind": "line", "id": 0, "speaker": 0, "speech": [{ "kind": "styled", "style": "shouting", "children": [] }],
          "out": [{ "kind": "succession", "target": 1 }] },
        end
    ]));
    assert_eq!(refusal(bad_style).1, "$.nodes[0].speech[0].style");
}

#[test]
fn the_version_is_judged_before_the_shape() {
    // A newer document may be shaped in ways this reader does not know: say why it is refused.
    let newer = json!({ "format": { "version": 7, "requires": [], "uses": [] }, "nodes": "a different shape" });
    assert_eq!(refusal(newer).0, Rule::Version);
}

#[test]
fn syntax_errors_carry_a_line_and_column() {
    match read("{\n  \"format\": ") {
        Err(ReadError::Syntax { line, column, .. }) => assert_eq!((line, column), (2, 12)),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn deeply_nested_speech_is_refused_not_overflowed() {
    let depth = 100_000;
    let open = r#"{"kind":"styled","style":"bold","children":["#.repeat(depth);
    let close = "]}".repeat(depth);
    let text = format!(
        r#"{{"format":{{"version":0,"requires":["core"],"uses":[]}},"script":"s","entry":0,"anchors":{{}},
        "speakers":[{{"tags":[]}}],"nodes":[{{"kind":"line","id":0,"speaker":0,"speech":[{open}{{"kind":"break"}}{close}],"out":[]}}]}}"#
    );
    // serde_json stops at its recursion limit, so this is a syntax error, not a stack overflow.
    assert!(matches!(read(&text), Err(ReadError::Syntax { .. })));
}

/// The document with every object's properties in reverse order.
fn reversed(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(map.iter().rev().map(|(k, v)| (k.clone(), reversed(v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

#[test]
fn properties_are_read_in_any_order() {
    // The reader streams a document written in the documented order; a `kind` or the `format`
    // header that comes last must still decide how what came before it is read.
    for path in accepted_documents() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let value: Value = serde_json::from_str(&text).expect("JSON");
        let backwards = read(&reversed(&value).to_string()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(backwards, read(&text).expect("accepted"), "{}", path.display());
    }
    let newer_last = json!({ "nodes": "a different shape", "format": { "version": 7, "requires": [] } });
    assert_eq!(refusal(newer_last).0, Rule::Version);
    let bad_style_first = document(json!([
        { "out": [{ "target": 1, "kind": "succession" }], "speech": [{ "children": [], "style": "shouting", "kind": "styled" }],
          "speaker": 0, "id": 0, "kind": "line" },
        { "kind": "end", "id": 1, "out": [] }
    ]));
    let (rule, path, message) = refusal(bad_style_first);
    assert_eq!((rule, path.as_str()), (Rule::Shape, "$.nodes[0].speech[0].style"));
    assert_eq!(message, "expected italic, bold or strikethrough, found the text \"shouting\"");
}

#[test]
fn a_syntax_error_outranks_a_refusal_before_it() {
    let text = r#"{"format":{"version":9,"requires":[]},"nodes":[1,2"#;
    assert!(matches!(read(text), Err(ReadError::Syntax { .. })), "{:?}", read(text));
}

#[test]
fn a_playbook_in_memory_is_checked_as_its_written_form_would_be() {
    use stagehand_playbook::{smallvec, Edge, Node, Playbook, Reader, Speaker};
    let mut playbook = Playbook::new("m.dialogue.md");
    playbook.speakers.push(Speaker::named("A"));
    playbook.nodes = vec![
        Node::Line {
            speaker: 0,
            speech: Box::default(),
            condition: None,
            out: smallvec![Edge::Succession { target: 1 }],
        },
        Node::End,
    ];
    assert_eq!(Reader::new().check_playbook(&playbook), Ok(()));
    playbook.nodes[0].out_mut().expect("a line has ways out")[0].set_target(7);
    let in_memory = Reader::new().check_playbook(&playbook).expect_err("a dangling target");
    match read(&write(&playbook)) {
        Err(ReadError::Refused(written)) => assert_eq!(in_memory, written),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!((in_memory.rule, in_memory.path.to_string().as_str()), (Rule::Reference, "$.nodes[0].out[0].target"));
}

#[test]
fn deep_nesting_after_a_refusal_is_still_a_syntax_error() {
    // A refusal makes the reader scan the rest of the text for syntax errors: that scan must not
    // overflow either.
    let depth = 100_000;
    let text =
        format!(r#"{{"format":{{"version":9,"requires":[]}},"nodes":{}{}}}"#, "[".repeat(depth), "]".repeat(depth));
    assert!(matches!(read(&text), Err(ReadError::Syntax { .. })), "{:?}", read(&text));
}

/// References are stored as `u32` (PB7): one past `u32::MAX` is refused under the reference
/// rule at its path, as one past the table is, never truncated to a node that exists.
#[test]
fn a_reference_past_u32_is_refused_not_truncated() {
    let end = json!({ "kind": "end", "id": 1, "out": [] });
    let far = document(json!([hello(json!([{ "kind": "succession", "target": 4_294_967_296u64 }])), end.clone()]));
    let (rule, path, message) = refusal(far);
    assert_eq!((rule, path.as_str()), (Rule::Reference, "$.nodes[0].out[0].target"));
    assert!(message.contains("4294967296 lands nowhere"), "{message}");

    let mut far_speaker = document(json!([hello(json!([{ "kind": "succession", "target": 1 }])), end]));
    far_speaker["nodes"][0]["speaker"] = json!(4_294_967_297u64);
    let (rule, path, _) = refusal(far_speaker);
    assert_eq!((rule, path.as_str()), (Rule::Reference, "$.nodes[0].speaker"));
}

#[test]
fn two_speakers_sharing_an_id_are_read() {
    // The schema lets two speakers carry one id, and none of the reference's checkers
    // ("Playbook Format", Reading a playbook) refuses it: speakers are addressed by position, and
    // the id is "the writer's own, carried through unchanged". The compiler never writes such a
    // playbook (C19), but a reader reads every one the schema and the checkers allow.
    let end = json!({ "kind": "end", "id": 1, "out": [] });
    let mut twice = document(json!([hello(json!([{ "kind": "succession", "target": 1 }])), end]));
    twice["speakers"][0]["id"] = json!("a");
    let playbook = read(&twice.to_string()).expect("read");
    assert_eq!(playbook.speakers[0].id.as_deref(), playbook.speakers[1].id.as_deref());
    assert_eq!(to_json(&playbook)["speakers"], twice["speakers"]);
}

#[test]
fn a_reference_written_as_an_integral_number_is_read() {
    // JSON Schema 2020-12's "integer" is any number with a zero fractional part: `-0`, `1.0` and
    // `1e0` are all node references the schema allows, so the reader reads them as written
    // integers; a fraction or a negative number is still refused.
    let end = json!({ "kind": "end", "id": 1, "out": [] });
    let text = document(json!([hello(json!([{ "kind": "succession", "target": 1 }])), end])).to_string();
    let plain = read(&text).expect("read");
    for (from, to) in
        [(r#""entry":0"#, r#""entry":-0"#), (r#""target":1"#, r#""target":1.0"#), (r#""id":1"#, r#""id":1e0"#)]
    {
        assert!(text.contains(from), "{text}");
        let written = text.replacen(from, to, 1);
        assert_eq!(read(&written).unwrap_or_else(|e| panic!("{to}: {e}")), plain, "{to}");
    }
    for (from, to) in [(r#""target":1"#, r#""target":1.5"#), (r#""entry":0"#, r#""entry":-1"#)] {
        assert!(read(&text.replacen(from, to, 1)).is_err(), "{to}");
    }
}
