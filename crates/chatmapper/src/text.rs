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
/// space being half zero bytes). The bytes decide; a declared encoding is consulted only when
/// they are not UTF-8 and it names ISO-8859-1 or windows-1252 (older Western European exports).
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
        _ => decode_utf8(bytes).or_else(|error| match declares_windows_1252(bytes) {
            true => Ok(bytes.iter().map(|&b| windows_1252(b)).collect()),
            false => Err(error),
        }),
    }
}

/// Whether bytes open with an XML declaration naming ISO-8859-1 or windows-1252 (read as
/// windows-1252, as browsers read both): the encoding consulted only when the bytes are not UTF-8.
fn declares_windows_1252(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(256)];
    let Some(end) = head.windows(2).position(|w| w == b"?>") else { return false };
    let declaration = String::from_utf8_lossy(&head[..end]).to_ascii_lowercase();
    let declaration = declaration.trim_start();
    let Some(rest) = declaration.strip_prefix("<?xml").and_then(|d| d.split_once("encoding")).map(|(_, r)| r) else {
        return false;
    };
    let name = rest.trim_start().trim_start_matches('=').trim_start().trim_matches(|c: char| c == '"' || c == '\'');
    let name = name.split(|c: char| c == '"' || c == '\'' || c.is_whitespace()).next().unwrap_or_default();
    matches!(name, "iso-8859-1" | "iso8859-1" | "latin1" | "latin-1" | "l1" | "windows-1252" | "cp1252")
}

/// A windows-1252 byte as a character (the five bytes it leaves undefined map to the C1 controls).
fn windows_1252(byte: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}', '\u{90}', '‘',
        '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
    ];
    match byte {
        0x80..=0x9F => HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
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
    fn a_declared_single_byte_encoding_is_read_when_the_bytes_are_not_utf8() {
        // "Holztür", "café" and a euro sign as windows-1252 / ISO-8859-1 bytes.
        let latin = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a>Holzt\xFCr caf\xE9</a>";
        assert_eq!(
            decode(latin).as_deref(),
            Ok("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a>Holztür café</a>")
        );
        let windows = b"<?xml version='1.0' encoding='windows-1252'?><a>\x80 5</a>";
        assert_eq!(decode(windows).as_deref(), Ok("<?xml version='1.0' encoding='windows-1252'?><a>€ 5</a>"));
        // Valid UTF-8 stays UTF-8 whatever the declaration says; undeclared bad bytes are errors.
        let utf8 = "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?><a>tür</a>";
        assert_eq!(decode(utf8.as_bytes()).as_deref(), Ok(utf8));
        assert!(decode(b"<?xml version=\"1.0\"?><a>t\xFCr</a>").is_err());
        assert!(decode(b"<?xml version=\"1.0\" encoding=\"shift_jis\"?><a>\x82\xA0</a>").is_err());
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
