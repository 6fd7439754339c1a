//! `stagehand conform PATH...`

use std::path::PathBuf;
use std::process::ExitCode;

use stagehand_conformance::{discover, Harness, Outcome};

/// The harness with every engine this build has.
pub fn harness() -> Harness {
    Harness::new()
}

pub fn run(paths: &[PathBuf]) -> ExitCode {
    let cases = match discover(paths) {
        Ok(cases) => cases,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    if cases.is_empty() {
        eprintln!("error: no conformance cases (folders holding fixture.json) under the paths given");
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
            Outcome::Conformed => println!("{label:<16} {}", case.name),
            other => println!("{label:<16} {} — {}", case.name, detail(other)),
        }
        if outcome.passed() {
            passed += 1;
        } else {
            failed += 1;
            diverged |= matches!(outcome, Outcome::Diverged(_) | Outcome::Broken(_));
        }
    }
    println!("{passed} passed, {failed} failed");
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
