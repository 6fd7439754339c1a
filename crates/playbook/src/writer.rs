//! The writer: the shortest true document, keys in the order the format documents them.
//!
//! A field whose value is its default is left out (`ordered: false`, `default: false`,
//! `reserved: false`, no condition, no tag value), so absent and default mean the same thing
//! everywhere. A percentage with no fractional part is written as an integer (`60`, not `60.0`).
//!
//! The document is serialised straight from the types (`serde::Serialize` on borrowed views), so
//! writing to an [`io::Write`](std::io::Write) holds nothing but the playbook itself; [`to_json`]
//! builds a tree only for callers who ask for one.

use std::io;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use crate::condition::{Condition, Weight};
use crate::document::{Playbook, Speaker, SpeakerTag, SCHEMA_URL};
use crate::edge::Edge;
use crate::node::Node;
use crate::speech::Fragment;

/// The document as a JSON value, with its keys in the documented order.
pub fn to_json(playbook: &Playbook) -> Value {
    serde_json::to_value(Document(playbook)).unwrap_or(Value::Null)
}

/// The document, pretty-printed with two-space indentation, as a playbook is meant to be read.
pub fn write(playbook: &Playbook) -> String {
    serde_json::to_string_pretty(&Document(playbook)).unwrap_or_default()
}

/// The document on one line, with no insignificant whitespace: the canonical form.
pub fn write_compact(playbook: &Playbook) -> String {
    serde_json::to_string(&Document(playbook)).unwrap_or_default()
}

/// Writes the document to `out` as it is serialised, pretty-printed like [`write()`] when
/// `pretty`, else compact like [`write_compact`]; nothing but the playbook is held in memory.
/// Wrap a file in a [`BufWriter`](std::io::BufWriter): the writer makes many small writes.
pub fn write_to<W: io::Write>(playbook: &Playbook, out: W, pretty: bool) -> io::Result<()> {
    let written = if pretty {
        serde_json::to_writer_pretty(out, &Document(playbook))
    } else {
        serde_json::to_writer(out, &Document(playbook))
    };
    written.map_err(io::Error::from)
}

/// Speech as JSON: the fragments, each a tagged object, as the playbook writes them.
pub fn speech_to_json(fragments: &[Fragment]) -> Value {
    serde_json::to_value(Fragments(fragments)).unwrap_or(Value::Null)
}

/// The whole document.
struct Document<'a>(&'a Playbook);

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let playbook = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("$schema", SCHEMA_URL)?;
        map.serialize_entry("format", &FormatHeader(playbook))?;
        map.serialize_entry("script", &playbook.script)?;
        map.serialize_entry("entry", &playbook.entry)?;
        map.serialize_entry("anchors", &playbook.anchors)?;
        map.serialize_entry("speakers", &List(&playbook.speakers, SpeakerView))?;
        map.serialize_entry("nodes", &Nodes(&playbook.nodes))?;
        map.end()
    }
}

struct FormatHeader<'a>(&'a Playbook);

impl Serialize for FormatHeader<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let format = &self.0.format;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("version", &format.version)?;
        map.serialize_entry("requires", &format.requires)?;
        map.serialize_entry("uses", &format.uses)?;
        map.end()
    }
}

/// A list written item by item through a view of each.
struct List<'a, T, F>(&'a [T], F);

impl<'a, T, V: Serialize, F: Fn(&'a T) -> V> Serialize for List<'a, T, F> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            seq.serialize_element(&(self.1)(item))?;
        }
        seq.end()
    }
}

struct SpeakerView<'a>(&'a Speaker);

impl Serialize for SpeakerView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let speaker = self.0;
        let mut map = serializer.serialize_map(None)?;
        if let Some(id) = &speaker.id {
            map.serialize_entry("id", id)?;
        }
        if let Some(name) = &speaker.name {
            map.serialize_entry("name", name)?;
        }
        if speaker.default {
            map.serialize_entry("default", &true)?;
        }
        map.serialize_entry("tags", &List(&speaker.tags, TagView))?;
        map.end()
    }
}

struct TagView<'a>(&'a SpeakerTag);

impl Serialize for TagView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tag = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &tag.name)?;
        if let Some(value) = &tag.value {
            map.serialize_entry("value", value)?;
        }
        if tag.reserved {
            map.serialize_entry("reserved", &true)?;
        }
        map.end()
    }
}

struct Nodes<'a>(&'a [Node]);

impl Serialize for Nodes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for (id, node) in self.0.iter().enumerate() {
            seq.serialize_element(&NodeView(id, node))?;
        }
        seq.end()
    }
}

struct NodeView<'a>(usize, &'a Node);

impl Serialize for NodeView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let NodeView(id, node) = *self;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", node.kind().as_str())?;
        map.serialize_entry("id", &id)?;
        match node {
            Node::Line { speaker, speech, condition, .. } => {
                map.serialize_entry("speaker", speaker)?;
                map.serialize_entry("speech", &Fragments(speech))?;
                condition_entry(&mut map, condition.as_ref())?;
            }
            Node::Choice { ordered, .. } => {
                if *ordered {
                    map.serialize_entry("ordered", &true)?;
                }
            }
            Node::Control { effects, condition, .. } => {
                map.serialize_entry("effects", &Fragments(effects))?;
                condition_entry(&mut map, condition.as_ref())?;
            }
            Node::RandomChoice { .. } | Node::Branch { .. } | Node::End => {}
        }
        map.serialize_entry("out", &List(node.out(), EdgeView))?;
        map.end()
    }
}

fn condition_entry<M: SerializeMap>(map: &mut M, condition: Option<&Condition>) -> Result<(), M::Error> {
    match condition {
        Some(condition) => map.serialize_entry("condition", &ConditionView(condition)),
        None => Ok(()),
    }
}

struct ConditionView<'a>(&'a Condition);

impl Serialize for ConditionView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.0 {
            Condition::Key { key } => {
                map.serialize_entry("kind", "key")?;
                map.serialize_entry("key", &**key)?;
            }
        }
        map.end()
    }
}

/// A percentage: an integer when it has no fractional part, so `60` stays `60`.
struct Percentage(f64);

impl Serialize for Percentage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = self.0;
        if value.fract() == 0.0 && value.abs() < 9.0e15 {
            serializer.serialize_i64(value as i64)
        } else if value.is_finite() {
            serializer.serialize_f64(value)
        } else {
            serializer.serialize_unit()
        }
    }
}

struct WeightView<'a>(&'a Weight);

impl Serialize for WeightView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.0 {
            Weight::Auto => map.serialize_entry("kind", "auto")?,
            Weight::Number { percentage } => {
                map.serialize_entry("kind", "number")?;
                map.serialize_entry("percentage", &Percentage(*percentage))?;
            }
            Weight::Query { key } => {
                map.serialize_entry("kind", "query")?;
                map.serialize_entry("key", &**key)?;
            }
        }
        map.end()
    }
}

struct EdgeView<'a>(&'a Edge);

impl Serialize for EdgeView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let edge = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", edge.kind().as_str())?;
        map.serialize_entry("target", &edge.target())?;
        match edge {
            Edge::Succession { .. } => {}
            Edge::Option { label, condition, .. } | Edge::Divert { label, condition, .. } => {
                map.serialize_entry("label", &Fragments(label))?;
                condition_entry(&mut map, condition.as_ref())?;
            }
            Edge::RandomOption { weight, condition, .. } => {
                map.serialize_entry("weight", &WeightView(weight))?;
                condition_entry(&mut map, condition.as_ref())?;
            }
            Edge::Branch { condition, .. } => condition_entry(&mut map, condition.as_ref())?,
        }
        map.end()
    }
}

struct Fragments<'a>(&'a [Fragment]);

impl Serialize for Fragments<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        List(self.0, FragmentView).serialize(serializer)
    }
}

struct FragmentView<'a>(&'a Fragment);

impl Serialize for FragmentView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fragment = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", fragment.kind_name())?;
        match fragment {
            Fragment::Text { text } => map.serialize_entry("text", text.as_str())?,
            Fragment::Styled { style, children } => {
                map.serialize_entry("style", style.as_str())?;
                map.serialize_entry("children", &Fragments(children))?;
            }
            Fragment::Link { target, label } => {
                map.serialize_entry("target", &**target)?;
                map.serialize_entry("label", &Fragments(label))?;
            }
            Fragment::Image { source, alt } => {
                map.serialize_entry("source", &**source)?;
                map.serialize_entry("alt", &Fragments(alt))?;
            }
            Fragment::Break => {}
            Fragment::Query { key } => map.serialize_entry("key", key.as_str())?,
            Fragment::DefaultCommand { action } => map.serialize_entry("action", action.as_str())?,
            Fragment::CustomCommand { name, args } => {
                map.serialize_entry("name", &**name)?;
                map.serialize_entry("args", &List(args, compact_str::CompactString::as_str))?;
            }
            Fragment::Tag { name, value, reserved } => {
                map.serialize_entry("name", &**name)?;
                if let Some(value) = value {
                    map.serialize_entry("value", &**value)?;
                }
                if *reserved {
                    map.serialize_entry("reserved", &true)?;
                }
            }
        }
        map.end()
    }
}
