//! The reader: one refusal per rule with its path, the two forms, round trips, no panics.

use serde_json::{json, Value};
use stagehand_agents::machine::{check, read_json, read_toml, read_value, Machine};

/// A small machine that reads clean: ready -> work (a player) -> done.
fn base() -> Value {
    json!({
        "id": "tiny",
        "initial": "ready",
        "context": [
            {"name": "task", "type": "string", "initial": ""},
            {"name": "rounds", "type": "number", "initial": 0}
        ],
        "events": [{"type": "START", "fields": [{"name": "task", "source": "text", "required": true}]}],
        "states": [
            {"id": "ready", "description": "Idle hub.", "tags": ["parked"],
             "on": [{"event": "START", "assign": [{"set": {"field": "task", "value": {"event": "task"}}}], "target": "work"}]},
            {"id": "work", "description": "The writer writes.", "tags": ["busy"],
             "invoke": {"kind": "player", "player": "writer", "prompt": "Write <task>.", "inputs": ["task"],
                        "results": [
                            {"guard": "written", "description": "Written. Output shall include `text: <verbatim final text>`.", "verbatimFields": ["text"]},
                            {"guard": "stuck", "description": "Could not write."}
                        ]},
             "on": [
                {"guard": "written", "when": [{"field": "rounds", "op": "lt", "value": 2}], "assign": [{"increment": {"field": "rounds"}}], "target": "work"},
                {"guard": "written", "target": "done"},
                {"guard": "stuck", "target": "failed"}
             ]},
            {"id": "awaitBossReply", "description": "Waiting for the Boss.", "tags": ["parked"]},
            {"id": "failed", "description": "Recoverable failure.", "tags": ["parked"],
             "on": [{"event": "START", "target": "work"}]},
            {"id": "done", "description": "Finished.", "final": true, "output": [{"name": "task", "value": {"context": "task"}}]}
        ],
        "entryEvent": {"type": "START", "textField": "task"}
    })
}

/// Applies `edit` to the base machine and returns the refusal's (rule, path).
fn refused(edit: impl FnOnce(&mut Value)) -> (&'static str, String) {
    let mut v = base();
    edit(&mut v);
    let refusal = read_value(v).expect_err("the edited machine must be refused");
    (refusal.rule, refusal.path)
}

fn put(v: &mut Value, parent: &str, key: &str, value: Value) {
    at(v, parent).as_object_mut().expect("an object").insert(key.into(), value);
}

fn at<'v>(v: &'v mut Value, pointer: &str) -> &'v mut Value {
    v.pointer_mut(pointer).unwrap_or_else(|| panic!("no {pointer} in the base machine"))
}

#[test]
fn the_base_machine_reads_and_checks_clean() {
    let m = read_value(base()).expect("base reads");
    assert_eq!(check(&m), vec![]);
}

#[test]
fn refuses_a_machine_without_a_final_state() {
    assert_eq!(refused(|v| *at(v, "/states/4/final") = json!(false)), ("no-final-state", "$.states".into()));
}

#[test]
fn refuses_a_transition_to_a_missing_state() {
    assert_eq!(
        refused(|v| *at(v, "/states/1/on/1/target") = json!("nowhere")),
        ("missing-target", "$.states[1].on[1].target".into())
    );
}

#[test]
fn refuses_a_missing_initial_state() {
    assert_eq!(refused(|v| *at(v, "/initial") = json!("nowhere")), ("missing-target", "$.initial".into()));
}

#[test]
fn refuses_a_guard_the_state_cannot_produce() {
    assert_eq!(
        refused(|v| *at(v, "/states/1/on/2/guard") = json!("ok")),
        ("unknown-guard", "$.states[1].on[2].guard".into())
    );
}

#[test]
fn accepts_transitions_on_the_universal_needs_boss_reply() {
    let mut v = base();
    at(&mut v, "/states/1/on")
        .as_array_mut()
        .unwrap()
        .push(json!({"guard": "needsBossReply", "target": "awaitBossReply"}));
    read_value(v).expect("needsBossReply is implied for every player state");
}

#[test]
fn refuses_a_spelled_needs_boss_reply_result() {
    let (rule, path) = refused(|v| *at(v, "/states/1/invoke/results/1/guard") = json!("needsBossReply"));
    assert_eq!((rule, path.as_str()), ("reserved-guard", "$.states[1].invoke.results[1].guard"));
}

#[test]
fn refuses_bad_guard_names() {
    for bad in ["1st", "has-dash", "", "sp ace"] {
        let (rule, path) = refused(|v| *at(v, "/states/1/invoke/results/0/guard") = json!(bad));
        assert_eq!((rule, path.as_str()), ("bad-guard-name", "$.states[1].invoke.results[0].guard"), "{bad:?}");
    }
    let mut v = base();
    *at(&mut v, "/states/1/invoke/results/0/guard") = json!("$ok_2");
    *at(&mut v, "/states/1/on/0/guard") = json!("$ok_2");
    *at(&mut v, "/states/1/on/1/guard") = json!("$ok_2");
    read_value(v).expect("`$ok_2` is a good guard name");
}

#[test]
fn refuses_duplicate_state_ids() {
    assert_eq!(refused(|v| *at(v, "/states/3/id") = json!("ready")), ("duplicate-state-id", "$.states[3].id".into()));
}

#[test]
fn refuses_a_parallel_region_with_two_members_for_one_player() {
    let (rule, path) = refused(|v| {
        let states = at(v, "/states").as_array_mut().unwrap();
        for id in ["draftA", "draftB"] {
            states.push(json!({"id": id, "description": "A draft.", "invoke": {"kind": "player", "player": "writer", "prompt": "Draft."}}));
        }
        states.push(json!({"id": "drafts", "description": "Both drafts.", "parallel": ["draftA", "draftB"], "on": [{"guard": "done", "target": "done"}]}));
    });
    assert_eq!((rule, path.as_str()), ("parallel-duplicate-player", "$.states[7].parallel[1]"));
}

#[test]
fn accepts_a_parallel_group_of_distinct_players() {
    let mut v = base();
    let states = at(&mut v, "/states").as_array_mut().unwrap();
    for (id, player) in [("draftA", "writer"), ("draftB", "editor")] {
        states.push(json!({"id": id, "description": "A draft.", "invoke": {"kind": "player", "player": player, "prompt": "Draft."}}));
    }
    states.push(json!({"id": "drafts", "description": "Both drafts.", "parallel": ["draftA", "draftB"], "on": [{"guard": "done", "target": "done"}]}));
    read_value(v).expect("one region per player reads");
}

#[test]
fn refuses_control_context_fields_naming_first_class_members() {
    for name in ["pendingBossQuestion", "lastError"] {
        let (rule, path) = refused(|v| v["controlContextFields"] = json!(["task", name]));
        assert_eq!((rule, path.as_str()), ("reserved-control-field", "$.controlContextFields[1]"));
    }
}

#[test]
fn refuses_a_field_both_verbatim_and_judge_authored() {
    let (rule, path) = refused(|v| put(v, "/states/1/invoke/results/1", "requiredFields", json!(["text"])));
    assert_eq!((rule, path.as_str()), ("verbatim-conflict", "$.states[1].invoke.results[1].requiredFields[0]"));
}

#[test]
fn refuses_listed_fields_the_description_does_not_name() {
    // The runtime reads fields from the description (J5); a list that says otherwise is refused.
    let (rule, path) = refused(|v| put(v, "/states/1/invoke/results/1", "requiredFields", json!(["reason"])));
    assert_eq!((rule, path.as_str()), ("fields-description", "$.states[1].invoke.results[1].description"));
    let (rule, path) = refused(|v| put(v, "/states/1/invoke/results/0", "verbatimFields", json!([])));
    assert_eq!((rule, path.as_str()), ("fields-description", "$.states[1].invoke.results[0].description"));
}

#[test]
fn refuses_unknown_keys_with_the_element_path() {
    assert_eq!(
        refused(|v| put(v, "/states/1/invoke/results/0", "colour", json!("red"))),
        ("shape", "$.states[1].invoke.results[0]".into())
    );
    assert_eq!(refused(|v| v["bossInterupt"] = json!([])), ("shape", "$".into()));
    assert_eq!(refused(|v| put(v, "/states/2", "tag", json!(["parked"]))), ("shape", "$.states[2]".into()));
}

#[test]
fn refuses_wrongly_typed_members_at_the_member() {
    assert_eq!(refused(|v| v["initial"] = json!(5)), ("shape", "$.initial".into()));
    assert_eq!(refused(|v| v["states"] = json!({})), ("shape", "$.states".into()));
    assert_eq!(refused(|v| v["states"][4]["final"] = json!("yes")), ("shape", "$.states[4].final".into()));
    assert_eq!(
        refused(|v| v["states"][1]["on"][0]["when"][0]["op"] = json!("lessThan")),
        ("shape", "$.states[1].on[0]".into())
    );
    assert_eq!(refused(|v| v["entryEvent"] = json!({"type": "START"})), ("shape", "$.entryEvent".into()));
}

#[test]
fn refuses_wrongly_typed_counters() {
    let (rule, path) = refused(|v| *at(v, "/states/1/on/0/when/0/field") = json!("task"));
    assert_eq!((rule, path.as_str()), ("predicate-type", "$.states[1].on[0].when[0]"));
    let (rule, path) = refused(|v| *at(v, "/states/1/on/0/assign/0/increment/field") = json!("task"));
    assert_eq!((rule, path.as_str()), ("value-type", "$.states[1].on[0].assign[0].increment.field"));
    let (rule, path) = refused(|v| *at(v, "/states/1/on/0/when/0/field") = json!("nope"));
    assert_eq!((rule, path.as_str()), ("unknown-field", "$.states[1].on[0].when[0].field"));
}

#[test]
fn refuses_a_result_operand_the_result_does_not_carry() {
    let (rule, path) = refused(|v| {
        put(v, "/states/1/on/2", "assign", json!([{"set": {"field": "task", "value": {"result": "text"}}}]))
    });
    assert_eq!((rule, path.as_str()), ("unknown-result-field", "$.states[1].on[2].assign[0].set.value.result"));
}

#[test]
fn refuses_an_agent_machine_without_its_convention_states() {
    let (rule, path) = refused(|v| {
        at(v, "/states").as_array_mut().unwrap().remove(2);
    });
    assert_eq!((rule, path.as_str()), ("missing-convention-state", "$.states[1]"));
}

#[test]
fn refuses_a_bad_entry_event_and_jump() {
    assert_eq!(
        refused(|v| *at(v, "/entryEvent/textField") = json!("other")),
        ("bad-entry-event", "$.entryEvent.textField".into())
    );
    assert_eq!(
        refused(|v| v["bossInterrupt"] = json!([{"target": "done"}])),
        ("bad-jump", "$.bossInterrupt[0].target".into())
    );
    assert_eq!(
        refused(|v| v["bossInterrupt"] = json!([{"target": "gone"}])),
        ("missing-target", "$.bossInterrupt[0].target".into())
    );
    assert_eq!(
        refused(|v| v["bossReply"] = json!({"resumable": ["ready"]})),
        ("bad-resumable", "$.bossReply.resumable[0]".into())
    );
}

#[test]
fn refuses_syntax_errors_with_line_and_column() {
    let r = read_json("{\n  \"id\": }").unwrap_err();
    assert_eq!((r.rule, r.path.as_str()), ("syntax", "$"));
    assert!(r.expected.contains("line 2"), "{}", r.expected);
    assert_eq!(read_toml("id = [").unwrap_err().rule, "syntax");
}

const TINY_TOML: &str = r#"
id = "tiny"
initial = "ready"
entryEvent = { type = "START", textField = "task" }

[[context]]
name = "task"
type = "string"
initial = ""

[[context]]
name = "rounds"
type = "number"
initial = 0

[[events]]
type = "START"
fields = [{ name = "task", source = "text", required = true }]

[[states]]
id = "ready"
description = "Idle hub."
tags = ["parked"]
on = [{ event = "START", assign = [{ set = { field = "task", value = { event = "task" } } }], target = "work" }]

[[states]]
id = "work"
description = "The writer writes."
tags = ["busy"]
on = [
  { guard = "written", when = [{ field = "rounds", op = "lt", value = 2 }], assign = [{ increment = { field = "rounds" } }], target = "work" },
  { guard = "written", target = "done" },
  { guard = "stuck", target = "failed" },
]

[states.invoke]
kind = "player"
player = "writer"
prompt = "Write <task>."
inputs = ["task"]

[[states.invoke.results]]
guard = "written"
description = "Written. Output shall include `text: <verbatim final text>`."
verbatimFields = ["text"]

[[states.invoke.results]]
guard = "stuck"
description = "Could not write."

[[states]]
id = "awaitBossReply"
description = "Waiting for the Boss."
tags = ["parked"]

[[states]]
id = "failed"
description = "Recoverable failure."
tags = ["parked"]
on = [{ event = "START", target = "work" }]

[[states]]
id = "done"
description = "Finished."
final = true
output = [{ name = "task", value = { context = "task" } }]
"#;

#[test]
fn json_and_toml_load_to_the_same_machine() {
    let from_toml = read_toml(TINY_TOML).expect("the TOML form reads");
    let from_json = read_value(base()).unwrap();
    assert_eq!(from_toml, from_json);
}

#[test]
fn json_round_trips_through_the_types() {
    let files = ["workflow.json", "code.json", "writer.json", "planner.json", "delegator.json", "proposals.json"];
    for text in std::iter::once(base().to_string()).chain(files.map(machine_file)) {
        let m: Machine = read_json(&text).unwrap();
        let again = serde_json::to_string_pretty(&m).unwrap();
        assert_eq!(read_json(&again).unwrap(), m);
        let original: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_value(&m).unwrap(), original, "writing spells the document as read");
    }
}

/// The text of a translated machine under `conformance/agents/machines/`.
pub fn machine_file(name: &str) -> String {
    let path = format!("{}/../../conformance/agents/machines/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_translated_machines_read_and_check_clean() {
    for name in ["workflow.json", "code.json", "writer.json", "planner.json", "delegator.json", "proposals.json"] {
        let m = read_json(&machine_file(name)).unwrap_or_else(|r| panic!("{name}: {r}"));
        assert_eq!(check(&m), vec![], "{name}");
    }
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[a-zA-Z$_]{0,6}".prop_map(Value::from),
            prop::sample::select(vec![
                "ready",
                "done",
                "failed",
                "awaitBossReply",
                "player",
                "script",
                "done",
                "parked"
            ])
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(
                    prop::sample::select(vec![
                        "id", "initial", "states", "on", "target", "guard", "invoke", "kind", "results", "final",
                        "parallel", "when", "field", "op", "value"
                    ])
                    .prop_map(String::from),
                    inner,
                    0..5
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = read_json(&text);
            let _ = read_toml(&text);
        }

        #[test]
        fn any_text_round_trips_through_toml(prompt in any::<String>(), key in any::<String>()) {
            let mut v = base();
            v["states"][1]["invoke"]["prompt"] = json!(prompt);
            v["states"][4]["output"][0]["value"] = json!({"literal": {key: prompt}});
            let m = read_value(v).unwrap();
            let text = stagehand_agents::machine::write_toml(&m).unwrap();
            prop_assert_eq!(read_toml(&text).unwrap(), m);
        }

        #[test]
        fn random_json_never_panics(v in json_value()) {
            if let Ok(m) = read_value(v) {
                let _ = check(&m);
            }
        }

        #[test]
        fn edited_base_machines_never_panic(pointer in prop::sample::select(vec!["/initial", "/states/1/on/0/target", "/states/1/invoke/results/0/guard", "/states/1/invoke/kind", "/states/4/final", "/states/1/parallel", "/entryEvent/type"]), v in json_value()) {
            let mut m = base();
            if let Some(slot) = m.pointer_mut(pointer) { *slot = v; }
            if let Ok(machine) = read_value(m) {
                let _ = check(&machine);
            }
        }
    }
}

type Edit = fn(&mut Value);

/// The remaining rules, one case each: (rule, path, edit).
const MORE_RULES: &[(&str, &str, Edit)] = &[
    ("bad-state-id", "$.states[3].id", |v| v["states"][3]["id"] = json!("fail ed")),
    ("bad-field-name", "$.context[0].name", |v| v["context"][0]["name"] = json!("9task")),
    ("duplicate-field", "$.context[1].name", |v| v["context"][1]["name"] = json!("task")),
    ("reserved-field", "$.context[1].name", |v| v["context"][1]["name"] = json!("bossReply")),
    ("reserved-event", "$.events[0].type", |v| v["events"][0]["type"] = json!("BOSS_REPLY")),
    ("final-state", "$.states[4]", |v| v["states"][4]["on"] = json!([{"event": "START", "target": "work"}])),
    ("output-not-final", "$.states[3].output", |v| {
        v["states"][3]["output"] = json!([{"name": "x", "value": {"literal": 1}}])
    }),
    ("output-operand", "$.states[4].output[0].value", |v| {
        v["states"][4]["output"][0]["value"] = json!({"result": "text"})
    }),
    ("invoke-and-parallel", "$.states[1]", |v| v["states"][1]["parallel"] = json!(["ready"])),
    ("playbook-target", "$.states[1].invoke", |v| {
        v["states"][1]["invoke"] = json!({"kind": "playbook", "id": "a", "fromContext": "task"})
    }),
    ("bad-timeout", "$.states[1].invoke.timeoutMs", |v| {
        v["states"][1]["invoke"] = json!({"kind": "script", "command": "true", "timeoutMs": 0})
    }),
    ("duplicate-guard", "$.states[1].invoke.results[1].guard", |v| {
        v["states"][1]["invoke"]["results"][1]["guard"] = json!("written")
    }),
    (
        "parallel-member",
        "$.states[1].parallel[0]",
        |v| v["states"][1] = json!({"id": "work", "description": "Group.", "parallel": ["ready"], "on": [{"guard": "done", "target": "done"}]}),
    ),
    ("guard-or-event", "$.states[1].on[0]", |v| v["states"][1]["on"][0]["event"] = json!("START")),
    ("guard-or-event", "$.states[0].on[0]", |v| v["states"][0]["on"][0] = json!({"target": "work"})),
    ("unknown-event", "$.states[3].on[0].event", |v| v["states"][3]["on"][0]["event"] = json!("STOP")),
    ("value-type", "$.context[1].initial", |v| v["context"][1]["initial"] = json!("zero")),
    ("unknown-event-field", "$.states[0].on[0].assign[0].set.value.event", |v| {
        v["states"][0]["on"][0]["assign"][0]["set"]["value"] = json!({"event": "other"})
    }),
    ("unknown-field", "$.states[1].invoke.inputs[0]", |v| v["states"][1]["invoke"]["inputs"][0] = json!("nothing")),
    ("bad-player-state", "$.playerStates[0].player", |v| {
        v["playerStates"] = json!([{"state": "work", "player": "editor", "label": "Editing"}])
    }),
    ("unknown-event", "$.entryEvent.type", |v| v["entryEvent"]["type"] = json!("STOP")),
    ("duplicate-event", "$.events[1].type", |v| v["events"].as_array_mut().unwrap().push(json!({"type": "START"}))),
    ("duplicate-event-field", "$.events[0].fields[1].name", |v| {
        v["events"][0]["fields"].as_array_mut().unwrap().push(json!({"name": "task", "source": "judge"}))
    }),
];

#[test]
fn refuses_each_remaining_rule_at_its_path() {
    for (rule, path, edit) in MORE_RULES {
        let mut v = base();
        edit(&mut v);
        let refusal = read_value(v).expect_err(rule);
        assert_eq!((refusal.rule, refusal.path.as_str()), (*rule, *path), "{refusal}");
    }
}

#[test]
fn accepts_player_state_labels_for_the_right_player() {
    let mut v = base();
    v["playerStates"] = json!([{"state": "work", "player": "writer", "label": "Writing"}]);
    v["controlContextFields"] = json!(["task", "rounds"]);
    v["bossReply"] = json!({"resumable": ["work"]});
    v["bossInterrupt"] = json!([{"target": "work", "when": [{"field": "task", "op": "present"}], "assign": [{"clear": {"field": "task"}}]}]);
    read_value(v).expect("reads");
}

#[test]
fn machines_round_trip_json_types_toml_types() {
    let files = ["workflow.json", "code.json", "writer.json", "planner.json", "delegator.json", "proposals.json"];
    for text in std::iter::once(base().to_string()).chain(files.map(machine_file)) {
        let m = read_json(&text).unwrap();
        let toml_text = stagehand_agents::machine::write_toml(&m).expect("a machine is representable in TOML");
        let again = read_toml(&toml_text).unwrap_or_else(|r| panic!("{r}\n{toml_text}"));
        assert_eq!(again, m);
    }
}

#[test]
fn a_null_literal_is_not_representable_in_toml() {
    let mut v = base();
    v["states"][4]["output"][0]["value"] = json!({"literal": null});
    let m = read_value(v).unwrap();
    let err = stagehand_agents::machine::write_toml(&m).unwrap_err();
    assert_eq!(err.path, "$.states[4].output[0].value.literal");
}

/// §2.3: a parallel group is one compound state whose regions the group starts and joins, and
/// "the whole parallel parent is the unit that can be jumped to". A transition or jump that
/// names a member alone would run it outside its group, where its results lead nowhere:
/// refused at the reference (A43).
#[test]
fn refuses_a_parallel_member_entered_on_its_own() {
    let proposals: Value =
        serde_json::from_str(&machine_file("proposals.json")).unwrap_or_else(|e| panic!("proposals: {e}"));
    let cases: [(&str, Edit); 3] = [
        ("$.states[0].on[0].target", |v| v["states"][0]["on"][0]["target"] = json!("proposeA")),
        ("$.bossInterrupt[0].target", |v| v["bossInterrupt"] = json!([{"target": "proposeB"}])),
        ("$.states[5].on[0].target", |v| v["states"][5]["on"][0]["target"] = json!("proposeB")),
    ];
    for (path, edit) in cases {
        let mut v = proposals.clone();
        edit(&mut v);
        match read_value(v) {
            Ok(_) => panic!("a machine entering a member alone at {path} must be refused"),
            Err(r) => {
                assert_eq!(r.path, path, "{r}");
                assert_eq!(r.rule, "parallel-member", "{r}");
            }
        }
    }
}

/// DR-022 (CONTRACT.md §1.12): a machine may declare the artifact schema and runtime ABI it
/// was written for. A declaration this runtime supports loads, none at all loads (a legacy
/// artifact), an unsupported schema is refused naming the supported set (also when the ABI is
/// wrong too), another ABI is refused naming both values, and a malformed declaration is
/// refused at the member that is not an integer.
#[test]
fn the_compat_declaration_is_checked_against_this_runtime() {
    use stagehand_agents::machine::{RUNTIME_ABI, SUPPORTED_ARTIFACT_SCHEMAS};
    let declared = |schema: Value, abi: Value| {
        let mut v = base();
        put(&mut v, "", "compat", json!({"artifactSchema": schema, "runtimeAbi": abi}));
        read_value(v)
    };
    let m = declared(json!(SUPPORTED_ARTIFACT_SCHEMAS[0]), json!(RUNTIME_ABI)).expect("a matching declaration loads");
    assert_eq!(m.compat.map(|c| (c.artifact_schema, c.runtime_abi)), Some((1, 1)));
    assert!(read_json(&serde_json::to_string(&m).unwrap()).is_ok(), "the declaration is written back");
    assert_eq!(read_value(base()).expect("legacy").compat, None);

    let schema = declared(json!(99), json!(RUNTIME_ABI)).expect_err("schema 99");
    assert_eq!((schema.rule, schema.path.as_str()), ("artifact-schema", "$.compat.artifactSchema"));
    assert!(schema.expected.contains("99") && schema.expected.contains("[1]"), "{schema}");
    let both = declared(json!(99), json!(RUNTIME_ABI + 1)).expect_err("both wrong");
    assert_eq!(both, schema, "the schema error alone");
    let abi = declared(json!(1), json!(RUNTIME_ABI + 1)).expect_err("ABI 2");
    assert_eq!((abi.rule, abi.path.as_str()), ("runtime-abi", "$.compat.runtimeAbi"));
    assert!(abi.expected.contains("2") && abi.expected.contains("1"), "{abi}");

    for (bad, path) in [
        (declared(json!(1.5), json!(1)), "$.compat.artifactSchema"),
        (declared(json!(1), json!("latest")), "$.compat.runtimeAbi"),
    ] {
        let r = bad.expect_err("malformed");
        assert_eq!((r.rule, r.path.as_str()), ("shape", path), "{r}");
    }
    let mut v = base();
    put(&mut v, "", "compat", json!({"artifactSchema": 1}));
    assert_eq!(read_value(v).expect_err("incomplete").path, "$.compat");
    let mut v = base();
    put(&mut v, "", "compat", json!({"artifactSchema": 1, "runtimeAbi": 1, "extra": 1}));
    assert_eq!(read_value(v).expect_err("unknown key").path, "$.compat");
}
