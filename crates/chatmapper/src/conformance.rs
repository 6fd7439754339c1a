//! The engine behind the conformance harness: [`Engine`] for [`ChatMapperEngine`], and
//! [`ConformanceLoader`], which opens ChatMapper exports among a harness's documents.

use std::path::Path;

use serde_json::Value;
use stagehand_conformance::{Engine, Loader};
use stagehand_runner::{Command, OwnedEvent};

use crate::engine::{ChatMapperEngine, Options};

impl Engine for ChatMapperEngine {
    fn send(&mut self, command: Command<'static>) -> Vec<OwnedEvent> {
        ChatMapperEngine::send(self, command)
    }

    fn is_finished(&self) -> bool {
        ChatMapperEngine::is_finished(self)
    }

    fn observe(&self) -> Option<Value> {
        Some(ChatMapperEngine::observe(self))
    }
}

/// Opens ChatMapper projects for the conformance harness: an XML export (`<ChatMapperProject>`),
/// a JSON export (an object with `Assets`), or a native `.cmp` file (refused with the loader's
/// message). Anything else, such as a DialogueDown playbook, is left to the harness (`None`). The
/// fixture's seed seeds `math.random`; the other options are the defaults.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConformanceLoader;

impl ConformanceLoader {
    /// Whether `bytes` (read from `path`) look like a ChatMapper project.
    pub fn recognises(path: &Path, bytes: &[u8]) -> bool {
        let extension = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        if extension == "cmp" {
            return true;
        }
        let head = &bytes[..bytes.len().min(4096)];
        let text = String::from_utf8_lossy(head);
        if text.contains("<ChatMapperProject") {
            return true;
        }
        // UTF-16 XML: look for the element name with every other byte zero.
        let wide: Vec<u8> = "<ChatMapperProject".bytes().flat_map(|b| [b, 0]).collect();
        if head.windows(wide.len()).any(|w| w == wide.as_slice()) {
            return true;
        }
        match serde_json::from_slice::<Value>(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)) {
            Ok(Value::Object(map)) => map.contains_key("Assets"),
            _ => false,
        }
    }
}

impl Loader for ConformanceLoader {
    fn open(&self, path: &Path, bytes: &[u8], seed: u64) -> Option<Result<Box<dyn Engine>, String>> {
        if !Self::recognises(path, bytes) {
            return None;
        }
        let name = path.display().to_string();
        let opened = crate::load(bytes, &name)
            .map_err(|e| e.to_string())
            .and_then(|project| ChatMapperEngine::new(project, Options::seeded(seed)).map_err(|e| e.to_string()))
            .map(|engine| Box::new(engine) as Box<dyn Engine>);
        Some(opened)
    }
}
