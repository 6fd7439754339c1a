//! Hostile input: the compiler never panics, and pathological scripts finish quickly.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use stagehand_dialoguedown::{compile, Code, Options};

#[path = "support/markdownish.rs"]
mod markdownish;
use markdownish::markdownish;

/// Compiles on a thread with a small stack, so unbounded recursion would show up as a crash.
fn compile_bounded(source: String) -> (stagehand_dialoguedown::Compilation, Duration) {
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let start = Instant::now();
            let compilation = compile(&source, "hostile.dialogue.md", &Options::default());
            (compilation, start.elapsed())
        })
        .expect("a thread");
    handle.join().expect("no panic and no stack overflow")
}

/// Generous for an unoptimized build on a two-core machine shared with other builds (each case
/// takes well under a second in release, and 31 s was seen in a debug build under a load of 15):
/// it guards only against a quadratic blow-up, which on these inputs takes far longer (10^10
/// steps for the 100,000 anchors), never against a slow machine.
const LIMIT: Duration = Duration::from_secs(180);

#[test]
fn a_thousand_indented_list_levels() {
    // Indentation grows with depth, so this is already a megabyte of source.
    let mut source = String::new();
    for depth in 0..1_000 {
        source.push_str(&"  ".repeat(depth));
        source.push_str("- level\n");
    }
    let (compilation, took) = compile_bounded(source);
    assert!(took < LIMIT, "took {took:?}");
    assert!(compilation
        .diagnostics
        .iter()
        .any(|d| d.code == Code::DeepChoiceNesting || d.code == Code::NestingTooDeep));
}

#[test]
fn ten_thousand_nested_list_markers_on_one_line() {
    let source = format!("{}x\n", "- ".repeat(10_000));
    let (compilation, took) = compile_bounded(source);
    assert!(took < LIMIT, "took {took:?}");
    assert!(compilation.diagnostics.iter().any(|d| d.code == Code::NestingTooDeep));
}

#[test]
fn ten_thousand_nested_blockquotes() {
    let source = format!("{} Alice: deep.\n", ">".repeat(10_000));
    let (compilation, took) = compile_bounded(source);
    assert!(took < LIMIT, "took {took:?}");
    assert!(compilation.diagnostics.iter().any(|d| d.code == Code::NestingTooDeep));
    assert!(compilation.playbook.is_none());
}

#[test]
fn ten_thousand_nested_emphasis() {
    let source = format!("Alice: {}deep{}\n", "*_".repeat(5_000), "_*".repeat(5_000));
    let (_, took) = compile_bounded(source);
    assert!(took < LIMIT, "took {took:?}");
}

#[test]
fn a_ten_megabyte_line() {
    let words = "Alice: lorem ipsum `\"key\"` *dolor* #tag sit => amet ";
    let source = words.repeat(10 * 1024 * 1024 / words.len());
    let (compilation, took) = compile_bounded(source);
    assert!(took < LIMIT, "took {took:?}");
    assert!(compilation.playbook.is_some());
}

#[test]
fn a_hundred_thousand_anchors() {
    let mut source = String::new();
    for index in 0..100_000 {
        source.push_str(&format!(
            "# Scene {index}\n\nAlice: Line {index}.\n\n=> [Next](#scene-{})\n\n",
            (index + 1) % 100_000
        ));
    }
    let (compilation, took) = compile_bounded(source);
    assert!(took < LIMIT, "took {took:?}");
    let playbook = compilation.playbook.expect("compiles");
    assert_eq!(playbook.anchors.len(), 100_000);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn compiling_never_panics(source in markdownish()) {
        let compilation = compile(&source, "prop.dialogue.md", &Options::default());
        for diagnostic in &compilation.diagnostics {
            prop_assert!(diagnostic.span.end <= source.len());
            prop_assert!(source.is_char_boundary(diagnostic.span.start) && source.is_char_boundary(diagnostic.span.end));
        }
        if let Some(playbook) = &compilation.playbook {
            let json = stagehand_playbook::write(playbook);
            prop_assert!(stagehand_playbook::read(&json).is_ok(), "a compiled playbook reads back: {}", json);
        }
        let _ = stagehand_dialoguedown::render_human(&compilation.diagnostics, &source, "prop.dialogue.md");
    }

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,200}") {
        let _ = compile(&source, "any.dialogue.md", &Options::default());
    }
}

#[test]
fn many_diagnostics_on_one_long_line_place_and_render_in_linear_time() {
    let source = format!("Alice: {}\n", "the => arrow é ".repeat(50_000));
    let start = Instant::now();
    let compilation = compile(&source, "arrows.dialogue.md", &Options::default());
    assert_eq!(compilation.diagnostics.len(), 50_000);
    let last = compilation.diagnostics.last().expect("diagnostics");
    assert_eq!(last.line, 1);
    assert_eq!(last.column, source[..last.span.start].chars().count() + 1);
    let text = stagehand_dialoguedown::render_human(&compilation.diagnostics, &source, "arrows.dialogue.md");
    assert!(text.contains("DLG1113"));
    assert!(text.len() < 50_000 * 1_000, "a long line is not quoted once per diagnostic");
    let json = stagehand_dialoguedown::render_json(&compilation.diagnostics);
    assert!(json.len() > 1_000_000);
    assert!(start.elapsed() < LIMIT, "took {:?}", start.elapsed());
}

#[test]
fn just_under_the_nesting_limit_every_stage_recurses_safely() {
    // A blockquote is one container; a list level is two (the list and its item).
    let quotes = stagehand_dialoguedown::MAX_NESTING - 6;
    let depth = stagehand_dialoguedown::MAX_NESTING / 2 - 3;
    // Conditional blocks inside conditional blocks, each arm opening the next.
    let mut source = String::new();
    for level in 1..=quotes {
        let quote = "> ".repeat(level);
        source.push_str(&format!("{quote}`if` `Level{level}?`\n{quote}\n"));
    }
    source.push_str(&format!("{}Alice: *deep **down [here](#END)***\n\n", "> ".repeat(quotes)));
    // Choices inside choices, all on one line, ending in nested styling.
    source.push_str(&format!("{}Bob: *a **b ~~c~~***\n", "- ".repeat(depth)));
    let (compilation, took) = compile_bounded(source);
    assert!(took < LIMIT, "took {took:?}");
    assert!(compilation.diagnostics.iter().all(|d| d.code != Code::NestingTooDeep), "{:?}", compilation.diagnostics);
    let playbook = compilation.playbook.expect("compiles");
    assert!(playbook.nodes.len() > quotes + depth);
}
