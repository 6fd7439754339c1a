//! Turning a file's bytes into text: byte-order marks, UTF-16 and positions.

use crate::error::{Format, LoadError};

/// Text that could not be decoded, with the 1-based position of the first bad character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DecodeError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

impl DecodeError {
    /// The error as a loader reports it: `file` malformed as `format`, at this position.
    pub(crate) fn malformed(self, file: &str, format: Format) -> LoadError {
        LoadError::Malformed { file: file.into(), format, line: self.line, column: self.column, message: self.message }
    }
}

/// Decodes UTF-8 (with or without a BOM) or UTF-16 LE/BE (by BOM, or by a leading `<`, `{` or
/// space being half zero bytes). A declared encoding is not consulted: the bytes decide.
pub(crate) fn decode(bytes: &[u8]) -> Result<String, DecodeError> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return decode_utf8(rest);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return decode_utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return decode_utf16(rest, u16::from_be_bytes);
    }
    match bytes {
        [a, 0, ..] if is_opening(*a) => decode_utf16(bytes, u16::from_le_bytes),
        [0, b, ..] if is_opening(*b) => decode_utf16(bytes, u16::from_be_bytes),
        _ => decode_utf8(bytes),
    }
}

fn is_opening(byte: u8) -> bool {
    matches!(byte, b'<' | b'{' | b'[' | b' ' | b'\t' | b'\r' | b'\n')
}

fn decode_utf8(bytes: &[u8]) -> Result<String, DecodeError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_owned()),
        Err(error) => {
            let valid = std::str::from_utf8(&bytes[..error.valid_up_to()]).unwrap_or("");
            let (line, column) = line_column(valid, valid.len());
            Err(DecodeError { line, column, message: "the text is not valid UTF-8".into() })
        }
    }
}

fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Result<String, DecodeError> {
    let units = bytes.chunks_exact(2).map(|pair| unit([pair[0], pair[1]]));
    let mut text = String::with_capacity(bytes.len() / 2);
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => text.push(c),
            Err(_) => return Err(utf16_error(&text, "the text is not valid UTF-16 (an unpaired surrogate)")),
        }
    }
    if bytes.len() % 2 == 1 {
        return Err(utf16_error(&text, "the UTF-16 text ends in half a character"));
    }
    Ok(text)
}

fn utf16_error(decoded: &str, message: &str) -> DecodeError {
    let (line, column) = line_column(decoded, decoded.len());
    DecodeError { line, column, message: message.into() }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`. `\r\n`, `\r` and
/// `\n` each end a line. An offset past the end or inside a character is moved back.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let mut line = 1;
    let mut line_start = 0;
    let bytes = before.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if ends_line {
            line += 1;
            line_start = i + 1;
        }
    }
    (line, before[line_start..].chars().count() + 1)
}

/// The first character that is not whitespace, skipping any BOM, after decoding.
pub(crate) fn first_significant(text: &str) -> Option<char> {
    text.trim_start_matches('\u{feff}').chars().find(|c| !c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf8_with_and_without_bom() {
        assert_eq!(decode(b"\xEF\xBB\xBF<a/>").as_deref(), Ok("<a/>"));
        assert_eq!(decode("<ü/>".as_bytes()).as_deref(), Ok("<ü/>"));
    }

    #[test]
    fn decodes_utf16_both_ways() {
        let le: Vec<u8> = [0xFF, 0xFE].into_iter().chain("<ä/>".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let be: Vec<u8> = [0xFE, 0xFF].into_iter().chain("<ä/>".encode_utf16().flat_map(u16::to_be_bytes)).collect();
        let bare: Vec<u8> = "<ä/>".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(decode(&le).as_deref(), Ok("<ä/>"));
        assert_eq!(decode(&be).as_deref(), Ok("<ä/>"));
        assert_eq!(decode(&bare).as_deref(), Ok("<ä/>"));
    }

    #[test]
    fn bad_bytes_are_located() {
        let error = decode(b"<a>\n  x\xFF</a>").unwrap_err();
        assert_eq!((error.line, error.column), (2, 4));
        let error = decode(&[0xFF, 0xFE, b'<', 0, 0x00, 0xD8, b'>', 0]).unwrap_err();
        assert_eq!((error.line, error.column), (1, 2));
        assert!(decode(&[0xFF, 0xFE, b'<', 0, b'>']).is_err());
    }

    #[test]
    fn positions_count_lines_and_characters() {
        assert_eq!(line_column("ab\r\ncd", 5), (2, 2));
        assert_eq!(line_column("a\rb\nc", 4), (3, 1));
        assert_eq!(line_column("äb", 2), (1, 2));
        assert_eq!(line_column("äb", 1), (1, 1));
        assert_eq!(line_column("x", 99), (1, 2));
    }
}
