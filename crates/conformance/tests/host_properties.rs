//! Properties of the host extension: reading any host script never panics (bad input is a clear
//! error), and any script of host calls (valid or not: stale actions, unknown ids, reused keys,
//! restores of earlier snapshots, calls after dispose) leaves a well-formed trace, which the
//! harness checks whatever the script claims.

use proptest::prelude::*;
use serde_json::{json, Value};
use stagehand_conformance::{Case, Fixture, Outcome};

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z:]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("apply".to_owned()),
                    Just("input".to_owned()),
                    Just("action".to_owned()),
                    Just("key".to_owned()),
                    Just("now".to_owned()),
                    Just("receipt".to_owned()),
                    Just("restore".to_owned()),
                    Just("trace".to_owned()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..4
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// One host call, from a vocabulary that mixes what the fair advertises with what it never does.
fn step() -> impl Strategy<Value = Value> {
    let action = prop::sample::select(vec![
        "next",
        "choose:0",
        "choose:1",
        "choose:2",
        "done",
        "failed",
        "retry",
        "undo",
        "restart",
        "jump:the-fair",
        "jump:the-party",
        "jump:nowhere",
        "answer:You.Rich",
    ]);
    let key = prop::sample::select(vec!["k1", "k2", "k3", "k4"]);
    let text = prop::sample::select(vec!["yes", "no", "perhaps", "3"]);
    let name = prop::sample::select(vec!["a", "b"]);
    prop_oneof![
        4 => (action, key.clone(), 0u64..100).prop_map(|(a, k, now)| json!({"apply": {"action": a, "key": k, "now": now}})),
        2 => (text, key, 0u64..100).prop_map(|(t, k, now)| json!({"input": {"question": "You.Rich", "text": t, "key": k, "now": now}})),
        1 => name.clone().prop_map(|n| json!({"snapshot": n})),
        1 => name.prop_map(|n| json!({"restore": n})),
        1 => (0u64..100).prop_map(|now| json!({"dispose": {"now": now}})),
        1 => Just(json!({"describe": {}})),
    ]
}

const FAIR: &str =
    "# The fair\n\nMira: Welcome!\n\n- Join the art club.\n\n  Mira: A brush. `JoinClub(\"You\", \"Art\")`\n\n\
                    - `You.Rich?` Buy a yacht.\n\n# The party\n\nMira: See you there.\n";

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn reading_any_host_script_never_panics(host in any_json(), steps in prop::collection::vec(any_json(), 0..4)) {
        for host in [host, json!({"steps": steps})] {
            let fixture = json!({"name": "n", "playbook": "p.json", "because": "b", "host": host});
            let _ = Fixture::parse(&fixture.to_string());
        }
    }

    #[test]
    fn any_script_of_host_calls_leaves_a_well_formed_trace(steps in prop::collection::vec(step(), 1..24)) {
        let dir = tempfile_dir();
        std::fs::write(dir.join("source.dialogue.md"), FAIR).unwrap();
        let fixture = json!({"name": "n", "playbook": "playbook.json", "because": "b", "host": {"steps": steps}});
        std::fs::write(dir.join("fixture.json"), fixture.to_string()).unwrap();
        let outcome = stagehand_documents::conform::harness().run(&Case { name: "random".into(), dir: dir.clone() });
        let _ = std::fs::remove_dir_all(&dir);
        match outcome {
            Outcome::Conformed => {}
            // A restore of a snapshot no earlier step took is refused when the fixture is read.
            Outcome::Broken(why) => prop_assert!(why.contains("no earlier step takes a snapshot"), "{why}"),
            other => prop_assert!(false, "{other}"),
        }
    }
}

/// A fresh folder under the system's temporary folder.
fn tempfile_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("stagehand-host-props-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
