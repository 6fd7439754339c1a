//! The streaming reader against the tree reader it replaced: on corpus documents damaged at
//! random, both accept the same playbook or refuse by the same rule, at the same path, with the
//! same words; and a syntax error is the same syntax error, at the same place, to both. The
//! stream reader (`Reader::read_from`, which reads a file without holding its text) answers
//! exactly as the string reader does, to the word.

use std::sync::LazyLock;

use proptest::prelude::*;
use std::io::Cursor;

use stagehand_playbook::{read, ReadError, Reader};

#[path = "support/tree_reader.rs"]
mod tree_reader;

static DOCS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/dialoguedown/goldens");
    let mut paths: Vec<_> =
        std::fs::read_dir(root).expect("the goldens").map(|e| e.expect("an entry").path()).collect();
    paths.sort();
    paths.iter().map(|path| std::fs::read_to_string(path).expect("a golden")).collect()
});

fn same(text: &str) -> Result<(), TestCaseError> {
    let from_stream = Reader::new().read_from(Cursor::new(text.as_bytes()));
    prop_assert_eq!(&from_stream, &read(text), "the stream reader differs from the string reader");
    match (read(text), tree_reader::read(text)) {
        (Ok(streamed), Ok(tree)) => prop_assert_eq!(streamed, tree),
        (Err(ReadError::Refused(streamed)), Err(ReadError::Refused(tree))) => {
            prop_assert_eq!(
                (streamed.rule, streamed.path.to_string(), streamed.message),
                (tree.rule, tree.path.to_string(), tree.message)
            )
        }
        (Err(ReadError::Syntax { line, column, .. }), Err(ReadError::Syntax { line: l, column: c, .. })) => {
            prop_assert_eq!((line, column), (l, c))
        }
        (streamed, tree) => prop_assert!(false, "streamed {:?}, but the tree reader {:?}", streamed, tree),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn a_damaged_document_reads_as_the_tree_reader_read_it(doc in 0usize..4, at in 0usize..1 << 20, byte in any::<u8>(), cut in any::<bool>()) {
        let mut bytes = DOCS[doc % DOCS.len()].as_bytes().to_vec();
        let at = at % bytes.len();
        if cut {
            bytes.truncate(at);
        } else {
            bytes[at] = byte;
        }
        same(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn a_value_swapped_for_another_reads_as_the_tree_reader_read_it(
        doc in 0usize..4,
        nth in 0usize..4000,
        replacement in prop::sample::select(vec!["-1", "1e300", "0.5", "null", "\"7\"", "[]", "{}", "18446744073709551616", "true", "\"teleport\"", "[{}]"]),
    ) {
        let text = &DOCS[doc % DOCS.len()];
        let positions: Vec<usize> = text.match_indices(": ").map(|(i, _)| i + 2).collect();
        let start = positions[nth % positions.len()];
        let end = text[start..].find([',', '\n']).map_or(text.len(), |n| start + n);
        same(&format!("{}{}{}", &text[..start], replacement, &text[end..]))?;
    }
}

#[test]
fn the_stream_reader_skips_a_byte_order_mark_and_reads_every_golden_as_the_string_reader() {
    for text in DOCS.iter() {
        let marked = format!("\u{feff}{text}");
        let streamed = Reader::new().read_from(Cursor::new(marked.as_bytes())).expect("a golden reads");
        assert_eq!(streamed, read(text).expect("a golden reads"));
    }
}

#[test]
fn a_refusal_before_a_syntax_error_is_the_syntax_error_from_a_stream_too() {
    let text = r#"{"format": {"version": 0}, "nodes": [{"kind": "teleport"}], "speakers": [ oops"#;
    let streamed = Reader::new().read_from(Cursor::new(text.as_bytes()));
    assert!(matches!(streamed, Err(ReadError::Syntax { .. })), "{streamed:?}");
    assert_eq!(streamed, read(text));
}

/// A stream that fails after its first bytes.
struct Failing(usize);

impl std::io::Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0 == 0 {
            return Err(std::io::Error::other("the disk went away"));
        }
        buf[0] = b'{';
        self.0 -= 1;
        Ok(1)
    }
}

impl std::io::Seek for Failing {
    fn seek(&mut self, _: std::io::SeekFrom) -> std::io::Result<u64> {
        Ok(0)
    }
}

#[test]
fn a_stream_that_fails_is_an_error_that_says_so() {
    match Reader::new().read_from(Failing(1)) {
        Err(ReadError::Syntax { message, .. }) => assert!(message.contains("the disk went away"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_string_reader_skips_a_byte_order_mark_as_the_stream_reader_does() {
    // A playbook saved by an editor that marks UTF-8 reads the same from a string as from a file
    // (the conformance harness and the server read strings).
    for text in DOCS.iter() {
        let marked = format!("\u{feff}{text}");
        assert_eq!(read(&marked), read(text), "a marked golden reads as the unmarked one");
    }
    let broken = "\u{feff}{\"format\": oops";
    assert_eq!(read(broken), Reader::new().read_from(Cursor::new(broken.as_bytes())));
}
