//! What a child sees of the host's environment, and where the API key is read from (PT5, PT8).
//! One test only: it sets variables of this process, which no other thread may read meanwhile.

use stagehand_ports::{
    run_script, Abort, ApiKey, ExecPort, Port, PortRequest, ScriptOptions, ScriptRequest, Who, INHERITED_ENV,
};

fn names(env_output: &str) -> Vec<String> {
    env_output.lines().filter_map(|line| line.split_once('=').map(|(n, _)| n.to_owned())).collect()
}

#[test]
fn children_see_only_the_allow_list_and_what_the_binding_names() {
    std::env::set_var("STAGEHAND_TEST_EXPORTED", "visible-only-when-named");
    std::env::set_var("STAGEHAND_OPENAI_API_KEY", "  ");
    std::env::set_var("OPENAI_API_KEY", "sk-from-fallback");

    // An exported variable is not seen by an exec: player…
    let read = r#"printf '%s' "${STAGEHAND_TEST_EXPORTED-unset}""#;
    let request = PortRequest::new(Who::player("writer"), "");
    let reply = ExecPort::new(read).call(&request, &Abort::new()).unwrap();
    assert_eq!(reply.final_text, "unset");
    // …unless its binding names it.
    let reply = ExecPort::new(read).with_env(["STAGEHAND_TEST_EXPORTED"]).call(&request, &Abort::new()).unwrap();
    assert_eq!(reply.final_text, "visible-only-when-named");

    // Nothing else comes through: the allow-list, the port's own variables, and what `sh`
    // itself sets.
    let reply = ExecPort::new("env").call(&request, &Abort::new()).unwrap();
    let shell_own = ["PWD", "SHLVL", "_", "OLDPWD", "STAGEHAND_ROLE", "STAGEHAND_PLAYER"];
    for name in names(&reply.final_text) {
        assert!(INHERITED_ENV.contains(&name.as_str()) || shell_own.contains(&name.as_str()), "{name} leaked");
    }
    assert!(names(&reply.final_text).contains(&"PATH".to_owned()), "PATH is passed on");

    // Scripts run the same way.
    let script = ScriptRequest { command: read.into(), timeout_ms: 60_000 };
    let outcome = run_script(&script, &ScriptOptions::default(), &Abort::new()).unwrap();
    assert_eq!(outcome.stdout, "unset");
    let options = ScriptOptions { pass_env: vec!["STAGEHAND_TEST_EXPORTED".into()], ..ScriptOptions::default() };
    assert_eq!(run_script(&script, &options, &Abort::new()).unwrap().stdout, "visible-only-when-named");

    // The key: the first variable when set and not blank, else the fallback.
    assert_eq!(ApiKey::from_env(), ApiKey::new("sk-from-fallback"));
    std::env::set_var("STAGEHAND_OPENAI_API_KEY", "sk-first");
    assert_eq!(ApiKey::from_env(), ApiKey::new("sk-first"));
    // Neither key reaches a child.
    let reply = ExecPort::new("env").call(&request, &Abort::new()).unwrap();
    assert!(!reply.final_text.contains("sk-"), "{}", reply.final_text);
    std::env::remove_var("STAGEHAND_OPENAI_API_KEY");
    std::env::remove_var("OPENAI_API_KEY");
    assert_eq!(ApiKey::from_env(), None);
}
