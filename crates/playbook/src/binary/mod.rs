//! The binary form of a playbook (`docs/playbook-binary.md`): the same format 0, in a smaller
//! spelling that loads faster — eight magic bytes, an encoding byte, then the model in
//! postcard's wire format, the `format` header first.
//!
//! The JSON canonical form stays the artifact the fingerprint hashes; a binary playbook reads
//! back as the same [`Playbook`] and so has the same fingerprint. Reading runs the same checkers
//! the JSON reader runs, over the decoded model ([`Reader::check_playbook`]), so a refusal names
//! the same rule and the JSON path of the equivalent JSON document.

mod wire;

use crate::condition::Weight;
use crate::document::{Format, Playbook};
use crate::edge::Edge;
use crate::reader::{JsonPath, Reader, Refusal, Rule};

/// The eight bytes every binary playbook begins with. The first is not ASCII and the sequence
/// holds a CR LF and a Ctrl-Z, so text-mode transfers that mangle line ends are caught, and no
/// JSON document or script starts this way.
pub const BINARY_MAGIC: [u8; 8] = *b"\x89SHPB\r\n\x1a";

/// The encoding this build writes and reads, the byte after [`BINARY_MAGIC`]. It names the
/// layout of the bytes (postcard 1.x, the field order of `docs/playbook-binary.md`); the
/// playbook format version is inside, in the `format` header, as in JSON.
pub const BINARY_ENCODING: u8 = 0;

/// Why a binary playbook would not load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BinaryReadError {
    /// The bytes do not begin with [`BINARY_MAGIC`].
    #[error("not a binary playbook: it does not begin with the playbook magic bytes")]
    NotBinary,
    /// The encoding byte names a layout this build does not read.
    #[error("binary playbook encoding {found} is not one this build reads (it reads encoding {BINARY_ENCODING})")]
    Encoding {
        /// The encoding byte found.
        found: u8,
    },
    /// The bytes end early, or hold something the layout does not allow.
    #[error("malformed binary playbook: {message} (in the {part})")]
    Malformed {
        /// What the decoder found wrong.
        message: String,
        /// Which part was being read: `header` or `body`.
        part: &'static str,
    },
    /// The playbook decoded, and one of the reader's rules refuses it.
    #[error(transparent)]
    Refused(#[from] Refusal),
}

/// Whether these bytes are a binary playbook (they begin with [`BINARY_MAGIC`]).
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(&BINARY_MAGIC)
}

/// Writes a playbook in the binary form.
pub fn write_binary(playbook: &Playbook) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 << 12);
    out.extend_from_slice(&BINARY_MAGIC);
    out.push(BINARY_ENCODING);
    let body = wire::BodyRef {
        script: &playbook.script,
        entry: playbook.entry,
        anchors: &playbook.anchors,
        speakers: &playbook.speakers,
        nodes: &playbook.nodes,
    };
    // Writing into a vector cannot fail, and every model value has a postcard spelling.
    let out = postcard::to_extend(&Header(&playbook.format), out).unwrap_or_default();
    postcard::to_extend(&body, out).unwrap_or_default()
}

/// Reads and checks a binary playbook with the standard [`Reader`].
pub fn read_binary(bytes: &[u8]) -> Result<Playbook, BinaryReadError> {
    Reader::new().read_binary(bytes)
}

impl Reader {
    /// Reads and checks a binary playbook: the header is decoded and handed to every checker's
    /// [`check_header`](crate::Checker::check_header) before the body is decoded, then every
    /// structural checker runs over the decoded playbook, as [`Reader::read`] does for JSON.
    pub fn read_binary(&self, bytes: &[u8]) -> Result<Playbook, BinaryReadError> {
        let rest = bytes.strip_prefix(&BINARY_MAGIC).ok_or(BinaryReadError::NotBinary)?;
        let (&encoding, rest) = rest.split_first().ok_or(BinaryReadError::Malformed {
            message: "it ends before the encoding byte".to_owned(),
            part: "header",
        })?;
        if encoding != BINARY_ENCODING {
            return Err(BinaryReadError::Encoding { found: encoding });
        }
        wire::begin(rest.len());
        let (Header(format), rest) = postcard::take_from_bytes::<HeaderOwned>(rest)
            .map(|(header, rest)| (Header(header.0), rest))
            .map_err(|error| malformed(&error, "header"))?;
        self.check_header(&format)?;
        let (body, rest) = postcard::take_from_bytes::<wire::Body>(rest).map_err(|error| malformed(&error, "body"))?;
        if !rest.is_empty() {
            return Err(BinaryReadError::Malformed {
                message: format!("{} bytes follow the playbook", rest.len()),
                part: "body",
            });
        }
        let playbook = Playbook {
            format,
            script: body.script,
            entry: body.entry,
            anchors: body.anchors,
            speakers: body.speakers,
            nodes: body.nodes,
        };
        finite_weights(&playbook)?;
        self.check_playbook(&playbook)?;
        Ok(playbook)
    }
}

/// The header, written through its wire shape.
struct Header<T>(T);

impl serde::Serialize for Header<&Format> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        wire::FormatDef::serialize(self.0, serializer)
    }
}

/// The header, read through its wire shape.
struct HeaderOwned(Format);

impl<'de> serde::Deserialize<'de> for HeaderOwned {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        wire::FormatDef::deserialize(deserializer).map(HeaderOwned)
    }
}

fn malformed(error: &postcard::Error, part: &'static str) -> BinaryReadError {
    if let Some(reference) = wire::stopped_too_far() {
        let message = format!(
            "a node or speaker reference {reference} lands nowhere: a playbook's tables hold at most {} entries",
            u64::from(u32::MAX) + 1
        );
        return BinaryReadError::Malformed { message, part };
    }
    let message = match error {
        _ if wire::stopped_too_deep() => format!("speech nested deeper than {} levels", wire::MAX_SPEECH_DEPTH),
        postcard::Error::DeserializeUnexpectedEnd => "it ends early".to_owned(),
        postcard::Error::DeserializeBadVarint => "a number longer than its type allows".to_owned(),
        postcard::Error::DeserializeBadBool => "a flag neither 0 nor 1".to_owned(),
        postcard::Error::DeserializeBadUtf8 => "a string that is not UTF-8".to_owned(),
        postcard::Error::DeserializeBadOption => "an optional value marked neither 0 nor 1".to_owned(),
        postcard::Error::DeserializeBadEnum => "an unknown kind".to_owned(),
        other => other.to_string().to_lowercase(),
    };
    BinaryReadError::Malformed { message, part }
}

/// A JSON document cannot spell a weight that is not a finite number; neither may the binary
/// form, so that every binary playbook has its equivalent JSON form (and its fingerprint).
fn finite_weights(playbook: &Playbook) -> Result<(), Refusal> {
    for (n, node) in playbook.nodes.iter().enumerate() {
        for (e, edge) in node.out().iter().enumerate() {
            if let Edge::RandomOption { weight: Weight::Number { percentage }, .. } = edge {
                if !percentage.is_finite() {
                    let path =
                        JsonPath::root().key("nodes").index(n).key("out").index(e).key("weight").key("percentage");
                    return Err(Refusal::new(Rule::Shape, path, format!("expected a number, found {percentage}")));
                }
            }
        }
    }
    Ok(())
}
