//! The writer: the shortest true document, keys in the order the format documents them.
//!
//! A field whose value is its default is left out (`ordered: false`, `default: false`,
//! `reserved: false`, no condition, no tag value), so absent and default mean the same thing
//! everywhere. A percentage with no fractional part is written as an integer (`60`, not `60.0`).

use serde_json::{Map, Number, Value};

use crate::condition::{Condition, Weight};
use crate::document::{Playbook, Speaker, SCHEMA_URL};
use crate::edge::Edge;
use crate::node::Node;
use crate::speech::Fragment;

/// The document as a JSON value, with its keys in the documented order.
pub fn to_json(playbook: &Playbook) -> Value {
    let mut root = Map::new();
    root.insert("$schema".into(), SCHEMA_URL.into());
    let mut format = Map::new();
    format.insert("version".into(), playbook.format.version.into());
    format.insert("requires".into(), strings(&playbook.format.requires));
    format.insert("uses".into(), strings(&playbook.format.uses));
    root.insert("format".into(), Value::Object(format));
    root.insert("script".into(), playbook.script.clone().into());
    root.insert("entry".into(), playbook.entry.into());
    root.insert(
        "anchors".into(),
        Value::Object(playbook.anchors.iter().map(|(slug, &node)| (slug.clone(), node.into())).collect()),
    );
    root.insert("speakers".into(), Value::Array(playbook.speakers.iter().map(speaker).collect()));
    root.insert("nodes".into(), Value::Array(playbook.nodes.iter().enumerate().map(|(id, n)| node(id, n)).collect()));
    Value::Object(root)
}

/// The document, pretty-printed with two-space indentation, as a playbook is meant to be read.
pub fn write(playbook: &Playbook) -> String {
    serde_json::to_string_pretty(&to_json(playbook)).unwrap_or_default()
}

/// The document on one line, with no insignificant whitespace.
pub fn write_compact(playbook: &Playbook) -> String {
    serde_json::to_string(&to_json(playbook)).unwrap_or_default()
}

fn strings<S: AsRef<str>>(items: &[S]) -> Value {
    Value::Array(items.iter().map(|item| Value::from(item.as_ref())).collect())
}

fn speaker(speaker: &Speaker) -> Value {
    let mut map = Map::new();
    if let Some(id) = &speaker.id {
        map.insert("id".into(), id.clone().into());
    }
    if let Some(name) = &speaker.name {
        map.insert("name".into(), name.clone().into());
    }
    if speaker.default {
        map.insert("default".into(), true.into());
    }
    let tags = speaker
        .tags
        .iter()
        .map(|tag| {
            let mut map = Map::new();
            map.insert("name".into(), tag.name.clone().into());
            if let Some(value) = &tag.value {
                map.insert("value".into(), value.clone().into());
            }
            if tag.reserved {
                map.insert("reserved".into(), true.into());
            }
            Value::Object(map)
        })
        .collect();
    map.insert("tags".into(), Value::Array(tags));
    Value::Object(map)
}

fn tagged(kind: &str) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("kind".into(), kind.into());
    map
}

fn node(id: usize, node: &Node) -> Value {
    let mut map = tagged(node.kind().as_str());
    map.insert("id".into(), id.into());
    match node {
        Node::Line { speaker, speech: words, condition: guard, .. } => {
            map.insert("speaker".into(), (*speaker).into());
            map.insert("speech".into(), speech(words));
            insert_condition(&mut map, guard.as_ref());
        }
        Node::Choice { ordered, .. } => {
            if *ordered {
                map.insert("ordered".into(), true.into());
            }
        }
        Node::Control { effects, condition: guard, .. } => {
            map.insert("effects".into(), speech(effects));
            insert_condition(&mut map, guard.as_ref());
        }
        Node::RandomChoice { .. } | Node::Branch { .. } | Node::End => {}
    }
    map.insert("out".into(), Value::Array(node.out().iter().map(edge).collect()));
    Value::Object(map)
}

fn insert_condition(map: &mut Map<String, Value>, guard: Option<&Condition>) {
    if let Some(guard) = guard {
        map.insert("condition".into(), condition(guard));
    }
}

fn condition(condition: &Condition) -> Value {
    match condition {
        Condition::Key { key } => {
            let mut map = tagged("key");
            map.insert("key".into(), key.as_str().into());
            Value::Object(map)
        }
    }
}

/// A percentage as JSON: an integer when it has no fractional part, so `60` stays `60`.
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        Value::Number(Number::from(value as i64))
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

fn weight(weight: &Weight) -> Value {
    match weight {
        Weight::Auto => Value::Object(tagged("auto")),
        Weight::Number { percentage } => {
            let mut map = tagged("number");
            map.insert("percentage".into(), number(*percentage));
            Value::Object(map)
        }
        Weight::Query { key } => {
            let mut map = tagged("query");
            map.insert("key".into(), key.as_str().into());
            Value::Object(map)
        }
    }
}

fn edge(edge: &Edge) -> Value {
    let mut map = tagged(edge.kind().as_str());
    map.insert("target".into(), edge.target().into());
    match edge {
        Edge::Succession { .. } => {}
        Edge::Option { label, condition: guard, .. } | Edge::Divert { label, condition: guard, .. } => {
            map.insert("label".into(), speech(label));
            insert_condition(&mut map, guard.as_ref());
        }
        Edge::RandomOption { weight: share, condition: guard, .. } => {
            map.insert("weight".into(), weight(share));
            insert_condition(&mut map, guard.as_ref());
        }
        Edge::Branch { condition: guard, .. } => insert_condition(&mut map, guard.as_ref()),
    }
    Value::Object(map)
}

/// Speech as JSON: the fragments, each a tagged object, as the playbook writes them.
pub fn speech_to_json(fragments: &[Fragment]) -> Value {
    speech(fragments)
}

fn speech(fragments: &[Fragment]) -> Value {
    Value::Array(fragments.iter().map(fragment).collect())
}

fn fragment(fragment: &Fragment) -> Value {
    let mut map = tagged(fragment.kind_name());
    match fragment {
        Fragment::Text { text } => {
            map.insert("text".into(), text.as_str().into());
        }
        Fragment::Styled { style, children } => {
            map.insert("style".into(), style.as_str().into());
            map.insert("children".into(), speech(children));
        }
        Fragment::Link { target, label } => {
            map.insert("target".into(), target.as_str().into());
            map.insert("label".into(), speech(label));
        }
        Fragment::Image { source, alt } => {
            map.insert("source".into(), source.as_str().into());
            map.insert("alt".into(), speech(alt));
        }
        Fragment::Break => {}
        Fragment::Query { key } => {
            map.insert("key".into(), key.as_str().into());
        }
        Fragment::DefaultCommand { action } => {
            map.insert("action".into(), action.as_str().into());
        }
        Fragment::CustomCommand { name, args } => {
            map.insert("name".into(), name.as_str().into());
            map.insert("args".into(), strings(args));
        }
        Fragment::Tag { name, value, reserved } => {
            map.insert("name".into(), name.as_str().into());
            if let Some(value) = value {
                map.insert("value".into(), value.as_str().into());
            }
            if *reserved {
                map.insert("reserved".into(), true.into());
            }
        }
    }
    Value::Object(map)
}
