//! A NUL character reads as U+FFFD before Markdown reads anything (C33): CommonMark (§2.3)
//! replaces it in the input, so the link rules and every later stage see the replacement
//! character, never a control character. The script is copied only when it holds a NUL, and
//! what the compile reports in the copy is placed back in the script as given.

use crate::Compilation;

/// How many more bytes U+FFFD takes than the NUL it stands for.
const GROWTH: usize = '\u{FFFD}'.len_utf8() - 1;

/// A script with its NULs read as U+FFFD.
pub(crate) struct Replaced {
    /// The script as read.
    pub text: String,
    /// Where, in the text as read, each replacement character that was a NUL starts, in order.
    nuls: Vec<usize>,
}

/// The script as read, if it holds a NUL (almost no script does: then it is read as it is).
pub(crate) fn replaced(source: &str) -> Option<Replaced> {
    memchr::memchr(0, source.as_bytes())?;
    let mut text = String::with_capacity(source.len() + GROWTH * 8);
    let mut nuls = Vec::new();
    let mut from = 0;
    for at in memchr::memchr_iter(0, source.as_bytes()) {
        text.push_str(&source[from..at]);
        nuls.push(text.len());
        text.push('\u{FFFD}');
        from = at + 1;
    }
    text.push_str(&source[from..]);
    Some(Replaced { text, nuls })
}

impl Replaced {
    /// The offset in the script as given of an offset in the text as read.
    fn original(&self, at: usize) -> usize {
        let before = self.nuls.partition_point(|&nul| nul < at);
        at.saturating_sub(before * GROWTH)
    }

    /// Places what was compiled from the text as read in the script as given. A line and a
    /// column need nothing: a NUL and U+FFFD are each one UTF-16 unit and neither ends a line.
    pub fn place(&self, compilation: &mut Compilation) {
        for diagnostic in &mut compilation.diagnostics {
            diagnostic.span = self.original(diagnostic.span.start)..self.original(diagnostic.span.end);
        }
        for offset in &mut compilation.node_offsets {
            // Never larger than the offset it came from, so it fits where that did.
            *offset = u32::try_from(self.original(*offset as usize)).unwrap_or(*offset);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_after_each_nul_move_back_by_its_growth() {
        let read = replaced("a\0b\0\0c").expect("NULs");
        assert_eq!(read.text, "a\u{FFFD}b\u{FFFD}\u{FFFD}c");
        let back: Vec<usize> = [0, 1, 4, 5, 8, 11, 12].iter().map(|&at| read.original(at)).collect();
        assert_eq!(back, [0, 1, 2, 3, 4, 5, 6]);
        assert!(replaced("no nul here").is_none());
    }
}
