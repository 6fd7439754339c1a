//! `stagehand check`'s graph lints point at the source lines they concern, as the compiler's
//! diagnostics do (file:line:column), not at node numbers.

mod common;

use common::run_in;

const SCRIPT: &str =
    "Ada: Hello.\n\n=> [Away](#away)\n\nAda: Never said.\n\n# Away\n\n`(\"tick\")`\n\n=> [Again](#away)\n";

#[test]
fn graph_lints_point_at_source_lines() {
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::write(dir.path().join("ring.dialogue.md"), SCRIPT).expect("the script");
    let checked = run_in(dir.path(), &["check", "ring.dialogue.md"], "");
    // The line nothing reaches is line 5; the ring around `("tick")` starts at line 9.
    assert!(checked.contains("warning[graph]: the line at 5:1 \"Ada: Never said.\" is never reached"), "{checked}");
    assert!(checked.contains("  --> ring.dialogue.md:5:1\n"), "{checked}");
    assert!(
        checked.contains("error[graph]: the control line at 9:1 and the control line at 11:1 form a ring"),
        "{checked}"
    );
    assert!(checked.contains("  --> ring.dialogue.md:9:1\n"), "{checked}");
    assert!(!checked.contains("node "), "no node numbers: {checked}");
    assert!(checked.ends_with("--- exit 1\n"), "the ring is an error: {checked}");
    let json = run_in(dir.path(), &["check", "--message-format", "json", "ring.dialogue.md"], "");
    assert!(json.contains("\"line\":9") && json.contains("\"column\":1"), "{json}");
}
