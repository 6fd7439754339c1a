//! The readers never panic: arbitrary bytes, XML- and JSON-shaped noise, and mutated real files
//! all give a project or a `LoadError`.

use proptest::prelude::*;
use stagehand_chatmapper::markup::{input_prompt, render_line, spans};
use stagehand_chatmapper::{load, read_json, read_xml, LoadError, Project};

const FILES: [&str; 6] = [
    "../../examples/the-crossing.xml",
    "../../examples/the-crossing.json",
    "tests/data/old-1.3.xml",
    "tests/data/utf16.xml",
    "tests/data/localised.json",
    "tests/data/hub.xml",
];

fn originals() -> &'static [Vec<u8>] {
    static ORIGINALS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    ORIGINALS.get_or_init(|| {
        FILES
            .iter()
            .map(|f| {
                let path = format!("{}/{f}", env!("CARGO_MANIFEST_DIR"));
                std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
            })
            .collect()
    })
}

/// Uses a loaded project the way an engine would, to catch panics in the accessors too.
fn exercise(result: Result<Project, LoadError>) {
    match result {
        Ok(mut project) => {
            project.resolve_links();
            for conversation in &project.conversations {
                let _ = conversation.start_entry();
                for entry in &conversation.entries {
                    let _ = (entry.actor_id(), entry.conversant_id(), entry.title());
                    for field in &entry.fields {
                        let _ = field.lua_value();
                    }
                    for link in &entry.links {
                        let _ = project.destination(link);
                    }
                    let _ = render_line(entry.dialogue_text(), |n| n.to_owned());
                    let _ = input_prompt(entry.dialogue_text());
                    let _ = spans(entry.menu_text());
                    // Parent chains end.
                    let mut current = entry.parent;
                    let mut steps = 0;
                    while let Some(id) = current {
                        steps += 1;
                        assert!(steps <= conversation.entries.len(), "parent chain loops");
                        current = conversation.entry(id).and_then(|e| e.parent);
                    }
                }
            }
            for asset in
                project.actors.iter().chain(&project.items).chain(&project.locations).chain(&project.user_variables)
            {
                for field in &asset.fields {
                    let _ = field.lua_value();
                }
            }
        }
        Err(error) => {
            let _ = error.to_string();
            if let Some((line, column)) = error.position() {
                assert!(line >= 1 && column >= 1, "{error}");
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let at = |i: usize| i % bytes.len();
    match mutation {
        Mutation::Flip(i, mask) => {
            let i = at(*i);
            bytes[i] ^= mask;
        }
        Mutation::Delete(i, n) => {
            let start = at(*i);
            let end = (start + n).min(bytes.len());
            bytes.drain(start..end);
        }
        Mutation::Insert(i, inserted) => {
            let i = at(*i);
            bytes.splice(i..i, inserted.iter().copied());
        }
        Mutation::Truncate(i) => {
            let i = at(*i);
            bytes.truncate(i);
        }
        Mutation::Duplicate(i, n) => {
            let start = at(*i);
            let end = (start + n).min(bytes.len());
            let copy = bytes[start..end].to_vec();
            bytes.splice(end..end, copy);
        }
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting = prop_oneof![
        Just(b"<".to_vec()),
        Just(b"</Fields>".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"&".to_vec()),
        Just(b"&#xD800;".to_vec()),
        Just(b"{".to_vec()),
        Just(b"]".to_vec()),
        Just(b"null".to_vec()),
        Just(b"-1e999".to_vec()),
        Just(b"IsConnector=\"maybe\"".to_vec()),
        Just(vec![0xFF, 0xFE]),
        prop::collection::vec(any::<u8>(), 1..8),
    ];
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, m)| Mutation::Flip(i, m)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), interesting).prop_map(|(i, v)| Mutation::Insert(i, v)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..256).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn markup_noise() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<ChatMapperProject>"),
        Just("<Assets><Conversations><Conversation ID=\"1\"><DialogEntries>"),
        Just("<DialogEntry ID=\"0\" IsRoot=\"true\">"),
        Just("<OutgoingLinks><Link DestinationDialogID=\"0\" IsConnector=\"false\"/></OutgoingLinks>"),
        Just("<Link ConversationID=\"0\" OriginDialogID=\"1\" DestinationDialogID=\"1\"/>"),
        Just("</DialogEntry>"),
        Just("<![CDATA[x]]>"),
        Just("&amp;&bogus;&#0;"),
        Just("<!DOCTYPE x [<!ENTITY a \"&b;&a;&#x;\"><!ENTITY b 'x<&c;'><!ENTITY c SYSTEM \"u\">"),
        Just("<!ENTITY % p \"]>\"><!ENTITY d \"&#xD800;&#0;&d\"><!-- ]> --><!ENTITY e \"\u{e9}&amp;\">]>"),
        Just("&a;&b;&c;&d;&e;&p;"),
        Just("<ChatMapperProject Title=\"&e;&a;&#1;\r\n&d;&c;&\">"),
        Just("{\"Assets\": {\"Conversations\": [{\"ID\": 1, \"DialogNodes\": ["),
        Just("{\"ID\": 0, \"OutgoingLinks\": [{\"DestinationDialogID\": 0}]}"),
        Just("]}]}}"),
        Just(","),
        Just("\"Fields\": {\"Age\": 1e400}"),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        exercise(load(&bytes, "fuzz.bin"));
        exercise(read_xml(&bytes, "fuzz.xml"));
        exercise(read_json(&bytes, "fuzz.json"));
    }

    #[test]
    fn shaped_noise_never_panics(text in markup_noise()) {
        exercise(load(text.as_bytes(), "noise.xml"));
        exercise(read_xml(text.as_bytes(), "noise.xml"));
        exercise(read_json(text.as_bytes(), "noise.json"));
    }

    #[test]
    fn mutated_real_files_never_panic(
        file in 0..FILES.len(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let mut bytes = originals()[file].clone();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        exercise(load(&bytes, FILES[file]));
    }
}

#[test]
fn every_real_file_loads_and_survives_truncation_at_every_hundredth_byte() {
    for (bytes, name) in originals().iter().zip(FILES) {
        exercise(load(bytes, name));
        assert!(load(bytes, name).is_ok(), "{name}");
        for end in (0..bytes.len()).step_by(100) {
            exercise(load(&bytes[..end], name));
        }
    }
}
