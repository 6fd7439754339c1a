//! Arbitrary text into the DialogueDown compiler; whatever compiles must read back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let options = stagehand_dialoguedown::Options::default();
    let compilation = stagehand_dialoguedown::compile(source, "fuzz.dialogue.md", &options);
    if let Some(playbook) = compilation.playbook {
        let written = stagehand_playbook::write(&playbook);
        assert!(stagehand_playbook::read(&written).is_ok(), "a compiled playbook must read back");
    }
    let _ = stagehand_dialoguedown::render_human(&compilation.diagnostics, source, "fuzz.dialogue.md");
});
