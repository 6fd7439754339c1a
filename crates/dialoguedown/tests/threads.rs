//! A long script compiles to the same playbook and diagnostics whether its Markdown is parsed
//! on a second thread (the default) or on the calling thread.

use stagehand_dialoguedown::{compile, render_json, Options};

#[path = "../benches/support/script.rs"]
mod script;

#[test]
fn one_thread_or_two_the_compile_is_the_same() {
    // About 16 pieces of 64 KiB, so the Markdown is parsed alongside in many batches.
    let mut source = script::script(1024 * 1024);
    // A mistake near the end, so errors found on the second thread are reported too.
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
