//! The DialogueDown **playbook**: the compiled, versioned JSON graph a compiler emits and a runner
//! plays (format version 0).
//!
//! This crate owns the playbook's wire spelling and nothing else. It holds:
//!
//! - the types of the format — [`Playbook`], its [`Node`]s, [`Edge`]s, speech [`Fragment`]s,
//!   [`Condition`]s and [`Weight`]s — one Rust type per kind in `playbook-0.schema.json`;
//! - a [`Reader`] that parses a document and runs the checkers of "Playbook Reader Rules" in
//!   order, refusing with a [`ReadError`] that names the offending value by its JSON path;
//! - a writer ([`write()`], [`write_compact`], [`write_to`], [`to_json`]) whose output reads back
//!   equal, serialised straight from the types;
//! - a binary form of the same playbook ([`write_binary`], [`read_binary`], [`is_binary`];
//!   `docs/playbook-binary.md`), smaller and faster to load, read through the same checkers;
//! - a [`fingerprint`]: SHA-256 of the canonical form, so a save can tell which playbook it
//!   belongs to;
//! - the reading helpers every consumer needs: the plain-text flattening of speech
//!   ([`plain_text`]), and a line's [`segments`] and keys.
//!
//! ```
//! let json = r#"{
//!   "format": { "version": 0, "requires": ["core"], "uses": [] },
//!   "script": "hello.dialogue.md",
//!   "entry": 0,
//!   "anchors": {},
//!   "speakers": [{ "name": "Alice", "tags": [] }],
//!   "nodes": [
//!     { "kind": "line", "id": 0, "speaker": 0,
//!       "speech": [{ "kind": "text", "text": "Hello." }],
//!       "out": [{ "kind": "succession", "target": 1 }] },
//!     { "kind": "end", "id": 1, "out": [] }
//!   ]
//! }"#;
//! let playbook = stagehand_playbook::read(json).expect("a valid playbook");
//! assert_eq!(playbook.nodes.len(), 2);
//! let again = stagehand_playbook::read(&stagehand_playbook::write(&playbook)).unwrap();
//! assert_eq!(playbook, again);
//! ```

mod binary;
mod condition;
mod document;
mod edge;
mod fingerprint;
mod node;
mod reader;
mod reference;
mod speech;
mod template;
mod text;
mod thin;
mod writer;

pub use binary::{is_binary, read_binary, write_binary, BinaryReadError, BINARY_ENCODING, BINARY_MAGIC};
/// The string type of the playbook's common short strings (the words of a `text` fragment, a
/// query's key, a default command's phrase, a custom command's arguments): a
/// `String` that keeps up to 24 bytes inline, so the many short pieces of a playbook cost no
/// allocation of their own. The rarer strings that would make a [`Fragment`], an [`Edge`] or an
/// optional [`Condition`] larger are [`ThinStr`] (condition and weight keys, link targets, image
/// sources, command and tag names) or `Box<str>` (tag values); speaker names, ids and tags, anchors and `script` are
/// `String`. It dereferences to `str` and converts from `&str` and `String` with `into()`.
pub use compact_str::CompactString;
pub use condition::{Condition, Weight};
pub use document::{Capability, Format, Playbook, Speaker, SpeakerTag, FORMAT_VERSION, SCHEMA_URL};
pub use edge::{Edge, EdgeKind, Edges};
pub use fingerprint::{fingerprint, Fingerprint};
pub use node::{Node, NodeKind};
pub use reader::{
    read, speech_from_json, BranchArmOrderChecker, CapabilityChecker, Checker, Document, JsonPath, NodePositionChecker,
    OutwardShapeChecker, ReadError, Reader, ReferenceChecker, Refusal, Rule, VersionChecker,
};
pub use reference::{position, reference};
/// Builds [`Edges`] like `vec!` builds a vector.
pub use smallvec::smallvec;
pub use speech::{Fragment, Speech, Style};
pub use template::{for_each_key, has_keys, segments, Segment, Segments};
pub use text::{placeholder_for, plain_text, plain_text_with};
pub use thin::ThinStr;
pub use writer::{speech_to_json, to_json, write, write_compact, write_to};
