//! What the line builder reports about a line's game calls, guards and labels, in the words
//! of the error-code reference: one place for the messages, beside the builder that finds them.

use std::ops::Range;

use crate::ast::Cond;
use crate::diagnostics::Code;
use crate::leaf::{self, Marker};
use crate::markdown::MdInline;

use super::LineBuilder;

impl LineBuilder<'_, '_, '_> {
    /// Reports (DLG1113) an arrow with no link after it, read literally.
    pub(super) fn dangling(&mut self, arrow: Range<usize>) {
        self.sink.push(
            Code::DanglingArrow,
            arrow,
            "`=>` makes a jump only when a link follows it. With no link here it is read literally, \
             staying as the characters \"=>\". If you meant to jump, add a target: \
             `=> [The market](#the-market)`.",
            "no link follows",
        );
    }

    /// Reports (DLG1106) a condition with nothing to guard.
    pub(super) fn guards_nothing(&mut self, condition: &Cond) {
        self.sink.push(
            Code::ConditionGuardsNothing,
            condition.span.clone(),
            format!(
                "A condition (`\"{}\"?`) must guard a jump, line, choice option, or control branch. Put it \
                 immediately before a `=>` jump, at the start of a line or choice option, or after an \
                 `if`/`elseif` marker; otherwise remove the `?` to write a plain query.",
                condition.key
            ),
            "guards nothing",
        );
    }

    /// Reports (DLG1110) a control marker that does not open its line: the paragraph has fused
    /// it with what comes before — most often a marker line with no quoted blank line above
    /// it, pulled into the paragraph there by Markdown's lazy continuation (C21). A condition
    /// right after it is the marker's own and is reported with it, not as a guard of nothing;
    /// returns where that condition is among `after`.
    pub(super) fn fused_marker(&mut self, marker: Marker, span: &Range<usize>, after: &[MdInline]) -> Option<usize> {
        let condition = after
            .iter()
            .position(|inline| !matches!(inline, MdInline::Text { text, .. } if text.trim().is_empty()))
            .filter(|&at| matches!(&after[at], MdInline::Code { text, .. } if leaf::condition(text).is_some()));
        let end = condition.map_or(span.end, |at| after[at].span().end);
        self.sink.push(
            Code::MarkerNotAlone,
            span.start..end,
            format!(
                "A `{}` marker must stand alone in its paragraph. This one follows other content in it: without \
                 a quoted blank line (`>`) above the marker, Markdown continues the paragraph before it. Put a \
                 quoted blank line (`>`) between that paragraph and the marker.",
                marker.as_str()
            ),
            "marker fused into the paragraph above",
        );
        condition
    }

    /// Reports (DLG1103) what a label or alt text may not hold.
    pub(super) fn disallowed(&mut self, what: &str, span: &Range<usize>) {
        self.sink.push(
            Code::DisallowedInLabel,
            span.clone(),
            format!(
                "{what} is not allowed inside a label or alt text; text, styling, tags and queries are read \
                 there, and code spans and images are kept as written."
            ),
            "not allowed in a label",
        );
    }
}
