//! Each triggering example of `guide/error-codes.md` marks the text at fault; a diagnostic is
//! placed on exactly that text (C38, C39). The sources below are the guide's examples, verbatim.

use stagehand_dialoguedown::{compile, Options};

/// Compiles `source`, finds the diagnostic `code`, and checks it starts at `line`:`column` and
/// covers `marked`.
fn placed(source: &str, code: &str, marked: &str, line: usize, column: usize) {
    let compilation = compile(source, "case.dialogue.md", &Options::default());
    let found = compilation.diagnostics.iter().find(|d| d.code.as_str() == code).expect(code);
    assert_eq!(&source[found.span.clone()], marked, "{code}");
    assert_eq!((found.line, found.column), (line, column), "{code}");
}

#[test]
fn dlg1102_marks_the_text_inside_the_backticks() {
    placed("# Scene\nAlice: The sky turns `just some words`.\n", "DLG1102", "just some words", 2, 23);
}

#[test]
fn dlg2002_marks_the_heading_text_not_its_hashes() {
    placed("# ...\nAlice: Hello.\n", "DLG2002", "...", 1, 3);
}

#[test]
fn dlg2009_marks_the_jumps_target() {
    placed("# Start\nAlice: Onward!\n\n=> [Continue](#the-end)\n", "DLG2009", "#the-end", 4, 15);
    // A guarded jump, a jump after speech, a destination in angle brackets or with a title.
    placed("# S\n`Rich?` => [Go](#nowhere)\n", "DLG2009", "#nowhere", 2, 17);
    placed("# S\nAlice: Off. => [Go [on]](#far \"t\")\n", "DLG2009", "#far", 2, 26);
    placed("# S\n=> [Go](<#far>)\n", "DLG2009", "#far", 2, 10);
}

#[test]
fn dlg2010_marks_the_first_weight() {
    placed("# Coin\nThe coin spins.\n\n- `0%` Heads.\n- `0%` Tails.\n", "DLG2010", "`0%`", 4, 3);
}

#[test]
fn dlg3003_marks_the_weight_that_closes_the_total() {
    placed("# Coin\nThe coin spins.\n\n- `50%` Heads.\n- `30%` Tails.\n", "DLG3003", "`30%`", 5, 3);
}

#[test]
fn dlg3004_marks_the_single_options_text() {
    placed(
        "# Coin\nThe coin spins.\n\n- `50%` It always lands heads.\n",
        "DLG3004",
        "`50%` It always lands heads.",
        4,
        3,
    );
}

#[test]
fn dlg1110_marks_from_the_condition_through_what_is_fused_to_it() {
    placed("> `if` `Rich?`\n> Alice: Welcome upstairs.\n", "DLG1110", "`Rich?`\n> Alice", 1, 8);
    // With no condition, from the marker.
    placed("> `else`\n> Alice: Welcome back.\n", "DLG1110", "`else`\n> Alice", 1, 3);
}

#[test]
fn dlg2009_on_a_reference_link_marks_the_link() {
    // Its destination is written on another line; the link itself is what names it.
    placed("# S\n=> [Go][ref]\n\n[ref]: #nowhere\n", "DLG2009", "[Go][ref]", 2, 4);
}
