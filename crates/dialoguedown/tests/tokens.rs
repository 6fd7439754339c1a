//! How a line's text is read into tokens: tags and escapes in speech, the shape of a speaker
//! prefix and of a styled one, what a link label keeps, and a condition before a `=>` that has
//! no link, and characters written as entities (decisions C1, C3, C4, C14 and C16).

use serde_json::{json, Value};
use stagehand_dialoguedown::{compile, Code, Compilation, Options};

fn compiled(source: &str) -> Compilation {
    compile(source, "t.dialogue.md", &Options::default())
}

fn playbook(source: &str) -> Value {
    let compilation = compiled(source);
    let playbook = compilation.playbook.unwrap_or_else(|| panic!("errors: {:#?}", compilation.diagnostics));
    stagehand_playbook::to_json(&playbook)
}

fn codes(source: &str) -> Vec<Code> {
    compiled(source).diagnostics.iter().map(|d| d.code).collect()
}

fn text(words: &str) -> Value {
    json!({ "kind": "text", "text": words })
}

fn tag(name: &str) -> Value {
    json!({ "kind": "tag", "name": name })
}

/// The first node's speech.
fn speech(source: &str) -> Value {
    playbook(source)["nodes"][0]["speech"].clone()
}

/// Whether the first node is spoken by the anonymous default speaker (no name of its own).
fn narrated(source: &str) -> bool {
    let book = playbook(source);
    let speaker = &book["speakers"][book["nodes"][0]["speaker"].as_u64().unwrap_or(u64::MAX) as usize];
    speaker["default"] == true && speaker.get("name").is_none()
}

#[test]
fn a_tag_in_the_middle_of_speech_is_a_tag() {
    assert_eq!(speech("Alice: I feel #happy today\n"), json!([text("I feel "), tag("happy"), text(" today")]));
    assert_eq!(
        speech("Alice: A #mood=calm day\n"),
        json!([text("A "), { "kind": "tag", "name": "mood", "value": "calm" }, text(" day")])
    );
}

#[test]
fn an_escaped_hash_is_literal_text() {
    assert_eq!(
        speech("Alice: Fresh bread! \\#marketday today\n"),
        json!([text("Fresh bread! "), text("#marketday today")])
    );
    // The escape covers one `#`; a later tag in the same run is still a tag.
    assert_eq!(speech("Alice: \\#one #two\n"), json!([text("#one "), tag("two")]));
}

#[test]
fn an_escaped_hash_never_opens_a_speaker_prefix() {
    let source = "\\#excited: we made it\n";
    assert!(!codes(source).contains(&Code::TagsWithoutSpeaker));
    assert!(narrated(source));
    assert_eq!(speech(source), json!([text("#excited: we made it")]));
}

#[test]
fn an_escaped_arrow_is_still_an_arrow() {
    // The Dangling Arrow Diagnostic note's boundary table: "`\=>` — Still warned: Markdown
    // consumes the backslash before DialogueDown tokenizes, so the arrow survives. Only the
    // entity `&#61;>` stays quiet" (C1, revised). Alone it is a dangling arrow, warned and said
    // as written; before a link it is a jump.
    let source = "Alice: a \\=> b\n";
    let found: Vec<_> = compiled(source).diagnostics.iter().map(|d| (d.code, d.line, d.column)).collect();
    assert_eq!(found, [(Code::DanglingArrow, 1, 11)]);
    assert_eq!(speech(source), json!([text("a "), text("=>"), text(" b")]));
    let source = "# Start\n\nAlice: Go \\=> [there](#start)\n";
    assert!(compiled(source).diagnostics.is_empty(), "{:#?}", compiled(source).diagnostics);
    let book = playbook(source);
    assert_eq!(book["nodes"][0]["out"], json!([{ "kind": "divert", "target": 0, "label": [text("there")] }]));
}

#[test]
fn a_character_written_as_an_entity_is_literal_text() {
    // An entity is read as itself, like a backslash escape (C16): no tag, no arrow, no prefix.
    assert_eq!(speech("Alice: I feel &#35;happy today\n"), json!([text("I feel "), text("#happy today")]));
    assert_eq!(speech("Alice: I feel &num;happy\n"), json!([text("I feel "), text("#happy")]));
    assert_eq!(speech("Alice: I feel &#x23;happy\n"), json!([text("I feel "), text("#happy")]));
    assert_eq!(speech("Alice: &#35;one #two\n"), json!([text("#one "), tag("two")]));
    // The dangling-arrow note: the entity `&#61;>` stays quiet.
    let source = "# Start\n\nAlice: Go &#61;> [there](#start)\n";
    assert!(!codes(source).contains(&Code::DanglingArrow), "{:#?}", compiled(source).diagnostics);
    let book = playbook(source);
    assert_eq!(book["nodes"][0]["out"], json!([{ "kind": "succession", "target": 1 }]));
    assert_eq!(book["nodes"][0]["speech"][1], text("=> "));
    assert!(!codes("Alice: a &#61;> b\n").contains(&Code::DanglingArrow));
    assert!(!codes("Alice: a =&gt; b\n").contains(&Code::DanglingArrow));
    assert_eq!(speech("Alice: a =&gt; b\n"), json!([text("a ="), text("> b")]));
    // Entities for characters that are never syntax join the words around them.
    assert_eq!(speech("Alice: salt &amp; pepper\n"), json!([text("salt & pepper")]));
    let prefix = "&#35;excited: we made it\n";
    assert!(!codes(prefix).contains(&Code::TagsWithoutSpeaker));
    assert!(narrated(prefix));
    assert_eq!(speech(prefix), json!([text("#excited: we made it")]));
}

#[test]
fn a_lone_hash_or_equals_sign_stays_in_one_run_of_text() {
    assert_eq!(speech("Alice: a # b = c\n"), json!([text("a # b = c")]));
    assert_eq!(speech("Alice: 3 ## 4 == 7 ### x\n"), json!([text("3 ## 4 == 7 ### x")]));
}

#[test]
fn a_prefix_glued_together_is_narration() {
    for source in ["Alice @A#mood=happy: Hi.\n", "Alice @A #tag1#tag2: Hi.\n", "Alice@A: Hi.\n", "Alice#main: Hi.\n"] {
        assert!(narrated(source), "{source}");
        assert!(!codes(source).contains(&Code::TagsWithoutSpeaker), "{source}");
    }
    // The documented shape, spaced as it may be, still names the speaker.
    let book = playbook("Alice @A #main #mood=happy : Hi.\n\n@A #x:Hi.\n");
    assert_eq!(book["speakers"][0]["name"], "Alice");
    assert_eq!(book["nodes"][1]["speaker"], 0);
}

#[test]
fn a_styled_name_before_the_colon_is_noticed() {
    for source in ["***Carol***: Hi.\n", "*Alice* #excited: Hi.\n", "A*l*ice: Hi.\n", "~~Ghost~~ @G: Boo.\n"] {
        assert!(codes(source).contains(&Code::StyledSpeakerPrefix), "{source}");
    }
    for source in ["*the great*: hi\n", "*Alice: hi*\n", "*It was cold.*\n", "A*l*ice said: hi\n"] {
        assert!(!codes(source).contains(&Code::StyledSpeakerPrefix), "{source}");
    }
}

#[test]
fn a_styled_name_is_reported_at_the_would_be_prefix() {
    let source = "*Alice* #excited: Hi.\n";
    let compilation = compiled(source);
    let found = compilation.diagnostics.iter().find(|d| d.code == Code::StyledSpeakerPrefix).expect("DLG1107");
    assert_eq!(&source[found.span.clone()], "*Alice* #excited:");
}

#[test]
fn a_code_span_or_an_image_in_a_link_label_is_kept_as_written() {
    let source = "# Scene\n\nAlice: Read [the `Wave()` sign](#scene) or [see ![map](map.png) here](#scene).\n";
    assert!(compiled(source).diagnostics.is_empty(), "{:#?}", compiled(source).diagnostics);
    let said = speech(source);
    assert_eq!(said[1]["label"], json!([text("the "), text("`Wave()`"), text(" sign")]));
    assert_eq!(said[3]["label"], json!([text("see "), text("![map](map.png)"), text(" here")]));
    // A query in a label is still read.
    assert_eq!(
        speech("# Scene\n\nAlice: [the `\"inn\"` inn](#scene)\n")[0]["label"],
        json!([text("the "), { "kind": "query", "key": "inn" }, text(" inn")])
    );
}

#[test]
fn a_conditional_dangling_arrow_is_one_warning_at_the_arrow() {
    // The Dangling Arrow Diagnostic note's boundary table: "`Ready?` => (no link) — Dangling.
    // One warning at the `=>`, not the condition", and its DD4: "The condition is valid; the
    // arrow is what failed to become a jump" (C14, revised). The line's own condition guards
    // its line, which says the arrow as written.
    for (source, says) in [("# Gate\n\n`Ready?` =>\n", "=>"), ("# Gate\n\n`Ready?` => the gate\n", "=> the gate")] {
        let compilation = compiled(source);
        let codes: Vec<_> = compilation.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::DanglingArrow], "{source}");
        let found = &compilation.diagnostics[0];
        assert_eq!(&source[found.span.clone()], "=>", "{source}");
        assert_eq!((found.line, found.column), (3, 10), "{source}");
        let book = stagehand_playbook::to_json(compilation.playbook.as_ref().expect(source));
        let line = &book["nodes"][0];
        assert_eq!(line["condition"], json!({ "kind": "key", "key": "Ready" }), "{source}");
        let words: String = line["speech"].as_array().unwrap().iter().filter_map(|f| f["text"].as_str()).collect();
        assert_eq!(words, says, "{source}");
    }
    // A condition mid-line guards nothing whatever follows it: it is reported where it stands,
    // and the dangling arrow after it is warned as any other.
    let source = "# Gate\n\nAlice: Hi. `Ready?` =>\n";
    let compilation = compiled(source);
    let placed: Vec<_> = compilation.diagnostics.iter().map(|d| (d.code, &source[d.span.clone()])).collect();
    assert_eq!(placed, [(Code::ConditionGuardsNothing, "`Ready?`"), (Code::DanglingArrow, "=>")]);
}

/// Where each `DLG1101` points, `(line, column)`.
fn tags_without_speaker(source: &str) -> Vec<(usize, usize)> {
    let compilation = compiled(source);
    let found = compilation.diagnostics.iter().filter(|d| d.code == Code::TagsWithoutSpeaker);
    found.map(|d| (d.line, d.column)).collect()
}

#[test]
fn a_tag_never_starts_a_line() {
    // The guide: a tag must never start a line; it rides along with what it annotates (C17).
    assert_eq!(tags_without_speaker("# Scene\n\n#happy We made it!\n"), [(3, 1)]);
    assert_eq!(tags_without_speaker("# Scene\n\n#happy #mood=calm\n"), [(3, 1)]);
    assert_eq!(tags_without_speaker("# Scene\n\nAlice: Hi.\n\n##default Hello.\n"), [(5, 1)]);
    assert_eq!(tags_without_speaker("# Scene\n\n- #sly Go left\n  Alice: Fine.\n"), [(3, 3)]);
    // Riding along with a speaker, or after words, a tag is fine; so is an escaped hash.
    for fine in ["Alice: #happy We made it!\n", "We made it #happy\n", "\\#happy We made it!\n", "a # b\n"] {
        assert_eq!(tags_without_speaker(fine), [], "{fine}");
    }
    // Tags in a prefix with no name are reported once, as before.
    assert_eq!(tags_without_speaker("#excited: We made it!\n"), [(1, 1)]);
}

#[test]
fn an_unknown_reserved_tag_is_reported_wherever_it_rides() {
    // The Semantic Analyzer note (DD7): "The tag validator checks each `ReservedTag` against that
    // set and rejects an unknown one", and a tag rides "on a speaker, image, or speech"; the
    // error-code reference: `##default` "is the only one DialogueDown knows". So `##weird` in
    // speech, in styling, in a link's label or in an image's alt text is `DLG2008` at the tag.
    for (source, tag) in [
        ("Carol: has ##weird tag\n", "##weird"),
        ("Carol: *so ##odd=x*\n", "##odd=x"),
        ("# S\n\nCarol: [go ##now](#s)\n", "##now"),
        ("Carol: ![a ##res](x.png)\n", "##res"),
        ("- Carol: pick ##me\n- Bob: no\n", "##me"),
    ] {
        let compilation = compiled(source);
        let found: Vec<_> = compilation.diagnostics.iter().map(|d| (d.code, &source[d.span.clone()])).collect();
        assert_eq!(found, [(Code::UnknownReservedTag, tag)], "{source}");
        assert!(compilation.playbook.is_none(), "{source}");
    }
    let named = &compiled("Carol: has ##weird=x tag\n").diagnostics[0];
    assert_eq!(named.message, "'##weird=x' is not a known reserved tag. Use a custom tag ('#weird=x') or one of DialogueDown's reserved tags.");
    // The one reserved tag the language knows draws nothing there.
    assert!(compiled("Carol: a ##default b\n").diagnostics.is_empty());
}
