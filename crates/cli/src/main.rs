//! `stagehand`: the command-line face of Stagehand. Glue only: every behaviour lives in a library
//! crate beneath it.

mod conform;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Commands::Conform { paths } => conform::run(&paths),
    }
}
