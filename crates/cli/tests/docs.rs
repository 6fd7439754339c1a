//! The newcomer's documents hold: every path the README names exists, every script snippet in
//! the language summary checks without an error, and every facts world in the worlds page reads
//! and answers the keys it shows.

mod common;

use common::{root, run_in};

/// The fenced blocks of `language` in a Markdown file, in order.
fn fenced(markdown: &str, language: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim_start() == format!("```{language}") => current = Some(String::new()),
            Some(block) if line.trim_start() == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[test]
fn every_path_the_readme_names_exists() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let named: Vec<&str> = readme
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| {
            (span.starts_with("docs/")
                || span.starts_with("crates/")
                || span.starts_with("examples/")
                || span.starts_with("conformance/"))
                && !span.contains(' ')
        })
        .collect();
    for wanted in ["docs/language.md", "docs/worlds.md", "crates/cli"] {
        assert!(named.contains(&wanted), "the README names {wanted}");
    }
    for path in named {
        assert!(root().join(path.trim_end_matches('/')).exists(), "the README names {path}, which does not exist");
    }
}

#[test]
fn every_snippet_in_the_language_summary_checks_without_errors() {
    let guide = std::fs::read_to_string(root().join("docs/language.md")).expect("docs/language.md");
    let snippets = fenced(&guide, "markdown");
    assert!(snippets.len() >= 4, "the summary shows its constructs ({} snippets)", snippets.len());
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (number, snippet) in snippets.iter().enumerate() {
        let name = format!("snippet-{number}.dialogue.md");
        std::fs::write(dir.path().join(&name), snippet).expect("written");
        let transcript = run_in(dir.path(), &["check", &name], "");
        assert!(transcript.ends_with("--- exit 0\n"), "snippet {number} checks cleanly:\n{snippet}\n{transcript}");
    }
}

#[test]
fn the_facts_worlds_on_the_worlds_page_read_and_answer() {
    let page = std::fs::read_to_string(root().join("docs/worlds.md")).expect("docs/worlds.md");
    let script = "`You.HasTicket?` Clerk: Your ticket, please.\n\nClerk: You chose `\"You.Club\"`.\n";
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("fair.dialogue.md"), script).expect("written");
    for (language, file) in [("toml", "fair.world.toml"), ("json", "fair.world.json")] {
        let worlds = fenced(&page, language);
        assert_eq!(worlds.len(), 1, "one {language} world on the page");
        std::fs::write(dir.path().join(file), &worlds[0]).expect("written");
        let transcript = run_in(dir.path(), &["play", "fair.dialogue.md", "--world", file], "\n\n\n");
        assert!(transcript.contains("Your ticket, please."), "{file} answers You.HasTicket:\n{transcript}");
        assert!(transcript.contains("You chose Art."), "{file} answers You.Club:\n{transcript}");
    }
}
