//! The server's one door to documents and sessions: `stagehand_documents::Document` opens bytes of
//! any kind, and its sessions are held as `AnySession`s (host contract H14, H15). Nothing here
//! branches on the engine; the kind's wire name is the documents crate's
//! (`Kind::wire_name`).

use serde_json::{json, Value};
use stagehand_documents::{kind_of_content, Kind, OpenError, OpenOptions};

pub use stagehand_documents::Document;

/// The compiler's diagnostics as the API spells them: file, line, column, code, severity,
/// message. (A macro, so the compiler's type is inferred through the documents crate, which the
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
        _ => None,
    }
}

/// Opens `bytes`: by its file name when it has one (`name`), else as the media type says, else
/// as its content says (a script when nothing else fits).
pub fn open(bytes: &[u8], name: Option<&str>, media: Option<&str>) -> Result<Opened, Refused> {
    if is_agent_machine(bytes, name, media) {
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
    }
}

/// Whether `bytes` are an agent machine (`docs/design/agents.md`): named `.toml` or sent as TOML
/// or a machine's media type, or a JSON object or TOML text with the machine's `initial` and
/// `states` at its top level. A file named `.md` is a script whatever it says.
pub fn is_agent_machine(bytes: &[u8], name: Option<&str>, media: Option<&str>) -> bool {
    let lower = name.map(str::to_ascii_lowercase).unwrap_or_default();
    if lower.ends_with(".md") {
        return false;
    }
    let media = media.map(|m| m.split(';').next().unwrap_or("").trim().to_ascii_lowercase()).unwrap_or_default();
    if lower.ends_with(".toml")
        || matches!(media.as_str(), "application/toml" | "application/vnd.stagehand.machine+json")
    {
        return true;
    }
    let Ok(text) = std::str::from_utf8(bytes) else { return false };
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if text.starts_with('{') {
        #[derive(serde::Deserialize)]
        struct Probe {
            initial: Option<serde::de::IgnoredAny>,
            states: Option<serde::de::IgnoredAny>,
            nodes: Option<serde::de::IgnoredAny>,
        }
        return matches!(
            serde_json::from_str::<Probe>(text),
            Ok(Probe { initial: Some(_), states: Some(_), nodes: None })
        );
    }
    let top = |key: &str| {
        text.lines().map(str::trim).any(|line| {
            line.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('='))
                || line == format!("[[{key}]]")
        })
    };
    top("initial") && top("states")
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
        assert!(!is_agent_machine(&script, None, None));
        assert!(open(&script, None, None).is_ok());
        assert!(!is_agent_machine(b"initial = 1\n[[states]]\n", Some("notes.md"), None));
        let broken = open(b"{\"format\": 1", Some("broken.json"), None).expect_err("not a playbook");
        assert!(!broken.unsupported);
    }
}
