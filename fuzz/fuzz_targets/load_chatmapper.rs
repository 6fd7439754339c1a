//! Arbitrary bytes into the ChatMapper readers, as XML and as JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = stagehand_chatmapper::load(data, "fuzz.xml");
    let _ = stagehand_chatmapper::load(data, "fuzz.json");
});
