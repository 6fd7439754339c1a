//! Arbitrary bytes into the playbook reader; whatever it accepts, played a few steps.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stagehand_runner::{step, Command, PlayContext, PlayState};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(playbook) = stagehand_playbook::read(text) else { return };
    let context = PlayContext::new(&playbook);
    let mut state = PlayState::new();
    for command in [Command::start(), Command::Next, Command::Done, Command::Choose(0), Command::Next] {
        state = step(&context, &state, command).state;
    }
});
