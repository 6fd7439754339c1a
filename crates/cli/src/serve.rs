//! `stagehand serve`: glue over `stagehand-server`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use stagehand_server::{Config, Limits, DEFAULT_DATABASE, DEFAULT_LISTEN};

/// The flags of `stagehand serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, default_value = DEFAULT_LISTEN)]
    listen: String,
    /// The database: `sqlite:FILE` or `postgres://USER@HOST:PORT/DB`.
    #[arg(long, default_value = DEFAULT_DATABASE)]
    database: String,
    /// A folder whose documents are loaded at start (and listed by GET /v1/documents).
    #[arg(long)]
    documents: Option<PathBuf>,
}

pub fn run(args: ServeArgs) -> ExitCode {
    let config =
        Config { listen: args.listen, database: args.database, documents: args.documents, limits: Limits::default() };
    match stagehand_server::run(config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            errln!("stagehand serve: {error}");
            ExitCode::from(2)
        }
    }
}
