//! The session layer sits above the runner and the Lua host, never beside a compiler or an engine:
//! it plays playbooks, whoever wrote them.

#[test]
fn the_session_layer_depends_only_on_the_playbook_the_runner_and_the_lua_host() {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).expect("the manifest");
    let manifest: toml::Table = toml::from_str(&manifest).expect("the manifest reads");
    let dependencies = manifest.get("dependencies").and_then(toml::Value::as_table).expect("[dependencies]");
    let ours: Vec<&str> =
        dependencies.keys().map(String::as_str).filter(|name| name.starts_with("stagehand")).collect();
    assert_eq!(ours, ["stagehand-lua", "stagehand-playbook", "stagehand-runner"]);
}
