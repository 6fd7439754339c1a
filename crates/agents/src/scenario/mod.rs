//! Contract scenarios: the data format of `conformance/agents/<case>/case.json` and the runner
//! that plays one ([`run_case`]). The format is owned here and documented in
//! `conformance/agents/README.md`.
//!
//! A case is a machine (a path relative to the case directory, or the document inline), the
//! runtime options, and a list of steps: the boundaries a host opens (`init`, `boss`, `resume`,
//! `apply`, `dispose`), each with the scripted replies of its port calls in order and the
//! expected settlement; snapshot round trips; `describe` views; and the expected log, line by
//! line. Every case also checks the trace invariants: contiguous sequences from 1 across round
//! trips, one finish per start, known trace types, non-decreasing timestamps.
//!
//! This module reads files (it is the conformance tool, not the runtime, which does no I/O).

mod log;
mod spec;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::machine::{read_json, read_value, Machine, Refusal};
use crate::runtime::{Emission, Options, Runtime, Session};

pub use log::render;
use spec::{subset, Case};

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The case's name (its directory's name).
    pub name: String,
    /// What did not hold; empty when the case passed.
    pub failures: Vec<String>,
}

impl Verdict {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// The case directories under `root` (those holding a `case.json`), sorted by name.
pub fn discover(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    out.sort();
    out
}

/// Plays the case in `dir` and says what did not hold.
pub fn run_case(dir: &Path) -> Verdict {
    play_case(dir, true).0
}

/// Plays the case in `dir` and writes the log it produced into its `log` (for a new case or
/// a deliberate change; the diff is then reviewed like code). Returns the verdict of the play.
pub fn bless_case(dir: &Path) -> Result<Verdict, String> {
    let (verdict, log) = play_case(dir, false);
    let path = dir.join("case.json");
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let mut v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if let (Some(o), Some(log)) = (v.as_object_mut(), log) {
        o.insert("log".into(), Value::Array(log.into_iter().map(Value::String).collect()));
    }
    let out = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n";
    std::fs::write(&path, out).map_err(|e| e.to_string())?;
    Ok(verdict)
}

fn name_of(dir: &Path) -> String {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The machine of a case, or why it was not read: the reader's refusal, or another problem.
fn load_machine(dir: &Path, v: &Value) -> Result<Result<Machine, Refusal>, String> {
    match v {
        Value::String(rel) => {
            let path = dir.join(rel);
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(read_json(&text))
        }
        other => Ok(read_value(other.clone())),
    }
}

fn play_case(dir: &Path, check_log: bool) -> (Verdict, Option<Vec<String>>) {
    let name = name_of(dir);
    let fail = |m: String| (Verdict { name: name.clone(), failures: vec![m] }, None);
    let text = match std::fs::read_to_string(dir.join("case.json")) {
        Ok(t) => t,
        Err(e) => return fail(format!("case.json: {e}")),
    };
    let case = match spec::parse(&text) {
        Ok(c) => c,
        Err(e) => return fail(format!("case.json: {e}")),
    };
    let machine = match (load_machine(dir, &case.machine), &case.refused) {
        (Err(e), _) => return fail(e),
        (Ok(Ok(m)), None) => m,
        (Ok(Err(r)), None) => return fail(format!("machine refused: {} at {}", r.rule, r.path)),
        (Ok(Ok(_)), Some(_)) => return fail("the machine was read, but the case expects a refusal".into()),
        (Ok(Err(r)), Some(expected)) => {
            let actual = serde_json::json!({"rule": r.rule, "path": r.path, "expected": r.expected});
            let failures = match subset(expected, &actual, "$") {
                Ok(()) => Vec::new(),
                Err(path) => vec![format!("refused: at {path}: expected {expected}, got {actual}")],
            };
            return (Verdict { name, failures }, None);
        }
    };
    let mut player = Player::new(&case, machine);
    let log_lines = match &mut player {
        Ok(p) => {
            p.play(&case);
            p.finish();
            Some(p.log.clone())
        }
        Err(e) => return fail(e.clone()),
    };
    let mut failures = player.map(|p| p.failures).unwrap_or_default();
    if let (true, Some(expected), Some(actual)) = (check_log, &case.log, &log_lines) {
        compare_log(expected, actual, &mut failures);
    }
    (Verdict { name, failures }, log_lines)
}

fn compare_log(expected: &[String], actual: &[String], failures: &mut Vec<String>) {
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            failures.push(format!("log line {}: expected `{e}`, got `{a}`", i + 1));
            return;
        }
    }
    if expected.len() != actual.len() {
        let (more, which) = if actual.len() > expected.len() {
            (&actual[expected.len()], "extra")
        } else {
            (&expected[actual.len()], "missing")
        };
        failures.push(format!("log has {} lines, expected {}; first {which}: `{more}`", actual.len(), expected.len()));
    }
}

/// The state of one play: the runtime, the emissions so far, what failed.
pub(crate) struct Player {
    pub rt: Runtime,
    pub machine: Machine,
    pub options: Options,
    pub session: Session,
    pub emissions: Vec<Emission>,
    pub log: Vec<String>,
    pub show: Vec<String>,
    pub failures: Vec<String>,
    pub clock: u64,
}

impl Player {
    fn new(case: &Case, machine: Machine) -> Result<Self, String> {
        let session = case.session.clone().unwrap_or_else(|| Session::root("s1", &machine.id));
        let rt = Runtime::new(machine.clone(), case.options.clone()).map_err(|e| e.to_string())?;
        Ok(Player {
            rt,
            machine,
            options: case.options.clone(),
            session,
            emissions: Vec::new(),
            log: Vec::new(),
            show: case.show.clone(),
            failures: Vec::new(),
            clock: 1_000,
        })
    }

    pub fn record(&mut self, emitted: Vec<Emission>) {
        for e in emitted {
            if let Some(line) = render(&e, &self.show) {
                self.log.push(line);
            }
            self.emissions.push(e);
        }
    }

    pub fn fail(&mut self, step: usize, message: String) {
        self.failures.push(format!("step {}: {message}", step + 1));
    }

    pub fn expect(&mut self, step: usize, what: &str, expected: Option<&Value>, actual: &Value) {
        if let Some(expected) = expected {
            if let Err(path) = subset(expected, actual, "$") {
                self.fail(step, format!("{what}: at {path}: expected {expected}, got {actual}"));
            }
        }
    }

    /// The trace invariants over the whole play.
    fn finish(&mut self) {
        let mut seq = 0;
        let mut last_time = 0;
        let mut open: Vec<(String, String)> = Vec::new();
        for e in &self.emissions {
            let Emission::Trace { event } = e else { continue };
            if !crate::runtime::TRACE_TYPES.contains(&event.trace_type.as_str()) {
                self.failures.push(format!("unknown trace type `{}`", event.trace_type));
            }
            if event.sequence != seq + 1 {
                self.failures.push(format!("trace sequence {} follows {seq}", event.sequence));
            }
            seq = event.sequence;
            if event.timestamp < last_time {
                self.failures.push(format!("trace {} goes back in time", event.sequence));
            }
            last_time = event.timestamp;
            let call = event.call_id.clone().unwrap_or_default();
            let paired = !event.trace_type.starts_with("session.");
            if let Some(kind) = event.trace_type.strip_suffix(".started").filter(|_| paired) {
                if open.iter().any(|(k, c)| k == kind && *c == call) {
                    self.failures.push(format!("{} {call} started twice", event.trace_type));
                }
                open.push((kind.to_owned(), call));
            } else if let Some(kind) = event.trace_type.strip_suffix(".finished") {
                match open.iter().position(|(k, c)| k == kind && *c == call) {
                    Some(i) => {
                        open.remove(i);
                    }
                    None => self.failures.push(format!("{} {call} has no start", event.trace_type)),
                }
            }
        }
        let pending = self.rt.pending_call().map(|c| c.call_id);
        for (kind, call) in open {
            if !(kind == "playbook.call" && Some(&call) == pending.as_ref()) {
                self.failures.push(format!("{kind}.started {call} never finished"));
            }
        }
    }
}
