//! A long script compiles to the same playbook and diagnostics whether its Markdown is parsed
//! on two threads (the default) or on the calling thread alone.

use proptest::prelude::*;
use stagehand_dialoguedown::{compile, render_json, Mode, Options};

#[path = "../benches/support/script.rs"]
mod script;

#[path = "support/markdownish.rs"]
mod markdownish;

#[test]
fn one_thread_or_two_the_compile_is_the_same() {
    // About 16 pieces of 64 KiB, so both threads parse pieces.
    let mut source = script::script(1024 * 1024);
    // Mistakes near the end, so errors found in a late piece are reported too.
    source.push_str("\n=> [Nowhere](#nowhere)\n\n`if` `Alone?`\n");
    let two = compile(&source, "long.dialogue.md", &Options::default());
    let one = compile(&source, "long.dialogue.md", &Options { one_thread: true, ..Options::default() });
    assert!(two.has_errors(), "the mistakes are found");
    assert_eq!(render_json(&two.diagnostics), render_json(&one.diagnostics));
    let fixed = source.replace("=> [Nowhere](#nowhere)\n\n`if` `Alone?`\n", "");
    let two = compile(&fixed, "long.dialogue.md", &Options::default()).playbook.expect("compiles");
    let one = compile(&fixed, "long.dialogue.md", &Options { one_thread: true, ..Options::default() });
    assert_eq!(Some(two), one.playbook);
}

/// A script of more than `bytes` bytes: a scene per body in turn, each body made safe to cut
/// after (no fences or `---` lines, which stop the cutting, and no link reference definitions,
/// which stop it everywhere), then every body once more as it is, so what stops the cutting
/// comes last.
fn scenes(bodies: &[String], bytes: usize) -> String {
    let mut source = String::new();
    let mut n = 0;
    while source.len() < bytes {
        let body = bodies[n % bodies.len()].replace("```", "'''").replace("---", "- -").replace("]:", "] :");
        source.push_str(&format!("# Scene {n}\n\n{body}\n\n"));
        n += 1;
    }
    for body in bodies {
        source.push_str(&format!("# Scene {n}\n\n{body}\n\n"));
        n += 1;
    }
    source
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn any_script_long_enough_to_cut_compiles_the_same_on_one_thread_or_two(
        bodies in prop::collection::vec(markdownish::markdownish(), 1..8)
    ) {
        let source = scenes(&bodies, 200 * 1024);
        // Every stage's findings, so analysis, which takes the pieces in order, reports too.
        let options = Options { mode: Mode::BestEffort, ..Options::default() };
        let two = compile(&source, "cut.dialogue.md", &options);
        let one = compile(&source, "cut.dialogue.md", &Options { one_thread: true, ..options });
        prop_assert_eq!(render_json(&two.diagnostics), render_json(&one.diagnostics));
        prop_assert!(two.playbook == one.playbook, "the playbooks differ");
    }
}
