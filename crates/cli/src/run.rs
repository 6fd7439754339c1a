//! `stagehand run` and `stagehand run resume`: glue between the arguments, the document (opened
//! by `stagehand-documents`) and `stagehand_worlds::runs` (decisions H11-H13, H43 in
//! `docs/design/host-contract.md`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use stagehand_documents::Document;
use stagehand_session::parked::{Parked, Store};
use stagehand_worlds::ports::{Bindings, Ported};
use stagehand_worlds::runs::{self, RunError, RunOf, Turn};
use stagehand_worlds::World;

use crate::compile::Settings;
use crate::play::{open_document, open_world};

/// `stagehand run`'s arguments.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct RunArgs {
    #[command(subcommand)]
    resume: Option<RunCommand>,
    /// The script, playbook, ChatMapper project or agent machine.
    #[arg(required = true)]
    file: Option<PathBuf>,
    /// One action to take once it parks (as `run resume` takes it); an agent machine's task.
    reply: Option<String>,
    /// An agent player's port: NAME=exec:COMMAND or NAME=openai:MODEL@URL (repeatable).
    #[arg(long = "player")]
    players: Vec<String>,
    /// The Captain's port (exec:COMMAND or openai:MODEL@URL).
    #[arg(long)]
    captain: Option<String>,
    /// The judge's port; the Captain's when absent.
    #[arg(long)]
    judge: Option<String>,
    /// Print exactly one JSON envelope on standard output.
    #[arg(long)]
    json: bool,
    /// Who answers its questions and carries out its commands (`.lua`, `.toml`, `.json`); by
    /// default the world named for the file, if one sits beside it.
    #[arg(long)]
    world: Option<PathBuf>,
    /// The seed random choices draw from.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Append the session's trace (JSON lines) to this file, on this and every resume.
    #[arg(long)]
    trace: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum RunCommand {
    /// Takes one action on a parked run: an action id, its number, or free text for a question.
    Resume {
        /// The run's id, then the action; with --last, only the action.
        #[arg(num_args = 0..=2)]
        words: Vec<String>,
        /// The run parked last.
        #[arg(long)]
        last: bool,
        /// An idempotency key: the same key again prints the same envelope and advances once.
        #[arg(long)]
        key: Option<String>,
        /// Print exactly one JSON envelope on standard output.
        #[arg(long)]
        json: bool,
    },
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn bad(message: &str) -> ExitCode {
    errln!("stagehand run: {message}");
    ExitCode::from(1)
}

/// Runs `stagehand run`.
pub fn run(args: RunArgs) -> ExitCode {
    let store = match Store::from_env() {
        Ok(store) => store,
        Err(e) => return bad(&e.to_string()),
    };
    if let Some(RunCommand::Resume { words, last, key, json }) = args.resume {
        let (id, action) = match runs::which(&store, &words, last, key.as_deref()) {
            Ok(which) => which,
            Err(message) => return bad(&message),
        };
        // Two resumes of one run take turns (H54).
        let _held = match store.hold(&id) {
            Ok(held) => held,
            Err(e) => return bad(&e.to_string()),
        };
        return match store.load(&id) {
            Ok(record) => finish(resume(&store, record, action.as_deref(), key.as_deref()), json),
            Err(e) => match key.as_deref().and_then(|key| runs::replay_ended(&store, &id, action.as_deref(), key)) {
                Some(turn) => finish(turn, json),
                None => bad(&e.to_string()),
            },
        };
    }
    let Some(file) = args.file else { return bad("name the file to run") };
    let world = args.world.or_else(|| stagehand_worlds::world_beside(&file, Path::is_file));
    let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_else(|_| ".".into());
    let ports = match Bindings::parse(&args.players, args.captain.as_deref(), args.judge.as_deref(), &cwd) {
        Ok(ports) => ports,
        Err(e) => return bad(&e.to_string()),
    };
    let of = RunOf::new(&file, world.as_deref(), args.seed, args.trace.as_deref(), ports);
    let started = now();
    let id = format!("run-{started}-{}", std::process::id());
    let reply = args.reply.as_deref();
    finish(
        with_document(&of, |document, world| runs::begin(document, world, &id, of.clone(), reply, &store, started)),
        args.json,
    )
}

/// Opens the run's document and world and hands them to `go`.
fn with_document(
    of: &RunOf,
    go: impl FnOnce(&Document, &mut dyn World) -> Result<Turn, RunError>,
) -> Result<Turn, RunError> {
    let world = of.world.as_deref().map(Path::new);
    let mut opened = Ported::bind(open_world(world, of.seed).map_err(RunError::Refused)?, of.ports.as_ref());
    let options = stagehand_chatmapper::Options::seeded(of.seed);
    let document =
        open_document(Path::new(&of.document), &Settings::default(), options, world).map_err(RunError::Refused)?;
    go(&document, opened.as_mut())
}

fn resume(store: &Store, record: Parked, action: Option<&str>, key: Option<&str>) -> Result<Turn, RunError> {
    let of = RunOf::of_record(&record)?;
    with_document(&of, |document, world| runs::resume(document, world, record, action, key, store, now()))
}

/// Prints a turn (one envelope, or words for a person) and gives its exit status.
fn finish(turn: Result<Turn, RunError>, json: bool) -> ExitCode {
    let turn = match turn {
        Ok(turn) => turn,
        Err(e) => {
            errln!("stagehand run: {e}");
            return ExitCode::from(e.status());
        }
    };
    for line in turn.log.iter().chain(&runs::hint(&turn.envelope)) {
        errln!("{line}");
    }
    if json {
        outln!("{}", turn.envelope);
    } else {
        crate::out::write(&runs::for_a_person(&turn.envelope));
    }
    ExitCode::from(turn.status)
}
