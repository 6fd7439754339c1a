//! The Markdown front-end: source text to a small Markdown tree, using `pulldown-cmark`.
//!
//! The tree holds only what the language models — headings, paragraphs, lists, blockquotes,
//! text, code spans, emphasis, links, images and breaks — each with its byte span. Everything
//! else is *unmodeled*: by [`Unmodeled`] policy its source text is kept as a paragraph of text,
//! or it is ignored with a `DLG1114` note. Front matter and HTML comments are always dropped.
//!
//! The tree is built from pulldown-cmark's event stream with an explicit stack, so no input can
//! exhaust the call stack here; past [`MAX_DEPTH`] nested containers the deeper content is
//! dropped and a single `DLG1901` error is reported.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, LinkType, Options as MdOptions, Parser, Tag, TagEnd};
use stagehand_playbook::Style;

use crate::config::{Handling, Unmodeled};
use crate::diagnostics::{Code, Sink};

/// How many containers (blocks and inlines together) the compiler follows inside each other.
pub(crate) const MAX_DEPTH: usize = 100;

/// A block of the Markdown tree.
#[derive(Debug, Clone)]
pub(crate) enum MdBlock<'s> {
    /// A heading: a scene.
    Heading { inlines: Vec<MdInline<'s>>, span: Range<usize> },
    /// A paragraph: one or more lines.
    Paragraph { inlines: Vec<MdInline<'s>>, span: Range<usize> },
    /// A list: choices.
    List { ordered: bool, items: Vec<MdItem<'s>>, span: Range<usize> },
    /// A blockquote: a conditional block, or a transparent wrapper.
    Quote { blocks: Vec<MdBlock<'s>>, span: Range<usize> },
}

/// One list item.
#[derive(Debug, Clone)]
pub(crate) struct MdItem<'s> {
    pub blocks: Vec<MdBlock<'s>>,
    pub span: Range<usize>,
}

/// An inline of the Markdown tree.
#[derive(Debug, Clone)]
pub(crate) enum MdInline<'s> {
    /// Plain text (entities and escapes already decoded), borrowed from the source when it can be.
    Text { text: Cow<'s, str>, span: Range<usize> },
    /// A code span's content, backticks stripped.
    Code { text: Cow<'s, str>, span: Range<usize> },
    /// Emphasis, strong emphasis or strikethrough.
    Styled { style: Style, children: Vec<MdInline<'s>>, span: Range<usize> },
    /// A link with its label.
    Link { target: Cow<'s, str>, children: Vec<MdInline<'s>>, span: Range<usize> },
    /// An image with its alt text.
    Image { source: Cow<'s, str>, children: Vec<MdInline<'s>>, span: Range<usize> },
    /// A soft line break.
    SoftBreak { span: Range<usize> },
    /// A hard line break: it ends a line.
    HardBreak { span: Range<usize> },
}

impl MdInline<'_> {
    /// The inline's byte span.
    pub fn span(&self) -> Range<usize> {
        match self {
            MdInline::Text { span, .. }
            | MdInline::Code { span, .. }
            | MdInline::Styled { span, .. }
            | MdInline::Link { span, .. }
            | MdInline::Image { span, .. }
            | MdInline::SoftBreak { span }
            | MdInline::HardBreak { span } => span.clone(),
        }
    }
}

enum InlineKind<'s> {
    Paragraph,
    Implicit,
    Heading,
    Styled(Style),
    Link(Cow<'s, str>),
    Image(Cow<'s, str>),
}

/// A pulldown-cmark string as a `Cow`: borrowed from the source whenever pulldown-cmark borrowed it.
fn cow(text: CowStr<'_>) -> Cow<'_, str> {
    match text {
        CowStr::Borrowed(text) => Cow::Borrowed(text),
        other => Cow::Owned(other.into_string()),
    }
}

enum Frame<'s> {
    Blocks {
        blocks: Vec<MdBlock<'s>>,
        quote: bool,
        span: Range<usize>,
    },
    List {
        ordered: bool,
        items: Vec<MdItem<'s>>,
        span: Range<usize>,
    },
    Inlines {
        kind: InlineKind<'s>,
        /// Where this frame's inlines start on the builder's shared inline stack.
        start: usize,
        span: Range<usize>,
    },
    /// Events inside a construct taken whole: counted, not built.
    Skip {
        depth: usize,
        what: Skipped,
        span: Range<usize>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Skipped {
    FrontMatter,
    TooDeep,
    Block(&'static str, bool),
    Html,
    Autolink,
}

/// About how many bytes pulldown-cmark parses at once (see [`cuts`]).
const PIECE: usize = 64 * 1024;

/// Parses a script into the Markdown tree, handing each top-level block to `on_block` as soon
/// as it is complete (with the sink), so the whole tree never exists at once.
pub(crate) fn parse<'s>(
    source: &'s str,
    policy: &Unmodeled,
    sink: &mut Sink,
    on_block: impl FnMut(MdBlock<'s>, &mut Sink),
) {
    parse_in_pieces(source, policy, sink, on_block, PIECE);
}

/// [`parse`], with pulldown-cmark run on one piece of at least `piece` bytes at a time (cut
/// where [`cuts`] finds it safe), so its own event tree stays small too.
fn parse_in_pieces<'s>(
    source: &'s str,
    policy: &Unmodeled,
    sink: &mut Sink,
    on_block: impl FnMut(MdBlock<'s>, &mut Sink),
    piece: usize,
) {
    let options =
        MdOptions::ENABLE_STRIKETHROUGH | MdOptions::ENABLE_TABLES | MdOptions::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut builder = Builder {
        source,
        policy,
        sink,
        on_block,
        inlines: Vec::new(),
        stack: vec![Frame::Blocks { blocks: Vec::new(), quote: false, span: 0..source.len() }],
        too_deep_reported: false,
    };
    let mut start = 0;
    for end in cuts(source, piece).into_iter().chain([source.len()]) {
        let text = source.get(start..end).unwrap_or_default();
        for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
            builder.event(event, start + range.start..start + range.end);
        }
        start = end;
    }
    builder.finish();
}

/// Where the source may be cut into pieces that pulldown-cmark parses exactly as it parses the
/// whole: at an ATX heading in the first column right after a blank line, which closes every
/// container and can continue nothing. Cuts are at least `piece` bytes apart. Constructs that
/// can carry on across a blank line (front matter, fenced code, HTML comments) hold no cut, and
/// a script with anything subtler (link reference definitions, which act on the whole document;
/// other multi-line HTML blocks; lone carriage returns) is not cut at all.
fn cuts(source: &str, piece: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    if source.len() <= piece || !cuttable(source) {
        return cuts;
    }
    // Front matter runs from a first `---` line to the next `---` or `...` line.
    let mut last = 0;
    if source.starts_with("---") {
        let mut lines = source.split_inclusive('\n');
        let first = lines.next().map_or(0, str::len);
        let mut at = first;
        let closed = lines.any(|line| {
            at += line.len();
            matches!(line.trim_end(), "---" | "...")
        });
        if !closed {
            return cuts;
        }
        last = at;
    }
    // How far HTML comments have been followed, and whether that is inside one.
    let mut scanned = 0;
    let mut in_comment = false;
    let mut from = last + piece;
    loop {
        while from < source.len() && !source.is_char_boundary(from) {
            from += 1;
        }
        let Some(found) = source.get(from..).and_then(|rest| find(rest, "\n#")) else { break };
        let newline = from + found;
        let at = newline + 1;
        from = at;
        let before = &source[..newline];
        let previous = &before[before.rfind('\n').map_or(0, |start| start + 1)..];
        let line = source[at..].split('\n').next().unwrap_or_default().trim_end_matches('\r');
        if !previous.trim_matches([' ', '\t', '\r']).is_empty() || !is_heading(line) {
            continue;
        }
        while let Some(offset) = find(&source[scanned..at], if in_comment { "-->" } else { "<!--" }) {
            scanned += offset + if in_comment { 3 } else { 4 };
            in_comment = !in_comment;
        }
        if !in_comment {
            cuts.push(at);
            last = at;
            from = last + piece;
        }
    }
    cuts
}

/// Where `needle` first occurs in `text`, looked for by its first character (which is rare in
/// the needles searched for, so this skips ahead quickly).
fn find(text: &str, needle: &str) -> Option<usize> {
    let first = needle.chars().next()?;
    text.match_indices(first).map(|(at, _)| at).find(|&at| text[at..].starts_with(needle))
}

/// Whether a line is an ATX heading starting in the first column.
fn is_heading(line: &str) -> bool {
    let hashes = line.len() - line.trim_start_matches('#').len();
    (1..=6).contains(&hashes) && matches!(line.as_bytes().get(hashes), None | Some(b' ' | b'\t'))
}

/// Whether the script holds nothing that makes cutting it unsafe.
fn cuttable(source: &str) -> bool {
    let bytes = source.as_bytes();
    let lone_return = source.match_indices('\r').any(|(at, _)| bytes.get(at + 1) != Some(&b'\n'));
    let risky = ["```", "~~~", "]:"].iter().any(|needle| find(source, needle).is_some());
    // HTML blocks that end at a marker rather than a blank line, comments aside.
    let html = source.match_indices('<').any(|(at, _)| {
        let after = &bytes[at + 1..];
        after.starts_with(b"?")
            || (after.starts_with(b"!") && !after.starts_with(b"!--"))
            || ["script", "pre", "style", "textarea"]
                .iter()
                .any(|tag| after.get(..tag.len()).is_some_and(|name| name.eq_ignore_ascii_case(tag.as_bytes())))
    });
    !lone_return && !risky && !html
}

struct Builder<'s, 'p, 'k, F> {
    source: &'s str,
    policy: &'p Unmodeled,
    sink: &'k mut Sink,
    /// Takes each finished top-level block.
    on_block: F,
    /// The inlines of every open inline frame, innermost last: one buffer that is reused,
    /// so a finished run of inlines is copied out once, at its exact size.
    inlines: Vec<MdInline<'s>>,
    stack: Vec<Frame<'s>>,
    too_deep_reported: bool,
}

impl<'s, F: FnMut(MdBlock<'s>, &mut Sink)> Builder<'s, '_, '_, F> {
    fn event(&mut self, event: Event<'s>, range: Range<usize>) {
        if let Some(Frame::Skip { depth, .. }) = self.stack.last_mut() {
            match event {
                Event::Start(_) => *depth += 1,
                Event::End(_) => {
                    *depth -= 1;
                    if *depth == 0 {
                        self.close_skip();
                    }
                }
                _ => {}
            }
            return;
        }
        if !is_inline(&event) {
            self.close_implicit();
        } else if matches!(self.stack.last(), Some(Frame::Blocks { .. })) {
            let at = range.start;
            self.stack.push(Frame::Inlines { kind: InlineKind::Implicit, start: self.inlines.len(), span: at..at });
        }
        match event {
            Event::Start(tag) => self.start(tag, range),
            Event::End(_) => self.end(range),
            Event::Text(text) => self.inline(MdInline::Text { text: cow(text), span: range }),
            Event::Code(text) => self.inline(MdInline::Code { text: cow(text), span: range }),
            Event::SoftBreak => self.inline(MdInline::SoftBreak { span: range }),
            Event::HardBreak => self.inline(MdInline::HardBreak { span: range }),
            Event::InlineHtml(html) => {
                if !is_comment(&html) {
                    self.unmodeled_inline("raw HTML", self.policy.raw_html, range);
                }
            }
            Event::Rule => self.unmodeled_block("thematic break", self.policy.thematic_break, range),
            Event::Html(_) => {}
            Event::InlineMath(_) | Event::DisplayMath(_) | Event::FootnoteReference(_) | Event::TaskListMarker(_) => {
                self.unmodeled_inline("construct", self.policy.other, range);
            }
        }
    }

    fn depth(&self) -> usize {
        self.stack.len()
    }

    fn start(&mut self, tag: Tag<'s>, range: Range<usize>) {
        if self.depth() > MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                self.sink.push(
                    Code::NestingTooDeep,
                    range.start..range.start + 1,
                    format!(
                        "This is nested more than {MAX_DEPTH} levels deep, so the compiler leaves out everything \
                         below that level. Move deep content into its own scene and jump to it."
                    ),
                    "nested too deeply",
                );
            }
            self.skip(Skipped::TooDeep, range);
            return;
        }
        let frame = match tag {
            Tag::Paragraph => Frame::Inlines { kind: InlineKind::Paragraph, start: self.inlines.len(), span: range },
            Tag::Heading { .. } => Frame::Inlines { kind: InlineKind::Heading, start: self.inlines.len(), span: range },
            Tag::BlockQuote(_) => Frame::Blocks { blocks: Vec::new(), quote: true, span: range },
            Tag::List(first) => Frame::List { ordered: first.is_some(), items: Vec::new(), span: range },
            Tag::Item => Frame::Blocks { blocks: Vec::new(), quote: false, span: range },
            Tag::Emphasis => {
                Frame::Inlines { kind: InlineKind::Styled(Style::Italic), start: self.inlines.len(), span: range }
            }
            Tag::Strong => {
                Frame::Inlines { kind: InlineKind::Styled(Style::Bold), start: self.inlines.len(), span: range }
            }
            Tag::Strikethrough => Frame::Inlines {
                kind: InlineKind::Styled(Style::Strikethrough),
                start: self.inlines.len(),
                span: range,
            },
            Tag::Link { link_type: LinkType::Autolink, .. } => return self.skip(Skipped::Autolink, range),
            Tag::Link { link_type: LinkType::Email, .. } => return self.skip(Skipped::Autolink, range),
            Tag::Link { dest_url, .. } => {
                Frame::Inlines { kind: InlineKind::Link(cow(dest_url)), start: self.inlines.len(), span: range }
            }
            Tag::Image { dest_url, .. } => {
                Frame::Inlines { kind: InlineKind::Image(cow(dest_url)), start: self.inlines.len(), span: range }
            }
            Tag::MetadataBlock(_) => return self.skip(Skipped::FrontMatter, range),
            Tag::CodeBlock(_) => {
                return self.skip(Skipped::Block("code block", self.policy.code_block == Handling::Keep), range)
            }
            Tag::Table(_) => return self.skip(Skipped::Block("table", self.policy.table == Handling::Keep), range),
            Tag::HtmlBlock => return self.skip(Skipped::Html, range),
            _ => return self.skip(Skipped::Block("construct", self.policy.other == Handling::Keep), range),
        };
        self.stack.push(frame);
    }

    fn skip(&mut self, what: Skipped, span: Range<usize>) {
        self.stack.push(Frame::Skip { depth: 1, what, span });
    }

    fn close_skip(&mut self) {
        let Some(Frame::Skip { what, span, .. }) = self.stack.pop() else { return };
        let raw = self.source.get(span.clone()).unwrap_or_default();
        match what {
            Skipped::FrontMatter | Skipped::TooDeep => {}
            Skipped::Block(name, keep) if matches!(self.stack.last(), Some(Frame::Inlines { .. })) => {
                let handling = if keep { Handling::Keep } else { Handling::Ignore };
                self.unmodeled_inline(name, handling, span);
            }
            Skipped::Block(name, keep) => {
                if keep {
                    self.kept_block(raw, span);
                } else {
                    self.ignored(name, span);
                }
            }
            Skipped::Html => {
                if !is_comment(raw) {
                    if self.policy.raw_html == Handling::Keep {
                        self.kept_block(raw, span);
                    } else {
                        self.ignored("raw HTML block", span);
                    }
                }
            }
            Skipped::Autolink => self.unmodeled_inline("autolink", self.policy.autolink, span),
        }
    }

    fn ignored(&mut self, name: &str, span: Range<usize>) {
        let trimmed = trim_span(self.source, span);
        self.sink.push(
            Code::IgnoredMarkdown,
            trimmed,
            format!(
                "This {name} is not dialogue, so the compiler left it out of the script. That is expected for \
                 notes and diagrams; write it as dialogue if it should be spoken."
            ),
            format!("{name} left out"),
        );
    }

    fn kept_block(&mut self, raw: &'s str, span: Range<usize>) {
        let text = raw.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            return;
        }
        let span = span.start..span.start + text.len();
        let text = Cow::Borrowed(text);
        self.push_block(MdBlock::Paragraph { inlines: vec![MdInline::Text { text, span: span.clone() }], span });
    }

    fn unmodeled_block(&mut self, name: &str, handling: Handling, span: Range<usize>) {
        match handling {
            Handling::Keep => {
                let raw = self.source.get(span.clone()).unwrap_or_default();
                self.kept_block(raw, span);
            }
            Handling::Ignore => self.ignored(name, span),
        }
    }

    fn unmodeled_inline(&mut self, name: &str, handling: Handling, span: Range<usize>) {
        match handling {
            Handling::Keep => {
                let text = Cow::Borrowed(self.source.get(span.clone()).unwrap_or_default());
                self.inline(MdInline::Text { text, span });
            }
            Handling::Ignore => self.ignored(name, span),
        }
    }

    fn inline(&mut self, inline: MdInline<'s>) {
        match self.stack.last_mut() {
            Some(Frame::Inlines { start, span, .. }) => {
                span.end = span.end.max(inline.span().end);
                let inlines = &mut self.inlines;
                let last = if inlines.len() > *start { inlines.last_mut() } else { None };
                match (last, inline) {
                    (Some(MdInline::Text { text, span: previous }), MdInline::Text { text: more, span: more_span })
                        if previous.end == more_span.start || more_span.start <= previous.end =>
                    {
                        text.to_mut().push_str(&more);
                        previous.end = previous.end.max(more_span.end);
                    }
                    (_, inline) => inlines.push(inline),
                }
            }
            Some(Frame::Blocks { .. }) => {
                let at = inline.span().start;
                self.stack.push(Frame::Inlines { kind: InlineKind::Implicit, start: self.inlines.len(), span: at..at });
                self.inline(inline);
            }
            _ => {}
        }
    }

    fn close_implicit(&mut self) {
        if let Some(Frame::Inlines { kind: InlineKind::Implicit, .. }) = self.stack.last() {
            if let Some(Frame::Inlines { start, span, .. }) = self.stack.pop() {
                let inlines = self.take_inlines(start);
                if !inlines.is_empty() {
                    self.push_block(MdBlock::Paragraph { inlines, span });
                }
            }
        }
    }

    /// The inlines of a frame being closed, off the shared stack.
    fn take_inlines(&mut self, start: usize) -> Vec<MdInline<'s>> {
        self.inlines.drain(start.min(self.inlines.len())..).collect()
    }

    fn push_block(&mut self, block: MdBlock<'s>) {
        self.close_implicit();
        if self.stack.len() == 1 {
            // A top-level block is done: hand it on rather than keep it.
            (self.on_block)(block, self.sink);
        } else if let Some(Frame::Blocks { blocks, .. }) = self.stack.last_mut() {
            blocks.push(block);
        }
    }

    /// Closes the innermost open construct (pulldown-cmark's events nest, so the tag is implied).
    fn end(&mut self, range: Range<usize>) {
        let Some(frame) = self.stack.pop() else { return };
        match frame {
            Frame::Inlines { kind, start, span } => {
                let inlines = self.take_inlines(start);
                let span = span.start..span.end.max(range.end);
                match kind {
                    InlineKind::Paragraph | InlineKind::Implicit => {
                        if !inlines.is_empty() {
                            self.push_block(MdBlock::Paragraph { inlines, span });
                        }
                    }
                    InlineKind::Heading => self.push_block(MdBlock::Heading { inlines, span }),
                    InlineKind::Styled(Style::Strikethrough)
                        if !self.source.get(span.clone()).unwrap_or_default().starts_with("~~") =>
                    {
                        // A single `~` is not strikethrough in DialogueDown: keep it as text.
                        self.inline(MdInline::Text { text: Cow::Borrowed("~"), span: span.start..span.start + 1 });
                        for inline in inlines {
                            self.inline(inline);
                        }
                        self.inline(MdInline::Text {
                            text: Cow::Borrowed("~"),
                            span: span.end.saturating_sub(1)..span.end,
                        });
                    }
                    InlineKind::Styled(style) => self.inline(MdInline::Styled { style, children: inlines, span }),
                    InlineKind::Link(target) => self.inline(MdInline::Link { target, children: inlines, span }),
                    InlineKind::Image(source) => self.inline(MdInline::Image { source, children: inlines, span }),
                }
            }
            Frame::Blocks { blocks, quote, span } => {
                if quote {
                    self.push_block(MdBlock::Quote { blocks, span });
                } else if let Some(Frame::List { items, .. }) = self.stack.last_mut() {
                    items.push(MdItem { blocks, span });
                } else {
                    // The root frame is never closed by an event; put it back.
                    self.stack.push(Frame::Blocks { blocks, quote, span });
                }
            }
            Frame::List { ordered, items, span } => self.push_block(MdBlock::List { ordered, items, span }),
            Frame::Skip { .. } => {}
        }
    }

    fn finish(mut self) {
        while self.stack.len() > 1 {
            self.end(self.source.len()..self.source.len());
        }
        self.close_implicit();
    }
}

fn is_inline(event: &Event<'_>) -> bool {
    match event {
        Event::Start(tag) => matches!(
            tag,
            Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Link { .. }
                | Tag::Image { .. }
                | Tag::Superscript
                | Tag::Subscript
        ),
        Event::End(tag) => matches!(
            tag,
            TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Link
                | TagEnd::Image
                | TagEnd::Superscript
                | TagEnd::Subscript
        ),
        Event::Text(_)
        | Event::Code(_)
        | Event::InlineHtml(_)
        | Event::SoftBreak
        | Event::HardBreak
        | Event::InlineMath(_)
        | Event::FootnoteReference(_)
        | Event::TaskListMarker(_) => true,
        _ => false,
    }
}

fn is_comment(html: &str) -> bool {
    html.trim_start().starts_with("<!--")
}

fn trim_span(source: &str, span: Range<usize>) -> Range<usize> {
    let text = source.get(span.clone()).unwrap_or_default();
    let trimmed = text.trim_end();
    span.start..span.start + trimmed.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(source: &str) -> (Vec<MdBlock<'_>>, Sink) {
        let mut sink = Sink::default();
        let mut blocks = Vec::new();
        parse(source, &Unmodeled::default(), &mut sink, |block, _| blocks.push(block));
        (blocks, sink)
    }

    #[test]
    fn a_tight_item_holds_a_paragraph_and_its_nested_list() {
        let (blocks, _) = tree("- Ask\n    - Keeper: North.\n");
        let [MdBlock::List { items, ordered: false, .. }] = blocks.as_slice() else { panic!("{blocks:?}") };
        assert!(matches!(items[0].blocks.as_slice(), [MdBlock::Paragraph { .. }, MdBlock::List { .. }]));
    }

    #[test]
    fn front_matter_and_comments_leave_nothing() {
        let (blocks, sink) = tree("---\ntitle: x\n---\n\n<!-- note -->\n");
        assert!(blocks.is_empty(), "{blocks:?}");
        assert!(sink.items.is_empty());
    }

    #[test]
    fn ignored_aids_are_noted_with_their_span() {
        let source = "Alice: Hi.\n\n---\n";
        let (blocks, sink) = tree(source);
        assert_eq!(blocks.len(), 1);
        assert_eq!(sink.items.len(), 1);
        assert_eq!(&source[sink.items[0].span.clone()], "---");
    }

    #[test]
    fn spans_point_into_the_source() {
        let source = "Alice: *hi* `Wave()`\n";
        let (blocks, _) = tree(source);
        let [MdBlock::Paragraph { inlines, .. }] = blocks.as_slice() else { panic!("{blocks:?}") };
        let spans: Vec<&str> = inlines.iter().map(|inline| &source[inline.span()]).collect();
        assert_eq!(spans, ["Alice: ", "*hi*", " ", "`Wave()`"]);
    }

    #[test]
    fn nesting_past_the_limit_is_cut_with_one_error() {
        let (_, sink) = tree(&"> ".repeat(MAX_DEPTH * 3));
        let deep: Vec<_> = sink.items.iter().filter(|raw| raw.code == Code::NestingTooDeep).collect();
        assert_eq!(deep.len(), 1);
    }
}
