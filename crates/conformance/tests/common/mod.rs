//! Shared by the corpus test files: the expected list, and a macro generating a test per case.

#![allow(dead_code)]

use std::path::PathBuf;

use stagehand_conformance::{discover, repository_root, Case, Harness, Outcome};

/// The cases `conformance/expected.txt` lists, relative to `conformance/`.
pub fn expected() -> Vec<String> {
    let path = repository_root().join("conformance/expected.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned).collect()
}

/// Runs the case at `conformance/<relative>` and holds it to the expected list.
pub fn check(relative: &str, harness: &Harness) {
    let dir = repository_root().join("conformance").join(relative);
    let case = Case { name: relative.to_owned(), dir };
    let outcome = harness.run(&case);
    if expected().iter().any(|e| e == relative) {
        assert_eq!(outcome, Outcome::Conformed, "{relative} is expected to conform");
    } else {
        assert!(
            matches!(outcome, Outcome::NotYetPlayable(_)),
            "{relative} is not on the expected list, so it must be not yet playable; it came to: {outcome}"
        );
    }
}

/// Every case folder under `conformance/<group>` has a generated test, and every expected case
/// of the group exists.
pub fn every_case_has_a_test(group: &str, tested: &[&str]) {
    let root = repository_root().join("conformance");
    let cases = discover(&[root.join(group)]).expect("the corpus folder");
    for case in &cases {
        let relative = case.dir.strip_prefix(&root).map(PathBuf::from).expect("under conformance/");
        let relative = relative.to_string_lossy().replace('\\', "/");
        assert!(tested.contains(&relative.as_str()), "{relative} has no test: add it to the cases! list");
    }
    for expected in expected().iter().filter(|e| e.starts_with(&format!("{group}/"))) {
        assert!(root.join(expected).join("fixture.json").is_file(), "{expected} is expected but missing");
    }
}

/// Generates one `#[test]` per case, and `CASES`, the list of them.
#[macro_export]
macro_rules! cases {
    ($($name:ident => $path:literal,)*) => {
        const CASES: &[&str] = &[$($path),*];
        $(
            #[test]
            fn $name() {
                common::check($path, &common::harness());
            }
        )*
    };
}

/// The harness the corpus tests use: every engine, as `stagehand conform` has it.
pub fn harness() -> Harness {
    stagehand_documents::conform::harness()
}
