//! Layering, enforced: the runner depends on the playbook crate and nothing else, and the
//! playbook crate depends on no other crate of the workspace (ARCHITECTURE.md, "Boundaries").
//! A shipped game embeds a playbook and a runner, never a compiler, a Markdown parser or Lua.

use std::process::Command;

use serde_json::Value;

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

/// The normal (non-dev, non-build) dependencies of a workspace package.
fn dependencies(metadata: &Value, package: &str) -> Vec<String> {
    let packages = metadata["packages"].as_array().expect("packages");
    let package =
        packages.iter().find(|p| p["name"] == package).unwrap_or_else(|| panic!("{package} is in the workspace"));
    package["dependencies"]
        .as_array()
        .expect("dependencies")
        .iter()
        .filter(|d| d["kind"].is_null())
        .map(|d| d["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn the_runner_depends_only_on_the_playbook() {
    assert_eq!(dependencies(&metadata(), "stagehand-runner"), ["stagehand-playbook"]);
}

#[test]
fn the_playbook_depends_on_no_other_crate_of_ours() {
    let deps = dependencies(&metadata(), "stagehand-playbook");
    assert!(deps.iter().all(|d| !d.starts_with("stagehand")), "stagehand-playbook depends on {deps:?}");
}
