//! Layering, enforced: the compiler sits on the playbook crate and on no other crate of the
//! workspace — not the runner, not the CLI. Read from this crate's own manifest.

#[test]
fn the_compiler_depends_on_the_playbook_and_no_other_crate_of_ours() {
    let manifest = include_str!("../Cargo.toml");
    let manifest: toml::Table = toml::from_str(manifest).expect("the manifest is TOML");
    let ours: Vec<&String> = ["dependencies", "dev-dependencies", "build-dependencies"]
        .iter()
        .filter_map(|section| manifest.get(*section).and_then(toml::Value::as_table))
        .flat_map(|table| table.keys())
        .filter(|name| name.starts_with("stagehand"))
        .collect();
    assert_eq!(ours, ["stagehand-playbook"]);
}
