//! What comes of the file a script or a configuration arrives in: a byte-order mark an editor
//! wrote, and the name the playbook records for the script.

use std::path::Path;

use stagehand_dialoguedown::{compile, render_human, script_name, Code, Mode, Options};

const BOM: &str = "\u{feff}";

#[test]
fn a_byte_order_mark_before_a_script_is_skipped() {
    for source in ["Alice: Hello.\n\nBob: Goodbye.\n", "# Start\nAlice: Hello.\n\n=> [Again](#start)\n"] {
        let plain = compile(source, "s.dialogue.md", &Options::default());
        let marked_source = format!("{BOM}{source}");
        let marked = compile(&marked_source, "s.dialogue.md", &Options::default());
        assert!(marked.diagnostics.is_empty(), "{:#?}", marked.diagnostics);
        let (plain, marked) = (plain.playbook.expect("compiles"), marked.playbook.expect("compiles"));
        assert_eq!(stagehand_playbook::write(&marked), stagehand_playbook::write(&plain), "{source}");
    }
}

#[test]
fn a_byte_order_mark_before_front_matter_is_skipped_too() {
    let source = format!("{BOM}---\ntitle: x\n---\n\nAlice: Hello.\n");
    let compilation = compile(&source, "s.dialogue.md", &Options::default());
    assert!(compilation.diagnostics.is_empty(), "{:#?}", compilation.diagnostics);
    assert_eq!(compilation.playbook.expect("compiles").speakers[0].name.as_deref(), Some("Alice"));
}

#[test]
fn positions_after_a_byte_order_mark_are_counted_as_an_editor_shows_them() {
    let source = format!("{BOM}Alice: `nonsense`.\n");
    let compilation = compile(&source, "s.dialogue.md", &Options::default());
    let found = &compilation.diagnostics[0];
    assert_eq!(found.code, Code::NotAGameCall);
    // The mark is the text inside the backticks (C39).
    assert_eq!((found.line, found.column), (1, 9));
    assert_eq!(&source[found.span.clone()], "nonsense");
}

#[test]
fn a_rendered_diagnostic_after_a_byte_order_mark_names_the_column_an_editor_shows() {
    let source = format!("{BOM}Alice: `nonsense`.\n");
    let compilation = compile(&source, "s.dialogue.md", &Options::default());
    let text = render_human(&compilation.diagnostics, &source, "s.dialogue.md");
    assert!(text.contains("s.dialogue.md:1:9"), "{text}");
    assert!(!text.contains('\u{feff}'), "{text}");
}

#[test]
fn a_long_script_with_a_byte_order_mark_compiles_as_without() {
    let source: String = (0..4_000)
        .map(|at| format!("# Scene {at}\n\nAlice: Hi, `\"Name\"`! #tag\n\n- Go.\n    - Bob: Yes.\n\n"))
        .collect();
    assert!(source.len() > 150_000, "long enough to be cut into pieces");
    let marked_source = format!("{BOM}{source}");
    let plain = compile(&source, "s.dialogue.md", &Options::default()).playbook.expect("compiles");
    let marked = compile(&marked_source, "s.dialogue.md", &Options::default()).playbook.expect("compiles");
    assert_eq!(stagehand_playbook::write(&marked), stagehand_playbook::write(&plain));
}

#[test]
fn a_byte_order_mark_before_a_configuration_is_skipped() {
    let text = format!("{BOM}mode = \"best-effort\"\n\n[[speakers]]\nname = \"Narrator\"\n");
    let options = Options::from_toml(&text).expect("reads");
    assert_eq!(options.mode, Mode::BestEffort);
    assert_eq!(options.speakers[0].name, "Narrator");
}

#[test]
fn the_playbook_records_the_file_name_not_the_path_it_was_given_by() {
    for name in ["/home/author/stories/tale.dialogue.md", "stories/tale.dialogue.md", r"C:\stories\tale.dialogue.md"] {
        let compilation = compile("Alice: Hi.\n", name, &Options::default());
        assert_eq!(compilation.playbook.expect("compiles").script, "tale.dialogue.md", "{name}");
    }
    let compilation = compile("Alice: `nonsense`.\n", "/home/author/tale.dialogue.md", &Options::default());
    assert_eq!(compilation.diagnostics[0].file, "/home/author/tale.dialogue.md", "diagnostics keep the path given");
}

#[test]
fn the_configured_script_name_is_what_the_playbook_records() {
    let options = Options { script: Some("act-1/tale.dialogue.md".into()), ..Options::default() };
    let compilation = compile("Alice: Hi.\n", "/home/author/game/act-1/tale.dialogue.md", &options);
    assert_eq!(compilation.playbook.expect("compiles").script, "act-1/tale.dialogue.md");
}

#[test]
fn a_script_is_named_by_its_path_under_the_project_root_else_by_its_file_name() {
    let root = Path::new("/home/author/game");
    assert_eq!(script_name(&root.join("act-1/tale.dialogue.md"), Some(root)), "act-1/tale.dialogue.md");
    assert_eq!(script_name(&root.join("tale.dialogue.md"), Some(root)), "tale.dialogue.md");
    assert_eq!(script_name(Path::new("/elsewhere/tale.dialogue.md"), Some(root)), "tale.dialogue.md");
    assert_eq!(script_name(Path::new("/home/author/game-2/tale.dialogue.md"), Some(root)), "tale.dialogue.md");
    assert_eq!(script_name(Path::new("/home/author/game/act-1/tale.dialogue.md"), None), "tale.dialogue.md");
    assert_eq!(script_name(Path::new("/home/author/game/../x/tale.dialogue.md"), Some(root)), "tale.dialogue.md");
}

#[test]
fn a_byte_order_mark_alone_is_an_empty_script() {
    let empty = compile("", "s.dialogue.md", &Options::default());
    let marked = compile(BOM, "s.dialogue.md", &Options::default());
    assert_eq!(marked.diagnostics, empty.diagnostics);
    let (empty, marked) = (empty.playbook.expect("compiles"), marked.playbook.expect("compiles"));
    assert_eq!(stagehand_playbook::write(&marked), stagehand_playbook::write(&empty));
}

#[test]
fn columns_count_utf16_code_units_as_the_reference_line_map_does() {
    // The CLI Diagnostic Rendering note (DR4): "Line and column are one-based, counted in UTF-16
    // code units (matching how spans index the string, and the LSP convention)". An emoji is two
    // such units, an accented letter one.
    let source = "Zo\u{eb} \u{1f389}: `nonsense`.\n";
    let compilation = compile(source, "s.dialogue.md", &Options::default());
    let found = &compilation.diagnostics[0];
    assert_eq!(found.code, Code::NotAGameCall);
    assert_eq!((found.line, found.column), (1, 10));
    let offsets = [u32::try_from(found.span.start).expect("small"), u32::try_from(source.len()).expect("small")];
    assert_eq!(stagehand_dialoguedown::line_columns(source, &offsets), [(1, 10), (2, 1)]);
}
