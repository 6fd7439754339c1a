//! Where a text's words were written (C32): a text Markdown hands over is its source but for
//! the entities it decoded (`&amp;` is `&`). Each such entity is recorded as a seam as the tree is
//! built, so a piece of a text joined from words and entities is placed in the source exactly,
//! however many entities stand around it.

use std::ops::Range;

use super::MdTree;

/// An entity decoded into a text: where it was written, how long it was written, and how long
/// its decoded words are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seam {
    written: usize,
    written_len: usize,
    decoded_len: usize,
}

impl Seam {
    /// A seam for a text run written at `range` as `written`, that reads as `text`; `None` when
    /// it reads as written (almost every run).
    pub fn of(range: &Range<usize>, written: &str, text: &str) -> Option<Seam> {
        // Most runs are borrowed from the source where they were written: no need to compare.
        let same = std::ptr::eq(written.as_ptr(), text.as_ptr()) && written.len() == text.len();
        (!same && written != text).then_some(Seam {
            written: range.start,
            written_len: range.len(),
            decoded_len: text.len(),
        })
    }
}

impl MdTree<'_> {
    /// Where the bytes `from..to` of `text`, a text of this tree (or the end of one) written at
    /// `span`, were written. A stretch between entities is placed exactly; a piece that starts or
    /// ends inside an entity takes in the whole entity. Should the seams not account for how the
    /// text differs from its source, a piece is placed at the whole span.
    pub fn place(&self, text: &str, span: &Range<usize>, from: usize, to: usize) -> Range<usize> {
        if span.len() == text.len() {
            return span.start + from..span.start + to;
        }
        let first = self.seams.partition_point(|seam| seam.written < span.start);
        let seams = self.seams[first..].iter().take_while(|seam| seam.written + seam.written_len <= span.end);
        // Walk the text and its source together: verbatim stretches, then an entity, in turn.
        let (mut written, mut decoded) = (span.start, 0);
        let (mut start, mut end) = (None, None);
        for seam in seams {
            let verbatim = decoded + seam.written.saturating_sub(written);
            let past = verbatim + seam.decoded_len;
            if start.is_none() && from < past {
                start = Some(if from <= verbatim { written + (from - decoded) } else { seam.written });
            }
            if end.is_none() && to < past {
                end = Some(if to <= verbatim { written + (to - decoded) } else { seam.written + seam.written_len });
            }
            decoded = past;
            written = seam.written + seam.written_len;
        }
        // What is left after the last entity is written as it reads, if the seams account for it.
        if span.end.checked_sub(written) != text.len().checked_sub(decoded) {
            return span.clone();
        }
        let start = start.unwrap_or(written + from.saturating_sub(decoded));
        let end = end.unwrap_or(written + to.saturating_sub(decoded));
        start.min(span.end)..end.clamp(start.min(span.end), span.end)
    }
}
