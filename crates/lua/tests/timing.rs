//! This crate's tests bound the sandbox's work by counting it (the instruction budget), never by a
//! short wall-clock limit: a machine under load (two cores shared by a whole workspace's tests)
//! makes such limits fail at random. Where a hostile-input test must bound time, the limit is
//! generous (at least [`GENEROUS_SECONDS`]) and the test says what it guards against.

use std::path::Path;

/// The least wall-clock limit a test here may assert on.
const GENEROUS_SECONDS: u64 = 10;

/// Every wall-clock limit written in this crate's tests that is shorter than [`GENEROUS_SECONDS`],
/// as `file:line: text`.
fn short_limits() -> Vec<String> {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut found = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&tests).expect("the tests folder").flatten().map(|e| e.path()).collect();
    files.sort();
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "rs")) {
        if file.file_name().is_some_and(|n| n == "timing.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a test file reads");
        for (number, line) in text.lines().enumerate() {
            let short = line.contains("Duration::from_millis(")
                || line.contains("Duration::from_micros(")
                || line.contains("Duration::from_nanos(")
                || seconds_in(line).is_some_and(|s| s < GENEROUS_SECONDS);
            if short {
                found.push(format!("{}:{}: {}", file.display(), number + 1, line.trim()));
            }
        }
    }
    found
}

/// The whole seconds of a `Duration::from_secs(N)` on the line, if it has one.
fn seconds_in(line: &str) -> Option<u64> {
    let (_, rest) = line.split_once("Duration::from_secs(")?;
    rest.split(')').next()?.trim().replace('_', "").parse().ok()
}

#[test]
fn no_test_asserts_on_a_short_wall_clock_limit() {
    let found = short_limits();
    assert!(found.is_empty(), "count the work (the instruction budget) instead:\n{}", found.join("\n"));
}

#[test]
fn the_scan_reads_limits_as_written() {
    assert_eq!(seconds_in("assert!(t < Duration::from_secs(2));"), Some(2));
    assert_eq!(seconds_in("Duration::from_secs(1_000)"), Some(1000));
    assert_eq!(seconds_in("no limit here"), None);
}
