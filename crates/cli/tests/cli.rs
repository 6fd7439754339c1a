//! The binary as a user runs it: conform, compile and check.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn stagehand(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagehand")).args(args).current_dir(root()).output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every case listed in `conformance/expected.txt`, and every case on disk is listed.
fn expected() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("conformance/expected.txt")).expect("the expected list");
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned).collect()
}

#[test]
fn conform_runs_every_expected_case_and_each_conforms() {
    let cases = expected();
    let output = stagehand(&["conform", "conformance"]);
    let text = stdout(&output);
    assert!(output.status.success(), "{text}\n{}", stderr(&output));
    assert!(text.ends_with(&format!("{} passed, 0 failed\n", cases.len())), "{text}");
    for case in &cases {
        let name = case.rsplit('/').next().unwrap_or(case);
        assert!(
            text.lines().any(|l| l.starts_with("conformed") && l.ends_with(name)),
            "{case} did not conform:\n{text}"
        );
    }
}

#[test]
fn conform_compiles_sources_when_playbooks_are_missing() {
    let dir = std::env::temp_dir().join(format!("stagehand-cli-nopb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let playable = root().join("conformance/dialoguedown/playable");
    let mut count = 0;
    for entry in std::fs::read_dir(&playable).expect("the corpus") {
        let case = entry.expect("a case").path();
        let copy = dir.join(case.file_name().expect("a name"));
        std::fs::create_dir_all(&copy).expect("writable");
        for file in ["fixture.json", "source.dialogue.md"] {
            std::fs::copy(case.join(file), copy.join(file)).expect("copied");
        }
        count += 1;
    }
    let output = stagehand(&["conform", dir.to_str().expect("a path")]);
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.ends_with(&format!("{count} passed, 0 failed\n")), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn conform_fails_when_a_case_diverges() {
    let dir = std::env::temp_dir().join(format!("stagehand-cli-diverge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("writable");
    let case = root().join("conformance/dialoguedown/playable/linear-speech");
    std::fs::copy(case.join("playbook.json"), dir.join("playbook.json")).expect("copied");
    let fixture =
        std::fs::read_to_string(case.join("fixture.json")).expect("a fixture").replace("Goodbye.", "Farewell.");
    std::fs::write(dir.join("fixture.json"), fixture).expect("writable");
    let output = stagehand(&["conform", dir.to_str().expect("a path")]);
    let text = stdout(&output);
    assert!(!output.status.success());
    assert!(
        text.contains("diverged") && text.contains("Farewell.") && text.ends_with("0 passed, 1 failed\n"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compile_writes_the_playbook_the_reference_compiler_writes() {
    let case = root().join("conformance/dialoguedown/playable/a-conditional-block");
    let out = std::env::temp_dir().join(format!("stagehand-cli-compile-{}.json", std::process::id()));
    // Compile under the name the corpus used, so the `script` field agrees.
    let dir = std::env::temp_dir().join(format!("stagehand-cli-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("writable");
    std::fs::copy(case.join("source.dialogue.md"), dir.join("source.dialogue.md")).expect("copied");
    let output = Command::new(env!("CARGO_BIN_EXE_stagehand"))
        .args(["compile", "source.dialogue.md", "-o", out.to_str().expect("a path")])
        .current_dir(&dir)
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("JSON");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("playbook.json")).expect("the corpus")).expect("JSON");
    assert_eq!(written, expected);
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_reports_three_different_mistakes_each_with_its_span() {
    let dir = std::env::temp_dir().join(format!("stagehand-cli-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("writable");
    let script = dir.join("mistakes.dialogue.md");
    // An unknown jump target, a duplicate scene, and a random choice whose weights miss 100%.
    std::fs::write(
        &script,
        "# The Hall\n\nAlice: Hello.\n\n=> [Onward](#nowhere)\n\n# The Hall\n\nBob: Again.\n\n- `30%` Heads.\n- `30%` Tails.\n",
    )
    .expect("writable");
    let output = stagehand(&["check", "--message-format", "json", script.to_str().expect("a path")]);
    assert!(!output.status.success(), "a script with errors fails the check");
    let findings: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON findings");
    let findings = findings.as_array().expect("an array");
    let codes: Vec<&str> = findings.iter().filter_map(|f| f["code"].as_str()).collect();
    assert!(codes.len() >= 3, "{findings:?}");
    let distinct: std::collections::BTreeSet<&str> = codes.iter().copied().collect();
    assert!(distinct.len() >= 3, "three different mistakes, three different codes: {codes:?}");
    for finding in findings.iter().filter(|f| f["code"].as_str().is_some_and(|c| c.starts_with("DLG"))) {
        assert!(finding["line"].as_u64().is_some() && finding["column"].as_u64().is_some(), "{finding}");
    }
    let human = stagehand(&["check", script.to_str().expect("a path")]);
    let rendered = stderr(&human);
    for code in &distinct {
        assert!(rendered.contains(code), "{code} is not rendered:\n{rendered}");
    }
    assert!(rendered.contains("mistakes.dialogue.md:5:"), "spans carry file:line:column:\n{rendered}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_lints_the_graph_and_chatmapper_projects() {
    let clean = stagehand(&["check", "examples/the-crossing.json"]);
    assert!(clean.status.success(), "{}", stdout(&clean));
    assert!(stdout(&clean).contains("0 error(s), 0 warning(s)"));
    let lighthouse = stagehand(&["check", "examples/the-lighthouse.xml"]);
    let text = stdout(&lighthouse);
    assert!(lighthouse.status.success(), "warnings alone pass: {text}");
    assert!(text.contains("conversation") && text.contains("entry") && text.contains("does not compile"), "{text}");
    let native = std::env::temp_dir().join(format!("stagehand-cli-{}.cmp", std::process::id()));
    std::fs::write(&native, [0x35u8, 0x19, 0x59, 0x26, 0x19, 0x47, 0x71, 0xfe]).expect("writable");
    let refused = stagehand(&["check", native.to_str().expect("a path")]);
    assert!(!refused.status.success());
    assert!(stdout(&refused).contains("XML") && stdout(&refused).contains("JSON"), "{}", stdout(&refused));
    let _ = std::fs::remove_file(&native);
}

#[test]
fn check_judges_a_file_by_its_content_as_play_does() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let kept = dir.path().join("fair.playbook");
    let compiled = stagehand(&["compile", "examples/club-fair.dialogue.md", "-o", &kept.to_string_lossy()]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "{}").expect("written");
    let output = stagehand(&["check", &kept.to_string_lossy(), &empty.to_string_lossy()]);
    let (out, err) = (stdout(&output), stderr(&output));
    // A playbook is a playbook whatever its name; JSON that is neither goes to the playbook reader.
    assert!(out.contains("fair.playbook: 0 error(s), 0 warning(s)"), "{out}\n{err}");
    assert!(out.contains("empty.json: 1 error(s)") && out.contains("`format` is missing"), "{out}\n{err}");
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn the_nearest_dialogue_toml_above_a_script_counts_and_mode_overrides_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let deep = dir.path().join("a/b");
    std::fs::create_dir_all(&deep).expect("folders");
    // A heading inside an option (a syntax error) and a jump to no scene (found by analysis,
    // reported only in best-effort mode when the syntax stages found errors).
    let script = deep.join("tale.dialogue.md");
    std::fs::write(&script, "- Go.\n\n    # Inside\n\n=> [Nowhere](#nowhere)\n").expect("written");
    let errors = |extra: &[&str]| {
        let script = script.to_string_lossy();
        let output = stagehand(&[&["check", script.as_ref()], extra].concat());
        let out = stdout(&output);
        let tally = out.lines().last().unwrap_or_default().to_owned();
        assert_eq!(output.status.code(), Some(1), "{out}");
        tally
    };
    assert!(errors(&[]).contains(": 1 error(s)"));
    assert!(errors(&["--mode", "best-effort"]).contains(": 2 error(s)"));
    std::fs::write(dir.path().join("dialogue.toml"), "mode = \"best-effort\"\n").expect("written");
    assert!(errors(&[]).contains(": 2 error(s)"), "two folders up");
    assert!(errors(&["--mode", "stage-boundary"]).contains(": 1 error(s)"), "--mode over the configuration");
    std::fs::write(dir.path().join("a/dialogue.toml"), "mode = \"stage-boundary\"\n").expect("written");
    assert!(errors(&[]).contains(": 1 error(s)"), "the nearer configuration");
}

#[test]
fn a_compiled_playbook_names_its_script_the_same_from_anywhere() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let act = dir.path().join("game/act-1");
    std::fs::create_dir_all(&act).expect("folders");
    let script = act.join("tale.dialogue.md");
    std::fs::write(&script, "Alice: Hello.\n").expect("written");
    let compiled = |path: &str, from: &Path| {
        let output = Command::new(env!("CARGO_BIN_EXE_stagehand"))
            .args(["compile", path])
            .current_dir(from)
            .output()
            .expect("the binary runs");
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    let absolute = script.to_string_lossy().into_owned();
    let script_of = |json: &str| {
        let json: serde_json::Value = serde_json::from_str(json).expect("JSON");
        json["script"].as_str().expect("a script name").to_owned()
    };
    // No configuration: the file name, however the script was named on the command line.
    let alone = compiled(&absolute, dir.path());
    assert_eq!(script_of(&alone), "tale.dialogue.md");
    assert_eq!(compiled("tale.dialogue.md", &act), alone);
    assert_eq!(compiled("game/act-1/tale.dialogue.md", dir.path()), alone);
    // Under a project's dialogue.toml: the path from the project's folder.
    std::fs::write(dir.path().join("game/dialogue.toml"), "").expect("written");
    let in_project = compiled(&absolute, dir.path());
    assert_eq!(script_of(&in_project), "act-1/tale.dialogue.md");
    assert_eq!(compiled("tale.dialogue.md", &act), in_project);
    assert_eq!(compiled("../game/act-1/tale.dialogue.md", &dir.path().join("game")), in_project);
}

#[test]
fn help_comes_in_short_paragraphs_and_short_lines() {
    let listing = stdout(&stagehand(&["--help"]));
    for command in ["conform", "play", "compile", "check", "graph"] {
        let summary = listing.lines().find(|l| l.trim_start().starts_with(command)).expect("listed");
        assert!(summary.len() <= 100, "the summary of {command} is one short line: {summary:?}");
        let help = stdout(&stagehand(&[command, "--help"]));
        for line in help.lines() {
            assert!(line.chars().count() <= 100, "stagehand {command} --help has a long line: {line:?}");
        }
    }
}

#[test]
fn compile_writes_the_canonical_form_unless_asked_to_indent() {
    let compact = stagehand(&["compile", "examples/club-fair.dialogue.md"]);
    let pretty = stagehand(&["compile", "--pretty", "examples/club-fair.dialogue.md"]);
    assert!(compact.status.success() && pretty.status.success(), "{}", stderr(&compact));
    let (compact, pretty) = (stdout(&compact), stdout(&pretty));
    assert_eq!(compact.lines().count(), 1, "the canonical form is one line");
    assert!(pretty.lines().count() > 1, "--pretty indents");
    let compact = stagehand_playbook::read(&compact).expect("the compact playbook reads");
    assert_eq!(stagehand_playbook::read(&pretty).expect("the pretty playbook reads"), compact);
    assert_eq!(
        stagehand_playbook::write_compact(&compact).len() + 1,
        stdout(&stagehand(&["compile", "examples/club-fair.dialogue.md"])).len()
    );
}
