//! `stagehand`: the command-line face of Stagehand. Glue only: every behaviour lives in a library crate.

#[macro_use]
mod out;

mod check;
mod compile;
mod conform;
mod graph;
mod play;
mod read;
mod run;

/// mimalloc serves a compile's storm of small allocations several times faster (BENCHMARKS.md);
/// before anything allocates (`.init_array`, as std's own set-up), its (v2) options 4
/// (`arena_eager_commit`) and 15 (`purge_delay`) go to 0 so freed memory leaves at once (issue 11).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod before_main {
    extern "C" fn set() {
        // SAFETY: `mi_option_set` stores an integer (0 is valid) in mimalloc's table; nothing else runs.
        [4, 15].into_iter().for_each(|option| unsafe { libmimalloc_sys::mi_option_set(option, 0) });
    }
    #[used]
    #[link_section = ".init_array"]
    static SET: extern "C" fn() = set;
}

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
    /// Runs conformance cases.
    ///
    /// Each PATH is a case folder (fixture.json beside its document) or a folder of them.
    ///
    /// Prints a line per case and `N passed, M failed`; exits 0 when nothing diverged.
    Conform {
        /// Case folders, or folders of cases.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Plays a script, a playbook or a ChatMapper project.
    ///
    /// The file is a DialogueDown script (`*.dialogue.md`), a playbook (JSON) or a ChatMapper
    /// export (XML or JSON), told apart by content.
    ///
    /// In a terminal: styled speech, numbered menus, Enter after each line, and the commands
    /// :undo, :history, :save FILE, :save! FILE, :load FILE, :why, :skip, :start NAME, :restart, :quit.
    ///
    /// Piped: a plain transcript; lines play on and only menus read a line (a number, or a
    /// command); exit 0 when the story ends.
    ///
    /// Without --world, a world named for the file beside it (`club-fair.dialogue.md` →
    /// `club-fair.world.lua`, `.toml` or `.json`) is used, with a notice on standard error.
    ///
    /// No file larger than 256 MiB is read; set STAGEHAND_MAX_FILE_SIZE (e.g. `1GiB`) to change
    /// that.
    Play(play::PlayOptions),
    /// Compiles DialogueDown scripts to playbooks (JSON).
    ///
    /// Diagnostics go to standard error, as rustc renders them or as JSON; exits 1 when a script
    /// has errors.
    Compile {
        /// The scripts.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Where to write the playbook (one script), or a folder (several). Without it the
        /// playbook goes to standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Indent the playbook for reading; by default it is written on one line, in the canonical
        /// form (the same document, about half the size).
        #[arg(long, conflicts_with = "binary")]
        pretty: bool,
        /// Write the binary form instead of JSON (docs/playbook-binary.md): the same playbook,
        /// with the same fingerprint, smaller and faster to load. `play` knows it by its first
        /// bytes; a folder given to `-o` gets `NAME.playbook.bin`.
        #[arg(long)]
        binary: bool,
        #[command(flatten)]
        settings: compile::Settings,
        /// How diagnostics are written.
        #[arg(long, value_enum, default_value_t = compile::MessageFormat::Human)]
        message_format: compile::MessageFormat,
    },
    /// Checks scripts, playbooks, ChatMapper projects and agent machines.
    ///
    /// A script is compiled, read back and its graph linted; a ChatMapper project is checked for
    /// missing links, unreachable entries, Lua that does not compile and undeclared variables.
    ///
    /// Exits 0 when clean, 1 on errors; warnings are counted.
    Check {
        /// Scripts (`*.dialogue.md`), playbooks, ChatMapper projects (`*.xml`, `*.json`), agent machines.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        settings: compile::Settings,
        /// How diagnostics are written.
        #[arg(long, value_enum, default_value_t = compile::MessageFormat::Human)]
        message_format: compile::MessageFormat,
    },
    /// Runs a story one turn a command, parking it between commands.
    ///
    /// `stagehand run FILE` plays until a person must act (a menu, a question no world answers,
    /// a failed command), prints what was said and the actions, and parks the run under
    /// `${XDG_STATE_HOME:-$HOME/.local/state}/stagehand/sessions/`. `stagehand run resume ID
    /// [ACTION]` (or `--last`) takes one action and plays on.
    ///
    /// Exits 0 when the story ended (its record is deleted), 1 for bad arguments, an unknown id or
    /// a record that cannot be read, 2 for a failure (the record is kept), 3 when parked.
    Run(run::RunArgs),
    /// Draws the graph of a script, a playbook or an agent machine.
    ///
    /// Scenes are clusters, node kinds are shapes, conditions are on the edges.
    Graph {
        /// The script, playbook or agent machine (`*.toml`, `*.json`).
        file: PathBuf,
        /// The output format.
        #[arg(long, value_enum, default_value_t = graph::Format::Dot)]
        format: graph::Format,
        #[command(flatten)]
        settings: compile::Settings,
    },
    /// Serves durable sessions over HTTP (docs/server.md).
    ///
    /// Documents are uploaded (or loaded from --documents), sessions created and played by
    /// applying actions with idempotency keys; every session survives a restart. Without
    /// --database, a SQLite file `stagehand.db` in the working folder is used (created on first
    /// use); `--database postgres://…` lets several servers share one PostgreSQL database.
    ///
    /// Prints `stagehand serve: listening on http://ADDR` once it listens; SIGTERM or ctrl-c
    /// finishes the requests in flight and exits 0.
    Serve(stagehand_server::Config),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            e.print().ok();
            // `stagehand run` exits 1 for bad arguments (CONTRACT.md §3); clap's status otherwise.
            let run = std::env::args().nth(1).is_some_and(|a| a == "run") && e.use_stderr();
            return ExitCode::from(if run { 1 } else { e.exit_code() as u8 });
        }
    };
    let code = match cli.command {
        Commands::Conform { paths } => conform::run(&paths),
        Commands::Play(options) => play::run(options),
        Commands::Compile { files, output, pretty, binary, settings, message_format } => {
            let spelling = compile::Spelling::of(binary, pretty);
            compile::run(&files, output.as_deref(), spelling, &settings, message_format)
        }
        Commands::Check { files, settings, message_format } => check::run(&files, &settings, message_format),
        Commands::Graph { file, format, settings } => graph::run(&file, format, &settings),
        Commands::Run(args) => run::run(args),
        Commands::Serve(config) => match stagehand_server::run(config) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                errln!("stagehand serve: {error}");
                ExitCode::from(2)
            }
        },
    };
    out::flush();
    code
}
