//! `stagehand compile FILE… [-o OUT]`: scripts to playbooks, with diagnostics.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stagehand_dialoguedown::{compile, render_json, write_human, Compilation, Diagnostic, Mode, Options};
pub use stagehand_documents::check::tally;
pub use stagehand_documents::Spelling;

/// How diagnostics are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MessageFormat {
    /// As rustc renders them, with the source line and a label under the span.
    Human,
    /// One JSON array per script, for editors.
    Json,
}

/// How the command line asks for scripts to be compiled; every command that compiles one takes
/// these options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Settings {
    /// For a script: the configuration (`dialogue.toml`). By default the nearest one in the
    /// script's folder or a folder above it, if any.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// For a script: how far to compile after an error, whatever the configuration says:
    /// `stage-boundary` (the default) reports every error the syntax stages find and stops there
    /// when there are any; `best-effort` reports what every stage finds.
    #[arg(long, value_parser = mode_parser())]
    pub mode: Option<Mode>,
}

/// `--mode` takes the names `dialogue.toml` does.
fn mode_parser() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Mode::ALL.map(Mode::as_str))
        .try_map(|name| Mode::parse(&name).ok_or_else(|| format!("unknown mode \"{name}\"")))
}

/// The options a script compiles with: the configuration `settings` name, else the nearest
/// `dialogue.toml` in the script's folder or above it (else the defaults), with `--mode` over
/// its `mode`.
pub fn options_for(script: &Path, settings: &Settings) -> Result<Options, String> {
    let path = config_for(script, settings);
    let mut options = match &path {
        Some(path) => {
            let text = crate::read::text(path)?;
            Options::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => Options::default(),
    };
    if let Some(mode) = settings.mode {
        options.mode = mode;
    }
    // The playbook names the script from the project's folder, however it was named here.
    let real = |path: &Path| std::fs::canonicalize(path).or_else(|_| std::path::absolute(path)).ok();
    let root = path.as_deref().and_then(real).and_then(|config| config.parent().map(Path::to_path_buf));
    let script = real(script).unwrap_or_else(|| script.to_path_buf());
    options.script = Some(stagehand_dialoguedown::script_name(&script, root.as_deref()));
    Ok(options)
}

/// The configuration a script compiles with: the one `settings` name, else the nearest.
pub fn config_for(script: &Path, settings: &Settings) -> Option<PathBuf> {
    settings.config.clone().or_else(|| nearest_config(script))
}

/// The `dialogue.toml` nearest a script: in its folder, or the closest folder above.
fn nearest_config(script: &Path) -> Option<PathBuf> {
    let script = std::path::absolute(script).ok()?;
    script.ancestors().skip(1).map(|folder| folder.join("dialogue.toml")).find(|config| config.is_file())
}

/// Compiles one script, returning its source (for rendering) and what the compile produced.
pub fn compile_file(script: &Path, settings: &Settings) -> Result<(String, Compilation), String> {
    let (source, _loading) = crate::read::text_to_load(script)?;
    if let Some(kind) = stagehand_documents::recognised(source.as_bytes()) {
        let name = script.display();
        return Err(format!(
            "{name} is {}, not a DialogueDown script: play it with `stagehand play {name}`, or check it with `stagehand check {name}`",
            kind.described()
        ));
    }
    let options = options_for(script, settings)?;
    let compilation = compile(&source, &script.to_string_lossy(), &options);
    Ok((source, compilation))
}

/// Writes diagnostics to standard error in the chosen format.
pub fn report(diagnostics: &[Diagnostic], source: &str, file: &str, format: MessageFormat) {
    if diagnostics.is_empty() {
        return;
    }
    match format {
        MessageFormat::Human => {
            use std::io::IsTerminal;
            let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            // Written as rendered, report by report: a big script's advice can run to megabytes.
            use std::io::Write;
            let mut err = std::io::BufWriter::new(std::io::stderr().lock());
            // A failure to write to standard error is dropped, as `out::err` drops it.
            let _ = write_human(diagnostics, source, file, colour, &mut err).and_then(|()| err.flush());
        }
        MessageFormat::Json => errln!("{}", render_json(diagnostics)),
    }
}

/// Writes a playbook to a file, or to standard output.
fn put(playbook: &stagehand_playbook::Playbook, path: Option<&Path>, spelling: Spelling) -> std::io::Result<()> {
    let out: Box<dyn std::io::Write> = match path {
        Some(path) => Box::new(std::fs::File::create(path)?),
        None => Box::new(std::io::stdout().lock()),
    };
    spelling.write(playbook, &mut std::io::BufWriter::with_capacity(1 << 16, out))
}

pub fn run(
    files: &[PathBuf],
    output: Option<&Path>,
    spelling: Spelling,
    settings: &Settings,
    format: MessageFormat,
) -> ExitCode {
    if files.len() > 1 && output.is_some_and(|o| !o.is_dir()) {
        errln!("error: with several scripts, -o must name an existing folder");
        return ExitCode::from(2);
    }
    let mut failed = false;
    for script in files {
        let Ok(destination) = spelling.destination(output, script).inspect_err(|e| errln!("error: {e}")) else {
            failed = true;
            continue;
        };
        let (source, compilation) = match compile_file(script, settings) {
            Ok(done) => done,
            Err(message) => {
                errln!("error: {message}");
                failed = true;
                continue;
            }
        };
        let name = script.to_string_lossy();
        let (errors, warnings) = tally(&compilation.diagnostics);
        let Compilation { playbook, diagnostics, .. } = compilation;
        let Some(playbook) = playbook.filter(|_| errors == 0) else {
            report(&diagnostics, &source, &name, format);
            errln!("{name}: {errors} error(s), {warnings} warning(s); no playbook written");
            failed = true;
            continue;
        };
        // The playbook is written, and dropped, before the diagnostics are rendered: rendering
        // indexes every line of the script, and a big playbook need not wait beside that.
        let written = put(&playbook, destination.as_deref(), spelling);
        drop(playbook);
        report(&diagnostics, &source, &name, format);
        drop(source);
        if let Err(e) = written {
            if destination.is_none() && e.kind() == std::io::ErrorKind::BrokenPipe {
                // Standard output's reader has gone: end quietly, as `out::write` does (P6).
                std::process::exit(0);
            }
            let place = destination.as_ref().map_or("standard output".into(), |path| path.display().to_string());
            errln!("error: {place}: {e}");
            failed = true;
            continue;
        }
        if let Some(path) = &destination {
            errln!("{name}: compiled to {} ({warnings} warning(s))", path.display());
        }
    }
    ExitCode::from(u8::from(failed))
}
