//! Prompt composition: placeholder mapping, one literal pass, Captain JSON, continuations.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use stagehand_agents::prompt::{
    compose, placeholder_field, sorted_json, substitute, Audience, Continuation, CONTINUATION_PREAMBLE,
};

fn ctx(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

fn none() -> BTreeMap<String, String> {
    BTreeMap::new()
}

#[test]
fn kebab_tokens_map_to_camel_fields() {
    let table = [
        ("coder-output", "coderOutput"),
        ("input-task", "inputTask"),
        ("review-findings", "reviewFindings"),
        ("a-b-c", "aBC"),
        ("item-2", "item2"),
        ("reviewFindings", "reviewFindings"),
        ("trailing-", "trailing-"),
        ("#", "irNumber"),
    ];
    for (token, field) in table {
        assert_eq!(placeholder_field(token, &none()), field, "token {token}");
    }
}

#[test]
fn explicit_exceptions_win_over_the_default_mapping() {
    let overrides =
        BTreeMap::from([("#".to_owned(), "issueNumber".to_owned()), ("caller-input".to_owned(), "task".to_owned())]);
    assert_eq!(placeholder_field("#", &overrides), "issueNumber");
    assert_eq!(placeholder_field("caller-input", &overrides), "task");
    assert_eq!(placeholder_field("coder-output", &overrides), "coderOutput");
}

#[test]
fn substitution_fills_known_fields() {
    let context = ctx(json!({"inputTask": "add a flag", "irNumber": "7"}));
    let got = substitute("> The input task:\n> <input-task>\nIR <#> please.", &context, &none(), Audience::Player);
    assert_eq!(got, "> The input task:\n> add a flag\nIR 7 please.");
}

#[test]
fn substitution_is_one_literal_pass() {
    // A value that itself looks like a placeholder is put in as written, never expanded.
    let context = ctx(json!({"coderOutput": "see <review-findings> and <#>", "reviewFindings": "X"}));
    let got = substitute("Out: <coder-output>", &context, &none(), Audience::Player);
    assert_eq!(got, "Out: see <review-findings> and <#>");
}

#[test]
fn placeholders_with_no_field_stay_as_written() {
    let context = ctx(json!({"nothing": null, "list": [1, 2]}));
    let template = "<missing-field> <nothing> <list> < spaced > <a b> <> <#x> a<b x>=c <9z>";
    assert_eq!(substitute(template, &context, &none(), Audience::Player), template);
}

#[test]
fn scalars_render_as_their_json_text() {
    let context = ctx(json!({"round": 2, "done": false, "text": "plain \"quoted\""}));
    let got = substitute("<round> <done> <text>", &context, &none(), Audience::Player);
    assert_eq!(got, "2 false plain \"quoted\"");
}

#[test]
fn captain_prompts_render_structured_values_as_sorted_json() {
    let context = ctx(json!({
        "runResults": {"zeta": 1, "alpha": {"y": [ {"b": 1, "a": 2} ], "x": null}},
        "items": ["b", "a"],
    }));
    let template = "Results: <run-results>\nItems: <items>";
    assert_eq!(
        substitute(template, &context, &none(), Audience::Captain),
        "Results: {\"alpha\":{\"x\":null,\"y\":[{\"a\":2,\"b\":1}]},\"zeta\":1}\nItems: [\"b\",\"a\"]"
    );
    // A player sees the placeholder instead.
    assert_eq!(substitute(template, &context, &none(), Audience::Player), template);
}

#[test]
fn sorted_json_ignores_insertion_order() {
    let a = json!({"b": 1, "a": {"d": 2, "c": 3}});
    let mut reversed = Map::new();
    let mut inner = Map::new();
    inner.insert("c".into(), json!(3));
    inner.insert("d".into(), json!(2));
    reversed.insert("a".into(), Value::Object(inner));
    reversed.insert("b".into(), json!(1));
    assert_eq!(sorted_json(&a), sorted_json(&Value::Object(reversed)));
    assert_eq!(sorted_json(&a), r#"{"a":{"c":3,"d":2},"b":1}"#);
}

#[test]
fn a_fresh_prompt_is_the_substituted_template_alone() {
    let context = ctx(json!({"inputTask": "t"}));
    assert_eq!(compose("Do <input-task>.", &context, &none(), Audience::Player, None), "Do t.");
}

#[test]
fn a_resumed_prompt_opens_with_the_continuation_blocks() {
    let context = ctx(json!({"inputTask": "t"}));
    let got = compose(
        "Do <input-task>.",
        &context,
        &none(),
        Audience::Player,
        Some(Continuation { question: "Postgres or SQLite?", reply: "  SQLite, <input-task> stays\n" }),
    );
    assert_eq!(
        got,
        format!(
            "{CONTINUATION_PREAMBLE}\n\nBoss question:\nPostgres or SQLite?\n\nBoss reply:\n  \
SQLite, <input-task> stays\n\n\nDo t."
        )
    );
}

proptest! {
    #[test]
    fn substitution_never_panics_and_text_without_angles_is_unchanged(
        template in "[^<]{0,60}",
        noise in ".{0,60}",
    ) {
        let context = ctx(json!({"a": "x"}));
        prop_assert_eq!(substitute(&template, &context, &none(), Audience::Captain), template);
        let _ = substitute(&noise, &context, &none(), Audience::Player);
    }

    #[test]
    fn every_known_placeholder_is_replaced_by_its_value(
        name in "[a-z]{1,6}(-[a-z]{1,6}){0,2}",
        value in "[^<>]{0,20}",
        before in "[^<]{0,10}",
        after in "[^<]{0,10}",
    ) {
        let field = placeholder_field(&name, &none());
        let mut context = Map::new();
        context.insert(field, Value::String(value.clone()));
        let got = substitute(&format!("{before}<{name}>{after}"), &context, &none(), Audience::Player);
        prop_assert_eq!(got, format!("{before}{value}{after}"));
    }
}
