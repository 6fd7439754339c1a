//! The reader: a gatekeeper before it is a parser.
//!
//! Reading runs in stages, each assuming what the one before it proved:
//!
//! 1. the text must be JSON ([`ReadError::Syntax`], with a line and column);
//! 2. the `format` header is read alone and handed to every checker's
//!    [`check_header`](Checker::check_header) — the version settles before the capabilities,
//!    and both before the rest of the document is read, because a document of an unknown version
//!    may be shaped in ways this build would misread;
//! 3. the document is read into the typed model ([`Rule::Shape`]), ignoring unknown properties;
//! 4. every checker's [`check`](Checker::check) runs, in order: node position, references,
//!    outward shape, branch arm order.
//!
//! Every refusal names the offending value by its JSON path and says what was expected.

mod checkers;
mod parse;
mod path;
mod value;

use std::fmt;
use std::ops::RangeInclusive;

pub use checkers::{
    BranchArmOrderChecker, CapabilityChecker, NodePositionChecker, OutwardShapeChecker, ReferenceChecker,
    VersionChecker,
};
pub use path::JsonPath;

use crate::document::{Capability, Format, Playbook, FORMAT_VERSION};

/// Why a reader would not load a document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The text is not JSON at all.
    #[error("not a JSON document: {message} at line {line}, column {column}")]
    Syntax {
        /// What the JSON parser found wrong.
        message: String,
        /// The line, counting from 1.
        line: usize,
        /// The column, counting from 1.
        column: usize,
    },
    /// The document is JSON, and one of the reader's rules refuses it.
    #[error(transparent)]
    Refused(#[from] Refusal),
}

/// A refusal by one of the reader's rules, naming the offending value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct Refusal {
    /// The rule that refused.
    pub rule: Rule,
    /// Where the offending value sits in the document.
    pub path: JsonPath,
    /// What was found, and what was expected.
    pub message: String,
}

impl Refusal {
    /// A refusal under `rule` at `path`.
    pub fn new(rule: Rule, path: JsonPath, message: impl Into<String>) -> Self {
        Refusal { rule, path, message: message.into() }
    }
}

/// The rule a refusal comes from, in the order the reader applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `format.version` outside the range this build reads.
    Version,
    /// A name in `format.requires` this build does not support.
    Capability,
    /// A value of the wrong type, a missing field, or an unknown kind.
    Shape,
    /// A node whose `id` is not its position.
    NodePosition,
    /// An entry, anchor, edge target or speaker index that lands nowhere, or a speaker id used
    /// twice.
    Reference,
    /// A node whose ways out break the outward-shape rule.
    OutwardShape,
    /// A branch that lacks a gated arm, or puts its else before another arm.
    BranchArmOrder,
}

/// The document as the structural checkers see it: the typed playbook, plus the ids its nodes
/// claimed (which the model does not keep, because a node's id is its position).
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    /// The playbook as read.
    pub playbook: &'a Playbook,
    /// The `id` each node claimed, by position.
    pub claimed_ids: &'a [u64],
}

/// One rule of the reader. A checker refuses at the first thing it finds wrong.
pub trait Checker: Send + Sync {
    /// Checks the `format` header, before the rest of the document is read.
    fn check_header(&self, _format: &Format) -> Result<(), Refusal> {
        Ok(())
    }

    /// Checks the typed document.
    fn check(&self, _document: &Document<'_>) -> Result<(), Refusal> {
        Ok(())
    }
}

/// A playbook reader: JSON in, a checked [`Playbook`] out.
pub struct Reader {
    checkers: Vec<Box<dyn Checker>>,
}

impl Default for Reader {
    fn default() -> Self {
        Reader::new()
    }
}

impl fmt::Debug for Reader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader").field("checkers", &self.checkers.len()).finish()
    }
}

impl Reader {
    /// The standard reader: format version 0, the `core` capability, and every structural rule,
    /// in order.
    pub fn new() -> Self {
        Reader::with_checkers(Reader::default_checkers(FORMAT_VERSION..=FORMAT_VERSION, &[Capability::CORE]))
    }

    /// A reader that applies exactly these checkers, in this order.
    pub fn with_checkers(checkers: Vec<Box<dyn Checker>>) -> Self {
        Reader { checkers }
    }

    /// The standard checkers, for the given version range and supported capabilities.
    pub fn default_checkers(versions: RangeInclusive<u64>, capabilities: &[&str]) -> Vec<Box<dyn Checker>> {
        vec![
            Box::new(VersionChecker::new(versions)),
            Box::new(CapabilityChecker::new(capabilities.iter().map(|c| (*c).to_owned()))),
            Box::new(NodePositionChecker),
            Box::new(ReferenceChecker),
            Box::new(OutwardShapeChecker),
            Box::new(BranchArmOrderChecker),
        ]
    }

    /// Reads and checks a document, straight from the text into the typed model (no tree of the
    /// document is built). A leading UTF-8 byte-order mark is skipped, as
    /// [`read_from`](Self::read_from) skips it, so a text reads the same from a string as from a
    /// file.
    pub fn read(&self, json: &str) -> Result<Playbook, ReadError> {
        let json = json.strip_prefix('\u{feff}').unwrap_or(json);
        let ctx = value::Ctx::new(&self.checkers);
        let mut deserializer = serde_json::Deserializer::from_str(json);
        let read = parse::document(&mut deserializer, value::At { ctx: &ctx, here: &value::Here::Root })
            .and_then(|document| deserializer.end().map(|()| document));
        match read {
            Ok((playbook, claimed_ids)) => self.check(playbook, &claimed_ids),
            Err(error) => match ctx.take() {
                // The text must be JSON before any rule is applied: a syntax error further on
                // outranks a refusal found before it.
                Some(refusal) => match serde_json::from_str::<value::Skip>(json) {
                    Err(error) => Err(syntax(&error)),
                    Ok(_) => Err(refusal.into()),
                },
                None => Err(syntax(&error)),
            },
        }
    }

    /// Reads and checks a document from a stream (a file), as [`read`](Self::read) does from a
    /// string, without holding the text: the model is built as the bytes go by, so reading a
    /// file peaks at about the playbook's size rather than the text's plus the playbook's. A
    /// leading UTF-8 byte-order mark is skipped. Because a syntax error further on outranks a
    /// refusal found before it, a refused document is read once more from its start (hence
    /// [`Seek`](std::io::Seek)) to find any syntax error; the first pass is all a valid
    /// document costs.
    pub fn read_from<R: std::io::Read + std::io::Seek>(&self, mut input: R) -> Result<Playbook, ReadError> {
        let start = input.stream_position().map_err(io_error)?;
        let read = {
            let ctx = value::Ctx::new(&self.checkers);
            let mut deserializer = serde_json::Deserializer::from_reader(buffered(&mut input));
            let read = parse::document(&mut deserializer, value::At { ctx: &ctx, here: &value::Here::Root })
                .and_then(|document| deserializer.end().map(|()| document));
            read.map_err(|error| (error, ctx.take()))
        };
        match read {
            Ok((playbook, claimed_ids)) => self.check(playbook, &claimed_ids),
            Err((error, None)) => Err(syntax(&error)),
            Err((error, Some(refusal))) => {
                if error.is_io() {
                    return Err(syntax(&error));
                }
                input.seek(std::io::SeekFrom::Start(start)).map_err(io_error)?;
                match serde_json::from_reader::<_, value::Skip>(buffered(&mut input)) {
                    Err(error) => Err(syntax(&error)),
                    Ok(_) => Err(refusal.into()),
                }
            }
        }
    }

    /// Reads and checks a document already parsed as JSON.
    pub fn read_value(&self, json: &serde_json::Value) -> Result<Playbook, ReadError> {
        let ctx = value::Ctx::new(&self.checkers);
        match parse::document(json, value::At { ctx: &ctx, here: &value::Here::Root }) {
            Ok((playbook, claimed_ids)) => self.check(playbook, &claimed_ids),
            Err(error) => Err(ctx.take().map_or_else(|| syntax(&error), ReadError::Refused)),
        }
    }

    /// Runs every checker over a playbook built in memory (a compiler's output), as the reader
    /// would over its written form: the header rules, then the structural ones, each node
    /// claiming its own position. Nothing is written or read, so it costs no copy of the
    /// playbook; the writer's output reading back as the same playbook is this crate's promise.
    pub fn check_playbook(&self, playbook: &Playbook) -> Result<(), Refusal> {
        self.check_header(&playbook.format)?;
        let claimed_ids: Vec<u64> = (0..playbook.nodes.len() as u64).collect();
        let document = Document { playbook, claimed_ids: &claimed_ids };
        self.checkers.iter().try_for_each(|checker| checker.check(&document))
    }

    /// Runs every checker's header rule.
    pub(crate) fn check_header(&self, format: &Format) -> Result<(), Refusal> {
        self.checkers.iter().try_for_each(|checker| checker.check_header(format))
    }

    /// Runs every checker's structural rule over a document as read.
    fn check(&self, playbook: Playbook, claimed_ids: &[u64]) -> Result<Playbook, ReadError> {
        let document = Document { playbook: &playbook, claimed_ids };
        for checker in &self.checkers {
            checker.check(&document)?;
        }
        Ok(playbook)
    }
}

/// A stream's reading error, reported where a syntax error would be (line 0: no place in the
/// text).
fn io_error(error: std::io::Error) -> ReadError {
    ReadError::Syntax { message: format!("could not read the document: {error}"), line: 0, column: 0 }
}

/// `input` read through a buffer (serde_json reads a stream a byte at a time), its mark skipped.
fn buffered<R: std::io::Read>(input: R) -> std::io::BufReader<Unmarked<R>> {
    std::io::BufReader::with_capacity(1 << 16, Unmarked::new(input))
}

/// A stream with a leading UTF-8 byte-order mark skipped.
struct Unmarked<R> {
    inner: R,
    /// The first bytes, held back until they are known not to be a mark.
    head: ([u8; 3], usize, usize),
    started: bool,
}

impl<R: std::io::Read> Unmarked<R> {
    fn new(inner: R) -> Self {
        Unmarked { inner, head: ([0; 3], 0, 0), started: false }
    }
}

impl<R: std::io::Read> std::io::Read for Unmarked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.started {
            self.started = true;
            let (bytes, len, _) = &mut self.head;
            while *len < 3 {
                match self.inner.read(&mut bytes[*len..])? {
                    0 => break,
                    n => *len += n,
                }
            }
            if *len == 3 && *bytes == [0xEF, 0xBB, 0xBF] {
                *len = 0;
            }
        }
        let (bytes, len, at) = &mut self.head;
        if *at < *len {
            let n = (*len - *at).min(buf.len());
            buf[..n].copy_from_slice(&bytes[*at..*at + n]);
            *at += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

fn syntax(error: &serde_json::Error) -> ReadError {
    ReadError::Syntax { message: syntax_message(error), line: error.line(), column: error.column() }
}

fn syntax_message(error: &serde_json::Error) -> String {
    // serde_json appends " at line L column C"; the error carries those separately.
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// Reads a piece of speech (a JSON array of fragments) on its own, as fixtures and saves write
/// it. Paths in a refusal are relative to the array (`$[2].children[0]`).
pub fn speech_from_json(json: &serde_json::Value) -> Result<crate::Speech, Refusal> {
    let ctx = value::Ctx::new(&[]);
    parse::speech_alone(json, value::At { ctx: &ctx, here: &value::Here::Root })
        .map_err(|error| ctx.take().unwrap_or_else(|| Refusal::new(Rule::Shape, JsonPath::root(), error.to_string())))
}

/// Reads and checks a document with the standard [`Reader`].
pub fn read(json: &str) -> Result<Playbook, ReadError> {
    Reader::new().read(json)
}
