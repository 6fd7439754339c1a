//! One line: its leading condition (and, for an option, weight), its speaker prefix, and its
//! speech as fragments — with jumps assembled and an effect-only line recognized as a control
//! line.

use std::ops::Range;

use stagehand_playbook::{CompactString, Fragment, ThinStr};

use crate::ast::{
    Block, Cond, ControlLine, Declaration, Jump, JumpTarget, Line, Partial, SpeakerSyntax, TagSyntax, WeightSyntax,
};
use crate::diagnostics::{Code, Sink};
use crate::leaf::{self, CodeKind, Leaf, PrefixData, TagData};
use crate::markdown::{MdInline, MdTree};
use crate::styled;

mod report;
mod styling;

/// Where a line stands, which decides what may lead it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lead {
    /// A line of a body: a condition may lead it.
    Line,
    /// The first line of a list item: a condition, then a weight, may lead it, and both belong
    /// to the option rather than the line.
    Option,
}

/// What a line yields.
#[derive(Debug, Default)]
pub(crate) struct LineParts {
    pub condition: Option<Cond>,
    pub weight: Option<(WeightSyntax, Range<usize>)>,
    pub block: Option<Block>,
}

/// Builds lines, reporting into the sink.
pub(crate) struct LineBuilder<'t, 's, 'k> {
    /// The tree the lines' inlines belong to.
    tree: &'t MdTree<'s>,
    pub sink: &'k mut Sink,
    room: &'k mut LineRoom,
}

/// Room for a line's pieces and speech as it is assembled, reused from line to line through
/// the whole script; each line's speech is moved out at its exact size.
#[derive(Default)]
pub(crate) struct LineRoom {
    pieces: Vec<Piece>,
    speech: Vec<Fragment>,
}

/// Speech before jumps are assembled.
enum Piece {
    Fragment(Fragment, Range<usize>),
    Condition(Cond),
    Arrow(Range<usize>),
    Link { target: Box<str>, label: Vec<Fragment>, span: Range<usize>, target_span: Range<usize> },
}

fn is_blank_text(fragment: &Fragment) -> bool {
    matches!(fragment, Fragment::Text { text } if text.trim().is_empty())
}

impl<'t, 's, 'k> LineBuilder<'t, 's, 'k> {
    pub fn new(tree: &'t MdTree<'s>, sink: &'k mut Sink, room: &'k mut LineRoom) -> Self {
        LineBuilder { tree, sink, room }
    }

    /// Builds one line from its inlines.
    pub fn line(&mut self, group: &[MdInline], lead: Lead) -> LineParts {
        let start = group.first().map_or(0, |inline| inline.span().start);
        let mut items = Items { rest: group, skip: 0 };
        let mut parts = LineParts { condition: items.leading_condition(), ..LineParts::default() };
        // The condition of the option's first line, when one follows the option's own guard or
        // weight: it "sits at the body start and guards the body's first line, not the option"
        // (the Conditional Choice note's boundary table).
        let mut first_line = None;
        if lead == Lead::Option {
            if let Some(MdInline::Code { text, span }) = items.first() {
                if let Some(weight) = leaf::weight_of(text) {
                    parts.weight = Some((weight, span.clone()));
                    items.pop_front();
                    items.trim_start();
                }
            }
            if parts.condition.is_some() || parts.weight.is_some() {
                first_line = items.leading_condition();
            }
        }
        let at_start = parts.condition.is_none() && parts.weight.is_none();
        let speaker = self.speaker(&mut items);
        let has_speaker = !matches!(speaker, SpeakerSyntax::Default);
        let condition = if lead == Lead::Line { parts.condition.take() } else { first_line };
        let mut pieces = std::mem::take(&mut self.room.pieces);
        let mut speech = std::mem::take(&mut self.room.speech);
        self.speech(&items, start, &mut pieces);
        if at_start && !has_speaker {
            self.leading_tags(&mut pieces);
        }
        let jump = self.assemble(&mut pieces, &mut speech);
        self.room.pieces = pieces;
        let jump = jump.map(Box::new);
        let effect_only = speech.iter().all(|fragment| fragment.is_command() || is_blank_text(fragment))
            && (jump.is_some() || speech.iter().any(Fragment::is_command));
        if !has_speaker && effect_only {
            speech.retain(Fragment::is_command);
            let effects = exact(&mut speech);
            parts.block = Some(Block::Control(ControlLine { condition, effects, jump, start }));
        } else if !has_speaker && jump.is_none() && speech.is_empty() {
            if let Some(condition) = condition {
                self.guards_nothing(&condition);
            }
        } else {
            if has_speaker {
                unquote(&mut speech);
            }
            let said = exact(&mut speech);
            parts.block = Some(Block::Line(Line { condition, speaker, speaker_index: 0, speech: said, jump, start }));
        }
        speech.clear();
        self.room.speech = speech;
        parts
    }

    /// Splits a speaker prefix off the leading text, if the line opens with one.
    fn speaker(&mut self, items: &mut Items<'_, '_>) -> SpeakerSyntax {
        // A prefix is written as itself: an escaped first character (`\#excited:`) is a word.
        let prefix = match items.first_placed(self.tree) {
            Some((text, span)) if !items.first_escaped() => {
                leaf::speaker_prefix(text).map(|prefix| (prefix, text, span))
            }
            _ => None,
        };
        let Some((prefix, text, span)) = prefix else {
            if !self.prefix_with_ids(items) {
                self.styled_prefix(items);
            }
            return SpeakerSyntax::Default;
        };
        let tree = self.tree;
        let at = |offset: usize| tree.place(text, &span, offset, offset).start;
        let consumed = prefix.consumed;
        let speaker = self.classify(prefix, &text[..consumed], at(0)..at(consumed), &at);
        items.advance(consumed);
        items.trim_start();
        speaker
    }

    fn classify(
        &mut self,
        prefix: PrefixData<'_>,
        text: &str,
        span: Range<usize>,
        at: &dyn Fn(usize) -> usize,
    ) -> SpeakerSyntax {
        let tags: Vec<TagSyntax> = prefix
            .tags
            .into_iter()
            .map(|(TagData { name, value, reserved }, range)| TagSyntax {
                name: name.into(),
                value: value.map(CompactString::from),
                reserved,
                span: at(range.start)..at(range.end),
            })
            .collect();
        let head = span.start..at(prefix.head_end).max(span.start);
        match (prefix.name, prefix.id) {
            (Some(name), None) if tags.is_empty() => SpeakerSyntax::Name { name: name.into(), span: head },
            (None, Some(id)) if tags.is_empty() => SpeakerSyntax::Id { id: id.into(), span: head },
            (Some(name), id) => {
                let (name, id) = (name.into(), id.map(CompactString::from));
                SpeakerSyntax::Declaration(Box::new(Declaration { name, id, tags, span: head }))
            }
            (None, Some(id)) => SpeakerSyntax::Partial(Box::new(Partial { id: id.into(), tags, span: head })),
            (None, None) => {
                let shown = text[..prefix.consumed.saturating_sub(1)].trim();
                self.sink.push(
                    Code::TagsWithoutSpeaker,
                    span,
                    format!(
                        "\"{shown}\" has tags but names no speaker for them to attach to. Begin the line with a \
                         name to declare a speaker (Alice #excited:), or with an @id to add tags to an \
                         already-declared one (@alice #excited:)."
                    ),
                    "tags without a speaker",
                );
                SpeakerSyntax::Default
            }
        }
    }

    /// Reports (DLG1101) tags that open a line with no speaker prefix, and drops them (C17): a tag
    /// never starts a line, it rides along with what it annotates. The line, if words follow, is
    /// the default speaker's, as the recovery for tags in a prefix with no name.
    fn leading_tags(&mut self, pieces: &mut Vec<Piece>) {
        let tags = pieces
            .iter()
            .take_while(|piece| match piece {
                Piece::Fragment(Fragment::Tag { .. }, _) => true,
                Piece::Fragment(fragment @ Fragment::Text { .. }, _) => is_blank_text(fragment),
                _ => false,
            })
            .enumerate()
            .filter(|(_, piece)| matches!(piece, Piece::Fragment(Fragment::Tag { .. }, _)))
            .map(|(at, piece)| match piece {
                Piece::Fragment(_, span) => (at, span.clone()),
                _ => (at, 0..0),
            });
        let (mut first, mut last) = (None, None);
        for (at, span) in tags {
            first.get_or_insert_with(|| span.clone());
            last = Some((at, span));
        }
        let (Some(first), Some((end, last))) = (first, last) else { return };
        let span = first.start..last.end.max(first.start);
        let shown = self.tree.written(&span).trim().to_owned();
        self.sink.push(
            Code::TagsWithoutSpeaker,
            span,
            format!(
                "\"{shown}\" has tags but names no speaker for them to attach to. Begin the line with a name to \
                 declare a speaker (Alice #excited:), or with an @id to add tags to an already-declared one \
                 (@alice #excited:)."
            ),
            "tags without a speaker",
        );
        pieces.drain(..=end);
        if let Some(Piece::Fragment(Fragment::Text { text }, _)) = pieces.first_mut() {
            let trimmed = text.trim_start();
            if trimmed.len() < text.len() {
                *text = CompactString::from(trimmed);
            }
        }
    }

    /// Warns (DLG1903, C34) when a line that has no speaker prefix would have one but for the
    /// `@id`s after the first (`Alice @A @B:`), at the would-be prefix; says whether it did.
    fn prefix_with_ids(&mut self, items: &Items<'_, '_>) -> bool {
        let Some((text, span)) = items.first_placed(self.tree).filter(|_| !items.first_escaped()) else {
            return false;
        };
        let Some(consumed) = leaf::prefix_with_ids(text) else { return false };
        let lead = text.len() - text.trim_start().len();
        let shown = text[lead..consumed - 1].trim_end();
        self.sink.push(
            Code::PrefixWithTwoIds,
            self.tree.place(text, &span, lead, consumed),
            format!(
                "This line looks like a speaker prefix (\"{shown}\") but it names more than one @id, so it is \
                 not recognized and the line has no speaker. A speaker has one stable @id: keep a single one \
                 to declare the speaker."
            ),
            "more than one @id",
        );
        true
    }

    /// Warns (DLG1107) when a line that has no speaker prefix would have one but for styling in
    /// its leading words: `*Alice*:`, `***Carol***:`, `*Alice* #excited:`, `A*l*ice:`.
    fn styled_prefix(&mut self, items: &Items<'_, '_>) {
        let Some((name, span)) = styled::styled_prefix(self.tree, items.rest, items.first_placed(self.tree)) else {
            return;
        };
        self.sink.push(
            Code::StyledSpeakerPrefix,
            span,
            format!(
                "This line looks like a speaker prefix (\"{name}\") but the name is styled, so it is not \
                 recognized and the line has no speaker. Remove the styling to declare the speaker."
            ),
            "styled speaker name",
        );
    }

    /// A line's inlines as pieces of speech, arrows and links still apart. `start` is where the
    /// line starts: a control marker after it is fused into the line (C21).
    fn speech(&mut self, items: &Items<'_, '_>, start: usize, pieces: &mut Vec<Piece>) {
        pieces.reserve(items.rest.len());
        let head = items.first_placed(self.tree);
        // The marker's condition, read with a fused marker rather than as a guard of its own.
        let mut taken = None;
        for (index, inline) in items.rest.iter().enumerate() {
            if taken == Some(index) {
                continue;
            }
            match inline {
                MdInline::Text { text, span, escaped } => {
                    let (text, span, escaped) = match &head {
                        Some((cut, cut_span)) if index == 0 => (*cut, cut_span.clone(), items.first_escaped()),
                        _ => (&text[..], span.clone(), *escaped),
                    };
                    self.words(text, &span, escaped, pieces);
                }
                MdInline::Link { target, children, span } => self.link(target, children, span, pieces),
                MdInline::Code { text, span } => match leaf::code(text) {
                    CodeKind::Condition(key) => {
                        pieces.push(Piece::Condition(Cond { key: key.into(), span: span.clone() }))
                    }
                    CodeKind::Marker(marker) if span.start > start => {
                        taken =
                            self.fused_marker(marker, span, &items.rest[index + 1..]).map(|after| index + 1 + after);
                    }
                    kind => {
                        if let Some(fragment) = self.game_call(kind, text, span) {
                            pieces.push(Piece::Fragment(fragment, span.clone()));
                        }
                    }
                },
                MdInline::Styled { style, children, span } => {
                    self.styled(*style, self.tree.inlines(children), span, pieces)
                }
                other => {
                    if let Some(fragment) = self.nested(other, false) {
                        pieces.push(Piece::Fragment(fragment, other.span()));
                    }
                }
            }
        }
    }

    /// A text's words, tags and arrows, as pieces of speech.
    fn words(&mut self, text: &str, span: &Range<usize>, escaped: bool, pieces: &mut Vec<Piece>) {
        let tree = self.tree;
        let sink = &mut *self.sink;
        leaf::tokenize(
            text,
            |from, to| tree.place(text, span, from, to),
            true,
            escaped,
            |leaf| {
                pieces.push(match leaf {
                    Leaf::Text(text, span) => Piece::Fragment(Fragment::Text { text: text.into() }, span),
                    Leaf::Tag(tag, span) => Piece::Fragment(tag_fragment(tag, &span, sink), span),
                    Leaf::Arrow(span) => Piece::Arrow(span),
                })
            },
        );
    }

    /// A link in speech, as a piece: an arrow before it makes it a jump.
    fn link(&mut self, target: &str, children: &Range<usize>, span: &Range<usize>, pieces: &mut Vec<Piece>) {
        let words = self.tree.inlines(children);
        let label_end = words.last().map_or(span.start + 1, |last| last.span().end);
        let target_span = destination(self.tree.written(span), span, label_end).unwrap_or_else(|| span.clone());
        let label = self.label(words);
        pieces.push(Piece::Link { target: Box::from(target), label, span: span.clone(), target_span });
    }

    /// One inline below the top of a line (or, with `label`, inside a label or alt text).
    fn nested(&mut self, inline: &MdInline, label: bool) -> Option<Fragment> {
        match inline {
            MdInline::Text { text, .. } => Some(Fragment::Text { text: CompactString::from(&**text) }),
            // A label reads a query; any other code span in it is kept as written (C3).
            MdInline::Code { text, span } if label => Some(match leaf::code(text) {
                CodeKind::Query(key) => Fragment::Query { key: key.into() },
                _ => self.written(span),
            }),
            MdInline::Code { text, span } => self.game_call(leaf::code(text), text, span),
            MdInline::Styled { style, children, .. } => Some(Fragment::Styled {
                style: *style,
                children: self.fragments(self.tree.inlines(children), label).into(),
            }),
            MdInline::Link { target, children, span } => {
                if label {
                    self.disallowed("A link", span);
                    return None;
                }
                let label = self.label(self.tree.inlines(children));
                Some(Fragment::Link { target: ThinStr::from(&**target), label: label.into() })
            }
            MdInline::Image { span, .. } if label => Some(self.written(span)),
            MdInline::Image { source, children, .. } => {
                let alt = self.label(self.tree.inlines(children));
                Some(Fragment::Image { source: ThinStr::from(&**source), alt: alt.into() })
            }
            MdInline::SoftBreak { span } | MdInline::HardBreak { span } => {
                if label {
                    self.disallowed("A line break", span);
                    return None;
                }
                Some(Fragment::Break)
            }
        }
    }

    /// Inlines inside a label (or a styled run in one): text splits into words and tags; no jumps.
    fn fragments(&mut self, children: &[MdInline], label: bool) -> Vec<Fragment> {
        let mut out = Vec::with_capacity(children.len());
        for child in children {
            if let MdInline::Text { text, span, escaped } = child {
                let tree = self.tree;
                let sink = &mut *self.sink;
                let place = |from, to| tree.place(text, span, from, to);
                leaf::tokenize(text, place, false, *escaped, |leaf| match leaf {
                    Leaf::Text(text, _) => out.push(Fragment::Text { text: text.into() }),
                    Leaf::Tag(tag, span) => out.push(tag_fragment(tag, &span, sink)),
                    Leaf::Arrow(_) => {}
                });
            } else if let Some(fragment) = self.nested(child, label) {
                out.push(fragment);
            }
        }
        out
    }

    fn label(&mut self, children: &[MdInline]) -> Vec<Fragment> {
        self.fragments(children, true)
    }

    /// An inline kept in a label as the writer wrote it.
    fn written(&self, span: &Range<usize>) -> Fragment {
        Fragment::Text { text: CompactString::from(self.tree.written(span)) }
    }

    fn game_call(&mut self, kind: CodeKind, text: &str, span: &Range<usize>) -> Option<Fragment> {
        match kind {
            CodeKind::Query(key) => Some(Fragment::Query { key: key.into() }),
            CodeKind::DefaultCommand(action) => Some(Fragment::DefaultCommand { action: action.into() }),
            CodeKind::CustomCommand(name, args) => {
                Some(Fragment::CustomCommand { name: name.into(), args: args.into() })
            }
            CodeKind::Condition(key) => {
                self.guards_nothing(&Cond { key: key.into(), span: span.clone() });
                None
            }
            CodeKind::Weight(_) | CodeKind::Marker(_) | CodeKind::Invalid => {
                self.sink.push(
                    Code::NotAGameCall,
                    code_content(self.tree.written(span), span),
                    format!(
                        "\"{text}\" is not a game call. Write a query that reads a value (\"key\"), a default \
                         command ((\"do something\")), or a named command (Name(\"arg\", ...))."
                    ),
                    "not a game call",
                );
                None
            }
        }
    }

    /// Pairs each `=>` with the link after it, and a condition right before a `=>` with its
    /// jump; a dangling arrow stays as text (`DLG1113` at the arrow), and a condition before
    /// anything else guards nothing. The line's own condition, peeled before this, guards a
    /// jump the line opens with, and before a dangling arrow it stays the line's (C14).
    fn assemble(&mut self, pieces: &mut Vec<Piece>, speech: &mut Vec<Fragment>) -> Option<Jump> {
        let mut pieces = pieces.drain(..).peekable();
        let mut jump = None;
        let mut guard: Option<Cond> = None;
        while let Some(piece) = pieces.next() {
            match piece {
                Piece::Fragment(fragment, _) => speech.push(fragment),
                Piece::Link { target, label, .. } => {
                    speech.push(Fragment::Link { target: target.into(), label: label.into() })
                }
                Piece::Condition(condition) => {
                    let blanks = speech.len();
                    take_blanks(&mut pieces, speech);
                    if let Some(Piece::Arrow(_)) = pieces.peek() {
                        speech.truncate(blanks);
                        guard = Some(condition);
                    } else {
                        self.guards_nothing(&condition);
                    }
                }
                Piece::Arrow(arrow) => {
                    let blanks = speech.len();
                    take_blanks(&mut pieces, speech);
                    if let Some(Piece::Link { .. }) = pieces.peek() {
                        speech.truncate(blanks);
                        if let Some(Piece::Link { target, label, span, target_span }) = pieces.next() {
                            jump = Some(Jump {
                                label,
                                target,
                                condition: guard.take(),
                                resolved: JumpTarget::Unresolved,
                                span: arrow.start..span.end,
                                target_span,
                            });
                        }
                        self.after_jump(pieces);
                        break;
                    }
                    // A condition written mid-line right before it guards nothing; the line's
                    // own stays the line's, which says the arrow (C14).
                    if let Some(condition) = guard.take() {
                        self.guards_nothing(&condition);
                    }
                    self.dangling(arrow);
                    speech.insert(blanks, Fragment::Text { text: "=>".into() });
                }
            }
        }
        jump
    }

    fn after_jump(&mut self, rest: impl Iterator<Item = Piece>) {
        let mut span: Option<Range<usize>> = None;
        for piece in rest {
            let (counts, at) = match &piece {
                Piece::Fragment(Fragment::Break, at) => (false, at),
                Piece::Fragment(fragment, at) => (!is_blank_text(fragment), at),
                Piece::Arrow(at) | Piece::Link { span: at, .. } | Piece::Condition(Cond { span: at, .. }) => (true, at),
            };
            if counts {
                // The content starts at its first word: blanks before it are not content.
                let start = match (&span, &piece) {
                    (None, Piece::Fragment(Fragment::Text { text }, _)) => {
                        (at.start + text.len() - text.trim_start().len()).min(at.end)
                    }
                    _ => at.start,
                };
                span = Some(span.map_or(start..at.end, |seen| seen.start..at.end));
            }
        }
        if let Some(span) = span {
            self.sink.push(
                Code::UnreachableAfterJump,
                span,
                "Content after a jump on this line can never play: a jump does not return, so anything following \
                 it is unreachable. Move it before the jump, or onto its own line.",
                "unreachable",
            );
        }
    }
}

/// Moves a buffer's fragments into a vector of their exact size, leaving the buffer empty
/// with its room kept for the next line.
fn exact(buffer: &mut Vec<Fragment>) -> Vec<Fragment> {
    let mut out = Vec::with_capacity(buffer.len());
    out.append(buffer);
    out
}

/// Moves the whitespace-only words ahead onto `speech` (never a line break: a jump is
/// single-line).
fn take_blanks(pieces: &mut std::iter::Peekable<std::vec::Drain<'_, Piece>>, speech: &mut Vec<Fragment>) {
    while let Some(Piece::Fragment(fragment @ Fragment::Text { .. }, _)) = pieces.peek() {
        if !is_blank_text(fragment) {
            break;
        }
        if let Some(Piece::Fragment(fragment, _)) = pieces.next() {
            speech.push(fragment);
        }
    }
}

/// A tag in speech, a label or alt text as a fragment. A reserved tag the language does not
/// know is reported (`DLG2008`) wherever it rides, as the Semantic Analyzer note's tag
/// validator checks every reserved tag (C37).
fn tag_fragment(tag: TagData, span: &Range<usize>, sink: &mut Sink) -> Fragment {
    if tag.reserved && !(tag.name == "default" && tag.value.is_none()) {
        sink.unknown_reserved_tag(tag.name, tag.value, span.clone());
    }
    Fragment::Tag { name: tag.name.into(), value: tag.value.map(Box::from), reserved: tag.reserved }
}

/// A line's inlines, read from the front without copying them: `skip` bytes of the first
/// one (a text) are already taken, by a condition's or a speaker prefix's trailing space.
struct Items<'a, 's> {
    rest: &'a [MdInline<'s>],
    skip: usize,
}

impl<'a, 's> Items<'a, 's> {
    fn first(&self) -> Option<&'a MdInline<'s>> {
        self.rest.first()
    }

    /// Takes a condition code span leading what is left, and the whitespace after it.
    fn leading_condition(&mut self) -> Option<Cond> {
        let Some(MdInline::Code { text, span }) = self.first() else { return None };
        let key = leaf::condition(text)?;
        self.pop_front();
        self.trim_start();
        Some(Cond { key: key.into(), span: span.clone() })
    }

    /// The first inline's words, past what is taken.
    fn first_words(&self) -> Option<&'a str> {
        let Some(MdInline::Text { text, .. }) = self.rest.first() else { return None };
        text.get(self.skip..)
    }

    /// The first inline's words, if it is a text, and where they were written (C32).
    fn first_placed(&self, tree: &MdTree) -> Option<(&'a str, Range<usize>)> {
        let Some(MdInline::Text { text, span, .. }) = self.rest.first() else { return None };
        let words = text.get(self.skip..)?;
        Some((words, tree.place(text, span, self.skip, text.len())))
    }

    /// Whether the first inline's words start with a backslash-escaped character (none is
    /// left once some of them are taken).
    fn first_escaped(&self) -> bool {
        self.skip == 0 && matches!(self.rest.first(), Some(MdInline::Text { escaped: true, .. }))
    }

    fn pop_front(&mut self) {
        if !self.rest.is_empty() {
            self.rest = &self.rest[1..];
        }
        self.skip = 0;
    }

    /// Takes `bytes` more of the first text, dropping it once nothing is left.
    fn advance(&mut self, bytes: usize) {
        self.skip += bytes;
        if self.first_words().is_none_or(str::is_empty) {
            self.pop_front();
        }
    }

    /// Drops leading whitespace (after a condition, a weight or a speaker prefix).
    fn trim_start(&mut self) {
        if let Some(words) = self.first_words() {
            self.advance(leaf::skip_ws(words, 0));
        }
    }
}

/// Quoted speech keeps its inner whitespace: `Alice: " Hello"` says " Hello".
fn unquote(speech: &mut [Fragment]) {
    if let [Fragment::Text { text }] = speech {
        if text.len() >= 2
            && text.starts_with('"')
            && text.ends_with('"')
            && text[1..text.len() - 1].find('"').is_none()
        {
            *text = CompactString::from(&text[1..text.len() - 1]);
        }
    }
}

/// The part of a code span's source between its backtick fences (and the one space each side
/// that CommonMark strips when both are there): what the error-code guide marks (C39).
fn code_content(written: &str, span: &Range<usize>) -> Range<usize> {
    let fence = written.len() - written.trim_start_matches('`').len();
    let close = written.len() - written.trim_end_matches('`').len();
    if fence == 0 || fence != close || written.len() < fence * 2 {
        return span.clone();
    }
    let (mut from, mut to) = (fence, written.len() - fence);
    let inner = &written[from..to];
    if inner.len() >= 2 && inner.starts_with(' ') && inner.ends_with(' ') && !inner.trim().is_empty() {
        from += 1;
        to -= 1;
    }
    span.start + from..span.start + to
}

/// Where an inline link's destination is written — `#the-end` in `[Continue](#the-end)`, inside
/// angle brackets when it has them — found after the label's last inline; none for a reference
/// link. The error-code guide marks a missing jump target there (C39).
fn destination(written: &str, span: &Range<usize>, label_end: usize) -> Option<Range<usize>> {
    let after = label_end.checked_sub(span.start)?;
    let open = after + written.get(after..)?.find("](")? + 2;
    let rest = written.get(open..)?;
    let from = open + (rest.len() - rest.trim_start().len());
    let rest = written.get(from..)?;
    let (from, len) = if let Some(bracketed) = rest.strip_prefix('<') {
        (from + 1, bracketed.find('>')?)
    } else {
        let mut depth = 0usize;
        let end = rest
            .char_indices()
            .find(|&(_, c)| match c {
                '(' => {
                    depth += 1;
                    false
                }
                ')' if depth == 0 => true,
                ')' => {
                    depth -= 1;
                    false
                }
                c => c.is_whitespace(),
            })
            .map_or(rest.len(), |(at, _)| at);
        (from, end)
    };
    (len > 0).then(|| span.start + from..span.start + from + len)
}
