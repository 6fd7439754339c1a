//! The server's one door to documents and sessions: `stagehand_documents::Document` opens bytes of
//! any kind, and its sessions are held as `AnySession`s (host contract H14, H15). Nothing here
//! branches on the engine; the kind's wire name is the documents crate's
//! (`Kind::wire_name`).

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
    /// Whether it was refused for its kind (an agent machine, not served yet) rather than for
    /// what it says.
    pub unsupported: bool,
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
/// as its content says (a script when nothing else fits).
pub fn open(bytes: &[u8], name: Option<&str>, media: Option<&str>) -> Result<Opened, Refused> {
    if kind_to_open(bytes, name, media) == Kind::Machine {
        return Err(Refused {
            detail: "this is an agent machine: agent playbook sessions are not served yet \
                     (upload a DialogueDown script, a playbook or a ChatMapper export)"
                .to_owned(),
            unsupported: true,
            diagnostics: Vec::new(),
        });
    }
    let options = OpenOptions::default();
    let opened = match (name, media.and_then(kind_of_media)) {
        (Some(name), _) => Document::open(name, bytes, &options),
        (None, Some(kind)) => Document::open_as(kind, default_name(kind), bytes, &options),
        (None, None) => {
            let kind = kind_of_content(bytes);
            Document::open_as(kind, default_name(kind), bytes, &options)
        }
    };
    match opened {
        Ok(document) => {
            let diagnostics = diagnostics!(document.diagnostics());
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
                OpenError::Unreadable(_) => Vec::new(),
            };
            Err(Refused { detail: error.to_string(), unsupported: false, diagnostics })
        }
    }
}

/// The name a document without one is opened and stored under.
pub fn default_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Script => "document.dialogue.md",
        Kind::Playbook => "document.playbook.json",
        Kind::ChatMapper => "document.xml",
        Kind::Machine => "document.machine.json",
    }
}

/// The kind [`open`] opens `bytes` as: by the file name, the media type, then the content.
fn kind_to_open(bytes: &[u8], name: Option<&str>, media: Option<&str>) -> Kind {
    match (name, media.and_then(kind_of_media)) {
        (Some(name), _) => stagehand_documents::kind(std::path::Path::new(name), bytes),
        (None, Some(kind)) => kind,
        (None, None) => kind_of_content(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_machine_is_refused_for_its_kind_and_nothing_else_is() {
        let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let toml = std::fs::read(example.join("agents/write-review-revise.toml")).expect("the example machine");
        for (name, media) in [(None, None), (Some("machine.toml"), None), (None, Some("application/toml"))] {
            let refused = open(&toml, name, media).expect_err("an agent machine");
            assert!(refused.unsupported && refused.detail.contains("agent machine"), "{}", refused.detail);
        }
        let json = br#"{"id": "m", "initial": "a", "states": []}"#;
        assert!(open(json, None, None).expect_err("a machine in JSON").unsupported);
        let script = std::fs::read(example.join("club-fair.dialogue.md")).expect("the example script");
        assert_ne!(kind_to_open(&script, None, None), Kind::Machine);
        assert!(open(&script, None, None).is_ok());
        assert_ne!(kind_to_open(b"initial = 1\n[[states]]\n", Some("notes.md"), None), Kind::Machine);
        let broken = open(b"{\"format\": 1", Some("broken.json"), None).expect_err("not a playbook");
        assert!(!broken.unsupported);
    }
}
