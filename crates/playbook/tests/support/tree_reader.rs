//! The reader as it was before it streamed (commit 42416f6): the whole text parsed into a
//! `serde_json::Value`, then walked. Kept only as the oracle the streaming reader is compared
//! with (`tests/streaming.rs`); it is not part of the crate.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use stagehand_playbook::{
    Condition, Document, Edge, EdgeKind, Edges, Format, Fragment, JsonPath, Node, NodeKind, Playbook, ReadError,
    Reader, Refusal, Rule, Speaker, SpeakerTag, Speech, Style, Weight, FORMAT_VERSION,
};

/// A path built on the stack as the reader descends, turned into a [`JsonPath`] only on refusal.
#[derive(Clone, Copy)]
enum Here<'p> {
    Root,
    Key(&'p Here<'p>, &'p str),
    Index(&'p Here<'p>, usize),
}

impl Here<'_> {
    fn path(&self) -> JsonPath {
        match self {
            Here::Root => JsonPath::root(),
            Here::Key(parent, key) => parent.path().key(*key),
            Here::Index(parent, index) => parent.path().index(*index),
        }
    }

    fn refuse(&self, message: impl Into<String>) -> Refusal {
        Refusal::new(Rule::Shape, self.path(), message)
    }
}

type Read<T> = Result<T, Refusal>;

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the text {}", Value::String(s.clone())),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

fn object<'v>(value: &'v Value, here: &Here<'_>) -> Read<&'v Map<String, Value>> {
    value.as_object().ok_or_else(|| here.refuse(format!("expected an object, found {}", describe(value))))
}

fn array<'v>(value: &'v Value, here: &Here<'_>) -> Read<&'v [Value]> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(here.refuse(format!("expected an array, found {}", describe(other)))),
    }
}

fn string<S: for<'a> From<&'a str>>(value: &Value, here: &Here<'_>) -> Read<S> {
    value.as_str().map(S::from).ok_or_else(|| here.refuse(format!("expected a string, found {}", describe(value))))
}

fn boolean(value: &Value, here: &Here<'_>) -> Read<bool> {
    value.as_bool().ok_or_else(|| here.refuse(format!("expected true or false, found {}", describe(value))))
}

fn index(value: &Value, here: &Here<'_>, what: &str) -> Read<usize> {
    match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
        Some(n) => Ok(n),
        None => Err(here.refuse(format!("expected {what} (a non-negative integer), found {}", describe(value)))),
    }
}

/// A node or speaker reference: one beyond `u32::MAX` lands nowhere (the reference rule).
fn reference(value: &Value, here: &Here<'_>, what: &str) -> Read<u32> {
    let n = index(value, here, what)?;
    u32::try_from(n).map_err(|_| {
        Refusal::new(
            Rule::Reference,
            here.path(),
            format!("{what} {n} lands nowhere: a playbook's tables hold at most {} entries", u64::from(u32::MAX) + 1),
        )
    })
}

fn required<'v>(map: &'v Map<String, Value>, key: &'static str, here: &Here<'_>) -> Read<&'v Value> {
    map.get(key).ok_or_else(|| here.refuse(format!("the required property `{key}` is missing")))
}

/// Reads `format` alone, so the version and capabilities can be judged before anything else.
fn format_header(root: &Value) -> Read<Format> {
    let here = Here::Root;
    let map = object(root, &here)?;
    let value = required(map, "format", &here)?;
    let here = Here::Key(&here, "format");
    let map = object(value, &here)?;
    let version_value = required(map, "version", &here)?;
    let version = version_value.as_u64().ok_or_else(|| {
        Here::Key(&here, "version")
            .refuse(format!("expected a format version (a non-negative integer), found {}", describe(version_value)))
    })?;
    let names = |key: &'static str| -> Read<Vec<String>> {
        match map.get(key) {
            None => Ok(Vec::new()),
            Some(value) => {
                let here = Here::Key(&here, key);
                array(value, &here)?.iter().enumerate().map(|(i, item)| string(item, &Here::Index(&here, i))).collect()
            }
        }
    };
    Ok(Format { version, requires: names("requires")?, uses: names("uses")? })
}

/// Reads the whole document, returning the ids the nodes claimed beside it.
fn document(root: &Value, format: Format) -> Read<(Playbook, Vec<u64>)> {
    let here = Here::Root;
    let map = object(root, &here)?;
    let script = string(required(map, "script", &here)?, &Here::Key(&here, "script"))?;
    let entry = index(required(map, "entry", &here)?, &Here::Key(&here, "entry"), "a node reference")?;

    let anchors_here = Here::Key(&here, "anchors");
    let mut anchors = BTreeMap::new();
    for (slug, value) in object(required(map, "anchors", &here)?, &anchors_here)? {
        anchors.insert(slug.clone(), index(value, &Here::Key(&anchors_here, slug), "a node reference")?);
    }

    let speakers_here = Here::Key(&here, "speakers");
    let speakers = array(required(map, "speakers", &here)?, &speakers_here)?
        .iter()
        .enumerate()
        .map(|(i, value)| speaker(value, &Here::Index(&speakers_here, i)))
        .collect::<Read<Vec<_>>>()?;

    let nodes_here = Here::Key(&here, "nodes");
    let items = array(required(map, "nodes", &here)?, &nodes_here)?;
    let mut nodes = Vec::with_capacity(items.len());
    let mut claimed_ids = Vec::with_capacity(items.len());
    for (i, value) in items.iter().enumerate() {
        let (id, node) = node(value, &Here::Index(&nodes_here, i))?;
        claimed_ids.push(id);
        nodes.push(node);
    }

    Ok((Playbook { format, script, entry, anchors, speakers, nodes }, claimed_ids))
}

fn optional_string<S: for<'a> From<&'a str>>(
    map: &Map<String, Value>,
    key: &'static str,
    here: &Here<'_>,
) -> Read<Option<S>> {
    map.get(key).map(|value| string(value, &Here::Key(here, key))).transpose()
}

fn flag(map: &Map<String, Value>, key: &'static str, here: &Here<'_>) -> Read<bool> {
    map.get(key).map_or(Ok(false), |value| boolean(value, &Here::Key(here, key)))
}

fn speaker(value: &Value, here: &Here<'_>) -> Read<Speaker> {
    let map = object(value, here)?;
    let tags_here = Here::Key(here, "tags");
    let tags = array(required(map, "tags", here)?, &tags_here)?
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let here = Here::Index(&tags_here, i);
            let map = object(value, &here)?;
            Ok(SpeakerTag {
                name: string(required(map, "name", &here)?, &Here::Key(&here, "name"))?,
                value: optional_string(map, "value", &here)?,
                reserved: flag(map, "reserved", &here)?,
            })
        })
        .collect::<Read<Vec<_>>>()?;
    Ok(Speaker {
        id: optional_string(map, "id", here)?,
        name: optional_string(map, "name", here)?,
        default: flag(map, "default", here)?,
        tags,
    })
}

fn kind<'v>(map: &'v Map<String, Value>, here: &Here<'_>) -> Read<&'v str> {
    let value = required(map, "kind", here)?;
    value
        .as_str()
        .ok_or_else(|| Here::Key(here, "kind").refuse(format!("expected a kind name, found {}", describe(value))))
}

fn node(value: &Value, here: &Here<'_>) -> Read<(u64, Node)> {
    let map = object(value, here)?;
    let name = kind(map, here)?;
    let kind = NodeKind::parse(name).ok_or_else(|| {
        Here::Key(here, "kind").refuse(format!(
            "unknown node kind {}; expected line, choice, random-choice, branch, control or end",
            Value::String(name.to_owned())
        ))
    })?;
    let id_value = required(map, "id", here)?;
    let id = id_value.as_u64().ok_or_else(|| {
        Here::Key(here, "id")
            .refuse(format!("expected a node id (a non-negative integer), found {}", describe(id_value)))
    })?;
    let out_here = Here::Key(here, "out");
    let out = || -> Read<Edges> {
        array(required(map, "out", here)?, &out_here)?
            .iter()
            .enumerate()
            .map(|(i, value)| edge(value, &Here::Index(&out_here, i)))
            .collect()
    };
    let node = match kind {
        NodeKind::Line => Node::Line {
            speaker: reference(required(map, "speaker", here)?, &Here::Key(here, "speaker"), "a speaker reference")?,
            speech: speech(required(map, "speech", here)?, &Here::Key(here, "speech"))?,
            condition: optional_condition(map, here)?,
            out: out()?,
        },
        NodeKind::Choice => Node::Choice { ordered: flag(map, "ordered", here)?, out: out()? },
        NodeKind::RandomChoice => Node::RandomChoice { out: out()? },
        NodeKind::Branch => Node::Branch { out: out()? },
        NodeKind::Control => Node::Control {
            effects: speech(required(map, "effects", here)?, &Here::Key(here, "effects"))?,
            condition: optional_condition(map, here)?,
            out: out()?,
        },
        NodeKind::End => {
            if !out()?.is_empty() {
                return Err(out_here.refuse("an end leads nowhere, so its `out` must be empty"));
            }
            Node::End
        }
    };
    Ok((id, node))
}

fn optional_condition(map: &Map<String, Value>, here: &Here<'_>) -> Read<Option<Condition>> {
    map.get("condition").map(|value| condition(value, &Here::Key(here, "condition"))).transpose()
}

fn condition(value: &Value, here: &Here<'_>) -> Read<Condition> {
    let map = object(value, here)?;
    match kind(map, here)? {
        "key" => Ok(Condition::Key { key: string(required(map, "key", here)?, &Here::Key(here, "key"))? }),
        other => Err(Here::Key(here, "kind")
            .refuse(format!("unknown condition kind {}; expected key", Value::String(other.to_owned())))),
    }
}

fn weight(value: &Value, here: &Here<'_>) -> Read<Weight> {
    let map = object(value, here)?;
    match kind(map, here)? {
        "auto" => Ok(Weight::Auto),
        "number" => {
            let value = required(map, "percentage", here)?;
            let percentage = value.as_f64().ok_or_else(|| {
                Here::Key(here, "percentage").refuse(format!("expected a number, found {}", describe(value)))
            })?;
            Ok(Weight::Number { percentage })
        }
        "query" => {
            Ok(Weight::Query { key: string::<String>(required(map, "key", here)?, &Here::Key(here, "key"))?.into() })
        }
        other => Err(Here::Key(here, "kind").refuse(format!(
            "unknown weight kind {}; expected auto, number or query",
            Value::String(other.to_owned())
        ))),
    }
}

fn edge(value: &Value, here: &Here<'_>) -> Read<Edge> {
    let map = object(value, here)?;
    let name = kind(map, here)?;
    let kind = EdgeKind::parse(name).ok_or_else(|| {
        Here::Key(here, "kind").refuse(format!(
            "unknown edge kind {}; expected succession, option, random-option, branch or divert",
            Value::String(name.to_owned())
        ))
    })?;
    let target = reference(required(map, "target", here)?, &Here::Key(here, "target"), "a node reference")?;
    let label = || speech(required(map, "label", here)?, &Here::Key(here, "label"));
    Ok(match kind {
        EdgeKind::Succession => Edge::Succession { target },
        EdgeKind::Option => Edge::Option { target, label: label()?, condition: optional_condition(map, here)? },
        EdgeKind::RandomOption => Edge::RandomOption {
            target,
            weight: weight(required(map, "weight", here)?, &Here::Key(here, "weight"))?,
            condition: optional_condition(map, here)?,
        },
        EdgeKind::Branch => Edge::Branch { target, condition: optional_condition(map, here)? },
        EdgeKind::Divert => Edge::Divert { target, label: label()?, condition: optional_condition(map, here)? },
    })
}

fn speech(value: &Value, here: &Here<'_>) -> Read<Speech> {
    array(value, here)?.iter().enumerate().map(|(i, value)| fragment(value, &Here::Index(here, i))).collect()
}

fn fragment(value: &Value, here: &Here<'_>) -> Read<Fragment> {
    let map = object(value, here)?;
    let text = |key: &'static str| string(required(map, key, here)?, &Here::Key(here, key));
    let nested = |key: &'static str| speech(required(map, key, here)?, &Here::Key(here, key));
    Ok(match kind(map, here)? {
        "text" => Fragment::Text { text: text("text")? },
        "styled" => {
            let value = required(map, "style", here)?;
            let style = value.as_str().and_then(Style::parse).ok_or_else(|| {
                Here::Key(here, "style")
                    .refuse(format!("expected italic, bold or strikethrough, found {}", describe(value)))
            })?;
            Fragment::Styled { style, children: nested("children")? }
        }
        "link" => Fragment::Link { target: text("target")?.as_str().into(), label: nested("label")? },
        "image" => Fragment::Image { source: text("source")?.as_str().into(), alt: nested("alt")? },
        "break" => Fragment::Break,
        "query" => Fragment::Query { key: text("key")? },
        "default-command" => Fragment::DefaultCommand { action: text("action")? },
        "custom-command" => {
            let args_here = Here::Key(here, "args");
            let args = match map.get("args") {
                None => Vec::new(),
                Some(value) => array(value, &args_here)?
                    .iter()
                    .enumerate()
                    .map(|(i, value)| string(value, &Here::Index(&args_here, i)))
                    .collect::<Read<Vec<_>>>()?,
            };
            Fragment::CustomCommand { name: text("name")?.as_str().into(), args: args.into() }
        }
        "tag" => Fragment::Tag {
            name: text("name")?.as_str().into(),
            value: optional_string(map, "value", here)?,
            reserved: flag(map, "reserved", here)?,
        },
        other => {
            return Err(Here::Key(here, "kind").refuse(format!(
                "unknown fragment kind {}; expected text, styled, link, image, break, query, default-command, \
                 custom-command or tag",
                Value::String(other.to_owned())
            )))
        }
    })
}

/// Reads and checks a document as the old reader did.
pub fn read(json: &str) -> Result<Playbook, ReadError> {
    let value: Value = serde_json::from_str(json).map_err(|error| ReadError::Syntax {
        message: error.to_string(),
        line: error.line(),
        column: error.column(),
    })?;
    let checkers = Reader::default_checkers(FORMAT_VERSION..=FORMAT_VERSION, &["core"]);
    let format = format_header(&value)?;
    for checker in &checkers {
        checker.check_header(&format)?;
    }
    let (playbook, claimed_ids) = document(&value, format)?;
    let document = Document { playbook: &playbook, claimed_ids: &claimed_ids };
    for checker in &checkers {
        checker.check(&document)?;
    }
    Ok(playbook)
}
