//! `stagehand`: the command-line face of Stagehand. Glue only: every behaviour lives in a library
//! crate beneath it.

mod conform;
mod graph;
mod play;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Stagehand plays scripted conversations: DialogueDown scripts and playbooks, and ChatMapper
/// projects.
#[derive(Debug, Parser)]
#[command(name = "stagehand", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Runs conformance cases: each PATH is a case folder (fixture.json beside its document) or a
    /// folder of them. Prints a line per case and `N passed, M failed`; exits 0 when nothing
    /// diverged.
    Conform {
        /// Case folders, or folders of cases.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Plays a DialogueDown script (`*.dialogue.md`) or a playbook (JSON). In a terminal: styled
    /// speech, numbered menus, and the commands :undo, :history, :save FILE, :load FILE, :why,
    /// :restart, :quit. Without one: one input per line (a number picks an option, an empty line
    /// moves on), a plain transcript, exit 0 at the end of the story.
    Play {
        /// The script or playbook.
        file: PathBuf,
        /// Who answers the script's questions and carries out its commands: a Lua script
        /// (`.lua`) or facts (`.toml`, `.json`).
        #[arg(long)]
        world: Option<PathBuf>,
        /// The seed random choices draw from.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Start at this anchor (a scene's slug) instead of the entry.
        #[arg(long)]
        start: Option<String>,
    },
    /// Draws a script's or playbook's graph: scenes as clusters, node kinds as shapes,
    /// conditions on edges.
    Graph {
        /// The script or playbook.
        file: PathBuf,
        /// The output format.
        #[arg(long, value_enum, default_value_t = graph::Format::Dot)]
        format: graph::Format,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Commands::Conform { paths } => conform::run(&paths),
        Commands::Play { file, world, seed, start } => play::run(play::PlayOptions { file, world, seed, start }),
        Commands::Graph { file, format } => graph::run(&file, format),
    }
}
