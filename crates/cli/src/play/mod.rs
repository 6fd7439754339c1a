//! `stagehand play`: the terminal player. Glue over `stagehand-session`: it reads what the person
//! types, sends it, and shows what happened.
//!
//! In a terminal it styles speech with ANSI, wraps it to the terminal's width, reads lines with
//! editing and history, waits for Enter after each line, and asks the person for keys the world
//! does not know. Without one (piped input, CI) it plays as `inklecate` does: lines follow each
//! other without waiting, and only a menu (or a run held by a failed command) reads a line — a
//! number picks an option, the `:` commands work too. It prints a plain transcript (echoing each
//! input as `> …`), answers unknown keys with false or empty words (warning once per key), and
//! exits 0 as soon as the story ends, whether or not the input has. `--pace` sets either pace
//! anywhere.
//!
//! A line that is not valid where it is read (a word at a menu, an option the menu lacks or
//! closes, an unknown command) is reported on standard error with its number (`input line 3`);
//! piped, `--strict` stops there with exit status 2. What the engine reports about itself (a
//! condition that cannot be evaluated, a script that failed) goes to standard error too, each
//! message once, never into the transcript.
//!
//! What is played is decided by the file's content ([`crate::kind::kind_of`]): a DialogueDown script
//! or playbook plays in a [`stagehand_session::Session`], a ChatMapper project on its engine
//! ([`stagehand_documents::chatmapper::ChatMapperRun`]), both behind [`Playable`]. Without
//! `--world`, a world named for the file (`<stem>.world.lua`, `.toml` or `.json` beside it) is used when the input is piped,
//! and a notice on standard error says so; in a terminal it is pointed out.

mod chatmapper;
mod input;
mod render;
mod story;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use stagehand_runner::{Command, OwnedEvent};
use stagehand_session::{Happening, Playable, Waiting};

use crate::compile::Settings;
use crate::kind::{kind_of, Kind};
use chatmapper::ChatMapperStory;
use input::Input;
use render::Painter;
pub use story::{no_world, open_world, read_playbook};
use story::{Attended, DialogueStory, Story};

const HELP: &str = "\
Enter moves on; a number picks an option. Commands:
  :undo         take back the last move
  :history      the transcript so far
  :save FILE    save the run (never over the story's own files; :save! FILE
                replaces a file that is not a save)
  :load FILE    load a run (replayed against the script as it is now)
  :why          where the run stands, and why each way out is open or closed
  :skip         carry on without a command the world could not carry out
  :restart      read the story and its world again (picking up edits) and start again
  :start NAME   start another conversation (ChatMapper: by ID or Title, keeping variables and statuses)
  :quit         stop";

/// How the player paces a story.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Pace {
    /// Every line waits for Enter (the default in a terminal).
    Enter,
    /// Lines follow each other; only menus and questions wait for input (the default when piped).
    Choices,
}

/// What `play` was asked to do.
#[derive(Debug, clap::Args)]
pub struct PlayOptions {
    /// The script, playbook or ChatMapper project.
    pub file: PathBuf,
    /// Who answers the script's questions and carries out its commands: a Lua script
    /// (`.lua`) or facts (`.toml`, `.json`). By default the world named for the file, if one
    /// sits beside it. For a ChatMapper project a Lua world also runs in the project's sandbox,
    /// so the functions and tables it defines (`game.*`, `Quest`) are visible to its
    /// conditions and scripts.
    #[arg(long)]
    pub world: Option<PathBuf>,
    /// The seed random choices draw from.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Start at this anchor (a scene's slug) instead of the entry.
    #[arg(long)]
    pub start: Option<String>,
    /// For a ChatMapper project: the conversation to play, by ID or Title.
    #[arg(long)]
    pub conversation: Option<String>,
    /// For a ChatMapper project: make the player actor's entries that have Dialogue Text
    /// but no Menu Text choices, labelled by that text. Some projects write branches so; by
    /// default such entries play as lines, as ChatMapper's runtime rules say.
    #[arg(long)]
    pub player_lines_as_choices: bool,
    /// How the story is paced: by default `enter` in a terminal and `choices` when piped.
    #[arg(long, value_enum)]
    pub pace: Option<Pace>,
    /// Piped: stop with exit status 2 at a line of input that is not valid where it is read.
    #[arg(long)]
    pub strict: bool,
    /// For a ChatMapper project: the memory, in MiB, its Lua conditions and scripts may use
    /// beyond the project's own tables and compiled chunks (0: no cap).
    #[arg(long, value_name = "MIB", default_value_t = 16)]
    pub lua_memory: usize,
    #[command(flatten)]
    pub settings: Settings,
}

/// Plays a story; the exit code says how it went.
pub fn run(options: PlayOptions) -> ExitCode {
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let colour = interactive && std::env::var_os("NO_COLOR").is_none();
    let world = match options.world.clone() {
        Some(path) => Some(path),
        None => match discover_world(&options.file) {
            Some(path) => {
                errln!("using world {}", path.display());
                Some(path)
            }
            None => None,
        },
    };
    let (story, opening) = match choose_story(&options, world.as_deref()) {
        Ok(chosen) => chosen,
        Err(message) => return fail(&message),
    };
    let mut playable = match story.open() {
        Ok(playable) => playable,
        Err(message) => return fail(&message),
    };
    let inner = match &world {
        Some(path) => match open_world(path, options.seed) {
            Ok(world) => world,
            Err(message) => return fail(&message),
        },
        None => story::no_world(),
    };
    // What `:save` must never write over: the story's own files.
    let own_files =
        [Some(options.file.clone()), world.clone(), crate::compile::config_for(&options.file, &options.settings)]
            .into_iter()
            .flatten()
            .collect();
    let input = Rc::new(RefCell::new(Input::new(interactive)));
    let mut player = Player {
        own_files,
        world_file: world,
        seed: options.seed,
        world: Attended { inner, input: (interactive || story.asks_the_person()).then(|| Rc::clone(&input)) },
        painter: Painter { colour },
        interactive,
        pace: options.pace.unwrap_or(if interactive { Pace::Enter } else { Pace::Choices }),
        strict: options.strict && !interactive,
        input,
        warned: BTreeSet::new(),
        story: story.as_ref(),
    };
    let happenings = playable.send(opening, &mut player.world);
    player.show(&happenings);
    if playable.waiting() == Waiting::NotStarted {
        return fail("the story did not start");
    }
    player.play(playable)
}

/// The story the file holds, and the command that opens it.
fn choose_story(options: &PlayOptions, world: Option<&Path>) -> Result<(Box<dyn Story>, Command<'static>), String> {
    let name = options.file.display();
    match kind_of(&options.file)? {
        Kind::ChatMapper => {
            if let Some(anchor) = &options.start {
                return Err(format!(
                    "{name} is a ChatMapper project: name the conversation with --conversation {anchor} (--start is for a scene of a DialogueDown script)"
                ));
            }
            let opening = match &options.conversation {
                Some(conversation) => Command::start_at(conversation.clone()),
                None => Command::start(),
            };
            let mut engine = stagehand_chatmapper::Options {
                player_lines_as_choices: options.player_lines_as_choices,
                ..stagehand_chatmapper::Options::seeded(options.seed)
            };
            engine.limits.memory_bytes = options.lua_memory.saturating_mul(1 << 20);
            let story =
                ChatMapperStory { path: options.file.clone(), options: engine, world: world.map(Path::to_path_buf) };
            Ok((Box::new(story), opening))
        }
        Kind::Script | Kind::Playbook => {
            if options.conversation.is_some() {
                return Err(format!(
                    "{name} is a DialogueDown script or playbook: --conversation is for ChatMapper projects (start at a scene with --start)"
                ));
            }
            let opening = match &options.start {
                Some(anchor) => Command::start_at(anchor.clone()),
                None => Command::start(),
            };
            let story =
                DialogueStory { path: options.file.clone(), seed: options.seed, settings: options.settings.clone() };
            Ok((Box::new(story), opening))
        }
    }
}

/// The world named for the played file, if one sits beside it: `<stem>.world.lua`, `.toml` or
/// `.json`, where the stem is the file name before its first `.` (`club-fair.dialogue.md` →
/// `club-fair.world.lua`).
pub fn discover_world(file: &Path) -> Option<PathBuf> {
    let name = file.file_name()?.to_str()?;
    let stem = name.split('.').next().filter(|stem| !stem.is_empty())?;
    ["lua", "toml", "json"]
        .iter()
        .map(|extension| file.with_file_name(format!("{stem}.world.{extension}")))
        .find(|candidate| candidate.as_path() != file && candidate.is_file())
}

fn fail(message: &str) -> ExitCode {
    errln!("stagehand play: {}", message.trim_end());
    ExitCode::FAILURE
}

struct Player<'s> {
    /// The story's own files (script or project, world, configuration), which a save never replaces.
    own_files: Vec<PathBuf>,
    /// The world's file, read again by `:restart`.
    world_file: Option<PathBuf>,
    /// The seed the world is opened with.
    seed: u64,
    world: Attended,
    painter: Painter,
    interactive: bool,
    pace: Pace,
    strict: bool,
    input: Rc<RefCell<Input>>,
    /// Keys warned about, and the engine's messages shown, each once.
    warned: BTreeSet<String>,
    story: &'s dyn Story,
}

/// What a line of input asked for.
enum Outcome {
    Continue,
    /// The line is not valid where it was read: why.
    Invalid(String),
    Quit(ExitCode),
}

impl Player<'_> {
    /// Writes a line of the transcript; in a terminal, wrapped to its width as it is now.
    fn say(&self, text: &str) {
        crate::out::line(&self.painter.wrap(text, self.interactive.then(textwrap::termwidth)));
    }

    /// A line of input that is not valid where it was read. Piped, it is reported on standard
    /// error with its line number, and `--strict` stops the play with exit status 2; in a
    /// terminal the person is told at once.
    fn invalid(&self, message: &str) -> Option<ExitCode> {
        if self.interactive {
            self.say(&self.painter.warning(message));
            return None;
        }
        errln!("stagehand play: input line {}: {message}", self.input.borrow().number());
        self.strict.then(|| ExitCode::from(2))
    }

    fn show(&mut self, happenings: &[Happening]) {
        let mut opened = None;
        for happening in happenings {
            if let Happening::Guessed { key, answer, problem } = happening {
                if let Some(problem) = problem {
                    errln!("warning: the world could not answer {key}: {problem}");
                }
                if self.warned.insert(key.clone()) {
                    let hint = match &self.world_file {
                        Some(path) => format!("the world {} does not define it", path.display()),
                        None => "give a --world to answer it".into(),
                    };
                    errln!("warning: nobody answers {key}; taking {} ({hint})", stagehand_session::AnswerText(answer));
                }
            }
            if let Happening::Diagnostic(message) = happening {
                if self.warned.insert(format!("diagnostic: {message}")) {
                    errln!("warning: {message}");
                }
                continue;
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

    fn play(&mut self, mut playable: Box<dyn Playable>) -> ExitCode {
        loop {
            let waiting = playable.waiting();
            if self.pace == Pace::Choices && waiting == Waiting::Next {
                let happenings = playable.send(Command::Next, &mut self.world);
                self.show(&happenings);
                if !happenings.iter().any(|h| matches!(h, Happening::Event(OwnedEvent::Refused { .. }))) {
                    continue;
                }
            }
            if waiting == Waiting::Ended && !self.interactive {
                // Piped play ends with the story, whether or not the input has.
                return ExitCode::SUCCESS;
            }
            if let Waiting::Stuck { waiting } = &waiting {
                self.say(&self.painter.warning(&format!("the run is stuck: {waiting}; :undo or :restart")));
            }
            let prompt = self.prompt(&waiting);
            let read = self.input.borrow_mut().read(&prompt);
            let Some(line) = read else {
                if self.interactive {
                    self.say("");
                    return ExitCode::SUCCESS;
                }
                return fail("the input ended before the story did");
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
                if name == "load" {
                    match self.load(argument) {
                        Ok(loaded) => {
                            playable = loaded;
                            self.show_current(playable.as_ref());
                        }
                        Err(message) => {
                            if !self.interactive {
                                return fail(&message);
                            }
                            self.say(&self.painter.warning(&message));
                        }
                    }
                    continue;
                }
                match self.command(&mut playable, name, argument) {
                    Outcome::Continue => continue,
                    Outcome::Invalid(message) => match self.invalid(&message) {
                        Some(code) => return code,
                        None => continue,
                    },
                    Outcome::Quit(code) => return code,
                }
            }
            let happenings = match (&waiting, line.as_str()) {
                (Waiting::Next, "") => playable.send(Command::Next, &mut self.world),
                (Waiting::Held { effect }, "") => {
                    self.say(&format!("  [retrying {}]", stagehand_session::command_text(effect)));
                    playable.retry(&mut self.world)
                }
                (Waiting::Choice { .. }, text) if text.parse::<i64>().is_ok() => {
                    let number = text.parse::<i64>().unwrap_or(0);
                    playable.send(Command::Choose(number.saturating_sub(1)), &mut self.world)
                }
                (Waiting::Choice { options, .. }, _) => {
                    let message =
                        format!("{line:?} is not an option: choose one by its number, 1 to {}", options.len());
                    match self.invalid(&message) {
                        Some(code) => return code,
                        None => continue,
                    }
                }
                (Waiting::Ended, _) => {
                    self.say("The story has ended: :undo, :restart, :history or :quit.");
                    continue;
                }
                _ => match self.invalid(&format!("{line:?}: press Enter to move on, or type :help")) {
                    Some(code) => return code,
                    None => continue,
                },
            };
            if let (Waiting::Choice { options, .. }, Some(Happening::Event(OwnedEvent::Refused { reason, .. }))) =
                (&waiting, happenings.first())
            {
                let number = line.parse::<i64>().unwrap_or(0);
                let why = match options.get(usize::try_from(number.saturating_sub(1)).unwrap_or(usize::MAX)) {
                    Some(_) => format!("option {number} is not available now (:why says why)"),
                    None => format!("there is no option {number}; choose 1 to {}", options.len()),
                };
                if let Some(code) = self.invalid(&format!("refused ({}): {why}", reason.as_str())) {
                    return code;
                }
                if self.interactive {
                    self.say(self.painter.menu(options).trim_end());
                }
                continue;
            }
            self.show(&happenings);
            if happenings.iter().any(|h| matches!(h, Happening::Event(OwnedEvent::Refused { .. }))) {
                if let Waiting::Choice { options, .. } = playable.waiting() {
                    self.say(self.painter.menu(&options).trim_end());
                }
            }
        }
    }

    fn command(&mut self, playable: &mut Box<dyn Playable>, name: &str, argument: &str) -> Outcome {
        match name {
            "quit" | "q" => return Outcome::Quit(ExitCode::SUCCESS),
            "help" | "h" | "?" => self.say(HELP),
            "why" => self.say(playable.why().trim_end()),
            "history" => {
                let history = self.painter.history(playable.history());
                self.say(history.trim_end());
            }
            "undo" => match self.undo(playable.as_mut()) {
                Ok(true) => {
                    self.say("(undone)");
                    self.show_current(playable.as_ref());
                }
                Ok(false) => self.say("Nothing to undo."),
                Err(error) => self.say(&self.painter.warning(&error.to_string())),
            },
            "skip" => match playable.waiting() {
                Waiting::Held { effect } => {
                    self.say(&format!("(skipped {})", stagehand_session::command_text(&effect)));
                    let happenings = playable.skip(&mut self.world);
                    self.show(&happenings);
                }
                _ => self.say("Nothing to skip: :skip carries on past a command the world could not carry out."),
            },
            "restart" => match self.restart(playable) {
                Ok((note, happenings)) => {
                    self.say(&format!("(restarted{note})"));
                    self.show(&happenings);
                }
                Err(message) => self.say(&self.painter.warning(&message)),
            },
            "start" => {
                let command = match argument {
                    "" => Command::start(),
                    name => Command::start_at(name.to_owned()),
                };
                let happenings = playable.send(command, &mut self.world);
                self.show(&happenings);
            }
            "save" | "save!" => {
                if argument.is_empty() {
                    return Outcome::Invalid("usage: :save FILE".into());
                } else {
                    let overwrite = name == "save!";
                    match stagehand_session::write_save(
                        Path::new(argument),
                        &playable.save_json(),
                        &self.own_files,
                        overwrite,
                    ) {
                        Ok(()) => self.say(&format!("(saved to {argument})")),
                        Err(error @ stagehand_session::SaveFileError::NotASave(_)) => self.say(
                            &self.painter.warning(&format!("{error} (:save! {argument} replaces it with the save)")),
                        ),
                        Err(error) => self.say(&self.painter.warning(&error.to_string())),
                    }
                }
            }
            other => return Outcome::Invalid(format!("no command :{other} (:help lists them)")),
        }
        Outcome::Continue
    }

    /// `:restart`: reads the story and its world again (so edits to either are picked up), replays
    /// the run so far into them, and starts again from the same opening, so the restart can be
    /// undone and random choices draw on. If the edited story no longer takes the run, it starts
    /// afresh. Nothing changes if a file does not read.
    fn restart(&mut self, playable: &mut Box<dyn Playable>) -> Result<(String, Vec<Happening>), String> {
        let mut fresh = self.story.open()?;
        let inner = match &self.world_file {
            Some(path) => open_world(path, self.seed)?,
            None => story::no_world(),
        };
        let old = std::mem::replace(&mut self.world.inner, inner);
        let mut note = String::new();
        if let Err(error) = fresh.load_json(&playable.save_json(), &mut self.world) {
            note =
                format!("; the run so far does not replay into the story as it is now ({error}), so it starts afresh");
            match self.story.open() {
                Ok(again) => fresh = again,
                Err(message) => {
                    self.world.inner = old;
                    return Err(message);
                }
            }
        }
        match fresh.restart(&mut self.world) {
            Ok(happenings) => {
                *playable = fresh;
                Ok((note, happenings))
            }
            Err(error) => {
                self.world.inner = old;
                Err(error.to_string())
            }
        }
    }

    /// Takes back the person's last move. At the choices pace the lines after a move were moved
    /// past without them, so those are taken back too, to where the person last chose.
    fn undo(&mut self, playable: &mut dyn Playable) -> Result<bool, stagehand_session::ReplayError> {
        let undone = playable.undo(&mut self.world)?;
        while undone && self.pace == Pace::Choices && playable.waiting() == Waiting::Next {
            if !playable.undo(&mut self.world)? {
                break;
            }
        }
        Ok(undone)
    }

    /// Reads the story afresh (so edits are picked up) and loads a save into it.
    fn load(&mut self, file: &str) -> Result<Box<dyn Playable>, String> {
        if file.is_empty() {
            return Err("Usage: :load FILE".into());
        }
        let json = crate::read::text(Path::new(file))?;
        let mut fresh = self.story.open()?;
        let loaded = fresh.load_json(&json, &mut self.world).map_err(|e| format!("{file}: {e}"))?;
        self.say(&format!("(loaded {file}: {loaded})"));
        Ok(fresh)
    }

    /// Shows where the run stands: the last thing said, and the menu if one waits.
    fn show_current(&self, playable: &dyn Playable) {
        let mut last_said = None;
        for record in playable.history() {
            let mut opened = None;
            for event in &record.events {
                if matches!(event, OwnedEvent::Said { .. } | OwnedEvent::Continued { .. }) {
                    if let Some(line) = self.painter.event_in_line(event, &mut opened) {
                        last_said = Some(line);
                    }
                }
            }
        }
        match playable.waiting() {
            Waiting::Choice { options, .. } => {
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
