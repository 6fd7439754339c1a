//! `stagehand conform PATH...`

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use stagehand_conformance::{discover, Harness, Outcome};

use crate::out;

/// The harness with every engine this build has (`stagehand_documents::conform`), reading each
/// file under the session layer's size limit.
pub fn harness() -> Harness {
    stagehand_documents::conform::harness()
        .with_reader(Arc::new(|path| stagehand_session::files::read_bytes(path).map_err(|e| e.to_string())))
}

pub fn run(paths: &[PathBuf]) -> ExitCode {
    let cases = match discover(paths) {
        Ok(cases) => cases,
        Err(error) => {
            errln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    if cases.is_empty() {
        errln!("error: no conformance cases (folders holding fixture.json) under the paths given");
        return ExitCode::from(2);
    }
    let harness = harness();
    let (mut passed, mut failed, mut diverged) = (0usize, 0usize, false);
    for case in &cases {
        let outcome = harness.run(case);
        let label = match &outcome {
            Outcome::Conformed => "conformed",
            Outcome::Diverged(_) => "diverged",
            Outcome::NotYetPlayable(_) => "not yet playable",
            Outcome::Broken(_) => "broken",
        };
        match &outcome {
            Outcome::Conformed => out::line(&format!("{label:<16} {}", case.name)),
            other => out::line(&format!("{label:<16} {} — {}", case.name, detail(other))),
        }
        if outcome.passed() {
            passed += 1;
        } else {
            failed += 1;
            diverged |= matches!(outcome, Outcome::Diverged(_) | Outcome::Broken(_));
        }
    }
    out::line(&format!("{passed} passed, {failed} failed"));
    if diverged {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn detail(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Conformed => String::new(),
        Outcome::Diverged(why) | Outcome::Broken(why) => why.clone(),
        Outcome::NotYetPlayable(missing) => format!("needs {}", missing.join("; ")),
    }
}
