//! Opening what is played from disk: the document (any kind, through `stagehand-documents`) and
//! the world that answers it, with a person standing by.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use stagehand_dialoguedown::render_human;
use stagehand_documents::{Document, Kind, OpenError, OpenOptions};
use stagehand_playbook::Fragment;
use stagehand_protocol::{Answer, AnswerKind};
use stagehand_worlds::{parse_answer, FactsWorld, LuaWorld, NoWorld, World, WorldError};

use super::input::Input;
use crate::compile::Settings;

/// Reads `path` and opens it as the document its name and bytes say it is: a script is compiled
/// as `settings` say (as `stagehand compile` does), a playbook read, a ChatMapper project loaded
/// with `chatmapper`'s options and a Lua `world` run in its sandbox. The error names the file,
/// and the line and column where there are some.
pub fn open_document(
    path: &Path,
    settings: &Settings,
    chatmapper: stagehand_chatmapper::Options,
    world: Option<&Path>,
) -> Result<Document, String> {
    let name = path.display().to_string();
    let bytes = crate::read::bytes(path)?;
    let kind = stagehand_documents::kind(path, &bytes);
    let mut options = OpenOptions { chatmapper, ..OpenOptions::default() };
    match kind {
        Kind::Script => options.compile = crate::compile::options_for(path, settings)?,
        Kind::ChatMapper => {
            if let Some(world) = world.filter(|w| w.extension().is_some_and(|e| e == "lua")) {
                options.lua_world = Some((world.display().to_string(), crate::read::text(world)?));
            }
        }
        Kind::Playbook => {}
    }
    let _loading = crate::read::loading_bytes(path, bytes.len());
    Document::open_as(kind, &name, &bytes, &options).map_err(|error| match error {
        OpenError::Compile { diagnostics } => {
            let text = String::from_utf8_lossy(&bytes);
            let mut message = render_human(&diagnostics, &text, &name);
            let located: Vec<String> = diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{}:{}:{}: {}", d.file, d.line, d.column, d.message))
                .collect();
            message.push_str(&format!("{name} does not compile:\n{}", located.join("\n")));
            message
        }
        OpenError::Unreadable(message) => message,
    })
}

/// Opens a world by its file's extension: `.lua`, `.toml` or `.json`; no file, no world.
pub fn open_world(path: Option<&Path>, seed: u64) -> Result<Box<dyn World>, String> {
    let Some(path) = path else { return Ok(Box::new(NoWorld)) };
    let name = path.display().to_string();
    let text = crate::read::text(path)?;
    let world: Result<Box<dyn World>, WorldError> = match path.extension().and_then(|e| e.to_str()) {
        Some("lua") => LuaWorld::new(&name, &text, seed).map(|w| Box::new(w) as Box<dyn World>),
        Some("toml") => FactsWorld::from_toml(&text).map(|w| Box::new(w) as Box<dyn World>),
        Some("json") => FactsWorld::from_json(&text).map(|w| Box::new(w) as Box<dyn World>),
        _ => return Err(format!("{name}: a world is a .lua script or a .toml or .json file of facts")),
    };
    world.map_err(|e| format!("{name}: {e}"))
}

/// A world with a person standing by: a key the world does not know is asked of the person at
/// the terminal (or, for a story that asks the person itself, read from the input even when
/// piped). Without one it is left unknown, and the player answers with a default.
pub struct Attended {
    /// The world itself.
    pub inner: Box<dyn World>,
    /// Where the person answers, when they do.
    pub input: Option<Rc<RefCell<Input>>>,
}

impl World for Attended {
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        if let Some(answer) = self.inner.answer(key, kind)? {
            return Ok(Some(answer));
        }
        let Some(input) = &self.input else { return Ok(None) };
        let hint = match kind {
            AnswerKind::Truth => "yes/no",
            AnswerKind::Text => "words",
            AnswerKind::Number => "a number, 0 or more",
        };
        let terminal = input.borrow().is_terminal();
        loop {
            let prompt = if terminal { format!("  ? {key} ({hint}): ") } else { String::new() };
            let Some(line) = input.borrow_mut().read(&prompt) else { return Ok(None) };
            if !terminal {
                // Piped, the transcript shows the question and the answer read, as it shows moves.
                crate::out::line(&format!("  ? {key} ({hint}): {line}"));
            }
            if let Some(answer) = parse_answer(&line, kind) {
                return Ok(Some(answer));
            }
        }
    }

    fn perform(&mut self, effect: &Fragment) -> Result<(), WorldError> {
        self.inner.perform(effect)
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        self.inner.reset()
    }

    fn keeps_state(&self) -> bool {
        self.inner.keeps_state()
    }

    fn take_log(&mut self) -> Vec<String> {
        self.inner.take_log()
    }
}
