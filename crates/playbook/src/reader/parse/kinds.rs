//! The objects of the body: speakers, nodes, edges, conditions, weights and fragments.

use compact_str::CompactString;
use serde::de::{Deserializer, SeqAccess};

use super::super::value::{read, reference, skip, At, Builder, Expect, Flag, Here, List, TextItem, Whole};
use super::{child, kind, object, quoted, require, speech, text, Object};
use crate::condition::{Condition, Weight};
use crate::document::{Speaker, SpeakerTag};
use crate::edge::{Edge, EdgeKind, Edges};
use crate::node::{Node, NodeKind};
use crate::speech::{Fragment, Speech, Style};

type Refusal = crate::reader::Refusal;

#[derive(Default)]
pub(super) struct SpeakerB {
    id: Option<String>,
    name: Option<String>,
    default: bool,
    tags: Option<Vec<SpeakerTag>>,
}

impl Builder for SpeakerB {
    fn ready(&self, _key: &str) -> bool {
        true
    }
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        match key {
            "id" => self.id = Some(child(at, key, d, text)?),
            "name" => self.name = Some(child(at, key, d, text)?),
            "default" => self.default = child(at, key, d, |d, at| read(d, Flag(at)))?,
            "tags" => self.tags = Some(child(at, key, d, |d, at| read(d, List::<TagB, Vec<SpeakerTag>>::new(at)))?),
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for SpeakerB {
    type Out = Speaker;
    fn finish(self, at: At<'_>) -> Result<Speaker, Refusal> {
        let tags = require(self.tags, "tags", at)?;
        Ok(Speaker { id: self.id, name: self.name, default: self.default, tags })
    }
}

#[derive(Default)]
pub(super) struct TagB {
    name: Option<String>,
    value: Option<String>,
    reserved: bool,
}

impl Builder for TagB {
    fn ready(&self, _key: &str) -> bool {
        true
    }
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        match key {
            "name" => self.name = Some(child(at, key, d, text)?),
            "value" => self.value = Some(child(at, key, d, text)?),
            "reserved" => self.reserved = child(at, key, d, |d, at| read(d, Flag(at)))?,
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for TagB {
    type Out = SpeakerTag;
    fn finish(self, at: At<'_>) -> Result<SpeakerTag, Refusal> {
        Ok(SpeakerTag { name: require(self.name, "name", at)?, value: self.value, reserved: self.reserved })
    }
}

/// The node list, with the id each node claimed beside it.
pub(super) struct Nodes<'a>(pub(super) At<'a>);

impl<'de> Expect<'de> for Nodes<'_> {
    type Out = (Vec<Node>, Vec<u64>);
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "an array".into()
    }
    fn on_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Out, A::Error> {
        let (mut nodes, mut ids) = (Vec::new(), Vec::new());
        for i in 0.. {
            let here = Here::Index(self.0.here, i);
            match seq.next_element_seed(NodeSeed(At { ctx: self.0.ctx, here: &here }))? {
                Some((id, node)) => {
                    ids.push(id);
                    nodes.push(node);
                }
                None => break,
            }
        }
        // The slack of growing by doubling, given back (a large block shrinks in place).
        nodes.shrink_to_fit();
        Ok((nodes, ids))
    }
}

struct NodeSeed<'a>(At<'a>);

impl<'de> serde::de::DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = (u64, Node);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        object::<NodeB, D>(d, self.0)
    }
}

fn condition<'de, D: Deserializer<'de>>(d: D, at: At<'_>) -> Result<Option<Condition>, D::Error> {
    Ok(Some(child(at, "condition", d, object::<ConditionB, D>)?))
}

#[derive(Default)]
struct NodeB {
    kind: Option<NodeKind>,
    id: Option<u64>,
    out: Option<Edges>,
    speaker: Option<u32>,
    speech: Option<Speech>,
    condition: Option<Condition>,
    ordered: bool,
}

impl Builder for NodeB {
    fn ready(&self, key: &str) -> bool {
        self.kind.is_some() || !matches!(key, "speaker" | "speech" | "condition" | "ordered" | "effects")
    }
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        use NodeKind::*;
        match (key, self.kind) {
            ("kind", _) => {
                self.kind = Some(kind(d, at, NodeKind::parse, |name| {
                    format!(
                        "unknown node kind {}; expected line, choice, random-choice, branch, control or end",
                        quoted(name)
                    )
                })?)
            }
            ("id", _) => self.id = Some(child(at, key, d, |d, at| read(d, Whole(at, "a node id")))?),
            ("out", _) => self.out = Some(child(at, key, d, |d, at| read(d, List::<EdgeB, Edges>::new(at)))?),
            ("speaker", Some(Line)) => {
                self.speaker = Some(child(at, key, d, |d, at| reference(d, at, "a speaker reference"))?)
            }
            ("speech", Some(Line)) | ("effects", Some(Control)) => self.speech = Some(child(at, key, d, speech)?),
            ("condition", Some(Line | Control)) => self.condition = condition(d, at)?,
            ("ordered", Some(Choice)) => self.ordered = child(at, key, d, |d, at| read(d, Flag(at)))?,
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for NodeB {
    type Out = (u64, Node);
    fn finish(self, at: At<'_>) -> Result<(u64, Node), Refusal> {
        let kind = require(self.kind, "kind", at)?;
        let id = require(self.id, "id", at)?;
        let node = match kind {
            NodeKind::Line => Node::Line {
                speaker: require(self.speaker, "speaker", at)?,
                speech: require(self.speech, "speech", at)?,
                condition: self.condition,
                out: require(self.out, "out", at)?,
            },
            NodeKind::Choice => Node::Choice { ordered: self.ordered, out: require(self.out, "out", at)? },
            NodeKind::RandomChoice => Node::RandomChoice { out: require(self.out, "out", at)? },
            NodeKind::Branch => Node::Branch { out: require(self.out, "out", at)? },
            NodeKind::Control => Node::Control {
                effects: require(self.speech, "effects", at)?,
                condition: self.condition,
                out: require(self.out, "out", at)?,
            },
            NodeKind::End => {
                if !require(self.out, "out", at)?.is_empty() {
                    let here = Here::Key(at.here, "out");
                    return Err(
                        At { ctx: at.ctx, here: &here }.refusal("an end leads nowhere, so its `out` must be empty")
                    );
                }
                Node::End
            }
        };
        Ok((id, node))
    }
}

#[derive(Default)]
struct EdgeB {
    kind: Option<EdgeKind>,
    target: Option<u32>,
    label: Option<Speech>,
    weight: Option<Weight>,
    condition: Option<Condition>,
}

impl Builder for EdgeB {
    fn ready(&self, key: &str) -> bool {
        self.kind.is_some() || !matches!(key, "label" | "weight" | "condition")
    }
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        use EdgeKind::*;
        match (key, self.kind) {
            ("kind", _) => {
                self.kind = Some(kind(d, at, EdgeKind::parse, |name| {
                    format!(
                        "unknown edge kind {}; expected succession, option, random-option, branch or divert",
                        quoted(name)
                    )
                })?)
            }
            ("target", _) => self.target = Some(child(at, key, d, |d, at| reference(d, at, "a node reference"))?),
            ("label", Some(Option | Divert)) => self.label = Some(child(at, key, d, speech)?),
            ("weight", Some(RandomOption)) => self.weight = Some(child(at, key, d, object::<WeightB, D>)?),
            ("condition", Some(Option | RandomOption | Branch | Divert)) => self.condition = condition(d, at)?,
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for EdgeB {
    type Out = Edge;
    fn finish(self, at: At<'_>) -> Result<Edge, Refusal> {
        let kind = require(self.kind, "kind", at)?;
        let target = require(self.target, "target", at)?;
        let condition = self.condition;
        Ok(match kind {
            EdgeKind::Succession => Edge::Succession { target },
            EdgeKind::Option => Edge::Option { target, label: require(self.label, "label", at)?, condition },
            EdgeKind::RandomOption => {
                Edge::RandomOption { target, weight: require(self.weight, "weight", at)?, condition }
            }
            EdgeKind::Branch => Edge::Branch { target, condition },
            EdgeKind::Divert => Edge::Divert { target, label: require(self.label, "label", at)?, condition },
        })
    }
}

#[derive(Default)]
struct ConditionB {
    kind: Option<()>,
    key: Option<Box<str>>,
}

impl Builder for ConditionB {
    fn ready(&self, key: &str) -> bool {
        self.kind.is_some() || key != "key"
    }
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        match key {
            "kind" => {
                self.kind = Some(kind(
                    d,
                    at,
                    |name| (name == "key").then_some(()),
                    |name| format!("unknown condition kind {}; expected key", quoted(name)),
                )?)
            }
            "key" => self.key = Some(child(at, key, d, text)?),
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for ConditionB {
    type Out = Condition;
    fn finish(self, at: At<'_>) -> Result<Condition, Refusal> {
        require(self.kind, "kind", at)?;
        Ok(Condition::Key { key: require(self.key, "key", at)?.into() })
    }
}

#[derive(Clone, Copy)]
enum WeightKind {
    Auto,
    Number,
    Query,
}

#[derive(Default)]
struct WeightB {
    kind: Option<WeightKind>,
    percentage: Option<f64>,
    key: Option<CompactString>,
}

impl Builder for WeightB {
    fn ready(&self, key: &str) -> bool {
        self.kind.is_some() || !matches!(key, "percentage" | "key")
    }
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        match (key, self.kind) {
            ("kind", _) => {
                let parse = |name: &str| match name {
                    "auto" => Some(WeightKind::Auto),
                    "number" => Some(WeightKind::Number),
                    "query" => Some(WeightKind::Query),
                    _ => None,
                };
                let unknown =
                    |name: &str| format!("unknown weight kind {}; expected auto, number or query", quoted(name));
                self.kind = Some(kind(d, at, parse, unknown)?);
            }
            ("percentage", Some(WeightKind::Number)) => {
                self.percentage = Some(child(at, key, d, |d, at| read(d, super::super::value::Number(at)))?)
            }
            ("key", Some(WeightKind::Query)) => self.key = Some(child(at, key, d, text)?),
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for WeightB {
    type Out = Weight;
    fn finish(self, at: At<'_>) -> Result<Weight, Refusal> {
        Ok(match require(self.kind, "kind", at)? {
            WeightKind::Auto => Weight::Auto,
            WeightKind::Number => Weight::Number { percentage: require(self.percentage, "percentage", at)? },
            WeightKind::Query => Weight::Query { key: require(self.key, "key", at)?.into() },
        })
    }
}

#[derive(Clone, Copy, PartialEq)]
enum FragmentKind {
    Text,
    Styled,
    Link,
    Image,
    Break,
    Query,
    DefaultCommand,
    CustomCommand,
    Tag,
}

impl FragmentKind {
    fn parse(name: &str) -> Option<FragmentKind> {
        use FragmentKind::*;
        Some(match name {
            "text" => Text,
            "styled" => Styled,
            "link" => Link,
            "image" => Image,
            "break" => Break,
            "query" => Query,
            "default-command" => DefaultCommand,
            "custom-command" => CustomCommand,
            "tag" => Tag,
            _ => return None,
        })
    }
}

/// A fragment; its words (`text`, `target`, `source`, `key`, `action`, `name`, `value`) share
/// one slot, and its nested speech (`children`, `label`, `alt`) another, as no kind has two.
#[derive(Default)]
pub(super) struct FragmentB {
    kind: Option<FragmentKind>,
    words: Option<CompactString>,
    /// A link's target, an image's source or a tag's value (boxed in the model).
    boxed: Option<Box<str>>,
    name: Option<Box<str>>,
    nested: Option<Speech>,
    style: Option<Style>,
    args: Box<[CompactString]>,
    reserved: bool,
}

/// Fragments in a speech list.
pub(super) type FragmentItem = FragmentB;

struct StyleName<'a>(At<'a>);

impl<'de> Expect<'de> for StyleName<'_> {
    type Out = Style;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "italic, bold or strikethrough".into()
    }
    fn on_str<E: serde::de::Error>(self, text: &str) -> Result<Style, E> {
        Style::parse(text).ok_or_else(|| self.mismatch(super::super::value::Found::Text(text)))
    }
}

impl Builder for FragmentB {
    fn ready(&self, key: &str) -> bool {
        self.kind.is_some()
            || !matches!(
                key,
                "text"
                    | "style"
                    | "children"
                    | "target"
                    | "label"
                    | "source"
                    | "alt"
                    | "key"
                    | "action"
                    | "name"
                    | "args"
                    | "value"
                    | "reserved"
            )
    }
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        use FragmentKind::*;
        let Some(kind_now) = self.kind else {
            if key == "kind" {
                let unknown = |name: &str| {
                    format!(
                        "unknown fragment kind {}; expected text, styled, link, image, break, query, \
                         default-command, custom-command or tag",
                        quoted(name)
                    )
                };
                self.kind = Some(kind(d, at, FragmentKind::parse, unknown)?);
                return Ok(());
            }
            return skip(d);
        };
        match (key, kind_now) {
            ("text", Text) | ("key", Query) | ("action", DefaultCommand) => self.words = Some(child(at, key, d, text)?),
            ("target", Link) | ("source", Image) | ("value", Tag) => self.boxed = Some(child(at, key, d, text)?),
            ("name", CustomCommand | Tag) => self.name = Some(child(at, key, d, text)?),
            ("style", Styled) => self.style = Some(child(at, key, d, |d, at| read(d, StyleName(at)))?),
            ("children", Styled) | ("label", Link) | ("alt", Image) => self.nested = Some(child(at, key, d, speech)?),
            ("args", CustomCommand) => {
                self.args = child(at, key, d, |d, at| read(d, List::<TextItem<CompactString>, Box<[_]>>::new(at)))?
            }
            ("reserved", Tag) => self.reserved = child(at, key, d, |d, at| read(d, Flag(at)))?,
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for FragmentB {
    type Out = Fragment;
    fn finish(self, at: At<'_>) -> Result<Fragment, Refusal> {
        use FragmentKind as K;
        let kind = require(self.kind, "kind", at)?;
        let (words, boxed, nested) = (self.words, self.boxed, self.nested);
        Ok(match kind {
            K::Text => Fragment::Text { text: require(words, "text", at)? },
            K::Styled => Fragment::Styled {
                style: require(self.style, "style", at)?,
                children: require(nested, "children", at)?,
            },
            K::Link => {
                Fragment::Link { target: require(boxed, "target", at)?.into(), label: require(nested, "label", at)? }
            }
            K::Image => {
                Fragment::Image { source: require(boxed, "source", at)?.into(), alt: require(nested, "alt", at)? }
            }
            K::Break => Fragment::Break,
            K::Query => Fragment::Query { key: require(words, "key", at)? },
            K::DefaultCommand => Fragment::DefaultCommand { action: require(words, "action", at)? },
            K::CustomCommand => {
                Fragment::CustomCommand { name: require(self.name, "name", at)?.into(), args: self.args }
            }
            K::Tag => {
                Fragment::Tag { name: require(self.name, "name", at)?.into(), value: boxed, reserved: self.reserved }
            }
        })
    }
}
