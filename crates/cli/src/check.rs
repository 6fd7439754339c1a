//! `stagehand check FILE…`: each file checked by `stagehand-documents` as its kind says (a script
//! compiled, read back and linted; a playbook read and linted; a ChatMapper project loaded and
//! checked), the findings printed for people or as JSON. Exits 0 when clean, 1 on errors;
//! warnings are counted.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stagehand_dialoguedown::Severity;
use stagehand_documents::check::{check_machine, check_playbook, check_project, check_script, Finding};
use stagehand_documents::{kind, Kind};

use crate::compile::{report, tally, MessageFormat, Settings};

pub fn run(files: &[PathBuf], settings: &Settings, format: MessageFormat) -> ExitCode {
    let (mut errors, mut warnings) = (0, 0);
    let mut json = Vec::new();
    for file in files {
        let name = file.to_string_lossy().into_owned();
        let (e, w) = match crate::read::bytes(file) {
            Err(message) => unreadable(&name, &message, format, &mut json),
            Ok(bytes) => match kind(file, &bytes) {
                Kind::Script => script(file, bytes, settings, format, &mut json),
                Kind::Playbook => findings(&check_playbook(&name, &bytes), format, &mut json),
                Kind::ChatMapper => findings(&check_project(&name, &bytes), format, &mut json),
                Kind::Machine => findings(&check_machine(&name, &bytes), format, &mut json),
            },
        };
        if format == MessageFormat::Human {
            outln!("{name}: {e} error(s), {w} warning(s)");
        }
        errors += e;
        warnings += w;
    }
    if format == MessageFormat::Json {
        outln!("{}", serde_json::Value::Array(json));
    } else if files.len() > 1 {
        outln!("{} file(s): {errors} error(s), {warnings} warning(s)", files.len());
    }
    ExitCode::from(u8::from(errors > 0))
}

/// Prints findings, or gathers them for JSON; how many errors and warnings.
fn findings(found: &[Finding], format: MessageFormat, json: &mut Vec<serde_json::Value>) -> (usize, usize) {
    for finding in found {
        match format {
            MessageFormat::Human => outln!("{}", finding.human),
            MessageFormat::Json => json.push(finding.json.clone()),
        }
    }
    let count = |severity| found.iter().filter(|f| f.severity == severity).count();
    (count(Severity::Error), count(Severity::Warning))
}

/// A file that cannot be read as its kind at all: one error, in the array when JSON is asked for.
fn unreadable(name: &str, message: &str, format: MessageFormat, json: &mut Vec<serde_json::Value>) -> (usize, usize) {
    match format {
        MessageFormat::Human => errln!("error: {message}"),
        MessageFormat::Json => json.push(Finding::unreadable(name, message).json),
    }
    (1, 0)
}

fn script(
    file: &Path,
    bytes: Vec<u8>,
    settings: &Settings,
    format: MessageFormat,
    json: &mut Vec<serde_json::Value>,
) -> (usize, usize) {
    let name = file.to_string_lossy().into_owned();
    // The bytes read to tell the file's kind are the script: it is not read a second time.
    let checked = crate::read::bytes_to_load(file, bytes).and_then(|(source, _loading)| {
        let options = crate::compile::options_for(file, settings)?;
        Ok((check_script(&name, &source, &options), source))
    });
    let (checked, source) = match checked {
        Ok(checked) => checked,
        Err(message) => return unreadable(&name, &message, format, json),
    };
    if format == MessageFormat::Json {
        json.extend(stagehand_dialoguedown::render_json_values(&checked.diagnostics));
    } else {
        report(&checked.diagnostics, &source, &name, format);
    }
    let (errors, warnings) = tally(&checked.diagnostics);
    let (e, w) = findings(&checked.findings, format, json);
    (errors + e, warnings + w)
}
