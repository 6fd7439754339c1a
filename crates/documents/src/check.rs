//! What `stagehand check` finds in a document of any kind, as findings a front-end prints for
//! people or as JSON (this module owns that JSON spelling). A script's compiler diagnostics are
//! the compiler's own (`stagehand_dialoguedown::Diagnostic`); the findings here come after them:
//! the reader's refusal of the compiled playbook, the graph lints, a ChatMapper project's problems.

use serde_json::{json, Value};
use stagehand_dialoguedown::{compile, Diagnostic, Severity};

use crate::lint::{lint, Lint};

/// One problem found.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// How bad it is.
    pub severity: Severity,
    /// How people read it: `warning[graph]: … \n  --> file:3:1`.
    pub human: String,
    /// How editors read it: `{"file", "severity", "code", "message", …}`.
    pub json: Value,
}

impl Finding {
    fn new(severity: Severity, code: &str, message: String, at: &str, file: &str, more: Value) -> Finding {
        let human = format!("{}[{code}]: {message}\n  --> {at}", severity.as_str());
        let mut object = serde_json::Map::new();
        object.insert("file".into(), file.into());
        object.insert("severity".into(), severity.as_str().into());
        object.insert("code".into(), code.into());
        object.insert("message".into(), message.into());
        if let Value::Object(more) = more {
            object.extend(more);
        }
        Finding { severity, human, json: Value::Object(object) }
    }
}

impl Finding {
    /// A file that cannot be read (or read as text) at all: one error naming it.
    pub fn unreadable(file: &str, message: &str) -> Finding {
        Finding::new(Severity::Error, "read", message.to_owned(), file, file, json!({}))
    }
}

/// How many of `diagnostics` are errors and how many warnings.
pub fn tally(diagnostics: &[Diagnostic]) -> (usize, usize) {
    let count = |severity| diagnostics.iter().filter(|d| d.severity == severity).count();
    (count(Severity::Error), count(Severity::Warning))
}

/// A script checked: the compiler's diagnostics (for the caller to render against its source),
/// then the findings on the playbook it compiled to (none when it did not compile).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedScript {
    /// What the compiler said.
    pub diagnostics: Vec<Diagnostic>,
    /// What the compiled playbook shows.
    pub findings: Vec<Finding>,
}

/// Compiles a script and checks what it compiled to: the reader's rules, run on the playbook in
/// memory (the writer's output reads back as the same playbook: the playbook crate's promise),
/// then the graph lints, each placed in the script. The playbook is dropped before this returns.
pub fn check_script(name: &str, source: &str, options: &stagehand_dialoguedown::Options) -> CheckedScript {
    let mut compilation = compile(source, name, options);
    let findings = match compilation.playbook.take() {
        None => Vec::new(),
        Some(playbook) => {
            // The offsets are done with once placed: not held beside the lints.
            let offsets = std::mem::take(&mut compilation.node_offsets);
            compiled_findings(name, source, &playbook, &offsets)
        }
    };
    CheckedScript { diagnostics: compilation.diagnostics, findings }
}

/// The findings on the playbook a script compiled to (`offsets`: where each node was written in
/// `source`, as the compiler gives them): the reader's rules, run on the playbook in memory,
/// then the graph lints, each placed in the script. [`check_script`] and a document opened
/// with [`OpenOptions::check`](crate::OpenOptions::check) both find them here.
pub fn compiled_findings(
    name: &str,
    source: &str,
    playbook: &stagehand_playbook::Playbook,
    offsets: &[u32],
) -> Vec<Finding> {
    match stagehand_playbook::Reader::new().check_playbook(playbook) {
        Err(refusal) => {
            let message = format!("the compiled playbook does not read back: {refusal}");
            vec![Finding::new(Severity::Error, "reader", message, name, name, json!({}))]
        }
        Ok(()) => {
            let places = stagehand_dialoguedown::line_columns(source, offsets);
            lints(name, &lint(playbook, &places))
        }
    }
}

/// The graph lints of a playbook read as it is (no source to place them in).
pub fn playbook_findings(name: &str, playbook: &stagehand_playbook::Playbook) -> Vec<Finding> {
    lints(name, &lint(playbook, &[]))
}

/// Reads a playbook (JSON or binary) and lints its graph.
pub fn check_playbook(name: &str, bytes: &[u8]) -> Vec<Finding> {
    match crate::document::playbook_from(bytes) {
        Ok(playbook) => playbook_findings(name, &playbook),
        Err(refused) => {
            let at = refused.place.map_or_else(|| name.to_owned(), |(line, column)| format!("{name}:{line}:{column}"));
            let place = json!({"line": refused.place.map(|p| p.0), "column": refused.place.map(|p| p.1)});
            let message = format!("not a playbook: {}", refused.message);
            vec![Finding::new(Severity::Error, "reader", message, &at, name, place)]
        }
    }
}

/// Loads a ChatMapper project and checks it. A link into nothing is a broken project (an
/// error); the rest the engine survives (an unevaluable condition counts as true, a failing
/// script is logged), so they warn.
pub fn check_project(name: &str, bytes: &[u8]) -> Vec<Finding> {
    let project = match stagehand_chatmapper::load(bytes, name) {
        Ok(project) => project,
        Err(error) => {
            let (line, column) = (error.position().map(|p| p.0), error.position().map(|p| p.1));
            let json = json!({"line": line, "column": column});
            let mut finding = Finding::new(Severity::Error, "load", error.to_string(), name, name, json);
            finding.human = format!("error[load]: {error}");
            return vec![finding];
        }
    };
    project_findings(name, &project)
}

/// What [`check_project`] finds in a project already loaded.
pub fn project_findings(name: &str, project: &stagehand_chatmapper::Project) -> Vec<Finding> {
    use stagehand_chatmapper::check::{check, FindingKind};
    check(project)
        .into_iter()
        .map(|finding| {
            let error =
                matches!(finding.kind, FindingKind::MissingConversation { .. } | FindingKind::MissingEntry { .. });
            let severity = if error { Severity::Error } else { Severity::Warning };
            let json = json!({"conversation": finding.conversation, "entry": finding.entry});
            Finding::new(severity, "chatmapper", finding.to_string(), name, name, json)
        })
        .collect()
}

/// Checks an agent machine (JSON, or TOML by a `.toml` name): the reader's refusal as an error
/// (its rule and JSON path), else each analysis's finding (unreachable states, guards never
/// taken, states with no way to a final state) as a warning.
pub fn check_machine(name: &str, bytes: &[u8]) -> Vec<Finding> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text.trim_start_matches('\u{feff}'),
        Err(e) => {
            let message = format!("not an agent machine: not UTF-8 text: {e}");
            return vec![Finding::new(Severity::Error, "reader", message, name, name, json!({}))];
        }
    };
    let read = if name.to_ascii_lowercase().ends_with(".toml") {
        stagehand_agents::machine::read_toml(text)
    } else {
        stagehand_agents::machine::read_json(text)
    };
    match read {
        Err(refusal) => {
            let json = json!({"rule": refusal.rule, "path": refusal.path});
            let at = format!("{name} ({})", refusal.path);
            vec![Finding::new(Severity::Error, refusal.rule, refusal.to_string(), &at, name, json)]
        }
        Ok(machine) => machine_findings(name, &machine),
    }
}

/// What [`check_machine`] finds in a machine already read.
pub fn machine_findings(name: &str, machine: &stagehand_agents::machine::Machine) -> Vec<Finding> {
    stagehand_agents::machine::check(machine)
        .into_iter()
        .map(|found| {
            let at = format!("{name} ({})", found.path);
            let json = json!({"path": found.path});
            Finding::new(Severity::Warning, found.kind.name(), found.message, &at, name, json)
        })
        .collect()
}

/// Graph lints as findings, each placed at its line and column (or its node).
fn lints(name: &str, lints: &[Lint]) -> Vec<Finding> {
    lints
        .iter()
        .map(|found| {
            let at = match found.place {
                Some((line, column)) => format!("{name}:{line}:{column}"),
                None => format!("{name} (node {})", found.node),
            };
            let json =
                json!({"node": found.node, "line": found.place.map(|p| p.0), "column": found.place.map(|p| p.1)});
            Finding::new(found.severity, "graph", found.message.clone(), &at, name, json)
        })
        .collect()
}
