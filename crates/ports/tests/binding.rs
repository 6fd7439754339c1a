//! The binding flags: `--player NAME=SPEC`, `--captain SPEC`, `--judge SPEC` (PT1, PT9).

use stagehand_ports::{Abort, Binding, BindingError, ExecPort, LineupSpec, PortErrorKind, PortRequest, PortSpec, Who};

fn exec(command: &str, env: &[&str]) -> PortSpec {
    PortSpec::Exec { command: command.into(), env: env.iter().map(|s| (*s).to_owned()).collect() }
}

#[test]
fn reads_exec_specs() {
    assert_eq!(PortSpec::parse("exec:./writer.sh --draft").unwrap(), exec("./writer.sh --draft", &[]));
    assert_eq!(PortSpec::parse("exec:a=b:c").unwrap(), exec("a=b:c", &[]));
    assert_eq!(PortSpec::parse("exec[STYLE, _X1]:w.sh").unwrap(), exec("w.sh", &["STYLE", "_X1"]));
}

#[test]
fn reads_openai_specs() {
    assert_eq!(
        PortSpec::parse("openai:gpt-4o-mini@https://api.openai.com/v1/").unwrap(),
        PortSpec::OpenAi { model: "gpt-4o-mini".into(), url: "https://api.openai.com/v1".into() }
    );
    // A model may hold `@`; the URL starts at the last `@http`.
    assert_eq!(
        PortSpec::parse("openai:@cf/meta/llama@http://127.0.0.1:8080/v1").unwrap(),
        PortSpec::OpenAi { model: "@cf/meta/llama".into(), url: "http://127.0.0.1:8080/v1".into() }
    );
}

/// Whether an error is of the expected variant.
type IsExpected = fn(&BindingError) -> bool;

#[test]
fn refuses_bad_specs_with_what_was_expected() {
    let cases: [(&str, IsExpected); 12] = [
        ("claude:opus", |e| matches!(e, BindingError::UnknownKind { .. })),
        ("exec", |e| matches!(e, BindingError::UnknownKind { .. })),
        ("executable:x", |e| matches!(e, BindingError::UnknownKind { .. })),
        ("exec:", |e| matches!(e, BindingError::EmptyCommand { .. })),
        ("exec:   ", |e| matches!(e, BindingError::EmptyCommand { .. })),
        ("exec[1X]:x", |e| matches!(e, BindingError::BadEnvList { .. })),
        ("exec[A,]:x", |e| matches!(e, BindingError::BadEnvList { .. })),
        ("exec[A:x", |e| matches!(e, BindingError::BadEnvList { .. })),
        ("openai:gpt-4o", |e| matches!(e, BindingError::OpenAiForm { .. })),
        ("openai:@https://x.test/v1", |e| matches!(e, BindingError::OpenAiForm { .. })),
        ("openai:m@https://user:pw@x.test/v1", |e| matches!(e, BindingError::BadUrl { .. })),
        ("openai:m@https:///v1", |e| matches!(e, BindingError::BadUrl { .. })),
    ];
    for (text, expected) in cases {
        let error = PortSpec::parse(text).unwrap_err();
        assert!(expected(&error), "{text}: {error:?}");
        assert!(!error.to_string().is_empty());
    }
    let error = PortSpec::parse("openai:m@https://x.test/v1?q=1").unwrap_err();
    assert!(error.to_string().contains("no query"), "{error}");
    let error = PortSpec::parse("claude:opus").unwrap_err();
    assert_eq!(error.to_string(), "`claude:opus`: expected exec:COMMAND or openai:MODEL@URL");
}

#[test]
fn reads_player_bindings() {
    let binding = Binding::parse("writer=exec:sh examples/agents/writer.sh").unwrap();
    assert_eq!(binding, Binding { name: "writer".into(), spec: exec("sh examples/agents/writer.sh", &[]) });
    assert!(matches!(Binding::parse("exec:x").unwrap_err(), BindingError::MissingName { .. }));
    assert!(matches!(Binding::parse("=exec:x").unwrap_err(), BindingError::BadName { .. }));
    assert!(matches!(Binding::parse("my writer=exec:x").unwrap_err(), BindingError::BadName { .. }));
    assert!(matches!(Binding::parse("w=nope").unwrap_err(), BindingError::UnknownKind { .. }));
}

#[test]
fn specs_and_bindings_print_back_to_what_reads_them() {
    for text in [
        "exec:./w.sh a b",
        "exec[A,B_2]:w.sh",
        "openai:gpt-4o@https://api.openai.com/v1",
        "openai:@cf/x@http://localhost:1/v1",
    ] {
        let spec = PortSpec::parse(text).unwrap();
        assert_eq!(spec.to_string(), text);
        assert_eq!(spec.to_string().parse::<PortSpec>().unwrap(), spec);
        let binding = Binding::parse(&format!("p={text}")).unwrap();
        assert_eq!(binding.to_string().parse::<Binding>().unwrap(), binding);
    }
}

#[test]
fn a_lineup_spec_is_plain_json_for_a_parked_record() {
    let players = ["writer=exec:sh w.sh".to_owned(), "reviewer=openai:m@http://127.0.0.1:9/v1".to_owned()];
    let spec = LineupSpec::parse(&players, Some("exec:sh captain.sh"), None).unwrap();
    let json = serde_json::to_value(&spec).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "players": [
                {"name": "writer", "spec": "exec:sh w.sh"},
                {"name": "reviewer", "spec": "openai:m@http://127.0.0.1:9/v1"},
            ],
            "captain": "exec:sh captain.sh",
        })
    );
    assert_eq!(serde_json::from_value::<LineupSpec>(json).unwrap(), spec);
    let bad = serde_json::json!({"players": [{"name": "w", "spec": "nope:x"}]});
    assert!(serde_json::from_value::<LineupSpec>(bad).is_err());
}

#[test]
fn a_player_bound_twice_is_refused() {
    let players = ["w=exec:a".to_owned(), "w=exec:b".to_owned()];
    assert_eq!(
        LineupSpec::parse(&players, None, None).unwrap_err(),
        BindingError::DuplicatePlayer { name: "w".into() }
    );
    let players = ["Writer=exec:a".to_owned(), "writer=exec:b".to_owned()];
    assert!(matches!(LineupSpec::parse(&players, None, None).unwrap_err(), BindingError::DuplicatePlayer { .. }));
}

#[test]
fn a_lineup_routes_each_call_and_the_judge_falls_back_to_the_captain() {
    let spec = LineupSpec::parse(&["writer=exec:printf writer".to_owned()], Some("exec:printf captain"), None).unwrap();
    let lineup = spec.open(None);
    let ask = |who: Who| lineup.call(&PortRequest::new(who, ""), &Abort::new());
    assert_eq!(ask(Who::player("writer")).unwrap().final_text, "writer");
    assert_eq!(ask(Who::player("Writer")).unwrap().final_text, "writer", "names match without regard to case");
    assert_eq!(ask(Who::Captain).unwrap().final_text, "captain");
    assert_eq!(ask(Who::Judge).unwrap().final_text, "captain");
    let error = ask(Who::player("reviewer")).unwrap_err();
    assert_eq!(error.kind(), PortErrorKind::Config);
    assert!(error.message().contains("--player reviewer="), "{error}");
    assert_eq!(
        lineup.unbound(&[Who::player("writer"), Who::player("reviewer"), Who::Judge]),
        vec![Who::player("reviewer")]
    );

    let lineup = lineup.with_judge(Box::new(ExecPort::new("printf judge")));
    assert_eq!(
        lineup.port(&Who::Judge).unwrap().call(&PortRequest::new(Who::Judge, ""), &Abort::new()).unwrap().final_text,
        "judge"
    );
}

#[test]
fn requests_and_replies_are_plain_json() {
    let request = PortRequest::new(Who::player("writer"), "Write.").resuming("t1").with_timeout_ms(5000);
    let json = serde_json::to_value(&request).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"who": {"role": "player", "name": "writer"}, "prompt": "Write.", "resume": "t1", "timeoutMs": 5000})
    );
    assert_eq!(serde_json::from_value::<PortRequest>(json).unwrap(), request);
    assert_eq!(serde_json::to_value(Who::Judge).unwrap(), serde_json::json!({"role": "judge"}));
}

#[test]
fn every_error_kind_has_one_spelling_and_a_class() {
    use stagehand_ports::FailureClass::*;
    let expected = [
        ("exit", Recoverable),
        ("timeout", Recoverable),
        ("aborted", Abort),
        ("spawn", ControlPlane),
        ("output", ControlPlane),
        ("http", Recoverable),
        ("transport", Recoverable),
        ("malformed", ControlPlane),
        ("config", ControlPlane),
    ];
    for (kind, (spelling, class)) in PortErrorKind::ALL.iter().zip(expected) {
        assert_eq!(kind.as_str(), spelling);
        assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::json!(spelling));
        assert_eq!(kind.class(), class, "{spelling}");
        assert!(kind.error_name().ends_with("Error"));
    }
}
