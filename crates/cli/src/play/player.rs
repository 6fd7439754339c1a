//! The player's loop: read a line, make the move or run the `:` command, show what happened.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use stagehand_documents::Document;
use stagehand_protocol::OwnedEvent;
use stagehand_worlds::{command_text, Happening, Playthrough, Waiting, World};

use super::input::Input;
use stagehand_worlds::transcript::{self as render, Painter};
use super::story::{open_document, open_world, Attended};
use super::{fail, Pace, HELP};
use crate::compile::Settings;

/// How the next playthrough begins, once the document was read afresh.
pub enum Plan {
    /// At the opening.
    Start,
    /// `:restart`: the run so far replayed (when it still replays) and started again; the note
    /// says when it did not replay.
    Restart(Option<String>, String),
    /// `:load`: a save's JSON, known to load.
    Loaded(String),
}

/// Where the loop goes next.
pub enum Flow {
    /// Stop, with this status.
    Exit(ExitCode),
    /// Go on with a document and world read afresh.
    Reload(Box<Document>, Box<dyn World>, Plan),
}

pub struct Player {
    /// The story's own files (script or project, world, configuration), which a save never replaces.
    pub own_files: Vec<PathBuf>,
    /// The world's file, read again by `:restart` and `:load`.
    pub world_file: Option<PathBuf>,
    /// The story's file and how it is opened, read again by `:restart` and `:load`.
    pub file: PathBuf,
    pub settings: Settings,
    pub chatmapper: stagehand_chatmapper::Options,
    /// The seed the world is opened with.
    pub seed: u64,
    /// Where the person answers what the world does not know, when they do.
    pub asks: Option<Rc<RefCell<Input>>>,
    pub painter: Painter,
    pub interactive: bool,
    pub pace: Pace,
    pub strict: bool,
    pub input: Rc<RefCell<Input>>,
    /// Keys and diagnostics already warned about.
    pub warned: BTreeSet<String>,
}

/// What a line of input asked for.
enum Outcome {
    Continue,
    /// The line is not valid where it was read: why.
    Invalid(String),
    Quit(ExitCode),
    Go(Flow),
}

impl Player {
    /// Writes a line of the transcript; in a terminal, wrapped to its width as it is now.
    pub fn say(&self, text: &str) {
        crate::out::line(&self.painter.wrap(text, self.interactive.then(textwrap::termwidth)));
    }

    fn warn(&self, text: &str) {
        self.say(&self.painter.warning(text));
    }

    /// A line of input that is not valid where it was read. Piped, it is reported on standard
    /// error with its line number, and `--strict` stops the play with exit status 2; in a
    /// terminal the person is told at once.
    fn invalid(&self, message: &str) -> Option<ExitCode> {
        if self.interactive {
            self.warn(message);
            return None;
        }
        errln!("stagehand play: input line {}: {message}", self.input.borrow().number());
        self.strict.then(|| ExitCode::from(2))
    }

    pub fn show(&mut self, happenings: &[Happening]) {
        let mut opened = None;
        for happening in happenings {
            match happening {
                Happening::Guessed { key, answer, problem } => {
                    if let Some(problem) = problem {
                        errln!("warning: the world could not answer {key}: {problem}");
                    }
                    if self.warned.insert(key.clone()) {
                        let hint = match &self.world_file {
                            Some(path) => format!("the world {} does not define it", path.display()),
                            None => "give a --world to answer it".into(),
                        };
                        errln!("warning: nobody answers {key}; taking {} ({hint})", render::answer_text(answer));
                    }
                }
                Happening::Diagnostic(message) => {
                    if self.warned.insert(format!("diagnostic: {message}")) {
                        errln!("warning: {message}");
                    }
                    continue;
                }
                _ => {}
            }
            if let Some(text) = self.painter.happening(happening, &mut opened) {
                self.say(&text);
            }
            if matches!(happening, Happening::Failed { .. }) {
                self.say(
                    "  (the world could not do it: Enter retries, :skip carries on without it, :restart reads the \
                     edited world and starts over, :undo takes the move back, :quit stops)",
                );
            }
        }
    }

    fn prompt(&self, waiting: &Waiting) -> String {
        if !self.interactive {
            return String::new();
        }
        let hint = match waiting {
            Waiting::Next => "",
            Waiting::Choice { .. } => "choose",
            Waiting::Held { .. } => "Enter retries, or :skip",
            Waiting::Ended | Waiting::Stuck { .. } | Waiting::NotStarted => ":undo, :restart or :quit",
        };
        self.painter.prompt(hint)
    }

    pub fn play(&mut self, p: &mut Playthrough<'_>) -> Flow {
        loop {
            let waiting = p.waiting();
            if self.pace == Pace::Choices && waiting == Waiting::Next {
                let happenings = p.move_on();
                self.show(&happenings);
                if !happenings.iter().any(|h| matches!(h, Happening::Event(OwnedEvent::Refused { .. }))) {
                    continue;
                }
            }
            if waiting == Waiting::Ended && !self.interactive {
                // Piped play ends with the story, whether or not the input has.
                return Flow::Exit(ExitCode::SUCCESS);
            }
            if let Waiting::Stuck { waiting } = &waiting {
                self.warn(&format!("the run is stuck: {waiting}; :undo or :restart"));
            }
            let prompt = self.prompt(&waiting);
            let read = self.input.borrow_mut().read(&prompt);
            let Some(line) = read else {
                if self.interactive {
                    self.say("");
                    return Flow::Exit(ExitCode::SUCCESS);
                }
                return Flow::Exit(fail("the input ended before the story did"));
            };
            let line = line.trim().to_owned();
            if !self.interactive {
                self.say(&format!("> {line}"));
            }
            if let Some(rest) = line.strip_prefix(':') {
                let (name, argument) = match rest.split_once(char::is_whitespace) {
                    Some((name, argument)) => (name, argument.trim()),
                    None => (rest, ""),
                };
                match self.command(p, name, argument) {
                    Outcome::Continue => continue,
                    Outcome::Invalid(message) => match self.invalid(&message) {
                        Some(code) => return Flow::Exit(code),
                        None => continue,
                    },
                    Outcome::Quit(code) => return Flow::Exit(code),
                    Outcome::Go(flow) => return flow,
                }
            }
            let happenings = match (&waiting, line.as_str()) {
                (Waiting::Next, "") => p.move_on(),
                (Waiting::Held { effect }, "") => {
                    self.say(&format!("  [retrying {}]", command_text(effect)));
                    p.retry()
                }
                (Waiting::Choice { .. }, text) if text.parse::<i64>().is_ok() => {
                    p.choose(text.parse::<i64>().unwrap_or(0).saturating_sub(1))
                }
                (Waiting::Choice { options }, _) => {
                    let message =
                        format!("{line:?} is not an option: choose one by its number, 1 to {}", options.len());
                    match self.invalid(&message) {
                        Some(code) => return Flow::Exit(code),
                        None => continue,
                    }
                }
                (Waiting::Ended, _) => {
                    self.say("The story has ended: :undo, :restart, :history or :quit.");
                    continue;
                }
                _ => match self.invalid(&format!("{line:?}: press Enter to move on, or type :help")) {
                    Some(code) => return Flow::Exit(code),
                    None => continue,
                },
            };
            if let (Waiting::Choice { options }, Some(Happening::Event(OwnedEvent::Refused { reason, .. }))) =
                (&waiting, happenings.first())
            {
                let number = line.parse::<i64>().unwrap_or(0);
                let why = match options.get(usize::try_from(number.saturating_sub(1)).unwrap_or(usize::MAX)) {
                    Some(_) => format!("option {number} is not available now (:why says why)"),
                    None => format!("there is no option {number}; choose 1 to {}", options.len()),
                };
                if let Some(code) = self.invalid(&format!("refused ({}): {why}", reason.as_str())) {
                    return Flow::Exit(code);
                }
                if self.interactive {
                    self.say(self.painter.menu(options).trim_end());
                }
                continue;
            }
            self.show(&happenings);
        }
    }

    fn command(&mut self, p: &mut Playthrough<'_>, name: &str, argument: &str) -> Outcome {
        match name {
            "quit" | "q" => return Outcome::Quit(ExitCode::SUCCESS),
            "help" | "h" | "?" => self.say(HELP),
            "why" => self.say(p.why().trim_end()),
            "history" => self.say(self.painter.history(p.history()).trim_end()),
            "undo" => match self.undo(p) {
                Ok(true) => {
                    self.say("(undone)");
                    self.show_current(p);
                }
                Ok(false) => self.say("Nothing to undo."),
                Err(error) => self.warn(&error.to_string()),
            },
            "skip" => match p.waiting() {
                Waiting::Held { effect } => {
                    self.say(&format!("(skipped {})", command_text(&effect)));
                    let happenings = p.skip();
                    self.show(&happenings);
                }
                _ => self.say("Nothing to skip: :skip carries on past a command the world could not carry out."),
            },
            "restart" => match self.restart(p) {
                Ok(flow) => return Outcome::Go(flow),
                Err(message) => self.warn(&message),
            },
            "start" => {
                let happenings = p.begin(Some(argument).filter(|a| !a.is_empty()));
                self.show(&happenings);
            }
            "load" => match self.load(argument) {
                Ok(flow) => return Outcome::Go(flow),
                Err(message) if !self.interactive => return Outcome::Quit(fail(&message)),
                Err(message) => self.warn(&message),
            },
            "save" | "save!" if argument.is_empty() => return Outcome::Invalid("usage: :save FILE".into()),
            "save" | "save!" => {
                let json = p.save().to_json();
                match stagehand_session::write_save(Path::new(argument), &json, &self.own_files, name == "save!") {
                    Ok(()) => self.say(&format!("(saved to {argument})")),
                    Err(error @ stagehand_session::SaveFileError::NotASave(_)) => {
                        self.warn(&format!("{error} (:save! {argument} replaces it with the save)"))
                    }
                    Err(error) => self.warn(&error.to_string()),
                }
            }
            other => return Outcome::Invalid(format!("no command :{other} (:help lists them)")),
        }
        Outcome::Continue
    }

    /// The story and its world read afresh (so edits to either are picked up).
    fn reopen(&self) -> Result<(Document, Box<dyn World>), String> {
        let world = self.world_file.as_deref();
        let document = open_document(&self.file, &self.settings, self.chatmapper, world)?;
        let inner = open_world(world, self.seed)?;
        Ok((document, Box::new(Attended { inner, input: self.asks.clone() })))
    }

    /// `:restart`: reads the story and its world again, replays the run so far into them, and
    /// starts again from the same opening, so the restart can be undone and random choices draw
    /// on. If the edited story no longer takes the run, it starts afresh. Nothing changes if a
    /// file does not read.
    fn restart(&mut self, p: &Playthrough<'_>) -> Result<Flow, String> {
        let (document, world) = self.reopen()?;
        let json = p.save().to_json();
        let (plan, world) = match Playthrough::load(&document, world, &json) {
            Ok((replayed, _)) => (Plan::Restart(Some(json), String::new()), replayed.into_world()),
            Err(error) => {
                let note = format!(
                    "; the run so far does not replay into the story as it is now ({error}), so it starts afresh"
                );
                (Plan::Restart(None, note), self.reopen()?.1)
            }
        };
        Ok(Flow::Reload(Box::new(document), world, plan))
    }

    /// Takes back the person's last move. At the choices pace the lines after a move were moved
    /// past without them, so those are taken back too, to where the person last chose.
    fn undo(&mut self, p: &mut Playthrough<'_>) -> Result<bool, stagehand_worlds::ReplayError> {
        let undone = p.undo()?;
        while undone && self.pace == Pace::Choices && p.waiting() == Waiting::Next {
            if !p.undo()? {
                break;
            }
        }
        Ok(undone)
    }

    /// `:load`: reads the story afresh (so edits are picked up) and loads a save into it.
    fn load(&mut self, file: &str) -> Result<Flow, String> {
        if file.is_empty() {
            return Err("Usage: :load FILE".into());
        }
        let json = crate::read::text(Path::new(file))?;
        let (document, world) = self.reopen()?;
        let (loaded, how) = Playthrough::load(&document, world, &json).map_err(|e| format!("{file}: {e}"))?;
        self.say(&format!("(loaded {file}: {how})"));
        let world = loaded.into_world();
        Ok(Flow::Reload(Box::new(document), world, Plan::Loaded(json)))
    }

    /// Shows where the run stands: the last thing said, and the menu if one waits.
    pub fn show_current(&self, p: &Playthrough<'_>) {
        let mut last_said = None;
        for record in p.history() {
            let mut opened = None;
            for event in &record.events {
                if matches!(event, OwnedEvent::Said { .. } | OwnedEvent::Continued { .. }) {
                    if let Some(line) = self.painter.event_in_line(event, &mut opened) {
                        last_said = Some(line);
                    }
                }
            }
        }
        match p.waiting() {
            Waiting::Choice { options } => {
                if let Some(line) = last_said {
                    self.say(&line);
                }
                self.say(self.painter.menu(&options).trim_end());
            }
            Waiting::Ended => self.say(&self.painter.event(&OwnedEvent::Ended).unwrap_or_default()),
            _ => {
                if let Some(line) = last_said {
                    self.say(&line);
                }
            }
        }
    }
}
