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

mod seams;

use seams::Seam;

/// How many containers (blocks and inlines together) the compiler follows inside each other.
pub(crate) const MAX_DEPTH: usize = 100;

/// The pieces of one top-level block. Children are ranges into these flat arrays, which the
/// builder fills in post-order and empties after each top-level block, so building a tree
/// costs no allocation once the arrays have grown to the largest block.
#[derive(Debug, Default, Clone)]
pub(crate) struct MdTree<'s> {
    /// The whole script the spans point into.
    source: &'s str,
    blocks: Vec<MdBlock>,
    items: Vec<MdItem>,
    inlines: Vec<MdInline<'s>>,
    /// The entities decoded into its texts, in the order they were written (C32).
    seams: Vec<Seam>,
}

impl<'s> MdTree<'s> {
    /// The blocks in a range of this tree.
    pub fn blocks(&self, range: &Range<usize>) -> &[MdBlock] {
        self.blocks.get(range.clone()).unwrap_or_default()
    }

    /// The list items in a range of this tree.
    pub fn items(&self, range: &Range<usize>) -> &[MdItem] {
        self.items.get(range.clone()).unwrap_or_default()
    }

    /// The inlines in a range of this tree.
    pub fn inlines(&self, range: &Range<usize>) -> &[MdInline<'s>] {
        self.inlines.get(range.clone()).unwrap_or_default()
    }

    /// The source text of a span, as the writer wrote it.
    pub fn written(&self, span: &Range<usize>) -> &'s str {
        self.source.get(span.clone()).unwrap_or_default()
    }

    /// Empties the tree, keeping its arrays for the next block.
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.items.clear();
        self.inlines.clear();
        self.seams.clear();
    }
}

/// A block of the Markdown tree; its children are ranges into its [`MdTree`].
#[derive(Debug, Clone)]
pub(crate) enum MdBlock {
    /// A heading: a scene.
    Heading { inlines: Range<usize>, span: Range<usize> },
    /// A paragraph: one or more lines.
    Paragraph { inlines: Range<usize>, span: Range<usize> },
    /// A list: choices.
    List { ordered: bool, items: Range<usize>, span: Range<usize> },
    /// A blockquote: a conditional block, or a transparent wrapper.
    Quote { blocks: Range<usize>, span: Range<usize> },
}

impl MdBlock {
    /// The block's byte span.
    pub fn span(&self) -> Range<usize> {
        match self {
            MdBlock::Heading { span, .. }
            | MdBlock::Paragraph { span, .. }
            | MdBlock::List { span, .. }
            | MdBlock::Quote { span, .. } => span.clone(),
        }
    }
}

/// One list item.
#[derive(Debug, Clone)]
pub(crate) struct MdItem {
    pub blocks: Range<usize>,
    pub span: Range<usize>,
}

/// An inline of the Markdown tree.
#[derive(Debug, Clone)]
pub(crate) enum MdInline<'s> {
    /// Plain text (entities and escapes already decoded), borrowed from the source when it can be.
    /// `escaped` says its first character was written backslash-escaped (`\#`; not `\=`, C1) or
    /// as an entity (`&#35;`, `&#61;`, C16): it is read as itself, never as the start of a tag, an
    /// arrow or a speaker prefix. Markdown ends a text before each escape and entity, so an escaped
    /// character only ever stands first.
    Text { text: Cow<'s, str>, span: Range<usize>, escaped: bool },
    /// A code span's content, backticks stripped.
    Code { text: Cow<'s, str>, span: Range<usize> },
    /// Emphasis, strong emphasis or strikethrough.
    Styled { style: Style, children: Range<usize>, span: Range<usize> },
    /// A link with its label.
    Link { target: Cow<'s, str>, children: Range<usize>, span: Range<usize> },
    /// An image with its alt text.
    Image { source: Cow<'s, str>, children: Range<usize>, span: Range<usize> },
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
/// (The source holds no NUL: the compiler reads each as U+FFFD before Markdown does, C33.)
fn cow(text: CowStr<'_>) -> Cow<'_, str> {
    match text {
        CowStr::Borrowed(text) => Cow::Borrowed(text),
        other => Cow::Owned(other.into_string()),
    }
}

enum Frame<'s> {
    Blocks {
        /// Where this frame's blocks start on the builder's shared block stack.
        start: usize,
        quote: bool,
        span: Range<usize>,
    },
    List {
        ordered: bool,
        /// Where this frame's items start on the builder's shared item stack.
        start: usize,
        span: Range<usize>,
    },
    Inlines {
        kind: InlineKind<'s>,
        /// Where this frame's inlines start on the builder's shared inline stack.
        start: usize,
        span: Range<usize>,
    },
    /// Events inside a construct taken whole: counted, not built.
    Skip { depth: usize, what: Skipped, span: Range<usize> },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Skipped {
    FrontMatter,
    TooDeep,
    Block(&'static str, Handling),
    Html,
    Autolink,
}

/// About how many bytes pulldown-cmark parses at once (see [`cuts`]).
pub(crate) const PIECE: usize = 64 * 1024;

/// The pieces a script is parsed in, in order, together the whole source after any front matter
/// (which is never parsed): cut where [`cuts`] finds it safe, each at least `piece` bytes long
/// but the last.
pub(crate) fn pieces(source: &str, piece: usize) -> Vec<Range<usize>> {
    let mut start = front_matter(source).unwrap_or(0);
    cuts(source, piece).into_iter().chain([source.len()]).map(|end| std::mem::replace(&mut start, end)..end).collect()
}

/// Parses one piece of a script (see [`pieces`]) into the Markdown tree `tree`, handing each
/// top-level block to `on_block` as soon as it is complete, with the tree it is in; `on_block`
/// decides when the tree is emptied. A piece parses exactly as it does within the whole script,
/// except that deep nesting (`DLG1901`), which the whole script reports once, is reported once
/// per piece.
pub(crate) fn parse<'s>(
    source: &'s str,
    policy: &Unmodeled,
    piece: &Range<usize>,
    tree: &mut MdTree<'s>,
    sink: &mut Sink,
    on_block: impl FnMut(&mut MdTree<'s>, &MdBlock, &mut Sink),
) {
    let mut builder = Builder::new(source, policy, sink, on_block, std::mem::take(tree));
    parse_piece(source, piece, |event, range| builder.event(event, range));
    *tree = builder.finish();
}

/// Runs pulldown-cmark over one piece of the source, handing each event on with its range in
/// the whole source.
fn parse_piece<'s>(source: &'s str, bound: &Range<usize>, mut event: impl FnMut(Event<'s>, Range<usize>)) {
    // Front matter is found by [`front_matter`] and left out of the pieces; pulldown-cmark's own
    // metadata blocks would take a `---`-fenced block anywhere in the script.
    let options = MdOptions::ENABLE_STRIKETHROUGH | MdOptions::ENABLE_TABLES;
    let Range { start, end } = *bound;
    // A piece is parsed with the heading that ends it, so what comes before the heading ends
    // just as it does in the whole script; the heading's own events are left to the next piece.
    let through = source.get(end..).and_then(|rest| rest.find('\n')).map_or(source.len(), |at| end + at + 1);
    let text = source.get(start..through).unwrap_or_default();
    for (parsed, range) in Parser::new_ext(text, options).into_offset_iter() {
        if start + range.start >= end && end < source.len() {
            break;
        }
        event(parsed, start + range.start..start + range.end);
    }
}

/// Where the source may be cut into pieces that pulldown-cmark parses exactly as it parses the
/// whole: at an ATX heading in the first column right after a blank line, which closes every
/// container and can continue nothing. Cuts are at least `piece` bytes apart. Nothing that can
/// carry on across a blank line may be open at a cut: front matter and HTML comments hold no
/// cut, and no cut follows a fenced code block or another HTML block that ends at a marker
/// (pulldown-cmark sees the whole of what comes before them). A script with link reference
/// definitions, which act on the whole document, or with lone carriage returns, which end lines
/// where this scan does not look, is not cut at all.
fn cuts(source: &str, piece: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    let bytes = source.as_bytes();
    if source.len() <= piece || memchr::memchr_iter(b'\r', bytes).any(|at| bytes.get(at + 1) != Some(&b'\n')) {
        return cuts;
    }
    let start = front_matter(source).unwrap_or(0);
    // No cut at or past the first line that opens what a blank line does not close.
    let limit = first_unclosed(bytes, start);
    // How far HTML comments have been followed, and whether that is inside one.
    let (opening, closing) = (memchr::memmem::Finder::new("<!--"), memchr::memmem::Finder::new("-->"));
    let mut scanned = 0;
    let mut in_comment = false;
    let mut last = 0_usize;
    // A cut is a heading line whose line before is blank, at least `piece` past the last cut:
    // the search for `\n#` skips ahead that far each time. (The line closing front matter is
    // never blank, so a heading right after it is no cut.)
    let mut from = start;
    loop {
        // The newline before the heading is searched for, so the search starts a byte early.
        let search = from.max(last.saturating_add(piece)).saturating_sub(1);
        let Some(found) = bytes.get(search..).and_then(|rest| memchr::memmem::find(rest, b"\n#")) else { break };
        let at = search + found + 1;
        if at >= limit {
            break;
        }
        from = at + 1;
        let before = line_start(bytes, at - 1);
        let blank = bytes[before..at - 1].iter().all(|byte| matches!(byte, b' ' | b'\t' | b'\r'));
        if !blank || !is_heading(&bytes[at..]) {
            continue;
        }
        while let Some(found) = if in_comment { &closing } else { &opening }.find(&bytes[scanned..at]) {
            scanned += found + if in_comment { 3 } else { 4 };
            in_comment = !in_comment;
        }
        if !in_comment {
            cuts.push(at);
            last = at;
        }
    }
    // Link reference definitions (`[label]: url`) anywhere act on the whole document.
    if !cuts.is_empty() && memchr::memmem::find(bytes, b"]:").is_some() {
        cuts.clear();
    }
    cuts
}

/// Where the line holding byte `at` starts.
fn line_start(bytes: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |newline| newline + 1)
}

/// Where the first line at or after `start` starts that opens something a blank line does not
/// close (see [`opens_unclosed`]), or the end of the source. Only lines holding a
/// fence or a `<` can, so only those are looked at.
fn first_unclosed(bytes: &[u8], start: usize) -> usize {
    let rest = &bytes[start..];
    let mut first = bytes.len();
    let mut look = |hits: &mut dyn Iterator<Item = usize>| {
        // Each line is looked at once, however many hits it holds.
        let mut checked = start;
        for at in hits.map(|hit| start + hit) {
            if at >= first {
                break;
            }
            if at < checked {
                continue;
            }
            let line = line_start(bytes, at).max(start);
            checked = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |newline| at + newline + 1);
            if opens_unclosed(&bytes[line..checked]) {
                first = line;
            }
        }
    };
    for needle in ["```", "~~~"] {
        look(&mut memchr::memmem::find_iter(rest, needle));
    }
    look(&mut memchr::memchr_iter(b'<', rest));
    first
}

/// Whether a line opens something that a blank line does not close, so that no cut may follow
/// it: a fenced code block, or an HTML block that ends at a marker.
fn opens_unclosed(line: &[u8]) -> bool {
    // What a line holds past any indentation, blockquote markers and list markers.
    let prefix = line
        .iter()
        .position(|&byte| !matches!(byte, b' ' | b'\t' | b'>' | b'-' | b'+' | b'*' | b'.' | b')' | b'0'..=b'9'))
        .unwrap_or(line.len());
    let content = &line[prefix..];
    let fence = content.starts_with(b"```") || content.starts_with(b"~~~");
    fence || opens_html_block(content)
}

/// Where the front matter ends, if the script opens with it: a first line that is `---` and
/// whitespace, up to and including the next line that is `---` or `...` and whitespace, as the
/// reference's Markdown reader (Markdig's YAML front matter) takes it. Only a block at the very
/// start of the document is front matter (the guide); a `---` anywhere else is a divider.
fn front_matter(source: &str) -> Option<usize> {
    let fence = |line: &str, marks: &[&str]| {
        let rest = marks.iter().find_map(|mark| line.strip_prefix(mark));
        rest.is_some_and(|rest| rest.bytes().all(|byte| byte.is_ascii_whitespace()))
    };
    let mut lines = source.split_inclusive('\n');
    let first = lines.next()?;
    if !fence(first, &["---"]) {
        return None;
    }
    let mut at = first.len();
    for line in lines {
        at += line.len();
        if fence(line, &["---", "..."]) {
            return Some(at);
        }
    }
    None
}

/// Whether a line's content opens an HTML block that ends at a marker (`?>`, `>`, `]]>` or a
/// closing tag) rather than at a blank line; comments are followed by [`cuts`] itself.
fn opens_html_block(content: &[u8]) -> bool {
    let Some(after) = content.strip_prefix(b"<") else { return false };
    after.starts_with(b"?")
        || (after.starts_with(b"!") && !after.starts_with(b"!--"))
        || ["script", "pre", "style", "textarea"]
            .iter()
            .any(|tag| after.get(..tag.len()).is_some_and(|name| name.eq_ignore_ascii_case(tag.as_bytes())))
}

/// Whether a line is an ATX heading starting in the first column.
fn is_heading(line: &[u8]) -> bool {
    let hashes = line.iter().take_while(|&&byte| byte == b'#').count();
    (1..=6).contains(&hashes) && matches!(line.get(hashes), None | Some(b' ' | b'\t' | b'\n' | b'\r'))
}

struct Builder<'s, 'p, 'k, F> {
    source: &'s str,
    policy: &'p Unmodeled,
    sink: &'k mut Sink,
    /// Takes each finished top-level block.
    on_block: F,
    /// The finished pieces of the top-level blocks not yet emptied out by `on_block`.
    tree: MdTree<'s>,
    /// The inlines of every open inline frame, innermost last; a finished run moves to the tree.
    inlines: Vec<MdInline<'s>>,
    /// The blocks of every open block frame, innermost last.
    blocks: Vec<MdBlock>,
    /// The items of every open list, innermost last.
    items: Vec<MdItem>,
    stack: Vec<Frame<'s>>,
    too_deep_reported: bool,
}

impl<'s, 'p, 'k, F: FnMut(&mut MdTree<'s>, &MdBlock, &mut Sink)> Builder<'s, 'p, 'k, F> {
    /// A builder that hands each finished top-level block to `on_block` with the tree it is
    /// in, `tree` to begin with; `on_block` decides when the tree is emptied.
    fn new(source: &'s str, policy: &'p Unmodeled, sink: &'k mut Sink, on_block: F, mut tree: MdTree<'s>) -> Self {
        tree.source = source;
        Builder {
            source,
            policy,
            sink,
            on_block,
            tree,
            inlines: Vec::new(),
            blocks: Vec::new(),
            items: Vec::new(),
            stack: vec![Frame::Blocks { start: 0, quote: false, span: 0..source.len() }],
            too_deep_reported: false,
        }
    }

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
            Event::Text(text) => {
                let written = self.source.get(range.clone()).unwrap_or_default();
                self.tree.seams.extend(Seam::of(&range, written, &text));
                // A backslash before an arrow's `=` is consumed by Markdown and the arrow survives
                // (the dangling-arrow note; C1): only an entity keeps it quiet.
                let escaped = (escaped_at(self.source, range.start) && !text.starts_with('='))
                    || entity_at(self.source, &range, &text);
                self.inline(MdInline::Text { text: cow(text), span: range, escaped })
            }
            Event::Code(text) => self.inline(MdInline::Code { text: cow(text), span: range }),
            Event::SoftBreak => self.inline(MdInline::SoftBreak { span: range }),
            Event::HardBreak => self.inline(MdInline::HardBreak { span: range }),
            Event::InlineHtml(html) => {
                if !is_comment(&html) {
                    self.unmodeled_inline("raw HTML", self.policy.raw_html, range);
                }
            }
            Event::Rule => self.unmodeled_block("divider", self.policy.thematic_break, range),
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
            Tag::BlockQuote(_) => Frame::Blocks { start: self.blocks.len(), quote: true, span: range },
            Tag::List(first) => {
                Frame::List { ordered: first.is_some(), start: self.items.len(), span: self.at_marker(range) }
            }
            Tag::Item => Frame::Blocks { start: self.blocks.len(), quote: false, span: self.at_marker(range) },
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
            // Metadata blocks are switched off (front matter is cut off before parsing, C23).
            Tag::MetadataBlock(_) => return self.skip(Skipped::FrontMatter, range),
            Tag::CodeBlock(_) => return self.skip(Skipped::Block("code block", self.policy.code_block), range),
            Tag::Table(_) => return self.skip(Skipped::Block("table", self.policy.table), range),
            Tag::HtmlBlock => return self.skip(Skipped::Html, range),
            _ => return self.skip(Skipped::Block("construct", self.policy.other), range),
        };
        self.stack.push(frame);
    }

    fn skip(&mut self, what: Skipped, span: Range<usize>) {
        self.stack.push(Frame::Skip { depth: 1, what, span });
    }

    fn close_skip(&mut self) {
        let Some(Frame::Skip { what, span, .. }) = self.stack.pop() else { return };
        match what {
            Skipped::FrontMatter | Skipped::TooDeep => {}
            Skipped::Block(name, handling) if matches!(self.stack.last(), Some(Frame::Inlines { .. })) => {
                self.unmodeled_inline(name, handling, span);
            }
            Skipped::Block(name, handling) => self.unmodeled_block(name, handling, span),
            Skipped::Html => {
                if !is_comment(self.source.get(span.clone()).unwrap_or_default()) {
                    self.unmodeled_block("raw HTML block", self.policy.raw_html, span);
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
        let at = self.tree.inlines.len();
        self.tree.inlines.push(MdInline::Text { text: Cow::Borrowed(text), span: span.clone(), escaped: false });
        self.push_block(MdBlock::Paragraph { inlines: at..at + 1, span });
    }

    /// A list's or an item's range from its marker on: pulldown-cmark starts a nested one at
    /// the indentation before the marker, and a diagnostic points at the marker's column.
    fn at_marker(&self, range: Range<usize>) -> Range<usize> {
        let lead =
            self.source.get(range.clone()).map_or(0, |text| text.len() - text.trim_start_matches([' ', '\t']).len());
        range.start + lead..range.end
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
                self.inline(MdInline::Text { text, span, escaped: false });
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
                    (
                        Some(MdInline::Text { text, span: previous, .. }),
                        MdInline::Text { text: more, span: more_span, escaped: false },
                    ) if more_span.start <= previous.end => {
                        match joined(self.source, text, &more) {
                            Some(both) => *text = Cow::Borrowed(both),
                            None => text.to_mut().push_str(&more),
                        }
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
                let inlines = settle(&mut self.inlines, &mut self.tree.inlines, start);
                if !inlines.is_empty() {
                    self.push_block(MdBlock::Paragraph { inlines, span });
                }
            }
        }
    }

    fn push_block(&mut self, block: MdBlock) {
        self.close_implicit();
        if self.stack.len() == 1 {
            // A top-level block is done: hand it on with its tree.
            (self.on_block)(&mut self.tree, &block, self.sink);
        } else if let Some(Frame::Blocks { .. }) = self.stack.last() {
            self.blocks.push(block);
        }
    }

    /// Closes the innermost open construct (pulldown-cmark's events nest, so the tag is implied).
    fn end(&mut self, range: Range<usize>) {
        let Some(frame) = self.stack.pop() else { return };
        match frame {
            Frame::Inlines { kind, start, span } => {
                let span = span.start..span.end.max(range.end);
                if matches!(kind, InlineKind::Styled(Style::Strikethrough))
                    && !self.source.get(span.clone()).unwrap_or_default().starts_with("~~")
                {
                    // A single `~` is not strikethrough in DialogueDown: keep it as text.
                    let inner: Vec<MdInline<'s>> = self.inlines.drain(start.min(self.inlines.len())..).collect();
                    self.inline(MdInline::Text {
                        text: Cow::Borrowed("~"),
                        span: span.start..span.start + 1,
                        escaped: false,
                    });
                    for inline in inner {
                        self.inline(inline);
                    }
                    self.inline(MdInline::Text {
                        text: Cow::Borrowed("~"),
                        span: span.end.saturating_sub(1)..span.end,
                        escaped: false,
                    });
                    return;
                }
                let inlines = settle(&mut self.inlines, &mut self.tree.inlines, start);
                match kind {
                    // A paragraph or a heading spans its text, not the line ending pulldown-cmark
                    // counts in (the reference's spans end at the block's last character).
                    InlineKind::Paragraph | InlineKind::Implicit => {
                        if !inlines.is_empty() {
                            self.push_block(MdBlock::Paragraph { inlines, span: trim_span(self.source, span) });
                        }
                    }
                    InlineKind::Heading => {
                        self.push_block(MdBlock::Heading { inlines, span: trim_span(self.source, span) })
                    }
                    InlineKind::Styled(style) => self.inline(MdInline::Styled { style, children: inlines, span }),
                    InlineKind::Link(target) => self.inline(MdInline::Link { target, children: inlines, span }),
                    InlineKind::Image(source) => self.inline(MdInline::Image { source, children: inlines, span }),
                }
            }
            Frame::Blocks { start, quote, span } => {
                if self.stack.is_empty() {
                    // The root frame is never closed by an event; put it back.
                    self.stack.push(Frame::Blocks { start, quote, span });
                    return;
                }
                let blocks = settle(&mut self.blocks, &mut self.tree.blocks, start);
                if quote {
                    self.push_block(MdBlock::Quote { blocks, span });
                } else if let Some(Frame::List { .. }) = self.stack.last() {
                    self.items.push(MdItem { blocks, span });
                }
            }
            Frame::List { ordered, start, span } => {
                let items = settle(&mut self.items, &mut self.tree.items, start);
                self.push_block(MdBlock::List { ordered, items, span });
            }
            Frame::Skip { .. } => {}
        }
    }

    /// Closes whatever is still open, and gives back the tree as `on_block` left it.
    fn finish(mut self) -> MdTree<'s> {
        while self.stack.len() > 1 {
            self.end(self.source.len()..self.source.len());
        }
        self.close_implicit();
        self.tree
    }
}

/// Moves what a frame being closed left on a shared stack (from `start` on) to the end of the
/// tree's array, and gives back where it now stands there.
fn settle<T>(stack: &mut Vec<T>, tree: &mut Vec<T>, start: usize) -> Range<usize> {
    let at = tree.len();
    tree.extend(stack.drain(start.min(stack.len())..));
    at..tree.len()
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

/// Two pieces of text that lie side by side in the source, as one slice of it; `None` when
/// either was not borrowed from the source (an escape or an entity made it) or they are apart.
fn joined<'s>(source: &'s str, first: &str, second: &str) -> Option<&'s str> {
    // Where a piece starts in the source, if it is a slice of it (pointer arithmetic on
    // addresses only: nothing is read through them).
    let base = source.as_ptr() as usize;
    let offset = |piece: &str| {
        let at = (piece.as_ptr() as usize).checked_sub(base)?;
        (at + piece.len() <= source.len()).then_some(at)
    };
    let (start, middle) = (offset(first)?, offset(second)?);
    (start + first.len() == middle).then(|| source.get(start..middle + second.len())).flatten()
}

/// Whether the text starting at `at` starts with a backslash-escaped character: an ASCII
/// punctuation character right after an odd run of backslashes (an even run is escaped
/// backslashes, and the character after it is itself).
fn escaped_at(source: &str, at: usize) -> bool {
    let bytes = source.as_bytes();
    let slashes = bytes[..at.min(bytes.len())].iter().rev().take_while(|&&byte| byte == b'\\').count();
    slashes % 2 == 1 && bytes.get(at).is_some_and(u8::is_ascii_punctuation)
}

/// Whether `text` is an entity written at `range` (`&#35;`, `&num;`, `&#61;`, `&gt;`, `&#64;`)
/// for a character DialogueDown reads as syntax in text (a tag's `#`, an arrow's `=` or `>`, an
/// id's `@`): it is read as itself, as a backslash escape is (C16). Markdown hands each entity
/// over as a text run of its own, so the character stands first. Other entities (`&amp;`) join
/// the words around them as before.
fn entity_at(source: &str, range: &Range<usize>, text: &str) -> bool {
    let written = source.get(range.clone()).unwrap_or_default();
    written.len() > 2
        && written.starts_with('&')
        && written.ends_with(';')
        && written != text
        && matches!(text.as_bytes().first(), Some(b'#' | b'=' | b'>' | b'@'))
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

    /// Parses a whole script, piece after piece of at least `piece` bytes, emptying the tree
    /// after each top-level block.
    fn parse_all<'s>(
        source: &'s str,
        piece: usize,
        sink: &mut Sink,
        mut on_block: impl FnMut(&MdTree<'s>, &MdBlock, &mut Sink),
    ) {
        let mut tree = MdTree::default();
        for bound in pieces(source, piece) {
            parse(source, &Unmodeled::default(), &bound, &mut tree, sink, |tree, block, sink| {
                on_block(tree, block, sink);
                tree.clear();
            });
        }
    }

    /// Each top-level block with a copy of its tree.
    fn tree(source: &str) -> (Vec<(MdBlock, MdTree<'_>)>, Sink) {
        let mut sink = Sink::default();
        let mut blocks = Vec::new();
        parse_all(source, PIECE, &mut sink, |tree, block, _| blocks.push((block.clone(), tree.clone())));
        (blocks, sink)
    }

    #[test]
    fn a_tight_item_holds_a_paragraph_and_its_nested_list() {
        let (blocks, _) = tree("- Ask\n    - Keeper: North.\n");
        let [(MdBlock::List { items, ordered: false, .. }, tree)] = blocks.as_slice() else { panic!("{blocks:?}") };
        let first = &tree.items(items)[0];
        assert!(matches!(tree.blocks(&first.blocks), [MdBlock::Paragraph { .. }, MdBlock::List { .. }]));
    }

    #[test]
    fn text_split_by_the_parser_is_joined_without_copying() {
        let source = "Alice: Hello! Nice [day.\n";
        let (blocks, _) = tree(source);
        let [(MdBlock::Paragraph { inlines, .. }, joined)] = blocks.as_slice() else { panic!("{blocks:?}") };
        let [MdInline::Text { text: Cow::Borrowed(text), span, .. }] = joined.inlines(inlines) else {
            panic!("{blocks:?}")
        };
        assert_eq!(*text, "Alice: Hello! Nice [day.");
        assert_eq!(&source[span.clone()], *text);
        let (blocks, _) = tree("a &amp; b\n");
        let [(MdBlock::Paragraph { inlines, .. }, entity)] = blocks.as_slice() else { panic!("{blocks:?}") };
        assert!(matches!(entity.inlines(inlines), [MdInline::Text { text, .. }] if text == "a & b"));
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
        let [(MdBlock::Paragraph { inlines, .. }, tree)] = blocks.as_slice() else { panic!("{blocks:?}") };
        let spans: Vec<&str> = tree.inlines(inlines).iter().map(|inline| &source[inline.span()]).collect();
        assert_eq!(spans, ["Alice: ", "*hi*", " ", "`Wave()`"]);
    }

    /// The tree and the diagnostics, parsed in pieces of at least `piece` bytes.
    fn in_pieces(source: &str, piece: usize) -> String {
        let mut sink = Sink::default();
        let mut blocks = Vec::new();
        parse_all(source, piece, &mut sink, |tree, block, _| blocks.push(show_block(tree, block)));
        format!("{blocks:?}\n{:?}", sink.items)
    }

    /// A block with its children written out, whatever their place in the tree's arrays.
    fn show_block(tree: &MdTree, block: &MdBlock) -> String {
        let blocks = |range| tree.blocks(range).iter().map(|block| show_block(tree, block)).collect::<Vec<_>>();
        match block {
            MdBlock::Heading { inlines, span } => format!("Heading {span:?} {}", show_inlines(tree, inlines)),
            MdBlock::Paragraph { inlines, span } => format!("Paragraph {span:?} {}", show_inlines(tree, inlines)),
            MdBlock::List { ordered, items, span } => {
                let items: Vec<_> =
                    tree.items(items).iter().map(|item| (item.span.clone(), blocks(&item.blocks))).collect();
                format!("List {ordered} {span:?} {items:?}")
            }
            MdBlock::Quote { blocks: inner, span } => format!("Quote {span:?} {:?}", blocks(inner)),
        }
    }

    fn show_inlines(tree: &MdTree, range: &Range<usize>) -> String {
        let shown: Vec<String> = tree
            .inlines(range)
            .iter()
            .map(|inline| match inline {
                MdInline::Styled { style, children, span } => {
                    format!("Styled {style:?} {span:?} {}", show_inlines(tree, children))
                }
                MdInline::Link { target, children, span } => {
                    format!("Link {target:?} {span:?} {}", show_inlines(tree, children))
                }
                MdInline::Image { source, children, span } => {
                    format!("Image {source:?} {span:?} {}", show_inlines(tree, children))
                }
                other => format!("{other:?}"),
            })
            .collect();
        format!("{shown:?}")
    }

    fn pieces_agree(source: &str) {
        assert_eq!(in_pieces(source, 1), in_pieces(source, usize::MAX), "{source:?}");
    }

    #[test]
    fn many_pieces_change_nothing() {
        let scene = "# Scene\n\nAlice: *Hi*, `\"Name\"`! #tag\n\n- Go.\n    - Bob: Yes.\n\n> `if` `A?`\n>\n> B: c\n\n| a |\n| - |\n\n";
        let source = scene.repeat(4 * PIECE / scene.len());
        assert!(pieces(&source, PIECE).len() > 2);
        assert_eq!(in_pieces(&source, PIECE), in_pieces(&source, usize::MAX));
    }

    #[test]
    fn cutting_at_headings_changes_nothing() {
        for source in [
            "# One\n\nAlice: Hi.\n\n# Two\n\n- Go.\n    - Bob: Yes.\n\n# Three\n\n> `if` `A?`\n>\n> B: c\n\n#\n\n###### Six\n",
            "---\ntitle: x\n---\n\n# One\n\nA: b\n\n# Two\n",
            "---\n\n---\nfoo\n\n# h\n---\n\n# after\n",
            "> ---\n> foo\n\n---\nbar\n\n# heading\n---\n\n# after\n",
            "<!--\n\n# in a comment\n-->\n\n# real\n",
            "- a\n\n# h\n\n> q\n\n# h2\n| a | b |\n| - | - |\n| c | d |\n\n# h3\nText\n",
            "```\n\n# in code\n```\n\n# out\n",
            "> ```\n\n```\n\n# in code\n```\n",
            "[x]\n\n# h\n\n[x]: /url\n",
            "Alice: hi\r\n\r\n# Scene\r\nBob: yo\r\n\r\n# Two\r\n",
            "a\r\r# h\r\n",
            "<div>\n\n# h\n</div>\n\n# h2\n",
            "<script>\n\n# h\n</script>\n\n# h2\n",
            "    code\n\n# h\n\n    more\n",
            "*a\n\n# b*\n\n# c\n",
            "\u{e9}\n\n# \u{e9}\n\n#\u{e9}\n\n# x\n",
        ] {
            pieces_agree(source);
        }
    }

    /// The cuts as a plain line-by-line scan finds them: what [`cuts`] must agree with.
    fn cuts_line_by_line(source: &str, piece: usize) -> Vec<usize> {
        let mut cuts = Vec::new();
        if source.len() <= piece
            || source.match_indices('\r').any(|(at, _)| source.as_bytes().get(at + 1) != Some(&b'\n'))
        {
            return cuts;
        }
        let mut at = front_matter(source).unwrap_or(0);
        let (mut last, mut blank_before, mut scanned, mut in_comment) = (0, false, 0, false);
        for line in source[at..].split_inclusive('\n') {
            if blank_before && at - last >= piece && is_heading(line.as_bytes()) {
                while let Some(found) = source[scanned..at].find(if in_comment { "-->" } else { "<!--" }) {
                    scanned += found + if in_comment { 3 } else { 4 };
                    in_comment = !in_comment;
                }
                if !in_comment {
                    cuts.push(at);
                    last = at;
                }
            }
            if opens_unclosed(line.as_bytes()) {
                break;
            }
            blank_before = line.bytes().all(|byte| matches!(byte, b' ' | b'\t' | b'\r' | b'\n'));
            at += line.len();
        }
        if !cuts.is_empty() && source.contains("]:") {
            cuts.clear();
        }
        cuts
    }

    #[test]
    fn cuts_agree_with_a_line_by_line_scan() {
        let parts = [
            "# H\n",
            "\n",
            "  \n",
            "A: b\n",
            "- x\n",
            "> q\n",
            "<!--\n",
            "-->\n",
            "<!-- c -->\n",
            "---\n",
            "- ---\n",
            "```\n",
            "~~~\n",
            "<div>\n",
            "<?x\n",
            "#no\n",
            "###### six\n",
            "| a |\n",
            "text---\n",
            " <x\n",
            "1. ```\n",
            "\t\n",
            "#\n",
            "\n# H\n",
            "\n## T\n",
            "\n# H\n",
            "\n#\n",
        ];
        // Every sequence of a few parts, and long runs built from them, cut at every distance.
        let mut state = 0x2545_f491_u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        let mut cut = 0;
        for _ in 0..4000 {
            let mut source = String::new();
            for _ in 0..next() % 32 {
                source.push_str(parts[next() % parts.len()]);
            }
            for piece in [1, 3, 8, 20] {
                let found = cuts(&source, piece);
                assert_eq!(found, cuts_line_by_line(&source, piece), "{source:?} in pieces of {piece}");
                cut += found.len();
            }
        }
        assert!(cut > 5000, "only {cut} cuts");
    }

    #[test]
    fn cuts_fall_at_headings_after_blank_lines() {
        let source = "# One\n\nA: b\n# Not\n\n## Two\n\n#Not\n\n# Three\n";
        assert_eq!(cuts(source, 1), [source.find("## Two").unwrap(), source.find("# Three").unwrap()]);
        assert_eq!(cuts(source, source.len()), [0; 0]);
        assert_eq!(cuts(&format!("<!--\n\n{source}"), 1), [0; 0]);
        assert_eq!(cuts(&format!("{source}\n[x]: /url\n"), 1), [0; 0]);
    }

    #[test]
    fn cutting_the_corpus_changes_nothing() {
        fn visit(folder: &std::path::Path, found: &mut usize) {
            let Ok(entries) = std::fs::read_dir(folder) else { return };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    visit(&path, found);
                } else if path.extension().is_some_and(|extension| extension == "md") {
                    if let Ok(source) = std::fs::read_to_string(&path) {
                        pieces_agree(&source);
                        *found += 1;
                    }
                }
            }
        }
        let mut found = 0;
        visit(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/dialoguedown"), &mut found);
        assert!(found > 0, "the corpus is where it was");
    }

    proptest::proptest! {
        #[test]
        fn cutting_anything_changes_nothing(parts in proptest::collection::vec(0..PARTS.len(), 0..40)) {
            let source: String = parts.into_iter().map(|part| PARTS[part]).collect();
            pieces_agree(&source);
        }
    }

    /// Pieces of scripts that matter to where a script may be cut.
    const PARTS: [&str; 34] = [
        "# h\n",
        "\n",
        "---\n",
        "...\n",
        "```\n",
        "~~~\n",
        "<!--",
        "-->",
        "> ",
        "- ",
        "1. ",
        "    ",
        "Alice: hi",
        "[a](#b)",
        "`x`",
        "\r\n",
        "\r",
        "*",
        "<div>\n",
        "<pre>",
        "]: /u\n",
        "[a]",
        "#",
        "|a|b|\n|-|-|\n",
        "\u{e9}",
        "=> [Go](#h)\n",
        "\n\n# h\n",
        "> ```\n",
        "- ---\n",
        "<?x",
        "<!X",
        "\t",
        "`if` `A?`\n",
        "Bob ##default: x\n",
    ];

    #[test]
    fn nesting_past_the_limit_is_cut_with_one_error() {
        let (_, sink) = tree(&"> ".repeat(MAX_DEPTH * 3));
        let deep: Vec<_> = sink.items.iter().filter(|raw| raw.code == Code::NestingTooDeep).collect();
        assert_eq!(deep.len(), 1);
    }
}
