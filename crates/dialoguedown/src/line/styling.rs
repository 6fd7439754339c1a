//! A styled run in speech, read as speech is: its words split into words, tags and arrows, and
//! a jump written inside it is the line's jump (C28). The Desugar note (DD4) assembles jumps on
//! "a line's speech and nested `StyledText` children" alike, so that none survives unassembled.

use std::ops::Range;

use stagehand_playbook::{Fragment, Style};

use crate::markdown::MdInline;

use super::{is_blank_text, LineBuilder, Piece};

impl LineBuilder<'_, '_, '_> {
    /// Pushes a styled run's pieces. With no jump in it, the run is one styled fragment, its
    /// dangling arrows warned and kept as text. With one, the arrow, the blanks after it and its
    /// link are lifted out among the line's pieces, where they make the line's jump: the words
    /// before it stay styled, and those after it become a styled run of their own, which the
    /// jump leaves unreachable (`DLG1003`, C2). A run left with nothing is dropped.
    pub(super) fn styled(&mut self, style: Style, children: &[MdInline], span: &Range<usize>, pieces: &mut Vec<Piece>) {
        let mut inner = Vec::with_capacity(children.len());
        for child in children {
            match child {
                MdInline::Text { text, span, escaped } => self.words(text, span, *escaped, &mut inner),
                MdInline::Link { target, children, span } => self.link(target, children, span, &mut inner),
                MdInline::Styled { style, children, span } => {
                    self.styled(*style, self.tree.inlines(children), span, &mut inner)
                }
                other => {
                    if let Some(fragment) = self.nested(other, false) {
                        inner.push(Piece::Fragment(fragment, other.span()));
                    }
                }
            }
        }
        let Some((arrow, link)) = jump_in(&inner) else {
            let children = self.run(inner, true);
            if !children.is_empty() {
                pieces.push(Piece::Fragment(Fragment::Styled { style, children: children.into() }, span.clone()));
            }
            return;
        };
        let after = inner.split_off(link + 1);
        let jump = inner.split_off(arrow);
        let start = jump.first().map_or(span.start, piece_start);
        let children = self.run(inner, true);
        if !children.is_empty() {
            let run = Fragment::Styled { style, children: children.into() };
            pieces.push(Piece::Fragment(run, span.start..start));
        }
        pieces.extend(jump);
        let from = after.first().map(piece_start);
        let children = self.run(after, false);
        if let Some(from) = from.filter(|_| !children.iter().all(is_blank_text)) {
            pieces.push(Piece::Fragment(Fragment::Styled { style, children: children.into() }, from..span.end));
        }
    }

    /// A styled run's pieces as its fragments: an arrow with no link is read literally, and
    /// warned (`DLG1113`) when `warn` (not past the line's jump, where nothing plays).
    fn run(&mut self, pieces: Vec<Piece>, warn: bool) -> Vec<Fragment> {
        let mut out = Vec::with_capacity(pieces.len());
        for piece in pieces {
            match piece {
                Piece::Fragment(fragment, _) => out.push(fragment),
                Piece::Link { target, label, .. } => {
                    out.push(Fragment::Link { target: target.into(), label: label.into() })
                }
                Piece::Arrow(arrow) => {
                    if warn {
                        self.dangling(arrow);
                    }
                    out.push(Fragment::Text { text: "=>".into() });
                }
                // A styled run's conditions are reported where they are read (`nested`).
                Piece::Condition(_) => {}
            }
        }
        out
    }
}

/// The first arrow followed, past blank words only, by a link: the arrow's and the link's
/// places among the pieces.
fn jump_in(pieces: &[Piece]) -> Option<(usize, usize)> {
    pieces.iter().enumerate().find_map(|(at, piece)| {
        if !matches!(piece, Piece::Arrow(_)) {
            return None;
        }
        let link = pieces[at + 1..]
            .iter()
            .position(|piece| !matches!(piece, Piece::Fragment(fragment, _) if is_blank_text(fragment)))
            .map(|past| at + 1 + past)?;
        matches!(pieces[link], Piece::Link { .. }).then_some((at, link))
    })
}

fn piece_start(piece: &Piece) -> usize {
    match piece {
        Piece::Fragment(_, span) | Piece::Arrow(span) | Piece::Link { span, .. } => span.start,
        Piece::Condition(condition) => condition.span.start,
    }
}
