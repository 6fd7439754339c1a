//! The JSON Schema in `schema/machine.schema.json`: every test machine validates against it,
//! and it names exactly the properties the types have.
//!
//! The `jsonschema` crate is not in the offline registry, so a small validator for the subset
//! the schema uses (`$ref`, `type`, `properties`, `required`, `additionalProperties: false`,
//! `items`, `minItems`, `enum`, `const`, `oneOf`, `not`, `minimum`, the identifier `pattern`)
//! lives here.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use stagehand_agents::machine::*;

const IDENT: &str = "^[A-Za-z_$][A-Za-z0-9_$]*$";

fn schema() -> Value {
    let path = format!("{}/schema/machine.schema.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("the schema is JSON")
}

fn ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Returns the first violation as `path: why`.
fn validate(root: &Value, schema: &Value, v: &Value, path: &str) -> Result<(), String> {
    let Some(s) = schema.as_object() else { return Ok(()) };
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let def = root.pointer(r.trim_start_matches('#')).unwrap_or_else(|| panic!("dangling {r}"));
        return validate(root, def, v, path);
    }
    let err = |why: String| Err(format!("{path}: {why}"));
    if let Some(t) = s.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            other => panic!("unsupported type {other}"),
        };
        if !ok {
            return err(format!("not a {t}"));
        }
    }
    if let Some(c) = s.get("const") {
        if c != v {
            return err(format!("not {c}"));
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            return err(format!("not one of {e:?}"));
        }
    }
    if let Some(p) = s.get("pattern").and_then(Value::as_str) {
        assert_eq!(p, IDENT, "only the identifier pattern is supported");
        if !ident(v.as_str().unwrap_or_default()) {
            return err("not an identifier".into());
        }
    }
    if let Some(n) = s.get("not") {
        if validate(root, n, v, path).is_ok() {
            return err("matches a forbidden form".into());
        }
    }
    if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
        if v.as_f64().is_some_and(|x| x < min) {
            return err(format!("below {min}"));
        }
    }
    if let Some(options) = s.get("oneOf").and_then(Value::as_array) {
        let passing = options.iter().filter(|o| validate(root, o, v, path).is_ok()).count();
        if passing != 1 {
            return err(format!("matches {passing} of the oneOf forms"));
        }
    }
    if let (Some(items), Some(a)) = (s.get("items"), v.as_array()) {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
            if (a.len() as u64) < min {
                return err(format!("fewer than {min} items"));
            }
        }
        for (i, item) in a.iter().enumerate() {
            validate(root, items, item, &format!("{path}[{i}]"))?;
        }
    }
    if let Some(o) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for req in s.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !o.contains_key(req.as_str().unwrap()) {
                return err(format!("missing {req}"));
            }
        }
        for (k, val) in o {
            match props.and_then(|p| p.get(k)) {
                Some(sub) => validate(root, sub, val, &format!("{path}.{k}"))?,
                None if s.get("additionalProperties") == Some(&json!(false)) => return err(format!("unknown key {k}")),
                None => {}
            }
        }
    }
    Ok(())
}

fn machine_file(name: &str) -> Value {
    let path = format!("{}/../../conformance/agents/machines/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(x: &str) -> String {
    x.to_string()
}

fn result(guard: &str) -> ResultSpec {
    ResultSpec { guard: s(guard), description: s("D."), required_fields: vec![s("a")], verbatim_fields: vec![s("b")] }
}

/// A machine that spells every property of every type (struct literals make a new field a
/// compile error here until it is added), and every variant of every enum.
fn every_property() -> Machine {
    let when = vec![Predicate { field: s("n"), op: CompareOp::Lt, value: Some(json!(2)) }];
    let assign = vec![
        Assign::Set { field: s("t"), value: Operand::Context(s("t")) },
        Assign::Set { field: s("t"), value: Operand::Result(s("a")) },
        Assign::Set { field: s("t"), value: Operand::Event(s("e")) },
        Assign::Set { field: s("t"), value: Operand::Literal(json!("x")) },
        Assign::Increment { field: s("n"), by: 2 },
        Assign::Clear { field: s("t") },
    ];
    let transition = Transition {
        guard: Some(s("g")),
        event: Some(s("E")),
        when: when.clone(),
        assign: assign.clone(),
        target: s("x"),
    };
    let invokes = vec![
        Invoke::Player { player: s("p"), prompt: s("P"), inputs: vec![s("t")], results: vec![result("g")] },
        Invoke::Captain {
            prompt: s("P"),
            inputs: vec![s("t")],
            results: vec![result("g")],
            visibility: Visibility::Hidden,
        },
        Invoke::Playbook {
            id: Some(s("child")),
            from_context: Some(s("t")),
            text: Some(Operand::Context(s("t"))),
            results: vec![result("g")],
        },
        Invoke::Script { command: s("true"), timeout_ms: 5 },
    ];
    let states = invokes
        .into_iter()
        .enumerate()
        .map(|(i, invoke)| State {
            id: format!("s{i}"),
            description: s("S."),
            source_item: Some(s("X-1")),
            tags: vec![Tag::Busy, Tag::Parked, Tag::Suspended],
            is_final: true,
            output: vec![OutputField { name: s("o"), value: Operand::Literal(json!(1)) }],
            invoke: Some(invoke),
            parallel: vec![s("m")],
            on: vec![transition.clone()],
        })
        .collect();
    Machine {
        id: s("m"),
        initial: s("s0"),
        description: Some(s("M.")),
        compat: Some(Compat { artifact_schema: 1, runtime_abi: 1 }),
        context: vec![ContextField { name: s("n"), ty: FieldType::Number, initial: Some(json!(0)) }]
            .into_iter()
            .chain([FieldType::String, FieldType::Boolean, FieldType::Json].map(|ty| ContextField {
                name: s("t"),
                ty,
                initial: None,
            }))
            .collect(),
        events: vec![EventSpec {
            event_type: s("E"),
            description: Some(s("E.")),
            fields: vec![
                EventField { name: s("e"), source: FieldSource::Text, required: true, values: Some(vec![s("v")]) },
                EventField { name: s("f"), source: FieldSource::Judge, required: false, values: None },
            ],
        }],
        states,
        boss_interrupt: vec![Jump { target: s("s1"), when, assign }],
        boss_reply: Some(BossReply { resumable: vec![s("s0")] }),
        entry_event: Some(EntryEvent { event_type: s("E"), text_field: s("e") }),
        control_context_fields: vec![s("t")],
        player_states: vec![PlayerState { state: s("s0"), player: s("p"), label: s("L") }],
    }
}

fn keys_of(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                out.insert(k.clone());
                keys_of(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys_of(x, out)),
        _ => {}
    }
}

fn schema_properties(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Object(props)) = o.get("properties") {
                out.extend(props.keys().cloned());
            }
            o.values().for_each(|x| schema_properties(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| schema_properties(x, out)),
        _ => {}
    }
}

#[test]
fn every_test_machine_validates_against_the_schema() {
    let root = schema();
    for name in ["workflow.json", "code.json"] {
        validate(&root, &root, &machine_file(name), "$").unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let every = serde_json::to_value(every_property()).unwrap();
    validate(&root, &root, &every, "$").unwrap();
}

#[test]
fn the_schema_refuses_what_the_types_refuse() {
    let root = schema();
    let mut bad = machine_file("workflow.json");
    bad["states"][1]["invoke"]["colour"] = json!("red");
    assert!(validate(&root, &root, &bad, "$").is_err());
    let mut bad = machine_file("workflow.json");
    bad["controlContextFields"] = json!(["lastError"]);
    assert!(validate(&root, &root, &bad, "$").is_err());
    let mut bad = machine_file("workflow.json");
    bad["states"][3]["invoke"]["results"][0]["guard"] = json!("no-dashes");
    assert!(validate(&root, &root, &bad, "$").is_err());
}

#[test]
fn the_schema_names_exactly_the_properties_the_types_have() {
    let mut from_types = BTreeSet::new();
    keys_of(&serde_json::to_value(every_property()).unwrap(), &mut from_types);
    let mut from_schema = BTreeSet::new();
    schema_properties(&schema(), &mut from_schema);
    assert_eq!(from_schema, from_types);
}
