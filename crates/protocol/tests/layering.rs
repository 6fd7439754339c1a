//! Layering, enforced for the whole workspace: every dependency edge between our crates is
//! listed here, and any other edge fails (ARCHITECTURE.md, "Boundaries"; CONVENTIONS.md habit 2).
//! Only normal dependencies count: tests and benches may reach further.
//!
//! A new crate, or a new edge, is a decision: add it here with the reason.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

/// Every allowed edge, `(from, to)`.
const ALLOWED: &[(&str, &str)] = &[
    // The protocol speaks in the playbook's fragments; the playbook depends on nothing of ours.
    ("stagehand-protocol", "stagehand-playbook"),
    // The runner: the format and the vocabulary, nothing else (a shipped game embeds these three).
    ("stagehand-runner", "stagehand-playbook"),
    ("stagehand-runner", "stagehand-protocol"),
    // The compiler writes playbooks.
    ("stagehand-dialoguedown", "stagehand-playbook"),
    // ChatMapper: its readers, the sandbox, and the protocol it plays behind.
    ("stagehand-chatmapper", "stagehand-lua"),
    ("stagehand-chatmapper", "stagehand-playbook"),
    ("stagehand-chatmapper", "stagehand-protocol"),
    ("stagehand-chatmapper", "stagehand-runner"),
    // To go with issue 12's CLI step: the ChatMapper conformance loader still implements the
    // harness's own Engine trait. Remove this edge when the harness drives the protocol's Engine.
    ("stagehand-chatmapper", "stagehand-conformance"),
    // The harness holds sessions against engines.
    ("stagehand-conformance", "stagehand-playbook"),
    ("stagehand-conformance", "stagehand-runner"),
    // The session layer: the generic host session needs only the protocol; the DialogueDown
    // session and its worlds (to move to a worlds crate) still use the runner and Lua.
    ("stagehand-session", "stagehand-protocol"),
    ("stagehand-session", "stagehand-playbook"),
    ("stagehand-session", "stagehand-runner"),
    ("stagehand-session", "stagehand-lua"),
    // Documents: what kind a file is (a playbook's or a project's bytes), the graph lints (keys
    // judged by the runner's own PlayContext, severities in the compiler's terms) and drawing
    // (commands spelled as the protocol spells them). One answer for every command of the CLI.
    ("stagehand-documents", "stagehand-playbook"),
    ("stagehand-documents", "stagehand-protocol"),
    ("stagehand-documents", "stagehand-runner"),
    ("stagehand-documents", "stagehand-dialoguedown"),
    ("stagehand-documents", "stagehand-chatmapper"),
    // A ChatMapper project is opened for the player behind the session's Playable seam (until
    // issue 12 puts every document on the host session).
    ("stagehand-documents", "stagehand-session"),
    // The server holds sessions of every kind through the host contract (AnySession) and opens
    // documents only through the documents crate; the protocol gives it the view and receipts.
    ("stagehand-server", "stagehand-documents"),
    ("stagehand-server", "stagehand-session"),
    ("stagehand-server", "stagehand-protocol"),
    // The binary is glue over everything.
    ("stagehand", "stagehand-server"),
    ("stagehand", "stagehand-documents"),
    ("stagehand", "stagehand-chatmapper"),
    ("stagehand", "stagehand-conformance"),
    ("stagehand", "stagehand-dialoguedown"),
    ("stagehand", "stagehand-playbook"),
    ("stagehand", "stagehand-runner"),
    ("stagehand", "stagehand-session"),
];

/// The crates that depend on nothing of ours.
const LEAVES: &[&str] = &["stagehand-playbook", "stagehand-lua", "stagehand-agents", "stagehand-web"];

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

/// Every normal (non-dev, non-build) edge between workspace crates, and every workspace crate.
fn edges(metadata: &Value) -> (BTreeSet<(String, String)>, BTreeSet<String>) {
    let packages = metadata["packages"].as_array().expect("packages");
    let ours: BTreeSet<String> = packages.iter().map(|p| p["name"].as_str().expect("a name").to_owned()).collect();
    let mut edges = BTreeSet::new();
    for package in packages {
        let from = package["name"].as_str().expect("a name");
        for dependency in package["dependencies"].as_array().expect("dependencies") {
            let to = dependency["name"].as_str().expect("a name");
            if dependency["kind"].is_null() && ours.contains(to) {
                edges.insert((from.to_owned(), to.to_owned()));
            }
        }
    }
    (edges, ours)
}

#[test]
fn every_edge_between_our_crates_is_allowed() {
    let (edges, _) = edges(&metadata());
    let allowed: BTreeSet<(String, String)> = ALLOWED.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect();
    let unexpected: Vec<_> = edges.difference(&allowed).collect();
    assert!(unexpected.is_empty(), "edges not in the allowed list: {unexpected:?}");
}

#[test]
fn every_crate_of_ours_is_placed_in_the_layering() {
    let (_, ours) = edges(&metadata());
    let placed: BTreeSet<&str> = ALLOWED.iter().flat_map(|(a, b)| [*a, *b]).chain(LEAVES.iter().copied()).collect();
    let unplaced: Vec<_> = ours.iter().filter(|name| !placed.contains(name.as_str())).collect();
    assert!(unplaced.is_empty(), "crates the layering test does not place: {unplaced:?}");
}

#[test]
fn the_leaves_depend_on_nothing_of_ours() {
    let (edges, _) = edges(&metadata());
    for leaf in LEAVES {
        let out: Vec<_> = edges.iter().filter(|(from, _)| from == leaf).collect();
        assert!(out.is_empty(), "{leaf} depends on {out:?}");
    }
}

#[test]
fn engines_never_depend_on_the_session_layer_or_the_binary() {
    let (edges, _) = edges(&metadata());
    for engine in ["stagehand-runner", "stagehand-chatmapper", "stagehand-protocol", "stagehand-playbook"] {
        for host in ["stagehand-session", "stagehand-server", "stagehand"] {
            assert!(!edges.contains(&(engine.to_owned(), host.to_owned())), "{engine} depends on {host}");
        }
    }
}
