//! The server's one door to documents and sessions: `stagehand_documents::Document` opens bytes of
//! any kind, and its sessions are held as `AnySession`s (host contract H14, H15). Nothing here
//! branches on the engine; the kind's wire name is the documents crate's
//! (`Kind::wire_name`). Every kind is served, agent machines included (decision S19, revised).

use serde_json::{json, Value};
use stagehand_documents::{kind_of_content, Kind, OpenError, OpenOptions};

pub use stagehand_documents::Document;

/// The compiler's diagnostics as the API spells them: file, line, column, code, severity,
/// message, and the span's byte offsets in the source (`span: {start, end}`). (A macro, so the compiler's type is inferred through the documents crate, which the
/// server depends on, rather than named.)
macro_rules! diagnostics {
    ($found:expr) => {
        $found
            .iter()
            .map(|d| {
                json!({
                    "file": d.file,
                    "line": d.line,
                    "column": d.column,
                    "code": d.code.to_string(),
                    "severity": d.severity.as_str(),
                    "message": d.message,
                    "span": {"start": d.span.start, "end": d.span.end},
                })
            })
            .collect::<Vec<Value>>()
    };
}

/// A document that opened.
#[derive(Debug)]
pub struct Opened {
    /// The document.
    pub document: Document,
    /// Its fingerprint: its id on the wire.
    pub fingerprint: String,
    /// Its kind, spelled for the wire.
    pub kind: String,
    /// What the compiler said (warnings), as JSON objects.
    pub diagnostics: Vec<Value>,
}

/// A document that did not open.
#[derive(Debug)]
pub struct Refused {
    /// Why, in words.
    pub detail: String,
    /// The compiler's diagnostics, as JSON objects (file, line, column, code, severity,
    /// message).
    pub diagnostics: Vec<Value>,
}

/// The kind a media type names, if it names one.
pub fn kind_of_media(media: &str) -> Option<Kind> {
    match media.split(';').next().unwrap_or("").trim().to_ascii_lowercase().as_str() {
        "text/markdown" | "text/x-dialoguedown" => Some(Kind::Script),
        "application/xml" | "text/xml" => Some(Kind::ChatMapper),
        "application/vnd.stagehand.playbook+json" | "application/vnd.stagehand.playbook" => Some(Kind::Playbook),
        "application/toml" | "application/vnd.stagehand.machine+json" => Some(Kind::Machine),
        _ => None,
    }
}

/// Opens `bytes`: by its file name when it has one (`name`), else as the media type says, else
/// as its content says (a script when nothing else fits); checked as `stagehand check` checks it,
/// its findings among its diagnostics (decision S37).
pub fn open(bytes: &[u8], name: Option<&str>, media: Option<&str>) -> Result<Opened, Refused> {
    open_with(bytes, name, media, true)
}

/// Opens `bytes` as [`open`] does, checked only when `check` says so (a document opened again
/// from the store was checked when it was stored).
pub fn open_with(bytes: &[u8], name: Option<&str>, media: Option<&str>, check: bool) -> Result<Opened, Refused> {
    let options = OpenOptions { check, ..OpenOptions::default() };
    let (opened, shown) = match (name, media.and_then(kind_of_media)) {
        (Some(name), _) => (Document::open(name, bytes, &options), name),
        (None, kind) => {
            let kind = kind.unwrap_or_else(|| kind_of_content(bytes));
            let name = name_for(kind, bytes);
            (Document::open_as(kind, name, bytes, &options), name)
        }
    };
    match opened {
        Ok(document) => {
            let mut diagnostics = diagnostics!(document.diagnostics());
            diagnostics.extend(document.findings().iter().map(finding));
            Ok(Opened {
                fingerprint: document.fingerprint().to_owned(),
                kind: document.kind().wire_name().to_owned(),
                diagnostics,
                document,
            })
        }
        Err(error) => {
            let diagnostics = match &error {
                OpenError::Compile { diagnostics: found } => diagnostics!(found),
                OpenError::Unreadable(why) => vec![unreadable(shown, why)],
            };
            Err(Refused { detail: error.to_string(), diagnostics })
        }
    }
}

/// A finding of the documents crate's check as the API's diagnostic: its own members, placed at
/// the document's start where it has no line and column (a project's finding names its
/// conversation and entry instead, a machine's its path).
fn finding(found: &stagehand_documents::check::Finding) -> Value {
    let mut value = found.json.clone();
    if let Value::Object(members) = &mut value {
        for place in ["line", "column"] {
            if !members.get(place).is_some_and(Value::is_u64) {
                members.insert(place.to_owned(), json!(1));
            }
        }
    }
    value
}

/// The one diagnostic of a document that does not read (a playbook, a project or a machine the
/// reader refuses; the compiler's own come with codes of their own): placed where its reader
/// said (`NAME:LINE:COLUMN: …`), else at the document's start, so that every refusal carries
/// what the API's `Diagnostic` requires.
fn unreadable(name: &str, why: &str) -> Value {
    let rest = why.strip_prefix(name).unwrap_or(why);
    let placed = rest.strip_prefix(':').and_then(|rest| {
        let (line, rest) = rest.split_once(':')?;
        let (column, message) = rest.split_once(':')?;
        Some((line.parse::<u64>().ok()?, column.parse::<u64>().ok()?, message))
    });
    let (line, column, message) = placed.unwrap_or((1, 1, rest.strip_prefix(':').unwrap_or(rest)));
    json!({"file": name, "line": line, "column": column, "code": "unreadable", "severity": "error", "message": message.trim()})
}

/// The name a document without one is opened and stored under: an agent machine's says
/// whether it is written in JSON or in TOML, which the documents crate reads it by.
pub fn name_for(kind: Kind, bytes: &[u8]) -> &'static str {
    let json = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    match kind {
        Kind::Machine if !json => "document.machine.toml",
        kind => default_name(kind),
    }
}

/// The name a document of `kind` without one is opened and stored under (a machine's, in
/// JSON).
pub fn default_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Script => "document.dialogue.md",
        Kind::Playbook => "document.playbook.json",
        Kind::ChatMapper => "document.xml",
        Kind::Machine => "document.machine.json",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_machine_opens_as_a_machine_by_name_media_type_or_content() {
        let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let toml = std::fs::read(example.join("agents/write-review-revise.toml")).expect("the example machine");
        for (name, media) in [(None, None), (Some("machine.toml"), None), (None, Some("application/toml"))] {
            let opened = open(&toml, name, media).expect("an agent machine opens");
            assert_eq!(opened.kind, "machine");
            assert!(opened.document.machine().is_some());
        }
        let script = std::fs::read(example.join("club-fair.dialogue.md")).expect("the example script");
        assert_eq!(open(&script, None, None).expect("a script").kind, Kind::Script.wire_name());
        assert!(open(b"{\"format\": 1", Some("broken.json"), None).is_err(), "not a playbook");
    }
}
