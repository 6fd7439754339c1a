//! Opening what is played: a script or playbook from disk, and the world that answers it.

use std::io::Write;
use std::path::{Path, PathBuf};

use stagehand_dialoguedown::{compile, render_human};
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
}

/// What a file to be played holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A DialogueDown script (`*.dialogue.md`, `*.md`).
    Script,
    /// A DialogueDown playbook (JSON with `format` and `nodes`).
    Playbook,
    /// A ChatMapper project: an XML export, a JSON export (with `Assets`), or a native `.cmp`
    /// file (which the loader refuses, naming the exports).
    ChatMapper,
}

/// Decides what a file holds, by its name where that settles it (`.md` is a script, `.cmp` a
/// native ChatMapper project) and otherwise by its content: XML is a ChatMapper export; JSON
/// with `format` and `nodes` is a playbook and JSON with `Assets` a ChatMapper export. Anything
/// else is read as a playbook, whose reader says what is wrong with it.
pub fn kind_of(path: &Path) -> Result<Kind, String> {
    let name = path.display().to_string();
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".md") {
        return Ok(Kind::Script);
    }
    if lower.ends_with(".cmp") {
        return Ok(Kind::ChatMapper);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let content = text.trim_start_matches('\u{feff}').trim_start();
    if content.starts_with('<') {
        return Ok(Kind::ChatMapper);
    }
    if content.starts_with('{') || content.starts_with('[') {
        return Ok(match serde_json::from_str::<serde_json::Value>(content) {
            Ok(json) if json.get("format").is_some() && json.get("nodes").is_some() => Kind::Playbook,
            Ok(json) if json.get("Assets").is_some() => Kind::ChatMapper,
            Ok(_) => Kind::Playbook,
            // Malformed: whichever reader it was meant for says where.
            Err(_) if content.contains("\"Assets\"") && !content.contains("\"nodes\"") => Kind::ChatMapper,
            Err(_) => Kind::Playbook,
        });
    }
    match stagehand_chatmapper::load(&bytes, &name) {
        Err(stagehand_chatmapper::LoadError::NativeProject { .. }) => Ok(Kind::ChatMapper),
        _ => Ok(Kind::Playbook),
    }
}

/// A DialogueDown script (`*.dialogue.md`, `*.md`) or a playbook (JSON).
pub struct DialogueStory {
    /// The file.
    pub path: PathBuf,
    /// The seed random choices draw from.
    pub seed: u64,
    /// The configuration a script compiles with, when not the `dialogue.toml` beside it.
    pub config: Option<PathBuf>,
}

impl Story for DialogueStory {
    fn open(&self) -> Result<Box<dyn Playable>, String> {
        Ok(Box::new(Session::new(read_playbook(&self.path, self.config.as_deref())?, self.seed)))
    }
}

/// Reads a script (compiling it with `config`, else the `dialogue.toml` beside it, as
/// `stagehand compile` does) or a playbook. The error names the file, and the line and column
/// where there are some.
pub fn read_playbook(path: &Path, config: Option<&Path>) -> Result<Playbook, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let is_script = name.to_ascii_lowercase().ends_with(".md");
    if is_script {
        let options = crate::compile::options_for(path, config)?;
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
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
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
    /// Whether a person can be asked: set only when standard input (and output) is a terminal.
    pub ask: bool,
}

impl World for Attended {
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        if let Some(answer) = self.inner.answer(key, kind)? {
            return Ok(Some(answer));
        }
        if !self.ask {
            return Ok(None);
        }
        let hint = match kind {
            AnswerKind::Truth => "yes/no",
            AnswerKind::Text => "words",
            AnswerKind::Number => "a number, 0 or more",
        };
        loop {
            print!("  ? {key} ({hint}): ");
            let _ = std::io::stdout().flush();
            let mut line = String::new();
            match std::io::stdin().read_line(&mut line) {
                Ok(0) | Err(_) => return Ok(None),
                Ok(_) => {}
            }
            let line = line.trim_end_matches(['\n', '\r']);
            if let Some(answer) = parse_answer(line, kind) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str, content: &str) -> Kind {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join(name);
        std::fs::write(&path, content).expect("written");
        kind_of(&path).expect("read")
    }

    #[test]
    fn the_content_decides_what_is_played() {
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        assert_eq!(kind_of(&examples.join("the-crossing.json")), Ok(Kind::ChatMapper));
        assert_eq!(kind_of(&examples.join("the-crossing.xml")), Ok(Kind::ChatMapper));
        assert_eq!(kind_of(&examples.join("club-fair.dialogue.md")), Ok(Kind::Script));
        assert_eq!(kind("gate.json", r#"{"format": {"version": 0}, "nodes": []}"#), Kind::Playbook);
        assert_eq!(kind("export.txt", "\u{feff} {\"Title\": \"x\", \"Assets\": {}}"), Kind::ChatMapper);
        assert_eq!(kind("project.json", "<ChatMapperProject Title=\"x\"/>"), Kind::ChatMapper);
        assert_eq!(kind("story.CMP", "anything"), Kind::ChatMapper);
        // Malformed JSON goes to the reader it was meant for, which says where it breaks.
        assert_eq!(kind("broken.json", "{\"Assets\": {,}}"), Kind::ChatMapper);
        assert_eq!(kind("broken.json", "{\"format\": {\"version\": 0,}}"), Kind::Playbook);
        assert_eq!(kind("other.json", "{\"name\": \"neither\"}"), Kind::Playbook);
        assert!(kind_of(Path::new("no/such/file.json")).is_err());
    }
}
