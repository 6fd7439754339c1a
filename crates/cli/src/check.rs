//! `stagehand check FILE…`: scripts are compiled, read back through the playbook reader and
//! their graph linted; playbooks are read and linted; ChatMapper projects are loaded and
//! checked. Exits 0 when clean, 1 on errors; warnings are counted.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;
use stagehand_dialoguedown::Severity;
use stagehand_documents::{lint, Lint};

use crate::compile::{compile_bytes, report, tally, MessageFormat, Settings};
use stagehand_documents::{kind, Kind};

/// Errors and warnings found in one file.
#[derive(Default)]
struct Count {
    errors: usize,
    warnings: usize,
}

pub fn run(files: &[PathBuf], settings: &Settings, format: MessageFormat) -> ExitCode {
    let mut total = Count::default();
    let mut json_findings = Vec::new();
    for file in files {
        let name = file.to_string_lossy().into_owned();
        let count = match crate::read::bytes(file) {
            Err(message) => {
                errln!("error: {message}");
                Count { errors: 1, warnings: 0 }
            }
            Ok(bytes) => match kind(file, &bytes) {
                Kind::Script => check_script(file, bytes, settings, format, &mut json_findings),
                Kind::Playbook => check_playbook(&name, &bytes, format, &mut json_findings),
                Kind::ChatMapper => check_project(&name, &bytes, format, &mut json_findings),
            },
        };
        if format == MessageFormat::Human {
            outln!("{name}: {} error(s), {} warning(s)", count.errors, count.warnings);
        }
        total.errors += count.errors;
        total.warnings += count.warnings;
    }
    if format == MessageFormat::Json {
        outln!("{}", serde_json::Value::Array(json_findings));
    } else if files.len() > 1 {
        outln!("{} file(s): {} error(s), {} warning(s)", files.len(), total.errors, total.warnings);
    }
    if total.errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints graph lints, or gathers them for JSON.
fn report_lints(
    name: &str,
    lints: &[Lint],
    format: MessageFormat,
    json_findings: &mut Vec<serde_json::Value>,
) -> Count {
    let mut count = Count::default();
    for found in lints {
        match found.severity {
            Severity::Error => count.errors += 1,
            Severity::Warning => count.warnings += 1,
            _ => {}
        }
        let at = match found.place {
            Some((line, column)) => format!("{name}:{line}:{column}"),
            None => format!("{name} (node {})", found.node),
        };
        match format {
            MessageFormat::Human => outln!("{}[graph]: {}\n  --> {at}", found.severity.as_str(), found.message),
            MessageFormat::Json => json_findings.push(json!({
                "file": name, "severity": found.severity.as_str(), "code": "graph",
                "message": found.message, "node": found.node,
                "line": found.place.map(|p| p.0), "column": found.place.map(|p| p.1),
            })),
        }
    }
    count
}

fn check_script(
    file: &Path,
    bytes: Vec<u8>,
    settings: &Settings,
    format: MessageFormat,
    json_findings: &mut Vec<serde_json::Value>,
) -> Count {
    let name = file.to_string_lossy().into_owned();
    // The bytes read to tell the file's kind are the script: it is not read a second time.
    let (source, mut compilation) = match compile_bytes(file, bytes, settings) {
        Ok(done) => done,
        Err(message) => {
            errln!("error: {message}");
            return Count { errors: 1, warnings: 0 };
        }
    };
    if format == MessageFormat::Json {
        json_findings.extend(stagehand_dialoguedown::render_json_values(&compilation.diagnostics));
    }
    let (errors, warnings) = tally(&compilation.diagnostics);
    let mut count = Count { errors, warnings };
    // The playbook is checked, and dropped, before the diagnostics are rendered for people:
    // rendering indexes every line of the script, and a big playbook need not wait beside that.
    let found =
        compilation.playbook.take().map(|playbook| graph_findings(&playbook, &source, &compilation.node_offsets));
    drop(compilation.node_offsets);
    if format == MessageFormat::Human && !compilation.diagnostics.is_empty() {
        report(&compilation.diagnostics, &source, &name, format);
    }
    drop(source);
    match found {
        None => {}
        Some(Err(refusal)) => {
            count.errors += 1;
            let message = format!("the compiled playbook does not read back: {refusal}");
            match format {
                MessageFormat::Human => outln!("error[reader]: {message}\n  --> {name}"),
                MessageFormat::Json => json_findings.push(json!({
                    "file": name, "severity": "error", "code": "reader", "message": message,
                })),
            }
        }
        Some(Ok(lints)) => {
            let more = report_lints(&name, &lints, format, json_findings);
            count.errors += more.errors;
            count.warnings += more.warnings;
        }
    }
    count
}

/// What the compiled playbook's graph shows: the reader's refusal, if it refuses it, else the
/// lints, each placed in the script.
fn graph_findings(
    playbook: &stagehand_playbook::Playbook,
    source: &str,
    node_offsets: &[usize],
) -> Result<Vec<Lint>, String> {
    // What the compiler built must pass the reader a runtime uses: its rules, run on the playbook
    // in memory (the writer's output reads back as the same playbook: the playbook crate's promise).
    stagehand_playbook::Reader::new().check_playbook(playbook).map_err(|refusal| refusal.to_string())?;
    // The playbook carries no positions; the compiler says where each node was written.
    let places = stagehand_dialoguedown::line_columns(source, node_offsets);
    Ok(lint(playbook, &places))
}

fn check_playbook(
    name: &str,
    bytes: &[u8],
    format: MessageFormat,
    json_findings: &mut Vec<serde_json::Value>,
) -> Count {
    let read = if stagehand_playbook::is_binary(bytes) {
        stagehand_playbook::read_binary(bytes).map_err(|e| e.to_string())
    } else {
        stagehand_playbook::read(&String::from_utf8_lossy(bytes)).map_err(|e| e.to_string())
    };
    match read {
        Ok(playbook) => report_lints(name, &lint(&playbook, &[]), format, json_findings),
        Err(error) => {
            match format {
                MessageFormat::Human => outln!("error[reader]: {error}\n  --> {name}"),
                MessageFormat::Json => json_findings.push(json!({
                    "file": name, "severity": "error", "code": "reader", "message": error,
                })),
            }
            Count { errors: 1, warnings: 0 }
        }
    }
}

fn check_project(name: &str, bytes: &[u8], format: MessageFormat, json_findings: &mut Vec<serde_json::Value>) -> Count {
    use stagehand_chatmapper::check::{check, FindingKind};
    let project = match stagehand_chatmapper::load(bytes, name) {
        Ok(project) => project,
        Err(error) => {
            match format {
                MessageFormat::Human => outln!("error[load]: {error}"),
                MessageFormat::Json => json_findings.push(json!({
                    "file": name, "severity": "error", "code": "load", "message": error.to_string(),
                    "line": error.position().map(|p| p.0), "column": error.position().map(|p| p.1),
                })),
            }
            return Count { errors: 1, warnings: 0 };
        }
    };
    let mut count = Count::default();
    for finding in check(&project) {
        // A link into nothing is a broken project; the rest the engine survives (an unevaluable
        // condition counts as true, a failing script is logged), so they warn.
        let error = matches!(finding.kind, FindingKind::MissingConversation { .. } | FindingKind::MissingEntry { .. });
        let severity = if error { "error" } else { "warning" };
        if error {
            count.errors += 1;
        } else {
            count.warnings += 1;
        }
        match format {
            MessageFormat::Human => outln!("{severity}[chatmapper]: {finding}\n  --> {name}"),
            MessageFormat::Json => json_findings.push(json!({
                "file": name, "severity": severity, "code": "chatmapper", "message": finding.to_string(),
                "conversation": finding.conversation, "entry": finding.entry,
            })),
        }
    }
    count
}
