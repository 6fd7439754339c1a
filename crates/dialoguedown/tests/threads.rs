//! A long script compiles to the same playbook and diagnostics whether its Markdown is parsed
//! on two threads (the default) or on the calling thread alone.

use stagehand_dialoguedown::{compile, render_json, Options};

#[path = "../benches/support/script.rs"]
mod script;

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
