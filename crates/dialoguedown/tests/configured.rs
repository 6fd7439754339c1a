//! Configured speakers are bound as the script's own declarations are (C19): entries that share
//! a name are one speaker, and entries that give an id two names, or a name two ids, conflict
//! as they would in a script — refused when a `dialogue.toml` is read, at the entry's line, and
//! reported by the compile when the options were made in code.

use stagehand_dialoguedown::{compile, Code, ConfiguredSpeaker, Options};

fn speaker(name: &str, id: Option<&str>) -> ConfiguredSpeaker {
    ConfiguredSpeaker { name: name.into(), id: id.map(Into::into), ..ConfiguredSpeaker::default() }
}

fn with(speakers: Vec<ConfiguredSpeaker>) -> Options {
    Options { speakers, ..Options::default() }
}

#[test]
fn an_id_configured_for_two_names_is_refused_where_the_file_gives_it() {
    let text = "[[speakers]]\nname = \"A\"\nid = \"x\"\n\n[[speakers]]\nname = \"B\"\nid = \"x\"\n";
    let error = Options::from_toml(text).unwrap_err();
    assert_eq!(error.code, Some(Code::IdBoundToTwoNames));
    assert_eq!((error.line, error.column), (7, 6));
    assert_eq!(
        error.to_string(),
        "DLG2004: id '@x' is already bound to speaker 'A', so it cannot also be bound to 'B'. Use a different id \
         for 'B'. (line 7, column 6)"
    );
}

#[test]
fn a_name_configured_with_two_ids_is_refused_where_the_file_gives_the_second() {
    let text = "[[speakers]]\nname = \"A\"\nid = \"x\"\n\n[[speakers]]\nname = \"A\"\nid = \"y\"\n";
    let error = Options::from_toml(text).unwrap_err();
    assert_eq!(error.code, Some(Code::NameBoundToTwoIds));
    assert_eq!((error.line, error.column), (7, 6));
    assert!(error.message.starts_with("Speaker 'A' is already bound to id '@x'"), "{error}");
}

#[test]
fn entries_that_agree_are_read_and_other_problems_have_no_code() {
    let text = "[[speakers]]\nname = \"A\"\n\n[[speakers]]\nname = \"A\"\nid = \"x\"\n\n[[speakers]]\nname = \"A\"\n";
    assert_eq!(Options::from_toml(text).expect("agrees").speakers.len(), 3);
    assert_eq!(Options::from_toml("mode = \"fast\"\n").unwrap_err().code, None);
}

#[test]
fn configured_speakers_sharing_a_name_are_one_speaker() {
    let options = with(vec![speaker("A", None), speaker("A", None), speaker("B", Some("b")), speaker("A", Some("a"))]);
    let compilation = compile("A: x\n\n@a: y\n\nB: z\n", "t.dialogue.md", &options);
    assert!(compilation.diagnostics.is_empty(), "{:#?}", compilation.diagnostics);
    let playbook = compilation.playbook.expect("compiles");
    let names: Vec<_> = playbook.speakers.iter().map(|s| (s.name.as_deref(), s.id.as_deref())).collect();
    assert_eq!(names, [(Some("A"), Some("a")), (Some("B"), Some("b"))]);
    let json = stagehand_playbook::write(&playbook);
    assert!(stagehand_playbook::read(&json).is_ok(), "the reader accepts it: {json}");
}

#[test]
fn configured_speakers_in_conflict_yield_no_playbook() {
    for (speakers, code) in [
        (vec![speaker("A", Some("x")), speaker("B", Some("x"))], Code::IdBoundToTwoNames),
        (vec![speaker("A", Some("x")), speaker("A", Some("y"))], Code::NameBoundToTwoIds),
    ] {
        let compilation = compile("A: x\n", "t.dialogue.md", &with(speakers));
        let found: Vec<_> =
            compilation.diagnostics.iter().map(|d| (d.code, d.line, d.column, d.span.clone())).collect();
        assert_eq!(found, [(code, 1, 1, 0..0)], "at the start of the script: the configuration has no line in it");
        assert!(compilation.playbook.is_none());
    }
}

#[test]
fn a_script_declaration_that_conflicts_with_the_configuration_is_reported_at_the_declaration() {
    let options = with(vec![speaker("Alice", Some("A")), speaker("Bob", Some("B"))]);
    for (source, code) in
        [("Hi.\n\nAlice @C: x\n", Code::NameBoundToTwoIds), ("Hi.\n\nCarol @B: x\n", Code::IdBoundToTwoNames)]
    {
        let compilation = compile(source, "t.dialogue.md", &options);
        let found: Vec<_> = compilation.diagnostics.iter().map(|d| (d.code, d.line)).collect();
        assert_eq!(found, [(code, 3)], "{source}");
        assert!(compilation.playbook.is_none());
    }
}

#[test]
fn a_malformed_tag_is_refused_in_the_configuration_guide_s_words() {
    // The configuration guide: each `tags` entry "is either a plain name or a `name=value`
    // pair", or an inline table `{ name = …, value = … }`; the loader note refuses an
    // "inline-table tag without a `name`" and a wrong-typed `tags`, located in the file (at
    // the array, where the TOML reader places a problem inside it).
    for (text, column) in [
        ("[[speakers]]\nname = \"A\"\ntags = [{ value = \"v\" }]\n", 8),
        ("[[speakers]]\nname = \"A\"\ntags = [1]\n", 8),
        ("[[speakers]]\nname = \"A\"\ntags = [{ name = \"n\", colour = \"red\" }]\n", 8),
    ] {
        let error = Options::from_toml(text).unwrap_err();
        assert_eq!((error.line, error.column), (3, column), "{text}");
        assert!(
            error.message.contains("a tag is a string (\"name\" or \"name=value\") or a table { name, value }"),
            "{text}: {error}"
        );
    }
}
