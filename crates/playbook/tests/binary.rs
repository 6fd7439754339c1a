//! The binary form (`docs/playbook-binary.md`): it reads back as the same playbook with the same
//! fingerprint, refuses what the JSON reader refuses by the same rule at the same JSON path, and
//! meets damaged or hostile bytes with an error, never a panic, a stack overflow or an
//! allocation the input cannot pay for.

use std::sync::LazyLock;

use proptest::prelude::*;
use stagehand_playbook::{
    fingerprint, is_binary, read, read_binary, smallvec, write, write_binary, write_compact, BinaryReadError, Edge,
    Fragment, Node, Playbook, ReadError, Rule, Speaker, Style, Weight, BINARY_ENCODING, BINARY_MAGIC,
};

static GOLDENS: LazyLock<Vec<Playbook>> = LazyLock::new(|| {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/dialoguedown/goldens");
    let mut paths: Vec<_> =
        std::fs::read_dir(root).expect("the goldens").map(|e| e.expect("an entry").path()).collect();
    paths.sort();
    paths.iter().map(|path| read(&std::fs::read_to_string(path).expect("a golden")).expect("a valid golden")).collect()
});

/// A small playbook with one line and an end, to damage by hand.
fn small() -> Playbook {
    let mut playbook = Playbook::new("small.dialogue.md");
    playbook.speakers.push(Speaker::named("Alice"));
    playbook.nodes.push(Node::Line {
        speaker: 0,
        speech: vec![Fragment::text("Hello.")].into(),
        condition: None,
        out: smallvec![Edge::Succession { target: 1 }],
    });
    playbook.nodes.push(Node::End);
    playbook
}

/// The refusal JSON gives the canonical form of a playbook, as (rule, path, message).
fn json_refusal(playbook: &Playbook) -> (Rule, String, String) {
    match read(&write_compact(playbook)) {
        Err(ReadError::Refused(refusal)) => (refusal.rule, refusal.path.to_string(), refusal.message),
        other => panic!("expected a refusal from JSON, got {other:?}"),
    }
}

fn binary_refusal(playbook: &Playbook) -> (Rule, String, String) {
    match read_binary(&write_binary(playbook)) {
        Err(BinaryReadError::Refused(refusal)) => (refusal.rule, refusal.path.to_string(), refusal.message),
        other => panic!("expected a refusal from the binary form, got {other:?}"),
    }
}

#[test]
fn every_golden_reads_back_from_binary_as_the_same_playbook_with_the_same_fingerprint() {
    for golden in GOLDENS.iter() {
        let bytes = write_binary(golden);
        assert!(is_binary(&bytes));
        let again = read_binary(&bytes).expect("the binary form reads back");
        assert_eq!(&again, golden);
        assert_eq!(fingerprint(&again), fingerprint(golden));
        assert_eq!(write(&again), write(golden));
        assert!(bytes.len() < write_compact(golden).len(), "the binary form is the smaller");
    }
}

#[test]
fn every_kind_of_fragment_edge_and_weight_survives_the_binary_form() {
    let mut playbook = small();
    let nested = vec![
        Fragment::Styled { style: Style::Bold, children: vec![Fragment::text("bold")].into() },
        Fragment::Link { target: "https://example.org".into(), label: vec![Fragment::text("a link")].into() },
        Fragment::Image { source: "cat.png".into(), alt: vec![Fragment::Break].into() },
        Fragment::query("mood"),
        Fragment::DefaultCommand { action: "wave".into() },
        Fragment::CustomCommand { name: "play".into(), args: vec!["door.ogg".into(), "loud".into()].into() },
        Fragment::Tag { name: "mood".into(), value: Some("calm".into()), reserved: true },
    ];
    playbook.nodes[0] = Node::Line {
        speaker: 0,
        speech: nested.clone().into(),
        condition: Some(stagehand_playbook::Condition::key("ready")),
        out: smallvec![Edge::Succession { target: 1 }],
    };
    playbook.nodes[1] = Node::RandomChoice {
        out: smallvec![
            Edge::RandomOption { target: 2, weight: Weight::Auto, condition: None },
            Edge::RandomOption { target: 2, weight: Weight::Number { percentage: 12.5 }, condition: None },
            Edge::RandomOption { target: 2, weight: Weight::Query { key: "odds".into() }, condition: None },
        ],
    };
    playbook.nodes.push(Node::End);
    playbook.anchors.insert("start".to_owned(), 0);
    assert_eq!(read_binary(&write_binary(&playbook)), Ok(playbook));
}

#[test]
fn a_structural_fault_is_refused_by_the_rule_and_at_the_json_path_json_would_give() {
    let mut dangling = small();
    dangling.nodes[0].out_mut().expect("a line has ways out")[0] = Edge::Succession { target: 9 };
    assert_eq!(binary_refusal(&dangling), json_refusal(&dangling));
    assert_eq!(binary_refusal(&dangling).0, Rule::Reference);

    let mut no_speaker = small();
    no_speaker.speakers.clear();
    assert_eq!(binary_refusal(&no_speaker), json_refusal(&no_speaker));

    let mut capability = small();
    capability.format.requires.push("cross-file-jump".to_owned());
    assert_eq!(binary_refusal(&capability), json_refusal(&capability));
    assert_eq!(binary_refusal(&capability).0, Rule::Capability);
}

#[test]
fn the_header_is_checked_before_the_body_is_decoded() {
    let mut later = small();
    later.format.version = 7;
    let mut bytes = write_binary(&later);
    assert_eq!(binary_refusal(&later), json_refusal(&later));
    // The header of version 0 spells `version` in its first byte after the encoding byte; a
    // body this build cannot decode still yields the version refusal.
    let header_end = BINARY_MAGIC.len() + 1 + 1 + 1 + 1 + "core".len() + 1;
    bytes.truncate(header_end);
    bytes.extend_from_slice(&[0xff; 16]);
    match read_binary(&bytes) {
        Err(BinaryReadError::Refused(refusal)) => assert_eq!(refusal.rule, Rule::Version),
        other => panic!("expected the version refusal, got {other:?}"),
    }
}

#[test]
fn a_weight_json_cannot_spell_is_refused_at_its_json_path() {
    let mut playbook = small();
    playbook.nodes[1] = Node::RandomChoice {
        out: smallvec![Edge::RandomOption {
            target: 2,
            weight: Weight::Number { percentage: f64::NAN },
            condition: None
        }],
    };
    playbook.nodes.push(Node::End);
    let (rule, path, _) = binary_refusal(&playbook);
    assert_eq!((rule, path.as_str()), (Rule::Shape, "$.nodes[1].out[0].weight.percentage"));
}

#[test]
fn every_truncation_of_a_binary_playbook_is_an_error() {
    let bytes = write_binary(&GOLDENS[0]);
    for len in 0..bytes.len() {
        let error = read_binary(&bytes[..len]).expect_err("a truncated binary playbook");
        if len >= BINARY_MAGIC.len() {
            assert!(matches!(error, BinaryReadError::Malformed { .. } | BinaryReadError::Refused(_)), "{error:?}");
        } else {
            assert_eq!(error, BinaryReadError::NotBinary);
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(read_binary(&longer), Err(BinaryReadError::Malformed { .. })));
}

#[test]
fn another_encoding_is_named_not_misread() {
    let mut bytes = write_binary(&small());
    bytes[BINARY_MAGIC.len()] = BINARY_ENCODING + 1;
    assert_eq!(read_binary(&bytes), Err(BinaryReadError::Encoding { found: BINARY_ENCODING + 1 }));
    assert_eq!(read_binary(write_compact(&small()).as_bytes()), Err(BinaryReadError::NotBinary));
}

#[test]
fn speech_nested_without_end_is_an_error_not_a_stack_overflow() {
    let mut playbook = small();
    let mut speech = vec![Fragment::text("deep")];
    for _ in 0..10_000 {
        speech = vec![Fragment::Styled { style: Style::Italic, children: speech.into() }];
    }
    playbook.nodes[0] = Node::Line {
        speaker: 0,
        speech: speech.into(),
        condition: None,
        out: smallvec![Edge::Succession { target: 1 }],
    };
    // Writing recurses too; do it on a thread with room, then read on a normal one.
    let bytes = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || {
            let bytes = write_binary(&playbook);
            std::mem::forget(playbook);
            bytes
        })
        .expect("a writer thread")
        .join()
        .expect("written");
    // A thread of the standard 2 MiB stack.
    let read = std::thread::Builder::new()
        .spawn(move || read_binary(&bytes).map(drop))
        .expect("a reader thread")
        .join()
        .expect("the reader did not overflow its stack");
    match read {
        Err(BinaryReadError::Malformed { message, .. }) => assert!(message.contains("nested deeper"), "{message}"),
        other => panic!("expected a nesting error, got {other:?}"),
    }
}

#[test]
fn a_length_the_input_cannot_hold_is_an_error() {
    let mut bytes = BINARY_MAGIC.to_vec();
    bytes.push(BINARY_ENCODING);
    // version 0, requires: a list claiming u64::MAX/2 names, then nothing.
    bytes.push(0);
    bytes.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    assert!(matches!(read_binary(&bytes), Err(BinaryReadError::Malformed { .. })));
    // A good header, then a script claiming a gigabyte.
    let mut bytes = write_binary(&small());
    let header_end = BINARY_MAGIC.len() + 1 + 1 + 1 + 1 + "core".len() + 1;
    bytes.truncate(header_end);
    bytes.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x04]);
    assert!(matches!(read_binary(&bytes), Err(BinaryReadError::Malformed { .. })));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_after_the_magic_never_panic(body in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = BINARY_MAGIC.to_vec();
        bytes.push(BINARY_ENCODING);
        bytes.extend_from_slice(&body);
        let _ = read_binary(&bytes);
    }

    #[test]
    fn a_damaged_golden_never_panics(doc in 0usize..4, at in 0usize..1 << 20, byte in any::<u8>()) {
        let mut bytes = write_binary(&GOLDENS[doc % GOLDENS.len()]);
        let at = BINARY_MAGIC.len() + 1 + at % (bytes.len() - BINARY_MAGIC.len() - 1);
        bytes[at] = byte;
        if let Ok(playbook) = read_binary(&bytes) {
            // Whatever reads is a playbook JSON reads too, as the same playbook.
            prop_assert_eq!(read(&write_compact(&playbook)), Ok(playbook));
        }
    }
}

/// A reference is a `u32` in the model (PB7) and a varint on the wire: one past `u32::MAX` is
/// refused as malformed, naming the reference, never truncated to a node that exists.
#[test]
fn a_reference_past_u32_is_refused_not_truncated() {
    let mut playbook = Playbook::new("far.dialogue.md");
    playbook.speakers.push(Speaker::named("Alice"));
    playbook.nodes = vec![
        Node::Line {
            speaker: 0,
            speech: vec![Fragment::text("Hi.")].into(),
            condition: None,
            out: smallvec![Edge::Succession { target: u32::MAX }],
        },
        Node::End,
    ];
    let bytes = write_binary(&playbook);
    // u32::MAX is the varint ff ff ff ff 0f; 2^32 is 80 80 80 80 10, as long.
    let at = bytes.windows(5).position(|w| w == [0xff, 0xff, 0xff, 0xff, 0x0f]).expect("the target's varint");
    let mut far = bytes.clone();
    far[at..at + 5].copy_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x10]);
    match read_binary(&far) {
        Err(BinaryReadError::Malformed { message, .. }) => {
            assert!(message.contains("reference 4294967296 lands nowhere"), "{message}")
        }
        other => panic!("expected the reference refused, got {other:?}"),
    }
    // As written, the target is in range for the type and refused by the reference rule.
    assert!(matches!(read_binary(&bytes), Err(BinaryReadError::Refused(refusal)) if refusal.rule == Rule::Reference));
}
