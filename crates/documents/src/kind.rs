//! What a file handed to `play`, `check` or `compile` holds, decided one way for all: a
//! DialogueDown script, a playbook, or a ChatMapper project. Decided from a name and bytes; the
//! caller reads the file (and may skip reading it where [`by_name`] settles it).

use std::path::Path;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A DialogueDown script (`*.dialogue.md`, `*.md`).
    Script,
    /// A DialogueDown playbook (JSON with `format` and `nodes`, or the binary form, known by its
    /// magic bytes).
    Playbook,
    /// A ChatMapper project: an XML export, a JSON export (with `Assets`), or a native `.cmp`
    /// file (which the loader refuses, naming the exports).
    ChatMapper,
    /// An agent playbook's machine document: JSON with `initial` and `states`, or its TOML form
    /// (`*.toml`; `docs/design/agents.md` A2).
    Machine,
}

/// Decides what a file holds, by its name where that settles it (`.md` is a script, `.cmp` a
/// native ChatMapper project) and otherwise by its content: XML is a ChatMapper export; JSON
/// with `format` and `nodes` is a playbook and JSON with `Assets` a ChatMapper export; a native
/// ChatMapper project is known by its bytes, and so is a binary playbook. Anything else is read as a playbook, whose reader
/// says what is wrong with it.
pub fn kind(path: &Path, bytes: &[u8]) -> Kind {
    by_name(path).unwrap_or_else(|| by_content(bytes))
}

/// What a file holds when its content alone says so, whatever its name: a playbook (a JSON
/// object with `format` and `nodes`), or a ChatMapper project (an XML document with a
/// `<?xml` declaration or a `<ChatMapperProject>` root, a JSON object with `Assets`, or a native
/// project's bytes). `None` when the content could be a script: `stagehand compile` compiles it.
pub fn recognised(bytes: &[u8]) -> Option<Kind> {
    /// The keys that tell a playbook from a ChatMapper export, read without building the tree.
    #[derive(serde::Deserialize)]
    struct Probe {
        format: Option<serde::de::IgnoredAny>,
        nodes: Option<serde::de::IgnoredAny>,
        #[serde(rename = "Assets")]
        assets: Option<serde::de::IgnoredAny>,
        initial: Option<serde::de::IgnoredAny>,
        states: Option<serde::de::IgnoredAny>,
    }
    if stagehand_playbook::is_binary(bytes) {
        return Some(Kind::Playbook);
    }
    if stagehand_chatmapper::is_native(bytes) {
        return Some(Kind::ChatMapper);
    }
    if let Some(text) = utf16(bytes) {
        return recognised(&text);
    }
    let head = &bytes[..bytes.len().min(64)];
    let head = String::from_utf8_lossy(head);
    let head = head.trim_start_matches('\u{feff}').trim_start();
    if head.starts_with("<?xml") || head.starts_with("<ChatMapperProject") {
        return Some(Kind::ChatMapper);
    }
    if !head.starts_with('{') {
        return toml_machine(bytes).then_some(Kind::Machine);
    }
    let text = std::str::from_utf8(bytes).ok()?.trim_start_matches('\u{feff}');
    match serde_json::from_str::<Probe>(text).ok()? {
        Probe { format: Some(_), nodes: Some(_), .. } => Some(Kind::Playbook),
        Probe { assets: Some(_), .. } => Some(Kind::ChatMapper),
        Probe { initial: Some(_), states: Some(_), .. } => Some(Kind::Machine),
        _ => None,
    }
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 4] = [Kind::Script, Kind::Playbook, Kind::ChatMapper, Kind::Machine];

    /// The kind's name on the wire (the server's `kind` field, a stored document's kind): the
    /// one place these names are spelled.
    pub fn wire_name(self) -> &'static str {
        match self {
            Kind::Script => "dialoguedown",
            Kind::Playbook => "playbook",
            Kind::ChatMapper => "chatmapper",
            Kind::Machine => "machine",
        }
    }

    /// The kind a wire name names ([`wire_name`](Self::wire_name)), if it names one.
    pub fn from_wire_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.wire_name() == name)
    }

    /// What a file of this kind is, for people: `a playbook (JSON)`.
    pub fn described(self) -> &'static str {
        match self {
            Kind::Script => "a DialogueDown script",
            Kind::Playbook => "a playbook (compiled JSON)",
            Kind::ChatMapper => "a ChatMapper project",
            Kind::Machine => "an agent machine",
        }
    }
}

/// Whether UTF-8 `bytes` read as an agent machine's hand-written TOML form: a top-level
/// `initial = …` key and a `[states.…]` table (or an inline `states = …`), lines no DialogueDown
/// script has together.
fn toml_machine(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else { return false };
    let key = |line: &str, name: &str| line.strip_prefix(name).is_some_and(|rest| rest.trim_start().starts_with('='));
    let (mut initial, mut states) = (false, false);
    for line in text.trim_start_matches('\u{feff}').lines().map(str::trim) {
        initial |= key(line, "initial");
        states |= key(line, "states") || line.starts_with("[states.") || line == "[states]" || line == "[[states]]";
        if initial && states {
            return true;
        }
    }
    false
}

/// What a file holds when its name alone settles it (`.md` a script, `.cmp` a native ChatMapper
/// project, `.toml` an agent machine's hand-written form, in any case); `None` when only its
/// content can say.
pub fn by_name(path: &Path) -> Option<Kind> {
    let lower = path.to_string_lossy().to_ascii_lowercase();
    if lower.ends_with(".md") {
        Some(Kind::Script)
    } else if lower.ends_with(".cmp") {
        Some(Kind::ChatMapper)
    } else if lower.ends_with(".toml") {
        Some(Kind::Machine)
    } else {
        None
    }
}

/// Whether a file is one a folder of documents holds beside them that is not a document: a world
/// (`NAME.world.lua`, `.world.toml`, `.world.json`) or the compiler's configuration
/// (`dialogue.toml`). A server loading a folder leaves them alone.
pub fn beside_documents(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    name == "dialogue.toml" || [".world.lua", ".world.toml", ".world.json"].iter().any(|end| name.ends_with(end))
}

/// Whether a file found in a folder of documents (`stagehand serve --documents` or `--watch`) is
/// one to open, by its name: a script named as scripts are (`NAME.dialogue.md`; any other
/// Markdown file is the folder's documentation, a README), a native ChatMapper project
/// (`.cmp`), an agent machine's TOML (`.toml`), or a file whose content says what it is
/// (`.json`, `.xml`, a binary `.playbook`/`.bin`). Not a hidden file, a world or the compiler's
/// configuration ([`beside_documents`]). A file named here may still fail to open; then the
/// folder's reader says why.
pub fn in_folder(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if name.starts_with('.') || beside_documents(path) {
        return false;
    }
    if name.ends_with(".md") {
        return name.ends_with(".dialogue.md");
    }
    [".cmp", ".toml", ".json", ".xml", ".playbook", ".bin"].iter().any(|end| name.ends_with(end))
}

/// The text of UTF-16 bytes as UTF-8, for bytes that are UTF-16: with a byte-order mark, or
/// starting with `<` or `{` and a zero byte (as the ChatMapper reader, which decodes them too,
/// accepts); `None` for anything else.
fn utf16(bytes: &[u8]) -> Option<Vec<u8>> {
    let little = match bytes {
        [0xFF, 0xFE, ..] | [b'<' | b'{', 0, ..] => true,
        [0xFE, 0xFF, ..] | [0, b'<' | b'{', ..] => false,
        _ => return None,
    };
    let units = bytes.chunks_exact(2).map(|pair| {
        let pair = [pair[0], pair[1]];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    Some(char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect::<String>().into_bytes())
}

fn by_content(bytes: &[u8]) -> Kind {
    if stagehand_playbook::is_binary(bytes) {
        return Kind::Playbook;
    }
    if let Some(text) = utf16(bytes) {
        return by_content(&text);
    }
    let text = String::from_utf8_lossy(bytes);
    let content = text.trim_start_matches('\u{feff}').trim_start();
    if content.starts_with('<') {
        return Kind::ChatMapper;
    }
    if content.starts_with('{') || content.starts_with('[') {
        return match serde_json::from_str::<TopLevel>(content) {
            Ok(top) if top.format && top.nodes => Kind::Playbook,
            Ok(top) if top.assets => Kind::ChatMapper,
            Ok(top) if top.initial && top.states => Kind::Machine,
            Ok(_) => Kind::Playbook,
            // Malformed: whichever reader it was meant for says where.
            Err(_) if content.contains("\"Assets\"") && !content.contains("\"nodes\"") => Kind::ChatMapper,
            Err(_) => Kind::Playbook,
        };
    }
    if stagehand_chatmapper::is_native(bytes) {
        Kind::ChatMapper
    } else {
        Kind::Playbook
    }
}

/// Which of the properties that tell the kinds apart a JSON document has at its top level, read
/// without building the document (a tree of a large playbook costs several times its size).
#[derive(Default)]
struct TopLevel {
    format: bool,
    nodes: bool,
    assets: bool,
    initial: bool,
    states: bool,
}

impl<'de> serde::Deserialize<'de> for TopLevel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TopLevelVisitor)
    }
}

struct TopLevelVisitor;

impl<'de> serde::de::Visitor<'de> for TopLevelVisitor {
    type Value = TopLevel;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON document")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut top = TopLevel::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "format" => top.format = true,
                "nodes" => top.nodes = true,
                "Assets" => top.assets = true,
                "initial" => top.initial = true,
                "states" => top.states = true,
                _ => {}
            }
            map.next_value::<serde::de::IgnoredAny>()?;
        }
        Ok(top)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(TopLevel::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_holds_scripts_by_their_own_name_and_no_other_markdown() {
        for name in ["a.dialogue.md", "A.Dialogue.MD", "p.xml", "p.json", "m.toml", "n.cmp", "s.playbook.bin"] {
            assert!(in_folder(Path::new(name)), "{name}");
        }
        for name in
            ["README.md", "notes.md", "notes.txt", "a.world.lua", "a.world.json", "dialogue.toml", ".x.dialogue.md"]
        {
            assert!(!in_folder(Path::new(name)), "{name}");
        }
    }

    fn judged(name: &str, content: &str) -> Kind {
        kind(Path::new(name), content.as_bytes())
    }

    fn example(name: &str) -> Kind {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
        kind(&path, &std::fs::read(&path).expect("an example"))
    }

    #[test]
    fn the_content_decides_what_a_file_holds() {
        assert_eq!(example("the-crossing.json"), Kind::ChatMapper);
        assert_eq!(example("the-crossing.xml"), Kind::ChatMapper);
        assert_eq!(example("club-fair.dialogue.md"), Kind::Script);
        assert_eq!(judged("gate.json", r#"{"format": {"version": 0}, "nodes": []}"#), Kind::Playbook);
        assert_eq!(judged("gate.playbook", r#"{"format": {"version": 0}, "nodes": []}"#), Kind::Playbook);
        assert_eq!(judged("export.txt", "\u{feff} {\"Title\": \"x\", \"Assets\": {}}"), Kind::ChatMapper);
        assert_eq!(judged("project.json", "<ChatMapperProject Title=\"x\"/>"), Kind::ChatMapper);
        assert_eq!(judged("story.CMP", "anything"), Kind::ChatMapper);
        assert_eq!(judged("SHOUT.MD", "Alice: Hi."), Kind::Script);
        // Malformed JSON goes to the reader it was meant for, which says where it breaks.
        assert_eq!(judged("broken.json", "{\"Assets\": {,}}"), Kind::ChatMapper);
        assert_eq!(judged("broken.json", "{\"format\": {\"version\": 0,}}"), Kind::Playbook);
        assert_eq!(judged("other.json", "{\"name\": \"neither\"}"), Kind::Playbook);
        assert_eq!(judged("empty.json", "{}"), Kind::Playbook);
    }

    #[test]
    fn only_a_playbook_or_a_project_is_recognised_as_not_a_script() {
        let json = |text: &str| recognised(text.as_bytes());
        assert_eq!(json("{\"format\": {\"version\": 0}, \"nodes\": []}"), Some(Kind::Playbook));
        assert_eq!(json("\u{feff}{\"Title\": \"x\", \"Assets\": {}}"), Some(Kind::ChatMapper));
        assert_eq!(json("<?xml version=\"1.0\"?><ChatMapperProject/>"), Some(Kind::ChatMapper));
        assert_eq!(json("<!-- a note -->\nAlice: Hi."), None);
        assert_eq!(json("{ Alice: Hi. }"), None);
        assert_eq!(json("{\"name\": \"neither\"}"), None);
        assert_eq!(json("# A scene\n\nAlice: Hi."), None);
    }

    #[test]
    fn every_kind_has_its_own_wire_name_and_is_read_back_from_it() {
        let names: std::collections::BTreeSet<&str> = Kind::ALL.iter().map(|k| k.wire_name()).collect();
        assert_eq!(names.len(), Kind::ALL.len());
        for kind in Kind::ALL {
            assert_eq!(Kind::from_wire_name(kind.wire_name()), Some(kind));
        }
        assert_eq!(Kind::Script.wire_name(), "dialoguedown");
        assert_eq!(Kind::from_wire_name("lua"), None);
    }

    #[test]
    fn a_utf16_export_is_a_chatmapper_project_as_the_reader_says() {
        let xml = "<?xml version=\"1.0\" encoding=\"utf-16\"?><ChatMapperProject Title=\"x\"/>";
        let little: Vec<u8> = [0xFF, 0xFE].into_iter().chain(xml.encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let big: Vec<u8> = xml.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for bytes in [&little, &big] {
            assert_eq!(kind(Path::new("project.xml"), bytes), Kind::ChatMapper);
            assert_eq!(recognised(bytes), Some(Kind::ChatMapper));
        }
        let json: Vec<u8> = "{\"Assets\": {}}".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(kind(Path::new("export"), &json), Kind::ChatMapper);
    }

    #[test]
    fn a_binary_playbook_is_known_by_its_magic_bytes_whatever_its_name() {
        let bytes = stagehand_playbook::write_binary(&stagehand_playbook::Playbook::new("x.dialogue.md"));
        assert_eq!(recognised(&bytes), Some(Kind::Playbook));
        assert_eq!(kind(Path::new("story.bin"), &bytes), Kind::Playbook);
        assert_eq!(kind(Path::new("story.json"), &bytes), Kind::Playbook);
    }
}
