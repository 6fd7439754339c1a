//! Reading JSON straight into the typed model, as the text is parsed: no tree of the document is
//! built. Unknown properties are ignored; a missing field that has a default (`ordered`,
//! `default`, `reserved`, `condition`, a tag's `value`, `requires`, `uses`) reads as that default.
//! Everything else is refused as [`Rule::Shape`](super::Rule::Shape), naming the value.
//!
//! The `format` header is judged by every checker's `check_header` as soon as it is read, before
//! anything after it; properties that come before it (or, in an object with a `kind`, before the
//! kind) are held back until it is known. Where a document has several faults, the first in
//! document order is the one refused.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use compact_str::CompactString;
use serde::de::{self, Deserializer, MapAccess};
use serde_json::Value;

mod kinds;

use super::value::{index, read, read_object, skip, At, Builder, Expect, Here, Item, List, Text, TextItem, Whole};
use crate::document::{Format, Playbook, Speaker};
use crate::node::Node;
use crate::speech::Speech;
use kinds::{FragmentItem, Nodes, SpeakerB};

fn missing(key: &str) -> String {
    format!("the required property `{key}` is missing")
}

/// Reads a child property `key` of the value at `at` with `f`.
fn child<'de, D: Deserializer<'de>, T>(
    at: At<'_>,
    key: &str,
    d: D,
    f: impl FnOnce(D, At<'_>) -> Result<T, D::Error>,
) -> Result<T, D::Error> {
    let here = Here::Key(at.here, key);
    f(d, At { ctx: at.ctx, here: &here })
}

fn text<'de, D: Deserializer<'de>, S: for<'s> From<&'s str>>(d: D, at: At<'_>) -> Result<S, D::Error> {
    read(d, Text(at, PhantomData))
}

fn speech<'de, D: Deserializer<'de>>(d: D, at: At<'_>) -> Result<Speech, D::Error> {
    read(d, List::<FragmentItem, Speech>::new(at))
}

fn require<T>(value: Option<T>, key: &str, at: At<'_>) -> Result<T, super::Refusal> {
    value.ok_or_else(|| at.refusal(missing(key)))
}

/// An object read through a [`Builder`], finished into its value.
pub(super) trait Object: Builder + Default {
    type Out;
    fn finish(self, at: At<'_>) -> Result<Self::Out, super::Refusal>;
}

struct ObjectOf<'a, B>(At<'a>, PhantomData<B>);

impl<'de, B: Object> Expect<'de> for ObjectOf<'_, B> {
    type Out = B::Out;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "an object".into()
    }
    fn on_map<A: MapAccess<'de>>(self, map: A) -> Result<B::Out, A::Error> {
        let mut builder = B::default();
        read_object(map, &mut builder, self.0)?;
        builder.finish(self.0).map_err(|refusal| self.0.ctx.refuse(refusal))
    }
}

fn object<'de, B: Object, D: Deserializer<'de>>(d: D, at: At<'_>) -> Result<B::Out, D::Error> {
    read(d, ObjectOf::<B>(at, PhantomData))
}

impl<B: Object> Item for B {
    type Out = <B as Object>::Out;
    fn read<'de, D: Deserializer<'de>>(d: D, at: At<'_>) -> Result<Self::Out, D::Error> {
        object::<B, D>(d, at)
    }
}

/// Reads a `kind`: a string naming one of the kinds `parse` knows.
fn kind<'de, D: Deserializer<'de>, K>(
    d: D,
    at: At<'_>,
    parse: impl FnOnce(&str) -> Option<K>,
    unknown: impl FnOnce(&str) -> String,
) -> Result<K, D::Error> {
    child(at, "kind", d, |d, at| {
        let name: CompactString = read(d, KindName(at))?;
        parse(&name).ok_or_else(|| at.refuse(unknown(&name)))
    })
}

struct KindName<'a>(At<'a>);

impl<'de> Expect<'de> for KindName<'_> {
    type Out = CompactString;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "a kind name".into()
    }
    fn on_str<E: de::Error>(self, text: &str) -> Result<CompactString, E> {
        Ok(text.into())
    }
}

fn quoted(name: &str) -> Value {
    Value::from(name)
}

/// Reads and checks a whole document from `d`, returning the ids the nodes claimed beside it.
pub(super) fn document<'de, D: Deserializer<'de>>(d: D, at: At<'_>) -> Result<(Playbook, Vec<u64>), D::Error> {
    object::<Root, D>(d, at)
}

/// Reads speech (a fragment list) on its own, as fixtures and saves write it.
pub(super) fn speech_alone<'de, D: Deserializer<'de>>(d: D, at: At<'_>) -> Result<Speech, D::Error> {
    speech(d, at)
}

#[derive(Default)]
struct Root {
    format: Option<Format>,
    script: Option<String>,
    entry: Option<usize>,
    anchors: Option<BTreeMap<String, usize>>,
    speakers: Option<Vec<Speaker>>,
    nodes: Option<(Vec<Node>, Vec<u64>)>,
}

impl Builder for Root {
    fn ready(&self, key: &str) -> bool {
        self.format.is_some() || !matches!(key, "script" | "entry" | "anchors" | "speakers" | "nodes")
    }

    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        match key {
            "format" => {
                let format = child(at, key, d, object::<Header, D>)?;
                for checker in at.ctx.checkers {
                    checker.check_header(&format).map_err(|refusal| at.ctx.refuse(refusal))?;
                }
                self.format = Some(format);
            }
            "script" => self.script = Some(child(at, key, d, text)?),
            "entry" => self.entry = Some(child(at, key, d, |d, at| index(d, at, "a node reference"))?),
            "anchors" => self.anchors = Some(child(at, key, d, |d, at| read(d, Anchors(at)))?),
            "speakers" => {
                self.speakers = Some(child(at, key, d, |d, at| read(d, List::<SpeakerB, Vec<Speaker>>::new(at)))?)
            }
            "nodes" => self.nodes = Some(child(at, key, d, |d, at| read(d, Nodes(at)))?),
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for Root {
    type Out = (Playbook, Vec<u64>);
    fn finish(self, at: At<'_>) -> Result<Self::Out, super::Refusal> {
        let format = require(self.format, "format", at)?;
        let script = require(self.script, "script", at)?;
        let entry = require(self.entry, "entry", at)?;
        let anchors = require(self.anchors, "anchors", at)?;
        let speakers = require(self.speakers, "speakers", at)?;
        let (nodes, claimed_ids) = require(self.nodes, "nodes", at)?;
        Ok((Playbook { format, script, entry, anchors, speakers, nodes }, claimed_ids))
    }
}

#[derive(Default)]
struct Header {
    version: Option<u64>,
    requires: Vec<String>,
    uses: Vec<String>,
}

impl Builder for Header {
    fn ready(&self, _key: &str) -> bool {
        true
    }
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error> {
        let names = |d: D, at: At<'_>| read(d, List::<TextItem<String>, Vec<String>>::new(at));
        match key {
            "version" => self.version = Some(child(at, key, d, |d, at| read(d, Whole(at, "a format version")))?),
            "requires" => self.requires = child(at, key, d, names)?,
            "uses" => self.uses = child(at, key, d, names)?,
            _ => skip(d)?,
        }
        Ok(())
    }
}

impl Object for Header {
    type Out = Format;
    fn finish(self, at: At<'_>) -> Result<Format, super::Refusal> {
        Ok(Format { version: require(self.version, "version", at)?, requires: self.requires, uses: self.uses })
    }
}

struct Anchors<'a>(At<'a>);

impl<'de> Expect<'de> for Anchors<'_> {
    type Out = BTreeMap<String, usize>;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "an object".into()
    }
    fn on_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Out, A::Error> {
        let mut anchors = BTreeMap::new();
        while let Some(slug) = map.next_key::<String>()? {
            let here = Here::Key(self.0.here, &slug);
            let at = At { ctx: self.0.ctx, here: &here };
            let node = map.next_value_seed(IndexSeed(at, "a node reference"))?;
            anchors.insert(slug, node);
        }
        Ok(anchors)
    }
}

/// A node or speaker reference, as a seed.
struct IndexSeed<'a>(At<'a>, &'static str);

impl<'de> de::DeserializeSeed<'de> for IndexSeed<'_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        index(d, self.0, self.1)
    }
}
