//! The document: its compatibility header, speakers, anchors and nodes.

use std::collections::BTreeMap;

use crate::node::Node;

/// The playbook format version this build reads and writes.
pub const FORMAT_VERSION: u64 = 0;

/// Where an editor finds the schema; written as `$schema` at the top of every document.
pub const SCHEMA_URL: &str = "https://pengzhengyi.github.io/dialoguedown/schema/playbook-0.schema.json";

/// One compiled script: everything a runtime needs to play it, and nothing else.
///
/// A node's position in [`nodes`](Self::nodes) is its id; every reference in the document is a
/// position. The [`Reader`](crate::Reader) proves the references land before a runner sees them,
/// but nothing here relies on it: a runner stays total over hand-built documents too.
#[derive(Debug, Clone, PartialEq)]
pub struct Playbook {
    /// Whether a runtime can play this at all.
    pub format: Format,
    /// The script this was compiled from, as a runtime should report it.
    pub script: String,
    /// Where a playthrough begins when nothing says otherwise.
    pub entry: usize,
    /// Every scene's slug, by node position, sorted by slug.
    pub anchors: BTreeMap<String, usize>,
    /// Everybody who speaks here, addressed by position.
    pub speakers: Vec<Speaker>,
    /// The steps of a playthrough, each at its own position.
    pub nodes: Vec<Node>,
}

impl Playbook {
    /// An empty document of the current format, for building playbooks by hand.
    pub fn new(script: impl Into<String>) -> Self {
        Playbook {
            format: Format::default(),
            script: script.into(),
            entry: 0,
            anchors: BTreeMap::new(),
            speakers: Vec::new(),
            nodes: Vec::new(),
        }
    }

    /// The node at a position, if there is one.
    pub fn node(&self, index: usize) -> Option<&Node> {
        self.nodes.get(index)
    }

    /// The speaker at a position, if there is one.
    pub fn speaker(&self, index: usize) -> Option<&Speaker> {
        self.speakers.get(index)
    }

    /// The node an anchor names, if the anchor exists.
    pub fn anchor(&self, slug: &str) -> Option<usize> {
        self.anchors.get(slug).copied()
    }
}

/// The compatibility header: should this document be loaded at all?
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    /// The playbook format version that wrote the document.
    pub version: u64,
    /// Capabilities a runtime must understand; an unknown one is a refusal.
    pub requires: Vec<String>,
    /// Capabilities present but safe to ignore.
    pub uses: Vec<String>,
}

impl Default for Format {
    fn default() -> Self {
        Format { version: FORMAT_VERSION, requires: vec![Capability::CORE.to_owned()], uses: Vec::new() }
    }
}

/// The capability names version 0 defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capability;

impl Capability {
    /// Everything the compiler emits; always present in `requires`.
    pub const CORE: &'static str = "core";
    /// Reserved, and neither emitted nor read in version 0.
    pub const CROSS_FILE_JUMP: &'static str = "cross-file-jump";
}

/// Somebody who says lines. Both the writer's `@id` and the name are optional, because the
/// anonymous default speaker has neither and still says lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Speaker {
    /// The `@id` the writer gave them.
    pub id: Option<String>,
    /// What the writer calls them.
    pub name: Option<String>,
    /// Whether unattributed lines belong to this speaker.
    pub default: bool,
    /// Annotations a host may bind.
    pub tags: Vec<SpeakerTag>,
}

impl Speaker {
    /// A named speaker with no id and no tags.
    pub fn named(name: impl Into<String>) -> Self {
        Speaker { name: Some(name.into()), ..Speaker::default() }
    }

    /// The anonymous default speaker.
    pub fn anonymous_default() -> Self {
        Speaker { default: true, ..Speaker::default() }
    }
}

/// An annotation on a speaker that a host may bind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SpeakerTag {
    /// The tag's name.
    pub name: String,
    /// What the tag was given, when it was given anything.
    pub value: Option<String>,
    /// Whether the name is one the language reserves.
    pub reserved: bool,
}
