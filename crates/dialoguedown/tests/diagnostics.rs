//! One test per diagnostic code: its triggering example reports the code with its severity at a
//! located span, and the fix compiles without it. The examples follow the error-code reference.

use stagehand_dialoguedown::{compile, render_human, render_json, Code, Options, Severity};

fn codes(source: &str) -> Vec<Code> {
    compile(source, "case.dialogue.md", &Options::default()).diagnostics.iter().map(|d| d.code).collect()
}

fn check(code: &str, trigger: &str, fix: &str) {
    let compilation = compile(trigger, "case.dialogue.md", &Options::default());
    let found = compilation.diagnostics.iter().find(|d| d.code.as_str() == code);
    let Some(found) = found else {
        panic!("{code} not reported for:\n{trigger}\ngot: {:#?}", compilation.diagnostics);
    };
    assert_eq!(found.severity, found.code.severity());
    assert_eq!(found.file, "case.dialogue.md");
    assert!(found.line >= 1 && found.column >= 1);
    assert!(found.span.start <= found.span.end && found.span.end <= trigger.len());
    assert!(!found.message.is_empty() && !found.label.is_empty());
    if found.severity == Severity::Error {
        assert!(compilation.playbook.is_none(), "{code} is an error, so no playbook");
    }
    let fixed = compile(fix, "case.dialogue.md", &Options::default());
    assert!(
        fixed.diagnostics.iter().all(|d| d.code.as_str() != code),
        "{code} still reported after the fix:\n{fix}\n{:#?}",
        fixed.diagnostics
    );
}

macro_rules! cases {
    ($($test:ident: $code:literal, $trigger:expr, $fix:expr;)*) => {
        $(#[test] fn $test() { check($code, $trigger, $fix); })*
        const TESTED: &[&str] = &[$($code),*];
    };
}

cases! {
    dlg1003_unreachable_after_jump: "DLG1003",
        "# Crossroads\n=> [Market](#market) or => [Home](#home)\n\n# Market\nMerchant: Wares!\n\n# Home\nAlice: Cozy.\n",
        "# Crossroads\n=> [Market](#market)\n\n=> [Home](#home)\n\n# Market\nMerchant: Wares!\n\n# Home\nAlice: Cozy.\n";
    dlg1101_tags_without_speaker: "DLG1101",
        "# Scene\n#excited: We made it!\n",
        "# Scene\nAlice #excited: We made it!\n";
    dlg1102_not_a_game_call: "DLG1102",
        "# Scene\nAlice: The sky turns `just some words`.\n",
        "# Scene\nAlice: The sky turns `\"World.Weather\"`.\n";
    dlg1103_disallowed_in_label: "DLG1103",
        "# Scene\nAlice: Read [the old\nsign](#scene).\n",
        "# Scene\nAlice: Read [the *old* sign](#scene).\n";
    dlg1104_missing_weight: "DLG1104",
        "# Coin\nThe coin spins.\n\n- `50%` Heads.\n- Tails.\n",
        "# Coin\nThe coin spins.\n\n- `50%` Heads.\n- `50%` Tails.\n";
    dlg1105_invalid_weight: "DLG1105",
        "# Coin\nThe coin spins.\n\n- `-10%` Heads.\n- `%` Tails.\n",
        "# Coin\nThe coin spins.\n\n- `10%` Heads.\n- `%` Tails.\n";
    dlg1106_condition_guards_nothing: "DLG1106",
        "# Moor\nGuide: `\"Rainy\"?` The moor is bleak.\n",
        "# Moor\n`\"Rainy\"?` Guide: The moor is bleak.\n";
    dlg1107_styled_speaker_prefix: "DLG1107",
        "*Alice*: Hello there.\n",
        "Alice: Hello there.\n";
    dlg1108_severed_control_branch: "DLG1108",
        "> `elseif` `Known?`\n>\n> Alice: Welcome back.\n",
        "> `if` `Known?`\n>\n> Alice: Welcome back.\n";
    dlg1109_malformed_branch_order: "DLG1109",
        "> `if` `Rich?`\n>\n> Alice: Welcome upstairs.\n>\n> `else`\n>\n> Alice: Try downstairs.\n>\n> `else`\n>\n> Alice: Welcome back.\n",
        "> `if` `Rich?`\n>\n> Alice: Welcome upstairs.\n>\n> `elseif` `Known?`\n>\n> Alice: Welcome back.\n>\n> `else`\n>\n> Alice: Try downstairs.\n";
    dlg1110_marker_not_alone: "DLG1110",
        "> `if` `Rich?`\n> Alice: Welcome upstairs.\n",
        "> `if` `Rich?`\n>\n> Alice: Welcome upstairs.\n";
    dlg1111_missing_branch_condition: "DLG1111",
        "> `if`\n>\n> Alice: Welcome upstairs.\n",
        "> `if` `Rich?`\n>\n> Alice: Welcome upstairs.\n";
    dlg1112_else_with_condition: "DLG1112",
        "> `if` `Rich?`\n>\n> Alice: Welcome upstairs.\n>\n> `else` `Known?`\n>\n> Alice: Welcome back.\n",
        "> `if` `Rich?`\n>\n> Alice: Welcome upstairs.\n>\n> `else`\n>\n> Alice: Welcome back.\n";
    dlg1113_dangling_arrow: "DLG1113",
        "# Crossroads\nAlice: Which way?\n\n=> The market\n\n# The market\nMerchant: Wares!\n",
        "# Crossroads\nAlice: Which way?\n\n=> [The market](#the-market)\n\n# The market\nMerchant: Wares!\n";
    dlg1114_ignored_markdown: "DLG1114",
        "# Chapter One\n\nAlice: We should go.\n\n---\n\nAlice: The road was long.\n",
        "# Chapter One\n\nAlice: We should go.\n\n# On The Road\n\nAlice: The road was long.\n";
    dlg2001_duplicate_anchor: "DLG2001",
        "# Chapter\nAlice: Hello.\n\n# Chapter\nBob: Goodbye.\n",
        "# Chapter One\nAlice: Hello.\n\n# Chapter Two\nBob: Goodbye.\n";
    dlg2002_heading_without_anchor: "DLG2002",
        "# ...\nAlice: Hello.\n",
        "# Prologue\nAlice: Hello.\n";
    dlg2003_ambiguous_speaker_binding: "DLG2003",
        "Alice: Hello.\n\n@A: Over here.\n\nAlice @A: It is me.\n",
        "Alice @A: It is me.\n\nAlice: Hello.\n\n@A: Over here.\n";
    dlg2004_id_bound_to_two_names: "DLG2004",
        "Alice @A: Hi.\n\nBob @A: Hello.\n",
        "Alice @A: Hi.\n\nBob @B: Hello.\n";
    dlg2005_name_bound_to_two_ids: "DLG2005",
        "Alice @A: Hi.\n\nAlice @B: Hello again.\n",
        "Alice @A: Hi.\n\nAlice @A: Hello again.\n";
    dlg2006_two_default_speakers: "DLG2006",
        "Alice ##default: Hi.\n\nBob ##default: Hello.\n",
        "Alice ##default: Hi.\n\nBob: Hello.\n";
    dlg2007_unnamed_speaker_id: "DLG2007",
        "# Scene\n@ghost: Who goes there?\n",
        "# Scene\nGhost @ghost: Who goes there?\n";
    dlg2008_unknown_reserved_tag: "DLG2008",
        "# Scene\nAlice ##hero: To the rescue!\n",
        "# Scene\nAlice #hero: To the rescue!\n";
    dlg2009_missing_jump_target: "DLG2009",
        "# Start\nAlice: Onward!\n\n=> [Continue](#the-end)\n",
        "# Start\nAlice: Onward!\n\n=> [Continue](#the-end)\n\n# The End\nAlice: We made it.\n";
    dlg2010_zero_weights: "DLG2010",
        "# Coin\nThe coin spins.\n\n- `0%` Heads.\n- `0%` Tails.\n",
        "# Coin\nThe coin spins.\n\n- `50%` Heads.\n- `50%` Tails.\n";
    dlg2015_heading_inside_branch: "DLG2015",
        "> `if` `Rich?`\n>\n> # Upstairs\n>\n> Alice: Welcome.\n",
        "# Upstairs\n\n> `if` `Rich?`\n>\n> Alice: Welcome.\n";
    dlg2016_jump_outside_script: "DLG2016",
        "Alice: To the vault.\n\n=> [The vault](chapter-02.md#the-vault)\n",
        "Alice: To the vault.\n\n=> [The vault](#the-vault)\n\n# The vault\n";
    dlg3002_deep_choice_nesting: "DLG3002",
        "# Conversation\n\n- Level 1\n    - Level 2\n        - Level 3\n            - Level 4\n                Alice: This branch is difficult to scan.\n",
        "# Conversation\n\n- Level 1\n    - Level 2\n        => [Continue](#deeper-branch)\n\n# Deeper branch\n\n- Level 3\n    - Level 4\n        Alice: This branch is easier to scan.\n";
    dlg3003_weights_not_hundred: "DLG3003",
        "# Coin\nThe coin spins.\n\n- `50%` Heads.\n- `30%` Tails.\n",
        "# Coin\nThe coin spins.\n\n- `50%` Heads.\n- `50%` Tails.\n";
    dlg3004_single_option_random: "DLG3004",
        "# Coin\nThe coin spins.\n\n- `50%` It always lands heads.\n",
        "# Coin\nThe coin spins.\n\n- `50%` Heads.\n- `50%` Tails.\n";
    dlg1903_prefix_with_two_ids: "DLG1903",
        "# Scene\nAlice @A @B: Hello.\n",
        "# Scene\nAlice @A: Hello.\n";
    dlg1901_nesting_too_deep: "DLG1901",
        &">".repeat(200),
        &format!("{} Alice: Deep enough.\n", ">".repeat(20));
}

#[test]
fn a_mistake_in_the_opening_marker_is_reported_once() {
    for (code, source) in [
        (Code::MarkerNotAlone, "> `if` `Rich?` extra\n>\n> Alice: Welcome upstairs.\n"),
        (Code::MissingBranchCondition, "> `if`\n>\n> Alice: Welcome upstairs.\n"),
    ] {
        let found = codes(source).into_iter().filter(|found| *found == code).count();
        assert_eq!(found, 1, "{code:?} in {source:?}");
    }
}

#[test]
fn every_code_has_a_test() {
    let mut listed: Vec<&str> = TESTED.to_vec();
    listed.sort_unstable();
    // DLG1902 needs a script of more than 2^32 nodes: its test lowers the limit, inside the
    // crate (`lib.rs`).
    let mut all: Vec<&str> = Code::ALL.iter().map(|code| code.as_str()).filter(|code| *code != "DLG1902").collect();
    all.sort_unstable();
    assert_eq!(listed, all);
}

#[test]
fn the_diagnostics_example_reports_each_labelled_problem() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/dialoguedown/examples/diagnostics.dialogue.md");
    let source = std::fs::read_to_string(path).expect("the example");
    let options = Options { mode: stagehand_dialoguedown::Mode::BestEffort, ..Options::default() };
    let compilation = compile(&source, "diagnostics.dialogue.md", &options);
    let found: Vec<&str> = compilation.diagnostics.iter().map(|d| d.code.as_str()).collect();
    for code in ["DLG3003", "DLG2009", "DLG1107", "DLG2007", "DLG1003", "DLG2001", "DLG3004"] {
        assert!(found.contains(&code), "{code} missing from {found:?}");
    }
    assert!(compilation.playbook.is_none());
}

#[test]
fn diagnostics_are_collected_not_stopped_at_the_first() {
    let source = "Alice: `nonsense` and `more nonsense`.\n\n=> The market\n";
    let found = codes(source);
    assert_eq!(found.iter().filter(|code| **code == Code::NotAGameCall).count(), 2);
    assert!(found.contains(&Code::DanglingArrow));
}

#[test]
fn stage_boundary_stops_before_analysis_but_best_effort_goes_on() {
    let source = "Alice: `nonsense`.\n\n=> [Nowhere](#nowhere)\n";
    assert!(!codes(source).contains(&Code::MissingJumpTarget));
    let options = Options { mode: stagehand_dialoguedown::Mode::BestEffort, ..Options::default() };
    let compilation = compile(source, "x.dialogue.md", &options);
    assert!(compilation.diagnostics.iter().any(|d| d.code == Code::MissingJumpTarget));
}

#[test]
fn line_and_column_point_at_the_problem() {
    let source = "# Scene\n\nAlice: The sky turns `just some words`.\n";
    let compilation = compile(source, "sky.dialogue.md", &Options::default());
    let diagnostic = &compilation.diagnostics[0];
    // The error-code guide marks the text between the backticks (C39).
    assert_eq!((diagnostic.line, diagnostic.column), (3, 23));
    assert_eq!(&source[diagnostic.span.clone()], "just some words");
}

#[test]
fn human_rendering_names_code_file_and_position() {
    let source = "# Scene\n\nAlice: The sky turns `just some words`.\n";
    let compilation = compile(source, "sky.dialogue.md", &Options::default());
    let text = render_human(&compilation.diagnostics, source, "sky.dialogue.md");
    assert!(text.contains("DLG1102"), "{text}");
    assert!(text.contains("sky.dialogue.md:3:23"), "{text}");
    assert!(!text.contains('\u{1b}'), "colour is off by default");
}

#[test]
fn json_rendering_has_every_field() {
    let source = "=> The market\n";
    let compilation = compile(source, "m.dialogue.md", &Options::default());
    let json: serde_json::Value = serde_json::from_str(&render_json(&compilation.diagnostics)).expect("JSON");
    let first = &json[0];
    assert_eq!(first["code"], "DLG1113");
    assert_eq!(first["severity"], "warning");
    assert_eq!(first["file"], "m.dialogue.md");
    assert_eq!(first["line"], 1);
    assert_eq!(first["column"], 1);
    assert_eq!(first["span"]["start"], 0);
    assert_eq!(first["span"]["end"], 2);
    assert!(first["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(first["label"].as_str().is_some_and(|l| !l.is_empty()));
}

#[test]
fn a_missing_weight_points_at_the_option_line() {
    let source = "- `50%` Heads.\n- Tails.\n    - Nested.\n";
    let compilation = compile(source, "c.dialogue.md", &Options::default());
    let missing = compilation.diagnostics.iter().find(|d| d.code == Code::MissingWeight).expect("DLG1104");
    assert_eq!(&source[missing.span.clone()], "- Tails.");
    assert_eq!((missing.line, missing.column), (2, 1));
}

#[test]
fn a_very_long_line_is_named_not_quoted() {
    let source = format!("Alice: {} `nonsense`\n", "word ".repeat(1_000));
    let compilation = compile(&source, "long.dialogue.md", &Options::default());
    let text = render_human(&compilation.diagnostics, &source, "long.dialogue.md");
    assert!(text.contains("[DLG1102] error"), "{text}");
    // The mark is the text inside the backticks (C39).
    assert!(text.contains("long.dialogue.md:1:5010: not a game call"), "{text}");
    assert!(!text.contains("word word"));
}

#[test]
fn a_styled_prefix_is_noticed_with_the_colon_inside_or_outside() {
    for source in ["*Alice*: Hi.\n", "**Alice**: Hi.\n", "**Alice:** Hi.\n", "_Alice_ : Hi.\n"] {
        assert!(codes(source).contains(&Code::StyledSpeakerPrefix), "{source}");
    }
    for source in ["*Really*, Alice?\n", "*Two words*: Hi.\n", "Alice: *Hi*: there.\n"] {
        assert!(!codes(source).contains(&Code::StyledSpeakerPrefix), "{source}");
    }
}

/// The Block Controls note: a marker "fused into a paragraph (mid-line, or with trailing speech)"
/// is `DLG1110`, which "catches the nested lazy-continuation merge" (C21). With no quoted blank
/// line above it, a marker line continues the paragraph before it, at any depth; its condition
/// goes with it, not reported as a guard of nothing.
#[test]
fn a_marker_pulled_into_the_paragraph_above_is_not_alone() {
    let nested = "> `if` `Rich?`\n>\n> Guard: Welcome.\n>\n> > `if` `Armed?`\n> >\n> > Guard: Blade.\n";
    let cases = [
        (format!("{nested}> `else`\n>\n> Guard: Poor.\n"), 8, "`else`"),
        ("> `if` `Rich?`\n>\n> Guard: Welcome.\n> `else`\n>\n> Guard: Poor.\n".to_owned(), 4, "`else`"),
        (format!("{nested}> `elseif` `Poor?`\n>\n> Guard: Poor.\n"), 8, "`elseif` `Poor?`"),
        ("Alice: Hello `else` there.\n".to_owned(), 1, "`else`"),
    ];
    for (source, line, marked) in cases {
        let compilation = compile(&source, "case.dialogue.md", &Options::default());
        let found: Vec<_> = compilation.diagnostics.iter().map(|d| (d.code, d.line)).collect();
        assert_eq!(found, [(Code::MarkerNotAlone, line)], "{source}");
        assert_eq!(&source[compilation.diagnostics[0].span.clone()], marked, "{source}");
        assert!(compilation.playbook.is_none());
    }
    let fixed = "> `if` `Rich?`\n>\n> Guard: Welcome.\n>\n> > `if` `Armed?`\n> >\n> > Guard: Blade.\n>\n> `else`\n>\n> Guard: Poor.\n";
    assert_eq!(codes(fixed), []);
}

/// Each message is the error-code reference's documented format, word for word, its
/// placeholders filled with what the triggering example names. The formats are copied from
/// the reference (`guide/error-codes.md`) as written there, `{0}` and all.
#[test]
fn messages_say_what_the_error_code_guide_says() {
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "DLG1003",
            "# Crossroads\n=> [Market](#market) or => [Home](#home)\n\n# Market\nM: W.\n\n# Home\nA: C.\n",
            "Content after a jump on this line can never play: a jump does not return, so anything following it is unreachable. Move it before the jump, or onto its own line.",
            &[],
        ),
        (
            "DLG1101",
            "# Scene\n#excited: We made it!\n",
            "\"{0}\" has tags but names no speaker for them to attach to. Begin the line with a name to declare a speaker (Alice #excited:), or with an @id to add tags to an already-declared one (@alice #excited:).",
            &["#excited"],
        ),
        (
            "DLG1101",
            "# Scene\n#excited We made it!\n",
            "\"{0}\" has tags but names no speaker for them to attach to. Begin the line with a name to declare a speaker (Alice #excited:), or with an @id to add tags to an already-declared one (@alice #excited:).",
            &["#excited"],
        ),
        (
            "DLG1106",
            "# Moor\nGuide: `\"Rainy\"?` The moor is bleak.\n",
            "A condition (`\"{0}\"?`) must guard a jump, line, choice option, or control branch. Put it immediately before a `=>` jump, at the start of a line or choice option, or after an `if`/`elseif` marker; otherwise remove the `?` to write a plain query.",
            &["Rainy"],
        ),
        (
            "DLG1107",
            "*Alice*: Hello there.\n",
            "This line looks like a speaker prefix (\"{0}\") but the name is styled, so it is not recognized and the line has no speaker. Remove the styling to declare the speaker.",
            &["Alice"],
        ),
        (
            "DLG1108",
            "> `elseif` `Known?`\n>\n> Alice: Welcome back.\n",
            "`{0}` starts a separate blockquote without a connected `if`. Keep the `if`, every `elseif`, and the optional `else` inside one connected blockquote.",
            &["elseif"],
        ),
        (
            "DLG1109",
            "> `if` `Rich?`\n>\n> A: Up.\n>\n> `else`\n>\n> A: Down.\n>\n> `else`\n>\n> A: Back.\n",
            "`{0}` cannot appear here. A control block must contain one `if`, followed by zero or more `elseif` branches, then at most one `else`.",
            &["else"],
        ),
        (
            "DLG1110",
            "> `if` `Rich?`\n> Alice: Welcome upstairs.\n",
            "A `{0}` marker must stand alone in its paragraph. Put a quoted blank line (`>`) between the marker and its branch body.",
            &["if"],
        ),
        (
            "DLG1111",
            "> `if`\n>\n> Alice: Welcome upstairs.\n",
            "A `{0}` marker requires a condition in a separate code span, such as `{0}` `Rich?`.",
            &["if"],
        ),
        (
            "DLG1112",
            "> `if` `Rich?`\n>\n> A: Up.\n>\n> `else` `Known?`\n>\n> A: Back.\n",
            "An `else` marker cannot have the condition `{0}?`. Remove the condition for a fallback branch, or change `else` to `elseif`.",
            &["Known"],
        ),
        (
            "DLG1113",
            "# Crossroads\nAlice: Which way?\n\n=> The market\n",
            "`=>` makes a jump only when a link follows it. With no link here it is read literally, staying as the characters \"=>\". If you meant to jump, add a target: `=> [The market](#the-market)`.",
            &[],
        ),
        (
            "DLG2002",
            "# ...\nAlice: Hello.\n",
            "A heading needs at least one letter or number so it can be a jump target; this one has none. Add sluggable text to the heading.",
            &[],
        ),
        (
            "DLG2003",
            "Alice: Hello.\n\n@A: Over here.\n\nAlice @A: It is me.\n",
            "Cannot bind name '{0}' to id '@{1}': both are already in use as separate speakers, so joining them now is ambiguous. If they are the same speaker, declare it (Name @{1}: …) before either is used on its own.",
            &["Alice", "A"],
        ),
        (
            "DLG2008",
            "# Scene\nAlice ##hero: To the rescue!\n",
            "'##{0}' is not a known reserved tag. Use a custom tag ('#{0}') or one of DialogueDown's reserved tags.",
            &["hero"],
        ),
        (
            "DLG2010",
            "# Coin\nThe coin spins.\n\n- `0%` Heads.\n- `0%` Tails.\n",
            "Every weight in this random choice is 0, so no option can be selected. Give at least one option a positive weight.",
            &[],
        ),
        (
            "DLG2015",
            "> `if` `Rich?`\n>\n> # Upstairs\n>\n> Alice: Welcome.\n",
            "A scene heading must be a document-level block; it cannot appear inside a control branch or choice option. Move the heading outside the branch, then jump to that scene when the branch should enter it.",
            &[],
        ),
        (
            "DLG2016",
            "Alice: To the vault.\n\n=> [The vault](chapter-02.md#the-vault)\n",
            "This jump names '{0}', which is outside this script. Targets outside the script are not resolved yet, so the jump leads nowhere. Point it at a scene in this script — '#the-scene' — until cross-file jumps land.",
            &["chapter-02.md#the-vault"],
        ),
        (
            "DLG3002",
            "- Level 1\n    - Level 2\n        - Level 3\n            - Level 4\n                Alice: Deep.\n",
            "This branch reaches choice nesting level {0}; the recommended maximum is {1}. Consider moving this branch into a new scene and jumping to it instead.",
            &["4", "3"],
        ),
        (
            "DLG3004",
            "# Coin\nThe coin spins.\n\n- `50%` It always lands heads.\n",
            "This random choice has a single option, so it is always selected and the weight has no effect. Remove the weight to make it a plain line, or add more options.",
            &[],
        ),
    ];
    let options = Options { mode: stagehand_dialoguedown::Mode::BestEffort, ..Options::default() };
    for (code, source, format, fills) in cases {
        let expected = fills
            .iter()
            .enumerate()
            .fold(format.to_string(), |text, (at, fill)| text.replace(&format!("{{{at}}}"), fill));
        let compilation = compile(source, "case.dialogue.md", &options);
        let found = compilation.diagnostics.iter().find(|d| d.code.as_str() == *code);
        let Some(found) = found else { panic!("{code} not reported for {source:?}: {:#?}", compilation.diagnostics) };
        assert_eq!(found.message, expected, "{code} for {source:?}");
    }
}

#[test]
fn the_human_report_places_a_problem_where_the_json_does() {
    // The CLI Diagnostic Rendering note (DR4): line and column are "counted in UTF-16 code
    // units", and "`\n` ends a line … A `\r` is an ordinary character on its line" (C25, C31).
    // Each case: the script, its dangling arrow's line and column, and how many terminal
    // columns of the quoted line stand before the caret.
    let cases: [(&str, usize, usize, usize); 9] = [
        ("Alice: héllo => go\n", 1, 14, 13),
        ("Alice: 😀😀 => go\n", 1, 13, 12),
        ("Alice: 漢字 => go\n", 1, 11, 12),
        ("Alice: a\rb\nBob: => go\n", 2, 6, 5),
        ("Alice: a\u{2028}b\nBob: => go\n", 2, 6, 5),
        ("Alice: a\u{2029}b\nBob: => go\n", 2, 6, 5),
        ("Alice: a\x0b\x0cb\nBob: => go\n", 2, 6, 5),
        ("Alice: a\u{85}b\nBob: => go\n", 2, 6, 5),
        ("Alice: a\r\nBob: 😀 => go\r\n", 2, 9, 8),
    ];
    for (source, line, column, before) in cases {
        let compilation = compile(source, "s.dialogue.md", &Options::default());
        let arrow = compilation.diagnostics.iter().find(|d| d.code == Code::DanglingArrow).expect("DLG1113");
        assert_eq!((arrow.line, arrow.column), (line, column), "{source:?}");
        let text = render_human(std::slice::from_ref(arrow), source, "s.dialogue.md");
        assert!(text.contains(&format!("[ s.dialogue.md:{line}:{column} ]")), "{source:?}:\n{text}");
        let lines: Vec<&str> = text.lines().collect();
        let quoted = lines.iter().position(|l| l.starts_with(&format!(" {line} | "))).expect("the line quoted");
        assert!(lines[quoted].ends_with("=> go"), "{source:?}:\n{text}");
        let caret = lines[quoted + 1];
        let at = caret.find('^').expect("a caret") - caret.find('|').expect("a margin") - 2;
        assert_eq!(at, before, "{source:?}:\n{text}");
    }
}

#[test]
fn a_problem_after_an_entity_is_placed_at_itself() {
    // An entity (`&amp;`) joins the words around it in one text (C16), whose source is longer
    // than its words; a problem in that text is still placed where it was written (C32), not
    // at the start of the text.
    for (source, code, column) in [
        ("Alice: a&amp;b => go\n", Code::DanglingArrow, 16),
        ("Alice: a&amp;b &copy; c => go\n", Code::DanglingArrow, 25),
        ("a&amp;b => go\n", Code::DanglingArrow, 9),
        ("Alice: x => go &amp; y\n", Code::DanglingArrow, 10),
        ("Alice: *a&amp;b => go*\n", Code::DanglingArrow, 17),
    ] {
        let compilation = compile(source, "s.dialogue.md", &Options::default());
        let found = compilation.diagnostics.iter().find(|d| d.code == code).unwrap_or_else(|| panic!("{source}"));
        assert_eq!((found.line, found.column), (1, column), "{source}");
        assert_eq!(&source[found.span.clone()], "=>", "{source}");
    }
}

#[test]
fn a_problem_between_two_entities_is_placed_at_itself() {
    // C32's fallback placed a problem between two decoded entities at the whole text; the
    // transpiler note allows a drift of at most a character within a literal, never a jump to
    // its start. Each case: the script, the line and UTF-16 column of its dangling arrow, and how
    // many terminal columns of the quoted line stand before the caret in the human report.
    let cases: [(&str, usize, usize, usize); 6] = [
        ("Alice: 😀 a&amp;b => c&amp;d\n", 1, 19, 18),
        ("Bob: &copy; x #t =>  y &copy;\n", 1, 18, 17),
        ("A: &amp;&amp; &#x1F600; => &lt;&gt; x\n", 1, 25, 24),
        ("# S\n\n- &amp; 漢 => &amp;\n", 3, 11, 11),
        ("Alice: &amp;amp; => &amp;\n", 1, 18, 17),
        ("Alice: *&amp; a => b &amp;*\n", 1, 17, 16),
    ];
    for (source, line, column, before) in cases {
        let compilation = compile(source, "s.dialogue.md", &Options::default());
        let arrow = compilation.diagnostics.iter().find(|d| d.code == Code::DanglingArrow).expect("DLG1113");
        assert_eq!(&source[arrow.span.clone()], "=>", "{source:?}");
        assert_eq!((arrow.line, arrow.column), (line, column), "{source:?}");
        let text = render_human(std::slice::from_ref(arrow), source, "s.dialogue.md");
        assert!(text.contains(&format!("[ s.dialogue.md:{line}:{column} ]")), "{source:?}:\n{text}");
        let lines: Vec<&str> = text.lines().collect();
        let quoted = lines.iter().position(|l| l.starts_with(&format!(" {line} | "))).expect("the line quoted");
        let caret = lines[quoted + 1];
        let at = caret.find('^').expect("a caret") - caret.find('|').expect("a margin") - 2;
        assert_eq!(at, before, "{source:?}:\n{text}");
    }
    // In a long script, parsed in pieces on two threads, a later piece's seams place it too.
    let mut long: String = (0..3000).map(|at| format!("# Scene {at}\n\nAlice: Line &amp; {at}.\n\n")).collect();
    long.push_str("Bob: &copy; x => y &copy;\n");
    let compilation = compile(&long, "s.dialogue.md", &Options::default());
    let arrow = compilation.diagnostics.iter().find(|d| d.code == Code::DanglingArrow).expect("DLG1113");
    assert_eq!(&long[arrow.span.clone()], "=>");
    assert_eq!((arrow.line, arrow.column), (12001, 15));
}

#[test]
fn a_reserved_tag_with_a_value_is_named_with_its_value() {
    // `##default` is the one reserved tag, and it takes no value: `##default=x` is unknown, and
    // the message must not say that `##default` itself is (C22: `{0}` is what the script names).
    let compilation = compile("Alice ##default=x: hi\n", "t.dialogue.md", &Options::default());
    let found = compilation.diagnostics.iter().find(|d| d.code == Code::UnknownReservedTag).expect("DLG2008");
    assert_eq!(
        found.message,
        "'##default=x' is not a known reserved tag. Use a custom tag ('#default=x') or one of DialogueDown's \
         reserved tags."
    );
    let compilation = compile("Alice ##hero: hi\n", "t.dialogue.md", &Options::default());
    assert!(compilation.diagnostics[0]
        .message
        .starts_with("'##hero' is not a known reserved tag. Use a custom tag ('#hero')"));
}

#[test]
fn a_speaker_problem_is_placed_where_the_error_code_guide_marks_it() {
    // Each triggering example in `guide/error-codes.md` marks the text at fault; the binder's
    // problems are placed on exactly that text: the declaration for a conflict (its name
    // through the id or the second `##default`), the id for an unnamed one, the tag for an
    // unknown reserved tag.
    for (source, code, marked) in [
        ("Alice: Hello.\n\n@A: Over here.\n\nAlice @A: It is me.\n", "DLG2003", "Alice @A"),
        ("Alice @A: Hi.\n\nBob @A: Hello.\n", "DLG2004", "Bob @A"),
        ("Alice @A: Hi.\n\nAlice @B: Hello again.\n", "DLG2005", "Alice @B"),
        ("Alice ##default: Hi.\n\nBob ##default: Hello.\n", "DLG2006", "Bob ##default"),
        ("# Scene\n@ghost: Who goes there?\n", "DLG2007", "@ghost"),
        ("# Scene\nAlice ##hero: To the rescue!\n", "DLG2008", "##hero"),
    ] {
        let compilation = compile(source, "case.dialogue.md", &Options::default());
        let found = compilation.diagnostics.iter().find(|d| d.code.as_str() == code).expect(code);
        assert_eq!(&source[found.span.clone()], marked, "{code}");
    }
}

#[test]
fn unreachable_content_is_spanned_from_its_first_word() {
    // The Progression Order note: "any non-blank fragment after the first divert … Warn,
    // spanning the unreachable content"; the error-code guide marks `or => [Home](#home)`,
    // not the space before it.
    let source = "# Crossroads\n=> [Market](#market) or => [Home](#home)\n\n# Market\nMerchant: Wares!\n\n# Home\nAlice: Cozy.\n";
    let compilation = compile(source, "case.dialogue.md", &Options::default());
    let found = compilation.diagnostics.iter().find(|d| d.code == Code::UnreachableAfterJump).expect("DLG1003");
    assert_eq!(&source[found.span.clone()], "or => [Home](#home)");
    assert_eq!((found.line, found.column), (2, 22));
}

#[test]
fn an_else_with_a_condition_is_placed_on_the_marker_and_its_condition() {
    // The error-code guide marks `` `else` `Known?` `` for DLG1112: the marker that may not
    // carry a condition, with the condition it carries.
    let source = "> `if` `Rich?`\n>\n> Alice: Welcome upstairs.\n>\n> `else` `Known?`\n>\n> Alice: Welcome back.\n";
    let compilation = compile(source, "case.dialogue.md", &Options::default());
    let found = compilation.diagnostics.iter().find(|d| d.code == Code::ElseWithCondition).expect("DLG1112");
    assert_eq!(&source[found.span.clone()], "`else` `Known?`");
    assert_eq!((found.line, found.column), (5, 3));
}
