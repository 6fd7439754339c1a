//! **ChatMapper** projects for Stagehand: the readers of the editor's XML and JSON exports, the
//! typed model they produce, the coercion of field values into Lua values, the markup in text, and
//! the engine that plays them.
//!
//! The normative behaviour of a player is the "Runtime semantics" page; the file formats and our
//! rulings are in `shared/reference/chatmapper/FORMAT.md`.
//!
//! Playing:
//!
//! - [`ChatMapperEngine`] plays a project behind the runner's protocol (`Command` in, `OwnedEvent`s
//!   out), with its conditions and scripts in a sandboxed Lua 5.1 host (`stagehand-lua`); see the
//!   [`engine`] module for the protocol mapping. [`Snapshot`]s save and restore a playthrough.
//! - [`check::check`] lists what is wrong or suspicious in a project, for `stagehand check`.
//! - The engine implements the protocol's `Engine` trait (`engine/seam.rs`), through which the
//!   host session and the conformance harness hold it; `stagehand-documents` opens projects for
//!   the harness.
//!
//! ```
//! use stagehand_chatmapper::{load, ChatMapperEngine, Options};
//! use stagehand_runner::{Command, OwnedEvent};
//!
//! let json = br#"{"Title": "Hi", "Assets": {"Actors": [{"ID": 1, "Fields": {"Name": "Mara"}}],
//!   "UserVariables": [{"Fields": {"Name": "gold", "Initial Value": "5"}}],
//!   "Conversations": [{"ID": 1, "Fields": {"Title": "Greeting"}, "DialogNodes": [
//!     {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"},
//!      "OutgoingLinks": [{"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
//!     {"ID": 1, "Fields": {"Actor": "1", "Dialogue Text": "Hello.|You have [var=gold] gold."}}]}]}}"#;
//! let mut engine = ChatMapperEngine::new(load(json, "hi.json")?, Options::seeded(7))?;
//! let said = engine.send(Command::start());
//! assert!(matches!(&said[..], [OwnedEvent::Said { speaker: Some(name), .. }] if name == "Mara"));
//! let said = engine.send(Command::Next);
//! let OwnedEvent::Said { speech, .. } = &said[0] else { panic!() };
//! assert_eq!(stagehand_playbook::plain_text(speech), "You have 5 gold.");
//! assert_eq!(engine.send(Command::Next), [OwnedEvent::Ended]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Reading, what an engine needs before it plays:
//!
//! - [`load`] reads a file's bytes, picking the XML or JSON reader by content (the file name's
//!   extension is a hint), and refuses native `.cmp` files with a message naming the exports.
//!   [`read_xml`] and [`read_json`] read one format. Errors are [`LoadError`]s carrying the file
//!   name and, for malformed content, a 1-based line and column. No input makes them panic.
//! - The model: a [`Project`] of [`Asset`]s (actors, items, locations, user variables) and
//!   [`Conversation`]s of [`DialogEntry`]s with typed [`Field`]s and [`Link`]s. Links are
//!   normalised on read (old single `ConversationID` links, 0 meaning "this conversation") and
//!   each entry's tree [`parent`](DialogEntry::parent) is computed, from which an engine derives
//!   priority groups.
//! - [`coerce`]: a field's value as Lua sees it ([`Field::lua_value`], [`Coerced`]), the type
//!   inference for the untyped JSON export, and the Lua table key rule ([`lua_key`]).
//! - [`markup`]: `|` segments, picture tokens, `[var=…]`, input prompts, `[f]`, `[a]` and
//!   emphasis spans, as pure functions.
//!
//! ```
//! let json = br#"{"Title": "Hello", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "Greeting"},
//!   "DialogNodes": [
//!     {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"},
//!      "OutgoingLinks": [{"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
//!     {"ID": 1, "Fields": {"Title": "Hi", "Dialogue Text": "Hello.|[em1]Welcome[/em1], [var=name]."}}]}]}}"#;
//! let project = stagehand_chatmapper::load(json, "hello.json").expect("a valid export");
//! let conversation = project.conversation_by_title("Greeting").expect("the conversation");
//! let start = conversation.start_entry().expect("a root");
//! let line = project.destination(&start.links[0]).expect("the line");
//! assert_eq!(line.parent, Some(start.id));
//!
//! use stagehand_chatmapper::markup::{render_line, spans, Span};
//! let segments = render_line(line.dialogue_text(), |name| format!("<{name}>"));
//! assert_eq!(segments, ["Hello.", "[em1]Welcome[/em1], <name>."]);
//! assert_eq!(spans(&segments[1])[0], Span { text: "Welcome".into(), emphasis: Some(1) });
//! ```

mod asset_keys;
mod branches;
pub mod check;
pub mod coerce;
mod dtd;
pub mod engine;
mod entities;
mod error;
mod globals;
mod json;
pub mod markup;
mod model;
mod text;
mod xml;

pub use coerce::{lua_key, Coerced};
pub use engine::{ChatMapperEngine, EngineError, EntryRef, Options, SimStatus, Snapshot, MAX_LOG_LINES};
pub use error::{Format, LoadError};
pub use json::{read_json, read_json_str};
pub use model::{
    Asset, ConditionPriority, Conversation, DialogEntry, FalseConditionAction, Field, FieldType, Id, Link, Project,
};
pub use xml::{read_xml, read_xml_str};

/// The first bytes of every native `.cmp` project seen (FORMAT.md §1 gives these eight of the 16
/// shared ones).
const NATIVE_MAGIC: [u8; 8] = [0x35, 0x19, 0x59, 0x26, 0x19, 0x47, 0x71, 0xfe];

/// Whether bytes are a native `.cmp` project, by its signature: [`load`] refuses those, naming the
/// exports it reads instead.
pub fn is_native(bytes: &[u8]) -> bool {
    bytes.starts_with(&NATIVE_MAGIC)
}

/// Loads a project from a file's bytes; `file_name` names it in errors and hints at its format.
///
/// The content decides: after any BOM and whitespace, `<` is XML and `{` or `[` is JSON. When
/// the content is neither, a `.xml` or `.json` extension picks the reader (which then reports
/// what is wrong). A `.cmp` extension, or content starting with the native file's signature, is
/// refused with [`LoadError::NativeProject`].
pub fn load(bytes: &[u8], file_name: &str) -> Result<Project, LoadError> {
    let extension = std::path::Path::new(file_name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if extension == "cmp" || is_native(bytes) {
        return Err(LoadError::NativeProject { file: file_name.into() });
    }
    let hint = match extension.as_str() {
        "xml" => Some(Format::Xml),
        "json" => Some(Format::Json),
        _ => None,
    };
    let text = text::decode(bytes).map_err(|e| e.malformed(file_name, hint.unwrap_or(Format::Xml)))?;
    let format = match text::first_significant(&text) {
        Some('<') => Some(Format::Xml),
        Some('{' | '[') => Some(Format::Json),
        _ => hint,
    };
    match format {
        Some(Format::Xml) => read_xml_str(&text, file_name),
        Some(Format::Json) => read_json_str(&text, file_name),
        None => Err(LoadError::UnknownFormat { file: file_name.into() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_projects_are_refused_by_extension_or_signature() {
        let error = load(b"<ChatMapperProject/>", "story.CMP").unwrap_err();
        assert_eq!(error, LoadError::NativeProject { file: "story.CMP".into() });
        let message = error.to_string();
        assert!(message.contains("XML") && message.contains("JSON") && message.contains("export"), "{message}");
        let mut native = NATIVE_MAGIC.to_vec();
        native.extend_from_slice(&[0x11; 24]);
        assert!(matches!(load(&native, "story"), Err(LoadError::NativeProject { .. })));
    }

    #[test]
    fn content_decides_the_format_and_the_extension_is_a_hint() {
        assert_eq!(load(b"\xEF\xBB\xBF <ChatMapperProject Title=\"x\"/>", "a.json").unwrap().title, "x");
        assert_eq!(load(b"{\"Title\": \"y\"}", "a.xml").unwrap().title, "y");
        let error = load(b"nonsense", "a.json").unwrap_err();
        assert!(matches!(error, LoadError::Malformed { format: Format::Json, line: 1, column: 1, .. }), "{error}");
        let error = load(b"nonsense", "a.xml").unwrap_err();
        assert!(matches!(error, LoadError::Malformed { format: Format::Xml, .. }), "{error}");
        assert_eq!(load(b"nonsense", "a.txt").unwrap_err(), LoadError::UnknownFormat { file: "a.txt".into() });
        assert_eq!(load(b"", "noext").unwrap_err(), LoadError::UnknownFormat { file: "noext".into() });
        assert!(matches!(load(b"?", "v1.2/story.json"), Err(LoadError::Malformed { format: Format::Json, .. })));
        assert!(matches!(load(b"?", "v1.json/story"), Err(LoadError::UnknownFormat { .. })));
    }

    #[test]
    fn errors_name_the_file_and_position() {
        let error = load(b"{\n\"Title\": }", "broken.json").unwrap_err();
        assert_eq!(error.file(), "broken.json");
        assert_eq!(error.position(), Some((2, 10)));
        assert!(error.to_string().starts_with("broken.json:2:10: malformed ChatMapper JSON export: "), "{error}");
    }
}
