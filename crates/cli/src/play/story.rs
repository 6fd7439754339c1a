//! Opening what is played from disk: the document (any kind, through `stagehand-documents`) and
//! the world that answers it (through `stagehand-worlds`).

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use stagehand_documents::{Document, Kind, OpenOptions};
use stagehand_worlds::{world_of, Attended, NoWorld, World};

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
        Kind::Playbook | Kind::Machine => {}
    }
    let _loading = crate::read::loading_bytes(path, bytes.len());
    Document::open_as(kind, &name, &bytes, &options).map_err(|error| error.for_people(&name, &bytes))
}

/// Opens a world by its file's extension: `.lua`, `.toml` or `.json`; no file, no world.
pub fn open_world(path: Option<&Path>, seed: u64) -> Result<Box<dyn World>, String> {
    let Some(path) = path else { return Ok(Box::new(NoWorld)) };
    let text = crate::read::text(path)?;
    world_of(&path.display().to_string(), path.extension().and_then(|e| e.to_str()), &text, seed)
}

/// `inner` with the person standing by at `input`, when they answer: in a terminal, asked with a
/// prompt; piped, the question and the answer read are written into the transcript.
pub fn attended(inner: Box<dyn World>, input: Option<Rc<RefCell<Input>>>) -> Box<dyn World> {
    let ask = input.map(|input| {
        Box::new(move |key: &str, hint: &str| {
            let terminal = input.borrow().is_terminal();
            let prompt = if terminal { format!("  ? {key} ({hint}): ") } else { String::new() };
            let line = input.borrow_mut().read(&prompt)?;
            if !terminal {
                crate::out::line(&format!("  ? {key} ({hint}): {line}"));
            }
            Some(line)
        }) as stagehand_worlds::Ask
    });
    Box::new(Attended { inner, ask })
}
