//! Stagehand's own cases (random choice with a seed): one named test per case, held to
//! `conformance/expected.txt`.

mod common;

cases! {
    stagehand_random_auto_weights => "stagehand/random-auto-weights",
    stagehand_random_conditional_option => "stagehand/random-conditional-option",
    stagehand_random_dynamic_weights => "stagehand/random-dynamic-weights",
    stagehand_random_static_weights => "stagehand/random-static-weights",
}

#[test]
fn every_case_on_disk_has_a_test() {
    common::every_case_has_a_test("stagehand", CASES);
}
