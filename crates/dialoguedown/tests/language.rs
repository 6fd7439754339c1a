//! The language, construct by construct, beyond what the corpus pins: each test compiles a
//! small script and asserts the playbook it yields.

use serde_json::{json, Value};
use stagehand_dialoguedown::{compile, Code, ConfiguredSpeaker, Handling, Options};

fn playbook_with(source: &str, options: &Options) -> Value {
    let compilation = compile(source, "t.dialogue.md", options);
    let playbook = compilation.playbook.unwrap_or_else(|| panic!("errors: {:#?}", compilation.diagnostics));
    let json = stagehand_playbook::write(&playbook);
    assert!(stagehand_playbook::read(&json).is_ok(), "the reader accepts what we write: {json}");
    stagehand_playbook::to_json(&playbook)
}

fn playbook(source: &str) -> Value {
    playbook_with(source, &Options::default())
}

fn node(playbook: &Value, id: usize) -> &Value {
    &playbook["nodes"][id]
}

fn text(words: &str) -> Value {
    json!({ "kind": "text", "text": words })
}

#[test]
fn an_empty_script_is_just_the_end() {
    let book = playbook("");
    assert_eq!(book["entry"], 0);
    assert_eq!(book["nodes"], json!([{ "kind": "end", "id": 0, "out": [] }]));
}

#[test]
fn front_matter_and_comments_are_dropped() {
    let book = playbook("---\ntitle: Reunion\n---\n\n<!-- a note -->\n\nAlice: Hello, Bob! <!-- warm -->\n");
    assert_eq!(book["nodes"].as_array().map(Vec::len), Some(2));
    assert_eq!(node(&book, 0)["speech"], json!([text("Hello, Bob! ")]));
}

#[test]
fn a_hard_break_starts_a_new_speech_and_a_soft_break_wraps_one() {
    let book = playbook("Alice: Hello, Bob!\\\nBob: Hello, Alice!\n\nAlice: One long\nspeech.\n");
    assert_eq!(node(&book, 0)["speaker"], 0);
    assert_eq!(node(&book, 1)["speaker"], 1);
    assert_eq!(node(&book, 1)["speech"], json!([text("Hello, Alice!")]));
    assert_eq!(node(&book, 2)["speech"], json!([text("One long"), { "kind": "break" }, text("speech.")]));
}

#[test]
fn whitespace_around_the_colon_is_insignificant_and_quotes_keep_it() {
    let book = playbook("Alice :   Hello, Bob!\n\nAlice: \" Hello, Bob!\"\n");
    assert_eq!(node(&book, 0)["speech"], json!([text("Hello, Bob!")]));
    assert_eq!(node(&book, 1)["speech"], json!([text(" Hello, Bob!")]));
}

#[test]
fn speakers_are_declared_referenced_and_merged() {
    let source =
        "Alice @A #main: Hi.\n\n@A #excited: Look!\n\nAlice: Again.\n\n@A: And again.\n\nBob #mood=happy: Hello.\n";
    let book = playbook(source);
    assert_eq!(
        book["speakers"],
        json!([
            { "id": "A", "name": "Alice", "tags": [{ "name": "main" }, { "name": "excited" }] },
            { "name": "Bob", "tags": [{ "name": "mood", "value": "happy" }] }
        ])
    );
    for id in 0..4 {
        assert_eq!(node(&book, id)["speaker"], 0);
    }
}

#[test]
fn the_in_file_default_speaker_voices_unattributed_lines() {
    let book = playbook("Narrator @narrator ##default: The story begins.\n\nThis line is also spoken by Narrator.\n");
    assert_eq!(book["speakers"], json!([{ "id": "narrator", "name": "Narrator", "default": true, "tags": [] }]));
    assert_eq!(node(&book, 1)["speaker"], 0);
}

#[test]
fn an_anonymous_default_takes_its_place_where_first_needed_and_a_later_default_wins_earlier_lines() {
    let book = playbook("Alice: Hi.\n\nThe wind blows.\n\nBob: Brr.\n\nIt rains.\n");
    assert_eq!(
        book["speakers"],
        json!([{ "name": "Alice", "tags": [] }, { "default": true, "tags": [] }, { "name": "Bob", "tags": [] }])
    );
    let speakers: Vec<_> = (0..4).map(|id| node(&book, id)["speaker"].clone()).collect();
    assert_eq!(speakers, [0, 1, 2, 1]);
    let book = playbook("Alice: Hi.\n\nThe wind blows.\n\nNan ##default: Brr.\n");
    assert_eq!(
        book["speakers"],
        json!([{ "name": "Alice", "tags": [] }, { "name": "Nan", "default": true, "tags": [] }])
    );
    assert_eq!(node(&book, 1)["speaker"], 1);
}

#[test]
fn a_configured_default_fills_in_unless_the_script_names_its_own() {
    let options = Options {
        speakers: vec![ConfiguredSpeaker { name: "Guide".into(), default: true, ..ConfiguredSpeaker::default() }],
        ..Options::default()
    };
    let book = playbook_with("Alice: Hi.\n\nThe wind blows.\n", &options);
    assert_eq!(book["speakers"][0], json!({ "name": "Guide", "default": true, "tags": [] }));
    assert_eq!(node(&book, 1)["speaker"], 0);
    let book = playbook_with("Nan ##default: Hi.\n\nThe wind blows.\n", &options);
    assert_eq!(book["speakers"][0], json!({ "name": "Guide", "tags": [] }));
    assert_eq!(node(&book, 1)["speaker"], 1);
}

#[test]
fn images_keep_their_tags_and_links_stay_links() {
    let book = playbook("Alice: ![Alice smiling #size=small #align=left](alice.png) See [the map](#map).\n\n# Map\n");
    assert_eq!(
        node(&book, 0)["speech"],
        json!([
            { "kind": "image", "source": "alice.png", "alt": [
                text("Alice smiling "),
                { "kind": "tag", "name": "size", "value": "small" },
                text(" "),
                { "kind": "tag", "name": "align", "value": "left" }
            ] },
            text(" See "),
            { "kind": "link", "target": "#map", "label": [text("the map")] },
            text(".")
        ])
    );
    assert_eq!(book["anchors"], json!({ "map": 1 }));
}

#[test]
fn styles_nest_and_a_single_tilde_is_text() {
    let book = playbook("Bob: **Hello `\"Name\"`!** ~~no~~ a ~b~ c\n");
    assert_eq!(
        node(&book, 0)["speech"],
        json!([
            { "kind": "styled", "style": "bold", "children": [text("Hello "), { "kind": "query", "key": "Name" }, text("!")] },
            text(" "),
            { "kind": "styled", "style": "strikethrough", "children": [text("no")] },
            text(" a ~b~ c")
        ])
    );
}

#[test]
fn a_dangling_arrow_stays_as_its_own_text_and_warns() {
    let compilation = compile("Alice: the => arrow\n", "t.dialogue.md", &Options::default());
    assert!(compilation.diagnostics.iter().any(|d| d.code == Code::DanglingArrow));
    let book = stagehand_playbook::to_json(&compilation.playbook.expect("a warning only"));
    assert_eq!(node(&book, 0)["speech"], json!([text("the "), text("=>"), text(" arrow")]));
}

#[test]
fn a_jump_to_end_ends_the_run_and_skips_what_follows() {
    let book = playbook("Alice: Bye. => [The end](#END)\n\nAlice: Never.\n");
    assert_eq!(node(&book, 0)["out"], json!([{ "kind": "divert", "target": 2, "label": [text("The end")] }]));
    assert_eq!(node(&book, 2)["kind"], "end");
}

#[test]
fn a_jump_outside_the_script_warns_and_reads_on() {
    let compilation =
        compile("=> [Meet Bob](chapter-02.md#meet-bob)\n\nAlice: Hi.\n", "t.dialogue.md", &Options::default());
    assert!(compilation.diagnostics.iter().any(|d| d.code == Code::JumpOutsideScript));
    let book = stagehand_playbook::to_json(&compilation.playbook.expect("a warning only"));
    assert_eq!(node(&book, 0)["out"], json!([{ "kind": "succession", "target": 1 }]));
}

#[test]
fn a_heading_with_nothing_under_it_anchors_the_next_block() {
    let book = playbook("# Empty\n\n# Full\n\nAlice: Here.\n\n# Last\n");
    assert_eq!(book["anchors"], json!({ "empty": 0, "full": 0, "last": 1 }));
}

#[test]
fn a_silent_command_is_a_control_node_and_may_be_conditional() {
    let book = playbook("`Angry?` `Shout(\"x\")` `(\"stomp\")`\n\nAlice: Hi.\n");
    assert_eq!(
        node(&book, 0),
        &json!({
            "kind": "control", "id": 0,
            "effects": [
                { "kind": "custom-command", "name": "Shout", "args": ["x"] },
                { "kind": "default-command", "action": "stomp" }
            ],
            "condition": { "kind": "key", "key": "Angry" },
            "out": [{ "kind": "succession", "target": 1 }]
        })
    );
}

#[test]
fn random_weights_are_static_auto_or_dynamic_and_may_be_conditional() {
    let book = playbook("- `IsAngry?` `50%` The guard glares.\n- `Guard.Suspicion%` He squints.\n- `%` He waves.\n");
    assert_eq!(node(&book, 0)["kind"], "random-choice");
    assert_eq!(
        node(&book, 0)["out"],
        json!([
            { "kind": "random-option", "target": 1, "weight": { "kind": "number", "percentage": 50 },
              "condition": { "kind": "key", "key": "IsAngry" } },
            { "kind": "random-option", "target": 2, "weight": { "kind": "query", "key": "Guard.Suspicion" } },
            { "kind": "random-option", "target": 3, "weight": { "kind": "auto" } }
        ])
    );
}

#[test]
fn a_menu_whose_every_option_is_gated_falls_through() {
    let book = playbook("- `HasKey?` Use the key.\n\nAlice: Onward.\n");
    let out = &node(&book, 0)["out"];
    assert_eq!(out[1], json!({ "kind": "succession", "target": 2 }));
}

#[test]
fn nested_options_weave_back_to_what_follows_the_menu() {
    let book = playbook("- Bob: Really?\n    - Alice: Yes.\n- Bob: Agreed.\n\nAlice: Tennis!\n");
    let last = book["nodes"].as_array().map_or(0, Vec::len) - 2;
    assert_eq!(node(&book, last)["speech"], json!([text("Tennis!")]));
    assert_eq!(node(&book, 3)["speech"], json!([text("Yes.")]));
    assert_eq!(node(&book, 3)["out"], json!([{ "kind": "succession", "target": last }]));
}

#[test]
fn conditional_blocks_nest_and_fall_through_without_an_else() {
    let source = "\
> `if` `Rich?`
>
> Guard: Welcome.
>
> > `if` `Armed?`
> >
> > Guard: Leave your blade.
>
> `elseif` `Poor?`
>
> Guard: Begone.

Guard: Next!
";
    let book = playbook(source);
    assert_eq!(
        node(&book, 0)["out"],
        json!([
            { "kind": "branch", "target": 1, "condition": { "kind": "key", "key": "Rich" } },
            { "kind": "branch", "target": 4, "condition": { "kind": "key", "key": "Poor" } },
            { "kind": "succession", "target": 5 }
        ])
    );
    assert_eq!(node(&book, 2)["kind"], "branch");
    assert_eq!(node(&book, 2)["out"][1], json!({ "kind": "succession", "target": 5 }));
}

#[test]
fn a_plain_blockquote_is_transparent() {
    let book = playbook("> Alice: Quoted.\n\nAlice: Plain.\n");
    assert_eq!(node(&book, 0)["speech"], json!([text("Quoted.")]));
    assert_eq!(node(&book, 1)["speech"], json!([text("Plain.")]));
}

#[test]
fn authoring_aids_are_ignored_and_can_be_kept() {
    let source =
        "| Speaker | Mood |\n| --- | --- |\n| Alice | happy |\n\n```mermaid\nflowchart LR\n```\n\nAlice: Hi.\n";
    let compilation = compile(source, "t.dialogue.md", &Options::default());
    assert_eq!(compilation.diagnostics.iter().filter(|d| d.code == Code::IgnoredMarkdown).count(), 2);
    let book = stagehand_playbook::to_json(&compilation.playbook.expect("notes only"));
    assert_eq!(book["nodes"].as_array().map(Vec::len), Some(2));

    let mut options = Options::default();
    options.unmodeled.table = Handling::Keep;
    let book = playbook_with(source, &options);
    assert_eq!(node(&book, 0)["speech"][0]["text"].as_str().map(|t| t.starts_with("| Speaker")), Some(true));
}

#[test]
fn raw_html_and_autolinks_are_kept_as_text() {
    let book = playbook("Alice: Visit <https://example.com> now<br>.\n");
    assert_eq!(node(&book, 0)["speech"], json!([text("Visit <https://example.com> now<br>.")]));
}

#[test]
fn an_ordered_menu_is_ordered() {
    let book = playbook("1. Go east\n2. Go west\n");
    assert_eq!(node(&book, 0)["ordered"], true);
}

#[test]
fn a_condition_right_before_a_jump_guards_the_jump_mid_line() {
    let book = playbook("# Start\n\nAlice: Let's go. `Rainy?` => [Inn](#inn)\n\n# Inn\n\nAlice: Dry at last.\n");
    assert_eq!(node(&book, 0)["speech"], json!([text("Let's go. ")]));
    assert_eq!(
        node(&book, 0)["out"],
        json!([
            { "kind": "divert", "target": 1, "label": [text("Inn")], "condition": { "kind": "key", "key": "Rainy" } },
            { "kind": "succession", "target": 1 }
        ])
    );
}

#[test]
fn a_quoted_key_may_end_in_a_question_mark_and_any_other_quotes_are_part_of_the_key() {
    let book = playbook("`\"Rainy?\"?` => [Inn](#inn)\n\n# Inn\n");
    assert_eq!(node(&book, 0)["out"][0]["condition"]["key"], "Rainy?");
    // The Unquoted Keys note, D2: text that is not one clean "…" is the raw key.
    let book = playbook("`\"a\" \"b\"?` Alice: Hi.\n\n`He said \"hi\"?` Bob: Yes.\n");
    assert_eq!(node(&book, 0)["condition"], json!({ "kind": "key", "key": "\"a\" \"b\"" }));
    assert_eq!(node(&book, 1)["condition"], json!({ "kind": "key", "key": "He said \"hi\"" }));
    let book = playbook("A: q\n\n- `He said \"hi\"%` a\n- `\"a\"b\"%` b\n");
    assert_eq!(node(&book, 1)["out"][0]["weight"], json!({ "kind": "query", "key": "He said \"hi\"" }));
    assert_eq!(node(&book, 1)["out"][1]["weight"], json!({ "kind": "query", "key": "\"a\"b\"" }));
}

#[test]
fn a_jump_split_across_lines_is_no_jump() {
    let compilation =
        compile("=>\n[Play tennis](#play-tennis)\n\n# Play tennis\n", "t.dialogue.md", &Options::default());
    assert!(compilation.diagnostics.iter().any(|d| d.code == Code::DanglingArrow));
    let book = stagehand_playbook::to_json(&compilation.playbook.expect("a warning only"));
    assert_eq!(node(&book, 0)["kind"], "line");
    assert_eq!(node(&book, 0)["speech"][2]["kind"], "link");
}

#[test]
fn a_jump_in_a_heading_is_heading_text() {
    let book = playbook("## => [Play tennis](#play-tennis)\n\nAlice: Hi.\n");
    assert_eq!(book["anchors"], json!({ "-play-tennis": 0 }));
    assert_eq!(node(&book, 0)["out"], json!([{ "kind": "succession", "target": 1 }]));
}
