//! The agent-playbook contract battery (`conformance/agents/`): one named test per case. With
//! `STAGEHAND_BLESS=1` a case's expected `log` is rewritten from what it produced (review the
//! diff like code).

use std::path::PathBuf;

use stagehand_agents::scenario::{bless_case, discover, run_case};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/agents")
}

fn check(name: &str) {
    let dir = root().join(name);
    let verdict = if std::env::var_os("STAGEHAND_BLESS").is_some() {
        bless_case(&dir).unwrap_or_else(|e| panic!("{name}: {e}"))
    } else {
        run_case(&dir)
    };
    assert!(verdict.passed(), "case {name}:\n  {}", verdict.failures.join("\n  "));
}

/// Generates one `#[test]` per case, and `CASES`, the list of them.
macro_rules! cases {
    ($($test:ident => $name:literal,)*) => {
        const CASES: &[&str] = &[$($name),*];
        $(
            #[test]
            fn $test() {
                check($name);
            }
        )*
    };
}

cases! {
    workflow_clean_review => "workflow-clean-review",
}

#[test]
fn every_case_directory_is_listed_and_there_are_at_least_fifty() {
    let found: Vec<String> = discover(&root())
        .iter()
        .map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .collect();
    for name in &found {
        assert!(CASES.contains(&name.as_str()), "case directory {name} is not listed in tests/scenarios.rs");
    }
    for name in CASES {
        assert!(found.iter().any(|f| f == name), "listed case {name} has no directory");
    }
    assert!(CASES.len() >= 50, "only {} cases", CASES.len());
}
