//! Arbitrary bytes, behind the binary playbook's magic and encoding byte, into the binary
//! reader; whatever it accepts must read back the same from its JSON form, and play a few steps.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stagehand_runner::{step, Command, PlayContext, PlayState};

fuzz_target!(|data: &[u8]| {
    let mut bytes = stagehand_playbook::BINARY_MAGIC.to_vec();
    bytes.push(stagehand_playbook::BINARY_ENCODING);
    bytes.extend_from_slice(data);
    let Ok(playbook) = stagehand_playbook::read_binary(&bytes) else { return };
    let json = stagehand_playbook::write_compact(&playbook);
    assert_eq!(stagehand_playbook::read(&json).as_ref(), Ok(&playbook));
    let context = PlayContext::new(&playbook);
    let mut state = PlayState::new();
    for command in [Command::start(), Command::Next, Command::Done, Command::Choose(0), Command::Next] {
        state = step(&context, &state, command).state;
    }
});
