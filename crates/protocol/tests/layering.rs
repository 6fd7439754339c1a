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
    // The harness holds sessions against any engine through the protocol's Engine trait, reads
    // playbooks for verdicts, plays them with the runner's RunnerEngine, and checks the host
    // contract through the host session (decision H20). No engine depends on it.
    ("stagehand-conformance", "stagehand-playbook"),
    ("stagehand-conformance", "stagehand-protocol"),
    ("stagehand-conformance", "stagehand-runner"),
    ("stagehand-conformance", "stagehand-session"),
    // The session layer: one host session over any engine needs only the protocol (and the
    // playbook's fragments it turns into plain data). No runner, no Lua: it builds anywhere.
    ("stagehand-session", "stagehand-protocol"),
    ("stagehand-session", "stagehand-playbook"),
    // Documents: what kind a file is (a playbook's or a project's bytes), the graph lints (keys
    // judged by the runner's own PlayContext, severities in the compiler's terms) and drawing
    // (commands spelled as the protocol spells them). One answer for every command of the CLI.
    ("stagehand-documents", "stagehand-playbook"),
    ("stagehand-documents", "stagehand-protocol"),
    ("stagehand-documents", "stagehand-runner"),
    ("stagehand-documents", "stagehand-dialoguedown"),
    ("stagehand-documents", "stagehand-chatmapper"),
    // A document's sessions are host sessions, held as AnySession by every host.
    ("stagehand-documents", "stagehand-session"),
    // The harness with every engine: documents opens each kind (compiles scripts, loads
    // ChatMapper projects) for the conformance harness, above both (decision H20).
    ("stagehand-documents", "stagehand-conformance"),
    // Agent playbook scenarios (`case.json`) are played by the agent runtime's own case runner,
    // which the harness plugs in like the compiler (decision H23).
    ("stagehand-documents", "stagehand-agents"),
    // Worlds: who answers a session's requests for a local player (facts; Lua in the sandbox),
    // the driver that answers through the session's apply and input, `stagehand run`'s turns
    // and the terminal player's playthrough, over documents of every kind.
    ("stagehand-worlds", "stagehand-session"),
    ("stagehand-worlds", "stagehand-lua"),
    ("stagehand-worlds", "stagehand-protocol"),
    ("stagehand-worlds", "stagehand-playbook"),
    ("stagehand-worlds", "stagehand-documents"),
    // An agent playbook's port calls are made with real ports (H45, PT11), and a run refuses a
    // machine whose players are not bound before it starts.
    ("stagehand-worlds", "stagehand-ports"),
    ("stagehand-worlds", "stagehand-agents"),
    // The server holds sessions of every kind through the host contract (AnySession) and opens
    // documents only through the documents crate; the protocol gives it the view and receipts.
    ("stagehand-server", "stagehand-documents"),
    ("stagehand-server", "stagehand-session"),
    ("stagehand-server", "stagehand-protocol"),
    // A session's world over HTTP is answered by the worlds driver, as for a local player
    // (decision S18); agent sessions' lineup is read by the ports crate's binding flags and
    // held in the server's configuration (S19).
    ("stagehand-server", "stagehand-worlds"),
    ("stagehand-server", "stagehand-ports"),
    // The page it shows at `/` (decision W1): embedded files, nothing else of ours.
    ("stagehand-server", "stagehand-web"),
    // The agent runtime asks in the protocol's port vocabulary and plays behind its Engine
    // trait (docs/design/agents.md A26).
    ("stagehand-agents", "stagehand-protocol"),
    ("stagehand-agents", "stagehand-playbook"),
    // The host's I/O for agent playbooks (commands, HTTP) answers the sans-IO runtime in the
    // runtime's own values (`PlayerResult`, `NormalizedError`): I/O sits above the runtime, which
    // never depends on it (docs/design/ports.md PT10, revised).
    ("stagehand-ports", "stagehand-agents"),
    // The binary is glue over everything.
    ("stagehand", "stagehand-server"),
    ("stagehand", "stagehand-documents"),
    ("stagehand", "stagehand-chatmapper"),
    ("stagehand", "stagehand-conformance"),
    ("stagehand", "stagehand-dialoguedown"),
    ("stagehand", "stagehand-playbook"),
    ("stagehand", "stagehand-protocol"),
    ("stagehand", "stagehand-session"),
    ("stagehand", "stagehand-worlds"),
];

/// The crates that depend on nothing of ours.
const LEAVES: &[&str] = &["stagehand-playbook", "stagehand-lua", "stagehand-web"];

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
fn engines_never_depend_on_the_session_layer_the_harness_or_the_binary() {
    let (edges, _) = edges(&metadata());
    for engine in
        ["stagehand-runner", "stagehand-chatmapper", "stagehand-agents", "stagehand-protocol", "stagehand-playbook"]
    {
        for host in ["stagehand-session", "stagehand-worlds", "stagehand-conformance", "stagehand-server", "stagehand"]
        {
            assert!(!edges.contains(&(engine.to_owned(), host.to_owned())), "{engine} depends on {host}");
        }
    }
}

#[test]
fn the_session_links_no_lua_and_no_engine() {
    // What the session reaches, directly or not: it must build where Lua cannot (WebAssembly).
    let (edges, _) = edges(&metadata());
    let mut reached = BTreeSet::from(["stagehand-session".to_owned()]);
    loop {
        let more: Vec<String> = edges
            .iter()
            .filter(|(from, to)| reached.contains(from) && !reached.contains(to))
            .map(|(_, to)| to.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        reached.extend(more);
    }
    for far in ["stagehand-lua", "stagehand-runner", "stagehand-chatmapper", "stagehand-worlds"] {
        assert!(!reached.contains(far), "the session reaches {far}: {reached:?}");
    }
}
