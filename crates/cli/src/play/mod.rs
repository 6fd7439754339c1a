//! `stagehand play`: the terminal player. Glue over `stagehand-worlds`' [`Playthrough`] (a
//! document of any kind played through a host session, the world answering outside it) and
//! its transcript: it reads what the person types, makes the move, and shows what happened.
//!
//! In a terminal: ANSI styles, text wrapped to the terminal, a line editor with history, Enter
//! after each line, and the person asked for keys the world does not know. Piped (as
//! `inklecate` plays): a plain transcript echoing each input as `> …`, lines that follow each
//! other, only menus reading a line, unknown keys answered with false or empty words (warned
//! about once), and exit 0 as soon as the story ends; `--pace` sets either pace anywhere. A line
//! not valid where it is read is reported on standard error with its number (`--strict` stops
//! there with status 2); what an engine reports about itself goes to standard error, once.

mod input;
mod player;
mod story;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use stagehand_documents::Document;
use stagehand_worlds::{Playthrough, Waiting, World};

use crate::compile::Settings;
use input::Input;
use player::{Flow, Plan, Player};

use stagehand_worlds::transcript::Painter;
pub use story::{open_document, open_world};

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
    let discovered = || {
        stagehand_worlds::world_beside(&options.file, Path::is_file)
            .inspect(|path| errln!("using world {}", path.display()))
    };
    let world = options.world.clone().or_else(discovered);
    let mut chatmapper = stagehand_chatmapper::Options {
        player_lines_as_choices: options.player_lines_as_choices,
        ..stagehand_chatmapper::Options::seeded(options.seed)
    };
    chatmapper.limits.memory_bytes = options.lua_memory.saturating_mul(1 << 20);
    let document = match open_document(&options.file, &options.settings, chatmapper, world.as_deref()) {
        Ok(document) => document,
        Err(message) => return fail(&message),
    };
    let anchor = match document.opening(options.start.as_deref(), options.conversation.as_deref()) {
        Ok(anchor) => anchor,
        Err(message) => return fail(&message),
    };
    if !interactive {
        crate::out::hold();
    }
    let input = Rc::new(RefCell::new(Input::new(interactive)));
    let asks = (interactive || document.asks_the_person()).then(|| Rc::clone(&input));
    let world_box = match open_world(world.as_deref(), options.seed) {
        Ok(inner) => story::attended(inner, asks.clone()),
        Err(message) => return fail(&message),
    };
    // What `:save` must never write over: the story's own files.
    let own_files =
        [Some(options.file.clone()), world.clone(), crate::compile::config_for(&options.file, &options.settings)]
            .into_iter()
            .flatten()
            .collect();
    let (file, settings, seed, world_file) =
        (options.file.clone(), options.settings.clone(), options.seed, world.clone());
    let reopen = move || {
        let document = open_document(&file, &settings, chatmapper, world_file.as_deref())?;
        Ok((document, story::attended(open_world(world_file.as_deref(), seed)?, asks.clone())))
    };
    let mut player = Player {
        own_files,
        world_file: world,
        reopen: Box::new(reopen),
        seed: options.seed,
        painter: Painter { colour },
        interactive,
        pace: options.pace.unwrap_or(if interactive { Pace::Enter } else { Pace::Choices }),
        strict: options.strict && !interactive,
        input,
        warned: BTreeSet::new(),
    };
    play(&mut player, document, world_box, anchor.as_deref())
}

/// Plays documents in turn: the first, then each one `:restart` or `:load` reads afresh.
fn play(player: &mut Player, mut document: Document, mut world: Box<dyn World>, anchor: Option<&str>) -> ExitCode {
    let mut plan = Plan::Start;
    loop {
        match round(player, &document, world, &plan, anchor) {
            Flow::Exit(code) => return code,
            Flow::Reload(fresh, fresh_world, next) => {
                document = *fresh;
                world = fresh_world;
                plan = next;
            }
        }
    }
}

/// One playthrough of `document`, begun as `plan` says.
fn round(player: &mut Player, document: &Document, world: Box<dyn World>, plan: &Plan, anchor: Option<&str>) -> Flow {
    let opened = match plan {
        Plan::Start | Plan::Restart(None, _) => {
            Playthrough::start(document, world, player.seed, anchor).map_err(|e| e.to_string())
        }
        Plan::Restart(Some(json), _) => Playthrough::load(document, world, json)
            .map_err(|e| e.to_string())
            .and_then(|(mut p, _)| Ok((p.restart().map_err(|e| e.to_string())?, p)).map(|(shown, p)| (p, shown))),
        Plan::Loaded(json) => {
            Playthrough::load(document, world, json).map(|(p, _)| (p, Vec::new())).map_err(|e| e.to_string())
        }
    };
    let (mut playthrough, shown) = match opened {
        Ok(opened) => opened,
        Err(message) => return Flow::Exit(fail(&message)),
    };
    match plan {
        Plan::Restart(_, note) => player.say(&format!("(restarted{note})")),
        Plan::Loaded(_) => player.show_current(&playthrough),
        Plan::Start => {}
    }
    player.show(&shown);
    if matches!(plan, Plan::Start) && playthrough.waiting() == Waiting::NotStarted {
        return Flow::Exit(fail("the story did not start"));
    }
    player.play(&mut playthrough)
}

pub(crate) fn fail(message: &str) -> ExitCode {
    errln!("stagehand play: {}", message.trim_end());
    ExitCode::FAILURE
}
