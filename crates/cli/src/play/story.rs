//! Opening what is played: a script or playbook from disk, and the world that answers it.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use stagehand_dialoguedown::{compile, render_human};

use super::input::Input;
use crate::compile::Settings;
use stagehand_playbook::{Fragment, Playbook};
use stagehand_runner::{Answer, AnswerKind};
use stagehand_session::{parse_answer, FactsWorld, LuaWorld, NoWorld, Playable, Session, World, WorldError};

/// Something the front-end can open afresh (at the start, and again for `:load`, to pick up edits
/// to the file). [`DialogueStory`] opens a [`Session`]; a ChatMapper project
/// ([`ChatMapperStory`](super::chatmapper::ChatMapperStory)) opens its own engine behind
/// [`Playable`].
pub trait Story {
    /// Reads the story from disk into a run that has not started.
    fn open(&self) -> Result<Box<dyn Playable>, String>;

    /// Whether what the run asks is the story's question to the person (a ChatMapper input
    /// prompt), read from the input even when piped, rather than a key for the world (P1).
    fn asks_the_person(&self) -> bool {
        false
    }
}

/// A DialogueDown script (`*.dialogue.md`, `*.md`) or a playbook (JSON).
pub struct DialogueStory {
    /// The file.
    pub path: PathBuf,
    /// The seed random choices draw from.
    pub seed: u64,
    /// How a script is compiled.
    pub settings: Settings,
}

impl Story for DialogueStory {
    fn open(&self) -> Result<Box<dyn Playable>, String> {
        Ok(Box::new(Session::new(read_playbook(&self.path, &self.settings)?, self.seed)))
    }
}

/// Reads a script (compiling it as `settings` say, as `stagehand compile` does) or a playbook,
/// JSON or binary (known by its magic bytes).
/// The error names the file, and the line and column where there are some.
pub fn read_playbook(path: &Path, settings: &Settings) -> Result<Playbook, String> {
    let name = path.display().to_string();
    let is_script = name.to_ascii_lowercase().ends_with(".md");
    if !is_script && crate::read::starts_with(path, &stagehand_playbook::BINARY_MAGIC) {
        let bytes = crate::read::bytes(path)?;
        return stagehand_playbook::read_binary(&bytes).map_err(|e| format!("{name}: not a playbook: {e}"));
    }
    let (text, _loading) = crate::read::text_to_load(path)?;
    if is_script {
        let options = crate::compile::options_for(path, settings)?;
        let compilation = compile(&text, &name, &options);
        match compilation.playbook {
            Some(playbook) if !compilation.has_errors() => Ok(playbook),
            _ => {
                let mut message = render_human(&compilation.diagnostics, &text, &name);
                let located: Vec<String> = compilation
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| format!("{}:{}:{}: {}", d.file, d.line, d.column, d.message))
                    .collect();
                message.push_str(&format!("{name} does not compile:\n{}", located.join("\n")));
                Err(message)
            }
        }
    } else {
        stagehand_playbook::read(&text).map_err(|e| match e {
            stagehand_playbook::ReadError::Syntax { line, column, message } => {
                format!("{name}:{line}:{column}: not a playbook: {message}")
            }
            other => format!("{name}: not a playbook: {other}"),
        })
    }
}

/// Opens a world by its file's extension: `.lua`, `.toml` or `.json`.
pub fn open_world(path: &Path, seed: u64) -> Result<Box<dyn World>, String> {
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

/// No world file: an empty world.
pub fn no_world() -> Box<dyn World> {
    Box::new(NoWorld)
}

/// A world with a person standing by: a key the world does not know is asked of the person at
/// the terminal. Without a terminal it is left unknown, and the session answers with a default.
pub struct Attended {
    /// The world itself.
    pub inner: Box<dyn World>,
    /// Where the person answers: set only when standard input (and output) is a terminal.
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
