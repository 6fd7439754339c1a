//! The lints over a script's shape — random-choice weights and choice nesting — and which
//! diagnostics each compilation mode reports: what real scripts showed to be wrong.

use stagehand_dialoguedown::{compile, Code, Diagnostic, Mode, Options};

fn found(source: &str, mode: Mode) -> Vec<Diagnostic> {
    compile(source, "case.dialogue.md", &Options { mode, ..Options::default() }).diagnostics
}

fn codes(source: &str) -> Vec<Code> {
    found(source, Mode::StageBoundary).iter().map(|d| d.code).collect()
}

#[test]
fn a_lone_option_weighing_nothing_is_a_single_option_warning_not_an_error() {
    let source = "# Coin\nThe coin spins.\n\n- `0%` Heads.\n";
    let compilation = compile(source, "coin.dialogue.md", &Options::default());
    let codes: Vec<Code> = compilation.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::SingleOptionRandom], "{:#?}", compilation.diagnostics);
    assert!(compilation.playbook.is_some(), "a warning leaves the playbook");
}

#[test]
fn a_lone_option_draws_no_total_warning_whatever_it_weighs() {
    for weight in ["50%", "100%", "%", "250%"] {
        let source = format!("- `{weight}` It always lands heads.\n");
        assert_eq!(codes(&source), [Code::SingleOptionRandom], "{source}");
    }
}

#[test]
fn a_group_with_a_conditional_option_has_its_total_known_only_at_run_time() {
    for source in [
        "- `\"Lucky\"?` `50%` Heads.\n- `30%` Tails.\n",
        "- `30%` Heads.\n- `\"Lucky\"?` `30%` Tails.\n- `10%` Edge.\n",
    ] {
        assert_eq!(codes(source), [], "{source}");
    }
    // All zero stays all zero whichever options are open: still the error.
    assert_eq!(codes("- `\"Lucky\"?` `0%` Heads.\n- `0%` Tails.\n"), [Code::ZeroWeights]);
}

#[test]
fn weights_within_rounding_of_a_hundred_total_a_hundred() {
    for source in [
        "- `33.3%` Rock.\n- `33.3%` Paper.\n- `33.3%` Scissors.\n",
        "- `33.33%` Rock.\n- `33.33%` Paper.\n- `33.33%` Scissors.\n",
        "- `50.2%` Heads.\n- `50.2%` Tails.\n",
        "- `66.7%` Heads.\n- `33.4%` Tails.\n- `%` Edge.\n",
    ] {
        assert_eq!(codes(source), [], "{source}");
    }
    for (source, total) in [
        ("- `33%` Rock.\n- `33%` Paper.\n- `33%` Scissors.\n", "99%"),
        ("- `50%` Heads.\n- `51%` Tails.\n", "101%"),
        ("- `60%` Heads.\n- `60%` Tails.\n- `%` Edge.\n", "120%"),
    ] {
        let found = found(source, Mode::StageBoundary);
        assert_eq!(found.iter().map(|d| d.code).collect::<Vec<_>>(), [Code::WeightsNotHundred], "{source}");
        assert!(found[0].message.contains(&format!("total {total},")), "{}", found[0].message);
    }
}

#[test]
fn deep_nesting_is_reported_once_per_group_at_its_marker() {
    let source = "# Conversation\n\n- Level 1\n    - Level 2\n        - Level 3\n            - Level 4\n                - Level 5\n                    - Level 6\n";
    let found = found(source, Mode::StageBoundary);
    let deep: Vec<&Diagnostic> = found.iter().filter(|d| d.code == Code::DeepChoiceNesting).collect();
    assert_eq!(deep.len(), 1, "{found:#?}");
    assert_eq!((deep[0].line, deep[0].column), (6, 13), "at the level-4 marker");
    assert!(deep[0].message.contains("level 4"), "{}", deep[0].message);
    assert!(source[deep[0].span.clone()].starts_with("- Level 4"), "{:?}", &source[deep[0].span.clone()]);
}

#[test]
fn sibling_branches_that_nest_too_deep_are_reported_each() {
    let branch = "    - Level 2\n        - Level 3\n            - Level 4\n                - Level 5\n";
    let source = format!("- Left\n{branch}- Right\n{branch}");
    let deep: Vec<(usize, usize)> = found(&source, Mode::StageBoundary)
        .iter()
        .filter(|d| d.code == Code::DeepChoiceNesting)
        .map(|d| (d.line, d.column))
        .collect();
    assert_eq!(deep, [(4, 13), (9, 13)]);
}

#[test]
fn a_thematic_break_is_called_a_divider() {
    let source = "Alice: We should go.\n\n---\n\nAlice: The road was long.\n";
    let found = found(source, Mode::StageBoundary);
    let ignored = found.iter().find(|d| d.code == Code::IgnoredMarkdown).expect("DLG1114");
    assert!(ignored.message.starts_with("This divider is not dialogue"), "{}", ignored.message);
    assert!(!ignored.message.contains("thematic"), "{}", ignored.message);
}

#[test]
fn every_syntax_error_is_reported_in_every_mode() {
    // One error the Markdown stages find, three weights missing and one invalid, and a jump
    // to no scene (semantic, so left out by the default mode once syntax errors are found).
    let source =
        "Alice: `nonsense`.\n\n- `50%` Heads.\n- Tails.\n- Edge.\n- Rim.\n- `-10%` Air.\n\n=> [Nowhere](#nowhere)\n";
    let syntax =
        [Code::NotAGameCall, Code::MissingWeight, Code::MissingWeight, Code::MissingWeight, Code::InvalidWeight];
    for mode in Mode::ALL {
        let found: Vec<Code> =
            found(source, mode).iter().map(|d| d.code).filter(|code| code.as_str() < "DLG2").collect();
        assert_eq!(found, syntax, "{mode:?}");
    }
    assert!(!codes(source).contains(&Code::MissingJumpTarget));
    assert!(found(source, Mode::BestEffort).iter().any(|d| d.code == Code::MissingJumpTarget));
}

#[test]
fn a_syntax_error_found_by_analysis_is_a_stage_boundary_too() {
    // Only the weights are wrong: the missing one is reported, the semantic error is not.
    let source = "- `50%` Heads.\n- Tails.\n\n=> [Nowhere](#nowhere)\n";
    assert_eq!(codes(source), [Code::MissingWeight]);
}
