//! The messy-JSON recovery matrix (CONTRACT.md §1.5), as a table, and properties over random
//! input.

use proptest::prelude::*;
use serde_json::{json, Value};
use stagehand_agents::recover::{recover_object, MAX_CANDIDATES};

/// (case name, raw judge reply, expected object or `None`).
fn matrix() -> Vec<(&'static str, &'static str, Option<Value>)> {
    vec![
        ("plain", r#"{"guard":"ok"}"#, Some(json!({"guard":"ok"}))),
        ("surrounding white space", "\n\t {\"guard\": \"ok\"}  \n", Some(json!({"guard":"ok"}))),
        ("json fence", "```json\n{\"guard\": \"ok\", \"n\": 1}\n```", Some(json!({"guard":"ok","n":1}))),
        ("bare fence", "```\n{\"guard\": \"ok\"}\n```", Some(json!({"guard":"ok"}))),
        (
            "fence inside prose",
            "Here you go:\n```json\n{\"guard\": \"ok\"}\n```\nHope that helps.",
            Some(json!({"guard":"ok"})),
        ),
        ("prose before", r#"The reviewer found issues, so: {"guard":"findings"}"#, Some(json!({"guard":"findings"}))),
        ("prose after", r#"{"guard":"clean"} -- that is my decision."#, Some(json!({"guard":"clean"}))),
        ("prose with braces that are no object before", r#"Set {x} aside. {"guard":"a"}"#, Some(json!({"guard":"a"}))),
        (
            "two objects: the first wins",
            r#"{"guard":"first"} or maybe {"guard":"second"}"#,
            Some(json!({"guard":"first"})),
        ),
        (
            "two objects on separate lines",
            "{\"guard\":\"first\"}\n{\"guard\":\"second\"}",
            Some(json!({"guard":"first"})),
        ),
        ("an array first, then an object", r#"[1, 2] then {"guard":"a"}"#, Some(json!({"guard":"a"}))),
        ("an object inside an array", r#"[{"guard":"a"}]"#, Some(json!({"guard":"a"}))),
        ("trailing comma in object", r#"{"guard":"ok","x":1,}"#, Some(json!({"guard":"ok","x":1}))),
        ("trailing comma in array", r#"{"guard":"ok","xs":[1,2,],}"#, Some(json!({"guard":"ok","xs":[1,2]}))),
        ("trailing comma before white space and close", "{\"guard\":\"ok\",\n}", Some(json!({"guard":"ok"}))),
        ("comma inside a string is kept", r#"{"guard":"ok","s":"a,}",}"#, Some(json!({"guard":"ok","s":"a,}"}))),
        (
            "truncated mid-string",
            r#"{"guard":"needsBossReply","question":"Which database sho"#,
            Some(json!({"guard":"needsBossReply","question":"Which database sho"})),
        ),
        ("truncated mid-array", r#"{"guard":"ok","xs":[1,2"#, Some(json!({"guard":"ok","xs":[1,2]}))),
        ("truncated after a comma in an array", r#"{"guard":"ok","xs":["a","#, Some(json!({"guard":"ok","xs":["a"]}))),
        ("truncated after a member", r#"{"guard":"ok","#, Some(json!({"guard":"ok"}))),
        ("truncated after a colon", r#"{"guard":"ok","x":"#, Some(json!({"guard":"ok","x":null}))),
        ("truncated after a key", r#"{"guard":"ok","x""#, Some(json!({"guard":"ok","x":null}))),
        ("truncated mid-key", r#"{"guard":"ok","ke"#, Some(json!({"guard":"ok","ke":null}))),
        ("truncated mid-literal", r#"{"guard":"ok","done":tr"#, Some(json!({"guard":"ok","done":true}))),
        ("truncated mid-number", r#"{"guard":"ok","n":1."#, Some(json!({"guard":"ok","n":1}))),
        (
            "truncated in nested objects",
            r#"{"guard":"ok","a":{"b":{"c":"d"#,
            Some(json!({"guard":"ok","a":{"b":{"c":"d"}}})),
        ),
        ("truncated after an escape", r#"{"guard":"ok","s":"a\"#, Some(json!({"guard":"ok","s":"a"}))),
        ("truncated mid unicode escape", r#"{"guard":"ok","s":"a\u00"#, Some(json!({"guard":"ok","s":"a"}))),
        (
            "truncated inside a fence",
            "```json\n{\"guard\":\"ok\",\"s\":\"cut\n```",
            Some(json!({"guard":"ok","s":"cut"})),
        ),
        ("truncated object closed by a fence line", "```json\n{\"guard\":\"ok\",\n```", Some(json!({"guard":"ok"}))),
        (
            "nested braces inside strings",
            r#"{"guard":"ok","code":"fn main() { if x { y } }"}"#,
            Some(json!({"guard":"ok","code":"fn main() { if x { y } }"})),
        ),
        (
            "unbalanced braces inside strings",
            r#"{"guard":"ok","s":"}}}{"} trailing"#,
            Some(json!({"guard":"ok","s":"}}}{"})),
        ),
        (
            "escaped quotes",
            r#"{"guard":"ok","s":"she said \"{no}\" twice"}"#,
            Some(json!({"guard":"ok","s":"she said \"{no}\" twice"})),
        ),
        (
            "escaped backslash before a quote",
            r#"{"guard":"ok","s":"C:\\"} and more"#,
            Some(json!({"guard":"ok","s":"C:\\"})),
        ),
        (
            "strict parse preferred over repair at the same position",
            r#"{"guard":"a","s":"x,}"} {"guard":"b"}"#,
            Some(json!({"guard":"a","s":"x,}"})),
        ),
        (
            "a repaired earlier object beats a strict later one (document order)",
            r#"{"guard":"a",} {"guard":"b"}"#,
            Some(json!({"guard":"a"})),
        ),
        ("unparseable start skipped for a later object", r#"{not json} {"guard":"b"}"#, Some(json!({"guard":"b"}))),
        (
            "nested object in prose found whole",
            r#"Decision: {"guard":"ok","meta":{"why":"x"}} end"#,
            Some(json!({"guard":"ok","meta":{"why":"x"}})),
        ),
        (
            "unicode around and inside",
            "判决：{\"guard\":\"ok\",\"s\":\"输出应包含\"}。",
            Some(json!({"guard":"ok","s":"输出应包含"})),
        ),
        ("no object at all", "I cannot decide.", None),
        ("empty reply", "", None),
        ("only white space", " \n\t ", None),
        ("array only", "[1, 2, 3]", None),
        ("scalar only", "\"guard\"", None),
        ("only a fence", "```json\n```", None),
        ("lone open brace", "{", Some(json!({}))),
        ("garbage after a brace", "{ this is not json", None),
    ]
}

#[test]
fn recovery_matrix() {
    let mut failures = Vec::new();
    for (name, raw, expected) in matrix() {
        let got = recover_object(raw).map(Value::Object);
        if got != expected {
            failures.push(format!("{name}: got {got:?}, expected {expected:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn many_stray_braces_cost_bounded_work_and_give_up() {
    let raw = format!("{}{}", "{".repeat(MAX_CANDIDATES + 10), r#"{"guard":"late"}"#);
    // Every `{` before the object opens a container the object does not close, so every
    // candidate fails; past the cap the object is not looked for.
    assert_eq!(recover_object(&raw), None);
    let raw = format!("{} {}", "{x} ".repeat(10), r#"{"guard":"found"}"#);
    assert_eq!(recover_object(&raw), Some(json!({"guard":"found"}).as_object().unwrap().clone()));
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let raw = "[".repeat(100_000);
    assert_eq!(recover_object(&raw), None);
    let raw = format!("{}{}", r#"{"a":"#.repeat(10_000), "1");
    // serde_json's recursion limit refuses this depth; the answer is simply none.
    assert_eq!(recover_object(&raw), None);
}

fn prose() -> impl Strategy<Value = String> {
    // Prose may hold anything but an opening brace or a backtick, which could start a
    // candidate or a fence of its own.
    proptest::string::string_regex("[^{`]{0,40}").unwrap()
}

fn json_object() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        ".{0,12}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(".{0,6}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    proptest::collection::btree_map(".{0,8}", value, 0..5).prop_map(|m| Value::Object(m.into_iter().collect()))
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = recover_object(&text);
    }

    #[test]
    fn random_json_like_text_never_panics(text in "[{}\\[\\]\",:\\\\a-z0-9 \n`]{0,200}") {
        let _ = recover_object(&text);
    }

    #[test]
    fn an_object_in_prose_is_found_exactly(
        before in prose(),
        object in json_object(),
        after in ".{0,40}",
        pretty in any::<bool>(),
    ) {
        let body = if pretty {
            serde_json::to_string_pretty(&object).unwrap()
        } else {
            serde_json::to_string(&object).unwrap()
        };
        let raw = format!("{before}{body}{after}");
        prop_assert_eq!(recover_object(&raw).map(Value::Object), Some(object));
    }

    #[test]
    fn a_truncated_object_recovers_a_prefix_without_panicking(
        object in json_object(),
        cut in any::<prop::sample::Index>(),
    ) {
        let body = serde_json::to_string(&object).unwrap();
        let boundaries: Vec<usize> = body.char_indices().map(|(i, _)| i).collect();
        let at = boundaries[cut.index(boundaries.len())];
        // Whatever the cut, recovery never panics, and an object cut at its first brace
        // is still an object.
        let got = recover_object(&body[..at.max(1)]);
        prop_assert!(got.is_some());
    }
}
