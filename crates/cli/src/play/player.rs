//! The player's loop: read a line, make the move or run the `:` command, show what happened.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use stagehand_documents::Document;
use stagehand_protocol::OwnedEvent;
use stagehand_worlds::{command_text, Happening, Playthrough, Taken, Waiting, World};

use super::input::Input;
use super::{fail, Pace, HELP};
use stagehand_worlds::transcript::{Painter, Shown};

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

/// A document and its world, read from disk.
pub type Opened = (Document, Box<dyn World>);

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
    /// The world's file, named in warnings.
    pub world_file: Option<PathBuf>,
    /// Reads the story and its world afresh (for `:restart` and `:load`, to pick up edits).
    pub reopen: Box<dyn Fn() -> Result<Opened, String>>,
    /// The seed random choices draw from.
    pub seed: u64,
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
    Go(Flow),
}

impl Player {
    /// Writes a line of the transcript; in a terminal, wrapped to its width as it is now.
    pub fn say(&self, text: &str) {
        match self.interactive {
            true => crate::out::line(&self.painter.wrap(text, Some(textwrap::termwidth()))),
            false => crate::out::line(text),
        }
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
        let world = self.world_file.as_ref().map(|w| w.display().to_string());
        for shown in self.painter.show(happenings, &mut self.warned, world.as_deref()) {
            match shown {
                Shown::Transcript(line) => self.say(&line),
                Shown::Aside(line) => errln!("{line}"),
            }
        }
    }

    pub fn play(&mut self, p: &mut Playthrough<'_>) -> Flow {
        loop {
            let waiting = p.waiting();
            if self.pace == Pace::Choices && waiting == Waiting::Next {
                let happenings = match p.move_on_unattended() {
                    Ok(happenings) => happenings,
                    Err(why) => return Flow::Exit(fail(&why)),
                };
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
            let prompt = if self.interactive { self.painter.prompt(Painter::hint(&waiting)) } else { String::new() };
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
            if let Some((name, argument)) = stagehand_worlds::command_of(&line) {
                match self.command(p, name, argument) {
                    Outcome::Continue => continue,
                    Outcome::Invalid(message) => match self.invalid(&message) {
                        Some(code) => return Flow::Exit(code),
                        None => continue,
                    },
                    Outcome::Go(flow) => return flow,
                }
            }
            let happenings = match p.take_line(&line) {
                Taken::Moved { retrying, happenings } => {
                    if let Some(effect) = retrying {
                        self.say(&format!("  [retrying {}]", command_text(&effect)));
                    }
                    happenings
                }
                Taken::Ended => {
                    self.say("The story has ended: :undo, :restart, :history or :quit.");
                    continue;
                }
                Taken::Refused(message) | Taken::Invalid(message) => {
                    if let Some(code) = self.invalid(&message) {
                        return Flow::Exit(code);
                    }
                    if let (true, true, Waiting::Choice { options }) =
                        (self.interactive, message.starts_with("refused"), &waiting)
                    {
                        self.say(self.painter.menu(options).trim_end());
                    }
                    continue;
                }
            };
            self.show(&happenings);
        }
    }

    fn command(&mut self, p: &mut Playthrough<'_>, name: &str, argument: &str) -> Outcome {
        match name {
            "quit" | "q" => return Outcome::Go(Flow::Exit(ExitCode::SUCCESS)),
            "help" | "h" | "?" => self.say(HELP),
            "why" => self.say(p.why().trim_end()),
            "history" => self.say(self.painter.history(p.history()).trim_end()),
            // At the choices pace the lines after a move were moved past without the person, so
            // those are taken back too, to where the person last chose.
            "undo" => match p.undo_to(self.pace == Pace::Enter) {
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
                Err(message) if !self.interactive => return Outcome::Go(Flow::Exit(fail(&message))),
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

    /// `:restart`: reads the story and its world again, replays the run so far into them, and
    /// starts again from the same opening, so the restart can be undone and random choices draw
    /// on. If the edited story no longer takes the run, it starts afresh. Nothing changes if a
    /// file does not read.
    fn restart(&mut self, p: &Playthrough<'_>) -> Result<Flow, String> {
        let (document, world) = (self.reopen)()?;
        let json = p.save().to_json();
        let (plan, world) = match Playthrough::load(&document, world, &json) {
            Ok((replayed, _)) => (Plan::Restart(Some(json), String::new()), replayed.into_world()),
            Err(error) => {
                let note = format!(
                    "; the run so far does not replay into the story as it is now ({error}), so it starts afresh"
                );
                (Plan::Restart(None, note), (self.reopen)()?.1)
            }
        };
        Ok(Flow::Reload(Box::new(document), world, plan))
    }

    /// `:load`: reads the story afresh (so edits are picked up) and loads a save into it.
    fn load(&mut self, file: &str) -> Result<Flow, String> {
        if file.is_empty() {
            return Err("Usage: :load FILE".into());
        }
        let json = crate::read::text(Path::new(file))?;
        let (document, world) = (self.reopen)()?;
        let (loaded, how) = Playthrough::load(&document, world, &json).map_err(|e| format!("{file}: {e}"))?;
        self.say(&format!("(loaded {file}: {how})"));
        let world = loaded.into_world();
        Ok(Flow::Reload(Box::new(document), world, Plan::Loaded(json)))
    }

    /// Shows where the run stands: the last thing said, and the menu if one waits.
    pub fn show_current(&self, p: &Playthrough<'_>) {
        for line in self.painter.current(p) {
            self.say(&line);
        }
    }
}
