//! The reader never panics, whatever it is handed: arbitrary text, and corpus documents with
//! bytes changed, cut short, or values swapped for others.

use std::sync::LazyLock;

use proptest::prelude::*;
use stagehand_playbook::read;

/// The gallery golden, read once for every case.
static DOC: LazyLock<String> = LazyLock::new(|| {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/dialoguedown/goldens/gallery.verified.json");
    std::fs::read_to_string(path).expect("the gallery golden")
});

fn corpus_document() -> &'static str {
    &DOC
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_is_refused_or_read(text in ".{0,400}") {
        let _ = read(&text);
    }

    #[test]
    fn a_damaged_document_is_refused_or_read(at in 0usize..16_000, byte in any::<u8>(), cut in any::<bool>()) {
        let mut bytes = corpus_document().as_bytes().to_vec();
        let at = at % bytes.len();
        if cut {
            bytes.truncate(at);
        } else {
            bytes[at] = byte;
        }
        let _ = read(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn numbers_swapped_for_other_values_are_refused_or_read(
        nth in 0usize..400,
        replacement in prop::sample::select(vec!["-1", "1e300", "0.5", "null", "\"7\"", "[]", "{}", "18446744073709551616", "true"]),
    ) {
        let text = corpus_document();
        let positions: Vec<usize> = text.match_indices(": ").map(|(i, _)| i + 2).collect();
        let start = positions[nth % positions.len()];
        let end = text[start..].find([',', '\n']).map_or(text.len(), |n| start + n);
        let damaged = format!("{}{}{}", &text[..start], replacement, &text[end..]);
        let _ = read(&damaged);
    }
}
