//! Corners of the language guide's grammar: front matter, headings and their anchors, and the
//! other places where a script's Markdown reads one way or another.

use serde_json::{json, Value};
use stagehand_dialoguedown::{compile, Code, Options};

fn compiled(source: &str) -> (Value, Vec<Code>) {
    let compilation = compile(source, "t.dialogue.md", &Options::default());
    let codes = compilation.diagnostics.iter().map(|found| found.code).collect();
    let playbook = compilation.playbook.unwrap_or_else(|| panic!("errors: {:#?}", compilation.diagnostics));
    (stagehand_playbook::to_json(&playbook), codes)
}

/// What each node says, in order: its speech's words, `""` for a node without speech.
fn said(playbook: &Value) -> Vec<String> {
    let nodes = playbook["nodes"].as_array().cloned().unwrap_or_default();
    nodes
        .iter()
        .map(|node| {
            let speech = node["speech"].as_array().cloned().unwrap_or_default();
            speech.iter().filter_map(|part| part["text"].as_str()).collect()
        })
        .collect()
}

#[test]
fn only_a_block_at_the_very_start_is_front_matter() {
    // The guide: "Only a block at the document start is front matter; a `---` later in the
    // script is a thematic break". After content, `---` is a divider, and the text under it
    // with the `---` below is a heading — nothing is silently dropped.
    let (book, codes) = compiled("Alice: Hi.\n\n---\nBob: there\n---\n\nCarol: Bye.\n");
    assert_eq!(said(&book), ["Hi.", "Bye.", ""]);
    assert_eq!(book["anchors"], json!({ "bob-there": 1 }));
    assert_eq!(codes, [Code::IgnoredMarkdown]);

    // A blank line first: the block no longer opens the document (the reference's Markdown
    // reader takes front matter only at offset 0).
    let (book, codes) = compiled("\n---\ntitle: x\n---\n\nAlice: Hi.\n");
    assert_eq!(said(&book), ["Hi.", ""]);
    assert_eq!(book["anchors"], json!({ "title-x": 0 }));
    assert_eq!(codes, [Code::IgnoredMarkdown]);

    // Inside a list or a quote it is no front matter either.
    let (book, _) = compiled("Alice: Hi.\n\n> ---\n> Bob: quoted\n> ---\n");
    assert_eq!(book["anchors"], json!({ "bob-quoted": 1 }));
}

#[test]
fn front_matter_is_fenced_by_any_closing_line() {
    // At the start, a `---` line up to the next `---` or `...` line is front matter, whatever
    // it holds: a blank first line, blank lines within, or nothing at all.
    for source in [
        "---\ntitle: x\n---\n\nAlice: Hi.\n",
        "---\n\ntitle: x\n---\n\nAlice: Hi.\n",
        "---\ntitle: x\n\nmore: y\n...\n\nAlice: Hi.\n",
        "---\n---\n\nAlice: Hi.\n",
        "---  \r\ntitle: x\r\n---\t\r\n\r\nAlice: Hi.\r\n",
        "---\ntitle: x\n---\nAlice: Hi.\n",
    ] {
        let (book, codes) = compiled(source);
        assert_eq!(said(&book), ["Hi.", ""], "{source:?}");
        assert_eq!(book["anchors"], json!({}), "{source:?}");
        assert!(codes.is_empty(), "{source:?}: {codes:?}");
    }
    // Without a closing line, the opening `---` is a divider.
    let (book, codes) = compiled("---\nAlice: Hi.\n");
    assert_eq!(said(&book), ["Hi.", ""]);
    assert_eq!(codes, [Code::IgnoredMarkdown]);
}

#[test]
fn a_heading_slugs_as_github_slugger_does() {
    // The Semantic Analyzer note (DD5): `Slug` is "a faithful port of github-slugger's exact
    // rules (its punctuation set, no trimming or run-collapsing)". That slugger lower-cases,
    // turns each plain space into `-` and drops only punctuation but `-` and connectors,
    // symbols, other numbers, controls, format characters and separators but the space:
    // combining marks stay, and a tab or a no-break space is dropped, not a hyphen.
    for (heading, anchor) in [
        ("Play tennis", "play-tennis"),
        ("\u{928}\u{92e}\u{938}\u{94d}\u{924}\u{947}", "\u{928}\u{92e}\u{938}\u{94d}\u{924}\u{947}"),
        ("Cafe\u{301} time", "cafe\u{301}-time"),
        ("Chapter \u{bd} two\u{b2}", "chapter--two"),
        ("A\u{a0}B", "ab"),
        ("\u{39f}\u{394}\u{39f}\u{3a3}", "\u{3bf}\u{3b4}\u{3bf}\u{3c2}"),
        ("A\u{203f}B", "a\u{203f}b"),
        ("A \u{2013} B", "a--b"),
        ("\u{24b6} circled", "\u{24d0}-circled"),
    ] {
        let (book, _) = compiled(&format!("## {heading}\n\nAlice: Hi.\n"));
        assert_eq!(book["anchors"], json!({ anchor: 0 }), "{heading:?}");
    }
}

#[test]
fn a_condition_after_an_options_weight_or_guard_guards_its_first_line() {
    // The Conditional Choice note's boundary table: "Weight then condition (- `50%` `"K"?` …):
    // the weight is peeled (random); the `"K"?` sits at the body start and guards the body's
    // first line, not the option", and "Condition on a nested line inside an option's body:
    // guards that line (a conditional line), not the option".
    let (book, codes) = compiled("- `50%` `Angry?` Guard: Halt!\n- `%` Guard: Move along.\n");
    assert!(codes.is_empty(), "{codes:?}");
    let menu = &book["nodes"][0];
    assert_eq!(menu["kind"], "random-choice");
    assert_eq!(menu["out"][0]["weight"], json!({ "kind": "number", "percentage": 50 }));
    assert!(menu["out"][0].get("condition").is_none(), "the option is not guarded: {menu}");
    let first = &book["nodes"][menu["out"][0]["target"].as_u64().expect("a target") as usize];
    assert_eq!(first["condition"], json!({ "kind": "key", "key": "Angry" }));
    assert_eq!(said(&book)[1], "Halt!");

    let (book, codes) = compiled("- `HasKey?` `Awake?` Guard: Use it.\n- Leave.\n");
    assert!(codes.is_empty(), "{codes:?}");
    let menu = &book["nodes"][0];
    assert_eq!(menu["out"][0]["condition"], json!({ "kind": "key", "key": "HasKey" }));
    let first = &book["nodes"][menu["out"][0]["target"].as_u64().expect("a target") as usize];
    assert_eq!(first["condition"], json!({ "kind": "key", "key": "Awake" }));
    assert!(menu["out"].as_array().is_some_and(|out| out.iter().all(|edge| edge["kind"] == "option")));

    // With nothing after it, that condition guards nothing, as anywhere else.
    let compilation = compile("- `50%` `Angry?`\n- `%` Go.\n", "t.dialogue.md", &Options::default());
    let codes: Vec<Code> = compilation.diagnostics.iter().map(|found| found.code).collect();
    assert_eq!(codes, [Code::ConditionGuardsNothing]);
}

#[test]
fn a_heading_or_paragraph_span_ends_where_its_text_does() {
    // The reference's spans (Markdig's) cover a block's text, not the line ending after it; a
    // report underlines the heading, and the JSON span ends at its last character. A heading
    // without an anchor is marked on its text, as the error-code guide marks it (C39).
    for (source, code, spanned) in [
        ("# A\n\n# A\n", Code::DuplicateAnchor, "# A"),
        ("## !!!\r\n", Code::HeadingWithoutAnchor, "!!!"),
        ("> `else`\n>\n> y\n", Code::SeveredControlBranch, "`else`"),
    ] {
        let compilation = compile(source, "t.dialogue.md", &Options::default());
        let found = compilation.diagnostics.iter().find(|found| found.code == code).expect("reported");
        assert_eq!(&source[found.span.clone()], spanned, "{source:?}");
    }
}

/// The node's ways out, as (kind, target).
fn outs(playbook: &Value, id: usize) -> Vec<(String, u64)> {
    let out = playbook["nodes"][id]["out"].as_array().cloned().unwrap_or_default();
    out.iter()
        .map(|edge| (edge["kind"].as_str().unwrap_or("").to_owned(), edge["target"].as_u64().unwrap_or(0)))
        .collect()
}

#[test]
fn a_jump_inside_styling_is_the_lines_jump() {
    // The Desugar note (DD4): jump assembly runs on every fragment list, "a line's speech and
    // nested `StyledText` children", and a `JumpIndicator` nested in `StyledText` is "assembled
    // or degraded in place, so none survive" (C28).
    let (book, codes) = compiled("Alice: Hello *=> [go](#end)*\n\nBob: skipped\n\n# End\n\nCarol: bye\n");
    assert_eq!(book["nodes"][0]["speech"], json!([{ "kind": "text", "text": "Hello " }]));
    assert_eq!(outs(&book, 0), [("divert".to_owned(), 2)]);
    assert_eq!(codes, []);

    // Words before the arrow stay styled; what follows the jump, in the run or after it, never plays.
    let (book, codes) = compiled("Alice: **go => [there](#end) now** and more\n\n# End\n\nCarol: bye\n");
    assert_eq!(
        book["nodes"][0]["speech"],
        json!([{ "kind": "styled", "style": "bold", "children": [{ "kind": "text", "text": "go " }] }])
    );
    assert_eq!(outs(&book, 0), [("divert".to_owned(), 1)]);
    assert_eq!(codes, [Code::UnreachableAfterJump]);

    // Nested styling, a condition before it, and a jump alone on its line (a control line).
    let (book, codes) = compiled("`Ready?` ***=> [go](#end)***\n\nBob: not ready\n\n# End\n\nCarol: bye\n");
    assert_eq!(book["nodes"][0]["kind"], "control");
    assert_eq!(book["nodes"][0]["out"][0]["condition"], json!({ "kind": "key", "key": "Ready" }));
    assert_eq!(codes, []);

    // An arrow with no link inside styling is read literally, and warned as anywhere else.
    let (book, codes) = compiled("Alice: *the => arrow*\n");
    assert_eq!(said(&book), ["", ""]);
    let styled = &book["nodes"][0]["speech"][0]["children"];
    let words: String = styled.as_array().unwrap().iter().filter_map(|part| part["text"].as_str()).collect();
    assert_eq!(words, "the => arrow");
    assert_eq!(codes, [Code::DanglingArrow]);
}

#[test]
fn a_prefix_names_at_most_one_id() {
    // The guide: `SpeakerDeclaration = SpeakerName , [ "@" , SpeakerId ] , Tags` and
    // `SpeakerReference = SpeakerName | "@" , SpeakerId`: one id at most. The transpiler note
    // recognizes a prefix "only if the leading text parses fully as a prefix ending in `:`;
    // otherwise the Line has no speaker" (C29).
    for source in ["Alice @A @B: text\n", "@A @B: text\n", "Alice @A @B #x: text\n"] {
        let (book, codes) = compiled(source);
        assert_eq!(book["speakers"].as_array().map(Vec::len), Some(1), "{source}");
        assert!(book["speakers"][0].get("id").is_none(), "{source}: {}", book["speakers"]);
        let written = source.trim_end().replace("#x", "");
        let words: String = said(&book)[0].clone();
        assert!(words.starts_with(&written[..written.find(':').unwrap_or(0)]), "{source}: {words}");
        // A writer almost certainly meant a speaker: the line says so, as a styled name does (C34).
        assert_eq!(codes, [Code::PrefixWithTwoIds], "{source}");
    }
    // One id is a prefix as ever, and draws nothing.
    let (book, codes) = compiled("Alice @A: text\n");
    assert_eq!(book["speakers"], json!([{ "name": "Alice", "id": "A", "tags": [] }]));
    assert_eq!(codes, []);
    // Words with ids in them that are no prefix's shape draw nothing either.
    for source in ["Mail @A or @B: later\n", "Alice: ask @A @B: now\n", "Alice @A @B said hi\n", "\\@A @B: hi\n"] {
        let (_, codes) = compiled(source);
        assert_eq!(codes, [], "{source}");
    }
}

#[test]
fn a_prefix_with_two_ids_is_reported_where_it_stands() {
    // C34: the warning points at the would-be prefix, line start through the colon, placed at
    // its line and UTF-16 column, in an option or after a condition as at a line's start.
    let source = "# Scene\n\n- Go.\n\n- `\u{1F600}?` \"Zoë\" @A @B #x: Hi.\n";
    let compilation = compile(source, "t.dialogue.md", &Options::default());
    let found: Vec<_> = compilation.diagnostics.iter().filter(|d| d.code == Code::PrefixWithTwoIds).collect();
    assert_eq!(found.len(), 1, "{:#?}", compilation.diagnostics);
    assert_eq!(&source[found[0].span.clone()], "\"Zoë\" @A @B #x:");
    assert_eq!((found[0].line, found[0].column), (5, 9));
    assert_eq!(found[0].severity, stagehand_dialoguedown::Severity::Warning);
    assert!(found[0].message.contains("\"Zoë\" @A @B #x"), "{}", found[0].message);
    assert!(compilation.playbook.is_some());
    // After a decoded entity in the name the span still holds the whole prefix.
    let source = "Al&eacute;x @A @B: Hi.\n";
    let compilation = compile(source, "t.dialogue.md", &Options::default());
    let found = compilation.diagnostics.iter().find(|d| d.code == Code::PrefixWithTwoIds).expect("C34");
    assert_eq!(found.span.start, 0);
    assert!(found.span.end >= source.find(':').unwrap_or(0), "{:?}", found.span);
}

#[test]
fn an_options_label_is_its_text_as_written_a_break_before_its_jump_included() {
    // The runtime note "Offering a Choice": "The compiler writes an option's text twice: as its
    // label, and as the start of the arm it leads to"; the Desugar note leaves a soft break
    // before a `=>` in the speech (a jump is single-line, so only a break *between* the arrow and
    // its link stops it), and the rpg-quest golden keeps it: "…before you land the blow." then a
    // break, then the divert to the ashes (C30).
    let (book, codes) = compiled("- Go left\n  => [Left](#left)\n- Go right\n\n# Left\n\nA: left\n");
    let written = json!([{ "kind": "text", "text": "Go left" }, { "kind": "break" }]);
    assert_eq!(book["nodes"][0]["out"][0]["label"], written);
    assert_eq!(book["nodes"][1]["speech"], written);
    assert_eq!(outs(&book, 1), [("divert".to_owned(), 3)]);
    assert_eq!(codes, []);
}

#[test]
fn a_nul_character_reads_as_the_replacement_character() {
    // The front-end note reads a script "close to CommonMark core", and CommonMark (§2.3): "For
    // security reasons, the Unicode character U+0000 must be replaced with the REPLACEMENT
    // CHARACTER (U+FFFD)" — in words and code spans alike (C33).
    let (book, _) = compiled("Alice: a\0b `\"k\0\"` => [g\0o](#x)\n\n# X\n\n# Y\0\n\nBob: c\n");
    assert_eq!(said(&book)[0], "a\u{FFFD}b  ");
    assert_eq!(book["nodes"][0]["speech"][1], json!({ "kind": "query", "key": "k\u{FFFD}" }));
    assert_eq!(book["nodes"][0]["out"][0]["label"], json!([{ "kind": "text", "text": "g\u{FFFD}o" }]));
    assert!(!book.to_string().contains("\\u0000"), "{book}");
}

#[test]
fn a_nul_character_in_a_link_target_is_read_before_the_link_and_placed_in_the_source() {
    // CommonMark (§2.3) replaces U+0000 before anything is parsed, and so does the reference's
    // reader, so the NUL is no control character to the link rules: `[go](#sc\0ene)` is a link
    // whose target matches no scene — an error at the jump, as written in the source (C33).
    let source = "# Scene\n\nAlice: a\0 => [go](#sc\0ene)\n\nBob: b\0\n";
    let compilation = compile(source, "t.dialogue.md", &Options::default());
    let found: Vec<_> = compilation.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(found, [Code::MissingJumpTarget], "{:#?}", compilation.diagnostics);
    let missing = &compilation.diagnostics[0];
    assert!(missing.message.contains("'#sc\u{FFFD}ene'"), "{}", missing.message);
    // Placed on the target as written, where the error-code guide marks a missing scene (C39).
    assert_eq!(&source[missing.span.clone()], "#sc\0ene");
    assert_eq!((missing.line, missing.column), (3, 19));
    // Written inside angle brackets, the same.
    let bracketed = compile("# Scene\n\n=> [go](<#sc\0ene>)\n", "t.dialogue.md", &Options::default());
    let found: Vec<_> = bracketed.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(found, [Code::MissingJumpTarget]);
    // Where each node was written is an offset into the script as given, NULs and all.
    let source = "# Scene\n\nAlice: a\0\0 => [go](#scene)\n\nBob: b\0\n";
    let compilation = compile(source, "t.dialogue.md", &Options::default());
    assert!(compilation.diagnostics.is_empty(), "{:#?}", compilation.diagnostics);
    let book = stagehand_playbook::to_json(compilation.playbook.as_ref().expect("a playbook"));
    assert_eq!(book["nodes"][0]["speech"][0]["text"], "a\u{FFFD}\u{FFFD} ");
    let offsets: Vec<usize> = compilation.node_offsets.iter().map(|&at| at as usize).collect();
    assert_eq!(offsets[0], source.find("Alice").unwrap_or(0));
    assert_eq!(offsets[1], source.find("Bob").unwrap_or(0));
    assert_eq!(offsets.last().copied(), Some(source.len()));
}

#[test]
fn a_percent_encoded_jump_target_is_matched_decoded() {
    // A jump is "an ordinary Markdown link" (the Cross-File Jump Resolution note) and its anchor
    // must match "a writer's Markdown preview" (the Semantic Analyzer note, DD5); a preview that
    // follows `#caf%C3%A9` finds the heading `café`, as a browser decodes a fragment (C35).
    for target in ["#caf%C3%A9", "#caf%c3%a9", "#café", "#%63af%C3%A9"] {
        let source = format!("=> [Go]({target})\n\nAlice: skipped\n\n# Café\n\nBob: here\n");
        let (book, codes) = compiled(&source);
        assert_eq!(codes, [], "{target}");
        assert_eq!(book["anchors"], json!({ "café": 2 }), "{target}");
        assert_eq!(outs(&book, 0), [("divert".to_owned(), 2)], "{target}");
    }
    let (book, codes) = compiled("=> [Go](#the%2Dend)\n\nAlice: skipped\n\n# The End\n\nBob: here\n");
    assert_eq!((outs(&book, 0), codes), (vec![("divert".to_owned(), 2)], vec![]));
    // The reserved end, written encoded, is the end.
    let (book, codes) = compiled("Alice: bye\n\n=> [Stop](#%45ND)\n\nBob: never\n");
    let end = book["nodes"].as_array().map_or(0, Vec::len) - 1;
    assert_eq!((outs(&book, 1), codes), (vec![("divert".to_owned(), end as u64)], vec![]));
}

#[test]
fn a_percent_encoded_jump_target_that_matches_no_scene_is_reported_as_written() {
    // A space is never in an anchor (the slug makes it a hyphen), so `#the%20end` reaches no
    // scene; nor does a target whose escapes are not UTF-8 or not escapes at all (C35).
    for target in ["#the%20end", "#the%E9end", "#the%zzend", "#the-end%"] {
        let source = format!("# Start\n\nAlice: Onward!\n\n=> [Continue]({target})\n\n# The End\n\nBob: here\n");
        let compilation = compile(&source, "t.dialogue.md", &Options::default());
        let found: Vec<_> = compilation.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(found, [Code::MissingJumpTarget], "{target}");
        let missing = &compilation.diagnostics[0];
        assert_eq!(
            missing.message,
            format!(
                "Jump target '{target}' does not match any scene. Check the anchor, or add a heading it can point to."
            )
        );
        // On the target as written, where the error-code guide marks a missing scene (C39).
        assert_eq!((missing.line, missing.column), (5, 15), "{target}");
        assert_eq!(&source[missing.span.clone()], target);
    }
}

#[test]
fn an_identifier_is_c_style_so_a_hyphenated_name_is_no_speaker() {
    // The guide's names, ids and tag names are an `Identifier` (or a quoted `String`), and the
    // Compiler-Projected Editor Semantics note (D5) names "unquoted `Marie-Claire`" a token shape
    // the compiler rejects, and leading underscores one it accepts: a letter or `_`, then
    // letters, digits and `_`. So a hyphenated unquoted name opens no prefix (the line is the
    // default speaker's, as written), a quoted one does, and a leading underscore is a name.
    let (book, _) = compiled("Marie-Claire: Bonjour.\n\n\"Marie-Claire\": Salut.\n\n_Ghost: Boo.\n");
    let names: Vec<&str> = book["speakers"].as_array().unwrap().iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["Marie-Claire", "_Ghost"]);
    assert_eq!(said(&book), ["Marie-Claire: Bonjour.", "Salut.", "Boo.", ""]);
    let unnamed = book["speakers"].as_array().unwrap().iter().position(|s| s.get("name").is_none());
    assert_eq!(book["nodes"][0]["speaker"], json!(unnamed.unwrap()));

    // A tag name ends where an identifier does: `#very-happy` is the tag `very`, then words.
    let (book, _) = compiled("Alice: I feel #very-happy today.\n");
    assert_eq!(book["nodes"][0]["speech"][1], json!({ "kind": "tag", "name": "very" }));
    assert_eq!(book["nodes"][0]["speech"][2], json!({ "kind": "text", "text": "-happy today." }));

    // An id, a dotted name and a leading digit are no identifiers either.
    for source in ["Alice @old-man: Hi.\n", "Mr.Smith: Hi.\n", "2B: Hi.\n"] {
        let (book, _) = compiled(source);
        assert!(book["speakers"].as_array().unwrap().iter().all(|s| s.get("name").is_none()), "{source}");
    }
}
