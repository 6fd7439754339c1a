//! The binary form's serde shapes: one remote definition per model type, so the model itself
//! implements no serde trait (a `serde_json::to_string(&playbook)` that skipped the canonical
//! writer would be a second JSON spelling). Field order here IS the wire order
//! (`docs/playbook-binary.md`); changing it is a new encoding version.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::marker::PhantomData;

use compact_str::CompactString;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

use crate::condition::{Condition, Weight};
use crate::document::{Format, Speaker, SpeakerTag};
use crate::edge::{Edge, Edges};
use crate::node::Node;
use crate::speech::{Fragment, Speech, Style};
use crate::thin::ThinStr;

/// How deep speech may nest (a styled run inside a link inside …) in a binary playbook. The JSON
/// reader's nesting limit stops a JSON playbook at about 60 levels, so every JSON playbook fits.
pub(super) const MAX_SPEECH_DEPTH: u32 = 64;

/// How many bytes of list room a read may reserve ahead, per byte of input.
const RESERVE_PER_INPUT_BYTE: usize = 8;

thread_local! {
    /// The read in progress on this thread: how deep speech nests now, and how many bytes of
    /// room lists may still reserve ahead of their items (a few times the input's length:
    /// honest lengths then cost no regrowth, and lengths the input cannot back cost no more).
    static READING: Cell<(u32, usize)> = const { Cell::new((0, 0)) };
    /// Whether the read on this thread stopped at the nesting limit (postcard's errors carry no
    /// message of their own).
    static TOO_DEEP: Cell<bool> = const { Cell::new(false) };
    /// The reference the read on this thread stopped at because no playbook's table reaches it.
    static TOO_FAR: Cell<Option<u64>> = const { Cell::new(None) };
}

/// Sets up [`READING`] for one read of `input_len` bytes.
pub(super) fn begin(input_len: usize) {
    READING.with(|reading| reading.set((0, input_len.saturating_mul(RESERVE_PER_INPUT_BYTE))));
    TOO_DEEP.with(|too_deep| too_deep.set(false));
    TOO_FAR.with(|too_far| too_far.set(None));
}

/// Whether the last read on this thread stopped at [`MAX_SPEECH_DEPTH`].
pub(super) fn stopped_too_deep() -> bool {
    TOO_DEEP.with(Cell::get)
}

/// The node or speaker reference beyond `u32::MAX` the last read on this thread stopped at.
pub(super) fn stopped_too_far() -> Option<u64> {
    TOO_FAR.with(Cell::get)
}

/// A node or speaker reference: stored as a `u32` (PB7), spelled as postcard spells any unsigned
/// integer (a varint, the same bytes for a `u32` as for the `usize` it was before). One that
/// does not fit a `u32` is refused, never truncated.
mod reference {
    use super::*;

    pub(super) fn serialize<S: Serializer>(reference: &u32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(u64::from(*reference))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
        let wide = u64::deserialize(deserializer)?;
        u32::try_from(wide).map_err(|_| {
            TOO_FAR.with(|too_far| too_far.set(Some(wide)));
            de::Error::custom("a reference beyond u32")
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Format")]
pub(super) struct FormatDef {
    version: u64,
    requires: Vec<String>,
    uses: Vec<String>,
}

/// Everything after the header, in wire order, borrowed for writing.
#[derive(Serialize)]
pub(super) struct BodyRef<'a> {
    pub script: &'a str,
    pub entry: usize,
    pub anchors: &'a BTreeMap<String, usize>,
    #[serde(with = "speakers")]
    pub speakers: &'a Vec<Speaker>,
    #[serde(with = "nodes")]
    pub nodes: &'a Vec<Node>,
}

/// Everything after the header, in wire order, as read.
#[derive(Deserialize)]
pub(super) struct Body {
    pub script: String,
    pub entry: usize,
    pub anchors: BTreeMap<String, usize>,
    #[serde(with = "speakers")]
    pub speakers: Vec<Speaker>,
    #[serde(with = "nodes")]
    pub nodes: Vec<Node>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Speaker")]
struct SpeakerDef {
    id: Option<String>,
    name: Option<String>,
    default: bool,
    #[serde(with = "tags")]
    tags: Vec<SpeakerTag>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "SpeakerTag")]
struct SpeakerTagDef {
    name: String,
    value: Option<String>,
    reserved: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Node")]
enum NodeDef {
    Line {
        #[serde(with = "reference")]
        speaker: u32,
        #[serde(with = "speech")]
        speech: Speech,
        #[serde(with = "condition")]
        condition: Option<Condition>,
        #[serde(with = "edges")]
        out: Edges,
    },
    Choice {
        ordered: bool,
        #[serde(with = "edges")]
        out: Edges,
    },
    RandomChoice {
        #[serde(with = "edges")]
        out: Edges,
    },
    Branch {
        #[serde(with = "edges")]
        out: Edges,
    },
    Control {
        #[serde(with = "speech")]
        effects: Speech,
        #[serde(with = "condition")]
        condition: Option<Condition>,
        #[serde(with = "edges")]
        out: Edges,
    },
    End,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Edge")]
enum EdgeDef {
    Succession {
        #[serde(with = "reference")]
        target: u32,
    },
    Option {
        #[serde(with = "reference")]
        target: u32,
        #[serde(with = "speech")]
        label: Speech,
        #[serde(with = "condition")]
        condition: Option<Condition>,
    },
    RandomOption {
        #[serde(with = "reference")]
        target: u32,
        #[serde(with = "WeightDef")]
        weight: Weight,
        #[serde(with = "condition")]
        condition: Option<Condition>,
    },
    Branch {
        #[serde(with = "reference")]
        target: u32,
        #[serde(with = "condition")]
        condition: Option<Condition>,
    },
    Divert {
        #[serde(with = "reference")]
        target: u32,
        #[serde(with = "speech")]
        label: Speech,
        #[serde(with = "condition")]
        condition: Option<Condition>,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Condition")]
enum ConditionDef {
    Key { key: ThinStr },
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Weight")]
enum WeightDef {
    Auto,
    Number { percentage: f64 },
    Query { key: ThinStr },
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Fragment")]
enum FragmentDef {
    Text {
        text: CompactString,
    },
    Styled {
        #[serde(with = "StyleDef")]
        style: Style,
        #[serde(with = "speech")]
        children: Speech,
    },
    Link {
        target: ThinStr,
        #[serde(with = "speech")]
        label: Speech,
    },
    Image {
        source: ThinStr,
        #[serde(with = "speech")]
        alt: Speech,
    },
    Break,
    Query {
        key: CompactString,
    },
    DefaultCommand {
        action: CompactString,
    },
    CustomCommand {
        name: ThinStr,
        args: Box<[CompactString]>,
    },
    Tag {
        name: ThinStr,
        value: Option<Box<str>>,
        reserved: bool,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Style")]
enum StyleDef {
    Italic,
    Bold,
    Strikethrough,
}

/// A sequence of remote-defined items: `$item` written and read through `$def`, into `$list`.
macro_rules! sequence {
    ($module:ident, $list:ty, $item:ty, $def:ident) => {
        mod $module {
            use super::*;

            struct Write<'a>(&'a $item);

            impl Serialize for Write<'_> {
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    $def::serialize(self.0, serializer)
                }
            }

            struct Read($item);

            impl<'de> Deserialize<'de> for Read {
                fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    $def::deserialize(deserializer).map(Read)
                }
            }

            pub(super) fn serialize<S: Serializer>(list: &[$item], serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(list.iter().map(Write))
            }

            pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<$list, D::Error> {
                deserializer.deserialize_seq(Items::<$list, Read, $item, _>(PhantomData, |read: Read| read.0))
            }
        }
    };
}

sequence!(speakers, Vec<Speaker>, Speaker, SpeakerDef);
sequence!(tags, Vec<SpeakerTag>, SpeakerTag, SpeakerTagDef);
sequence!(nodes, Vec<Node>, Node, NodeDef);
sequence!(edges, Edges, Edge, EdgeDef);
sequence!(fragments, Vec<Fragment>, Fragment, FragmentDef);

/// Reads a sequence into any list, reserving room for its items out of the read's budget.
struct Items<L, R, T, F>(PhantomData<fn(R) -> (L, T)>, F);

impl<'de, L, R, T, F> Visitor<'de> for Items<L, R, T, F>
where
    L: Default + Extend<T> + Reserve,
    R: Deserialize<'de>,
    F: Fn(R) -> T,
{
    type Value = L;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<L, A::Error> {
        let mut list = L::default();
        let size = std::mem::size_of::<T>().max(1);
        let wanted = seq.size_hint().unwrap_or(0);
        let granted = READING.with(|reading| {
            let (depth, budget) = reading.get();
            let granted = wanted.min(budget / size);
            reading.set((depth, budget - granted * size));
            granted
        });
        list.reserve_up_to(granted);
        while let Some(item) = seq.next_element::<R>()? {
            list.extend(std::iter::once((self.1)(item)));
        }
        Ok(list)
    }
}

/// Room reserved ahead in a list.
trait Reserve {
    fn reserve_up_to(&mut self, additional: usize);
}

impl<T> Reserve for Vec<T> {
    fn reserve_up_to(&mut self, additional: usize) {
        self.reserve_exact(additional);
    }
}

impl Reserve for Edges {
    fn reserve_up_to(&mut self, additional: usize) {
        self.reserve_exact(additional);
    }
}

/// Speech: a sequence of fragments, nested no deeper than [`MAX_SPEECH_DEPTH`].
mod speech {
    use super::*;

    pub(super) fn serialize<S: Serializer>(speech: &Speech, serializer: S) -> Result<S::Ok, S::Error> {
        fragments::serialize(speech, serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Speech, D::Error> {
        let depth = READING.with(|reading| {
            let (depth, budget) = reading.get();
            reading.set((depth + 1, budget));
            depth + 1
        });
        // Leaves the level however the read ends.
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                READING.with(|reading| {
                    let (depth, budget) = reading.get();
                    reading.set((depth.saturating_sub(1), budget));
                });
            }
        }
        let _leave = Leave;
        if depth > MAX_SPEECH_DEPTH {
            TOO_DEEP.with(|too_deep| too_deep.set(true));
            return Err(de::Error::custom(format_args!("speech nested deeper than {MAX_SPEECH_DEPTH} levels")));
        }
        // Read at the length the input states (within the read's budget), so boxing it
        // reallocates nothing.
        fragments::deserialize(deserializer).map(Vec::into_boxed_slice)
    }
}

/// An optional condition.
mod condition {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct Wrap(#[serde(with = "ConditionDef")] Condition);

    pub(super) fn serialize<S: Serializer>(condition: &Option<Condition>, serializer: S) -> Result<S::Ok, S::Error> {
        match condition {
            Some(condition) => serializer.serialize_some(&WrapRef(condition)),
            None => serializer.serialize_none(),
        }
    }

    struct WrapRef<'a>(&'a Condition);

    impl Serialize for WrapRef<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            ConditionDef::serialize(self.0, serializer)
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Condition>, D::Error> {
        Ok(Option::<Wrap>::deserialize(deserializer)?.map(|wrap| wrap.0))
    }
}
