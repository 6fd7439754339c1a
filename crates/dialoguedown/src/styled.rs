//! The styled speaker prefix probe (`DLG1107`, decision C4): a line with no speaker prefix
//! whose leading words would be one but for their styling (`*Alice*:`, `A*l*ice:`). It reads the
//! Markdown tree only and asks the real prefix parser, so it never disagrees with recognition.

use std::ops::Range;

use crate::leaf;
use crate::markdown::{MdInline, MdTree};

/// The would-be prefix of a line whose leading words, up to the first colon outside styling
/// (or a styled run ending in one, `**Alice:**`), hold some styling and read as a speaker prefix
/// once the styling is taken away: the prefix as plain words, and its span.
pub(crate) fn styled_prefix(
    tree: &MdTree,
    rest: &[MdInline],
    first: Option<(&str, Range<usize>)>,
) -> Option<(String, Range<usize>)> {
    // Most lines have no styling before their first colon: find that out before building anything.
    let mut styled = false;
    let mut reach = None;
    for (index, inline) in rest.iter().enumerate() {
        match inline {
            MdInline::Text { text, .. } if memchr::memchr(b':', text.as_bytes()).is_some() => {
                reach = Some(index);
                break;
            }
            MdInline::Text { .. } => {}
            MdInline::Styled { children, .. } => {
                styled = true;
                if holds_colon(tree, tree.inlines(children)) {
                    reach = Some(index);
                    break;
                }
            }
            _ => return None,
        }
    }
    let reach = reach.filter(|_| styled)?;
    let mut words = String::new();
    let start = match &first {
        Some((_, span)) => span.start,
        None => rest.first().map_or(0, |inline| inline.span().start),
    };
    let mut end = start;
    for (index, inline) in rest[..=reach].iter().enumerate() {
        match inline {
            MdInline::Text { text, span, .. } => {
                let (text, span) = match &first {
                    Some((text, span)) if index == 0 => (*text, span.clone()),
                    _ => (&text[..], span.clone()),
                };
                let colon = text.find(':').map_or(text.len(), |at| at + 1);
                words.push_str(&text[..colon]);
                end = if span.len() == text.len() { span.start + colon } else { span.end };
            }
            MdInline::Styled { children, span, .. } => {
                let children = tree.inlines(children);
                if !plain_styled(tree, children) {
                    return None;
                }
                let before = words.len();
                crate::transpile::plain_text(tree, children, &mut words);
                // Only a colon that ends the styled run stands for the prefix's own (`**Alice:**`);
                // one inside it (`*Alice: hi*`) is styled speech.
                let inner = words[before..].trim_end();
                if index == reach && !(inner.ends_with(':') && inner.matches(':').count() == 1) {
                    return None;
                }
                words.truncate(before + inner.len());
                end = span.end;
            }
            _ => return None,
        }
    }
    let prefix = leaf::speaker_prefix(&words)?;
    (prefix.consumed == words.len()).then(|| {
        let name = words[..words.len() - 1].trim().to_owned();
        (name, start..end)
    })
}

/// Whether some inlines' words hold a colon, styling looked into.
fn holds_colon(tree: &MdTree, inlines: &[MdInline]) -> bool {
    inlines.iter().any(|inline| match inline {
        MdInline::Text { text, .. } => memchr::memchr(b':', text.as_bytes()).is_some(),
        MdInline::Styled { children, .. } => holds_colon(tree, tree.inlines(children)),
        _ => false,
    })
}

/// Whether styled inlines hold only words and more styling.
fn plain_styled(tree: &MdTree, inlines: &[MdInline]) -> bool {
    inlines.iter().all(|inline| match inline {
        MdInline::Text { .. } => true,
        MdInline::Styled { children, .. } => plain_styled(tree, tree.inlines(children)),
        _ => false,
    })
}
