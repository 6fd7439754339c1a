//! The block transpiler: the Markdown tree to the dialogue tree.
//!
//! Headings become scene tokens, paragraphs become lines (split at hard breaks), lists become
//! choices and marker-led blockquotes become conditional blocks; any other blockquote is a
//! transparent wrapper. Each line is handed to [`crate::line`] for its condition, speaker and
//! speech. This is also where the reference compiler's desugar rules land, since they are local
//! to one line: jumps are assembled, effect-only lines become control lines, and a line with no
//! speaker is left to the default speaker.

use std::ops::Range;

use smallvec::{smallvec, SmallVec};

use crate::ast::{Arm, Block, ChoiceArm, Choices, ControlBlock, SceneHeading, Spare};
use crate::diagnostics::{Code, Sink};
use crate::leaf::{self, CodeKind, Marker};
use crate::line::{Lead, LineBuilder, LineRoom};
use crate::markdown::{MdBlock, MdInline, MdItem, MdTree};

/// The deepest choice nesting that reads comfortably; a deeper list draws `DLG3002`.
pub(crate) const RECOMMENDED_CHOICE_DEPTH: usize = 3;

#[derive(Debug, Clone, Copy)]
struct Scope {
    /// Inside a branch or an option body.
    nested: bool,
    /// How many lists enclose this body.
    choice_level: usize,
}

/// Transpiles one top-level block, appending what it becomes to `out`. The Markdown front-end
/// hands the top-level blocks over a piece of the script at a time, so the Markdown tree is
/// never whole. `room` and `spare` carry buffers from block to block: `spare` holds the emptied
/// containers the graph gives back once it has lowered them.
pub(crate) fn transpile(
    tree: &MdTree,
    block: &MdBlock,
    sink: &mut Sink,
    out: &mut Vec<Block>,
    room: &mut LineRoom,
    spare: &mut Spare,
) {
    let mut transpiler = Transpiler { tree, lines: LineBuilder::new(tree, sink, room), spare };
    transpiler.block(block, Scope { nested: false, choice_level: 0 }, out);
}

struct Transpiler<'t, 's, 'k> {
    tree: &'t MdTree<'s>,
    lines: LineBuilder<'t, 's, 'k>,
    spare: &'k mut Spare,
}

/// Splits a paragraph's inlines into lines at hard breaks, dropping empty lines.
pub(crate) fn split_lines<'a, 's>(inlines: &'a [MdInline<'s>]) -> impl Iterator<Item = &'a [MdInline<'s>]> {
    inlines.split(|inline| matches!(inline, MdInline::HardBreak { .. })).filter(|group| !group.is_empty())
}

impl Transpiler<'_, '_, '_> {
    fn sink(&mut self) -> &mut Sink {
        self.lines.sink
    }

    fn block(&mut self, block: &MdBlock, scope: Scope, out: &mut Vec<Block>) {
        match block {
            MdBlock::Heading { inlines, span } => {
                if scope.nested {
                    self.sink().push(
                        Code::HeadingInsideBranch,
                        span.clone(),
                        "A scene heading must be a document-level block; it cannot appear inside a control branch \
                         or choice option. Move the heading outside the branch, then jump to that scene when the \
                         branch should enter it.",
                        "heading inside a branch",
                    );
                }
                let mut title = String::new();
                plain_text(self.tree, self.tree.inlines(inlines), &mut title);
                let words = self.tree.inlines(inlines);
                let title_span = match (words.first(), words.last()) {
                    (Some(first), Some(last)) => first.span().start..last.span().end,
                    _ => span.clone(),
                };
                out.push(Block::Scene(SceneHeading {
                    title,
                    nested: scope.nested,
                    anchor: None,
                    span: span.clone(),
                    title_span,
                }));
            }
            MdBlock::Paragraph { inlines, .. } => {
                for group in split_lines(self.tree.inlines(inlines)) {
                    if let Some(line) = self.lines.line(group, Lead::Line).block {
                        out.push(line);
                    }
                }
            }
            MdBlock::List { ordered, items, span } => {
                let choices = self.choices(*ordered, self.tree.items(items), span, scope);
                out.push(Block::Choices(choices));
            }
            MdBlock::Quote { blocks, .. } => self.quote(self.tree.blocks(blocks), scope, out),
        }
    }

    fn choices(&mut self, ordered: bool, items: &[MdItem], span: &Range<usize>, scope: Scope) -> Choices {
        let level = scope.choice_level + 1;
        // Once per branch: the groups nested deeper still follow from the same choice.
        if level == RECOMMENDED_CHOICE_DEPTH + 1 {
            // The group's marker line: from its first marker to the end of its first block.
            let first = items.first().and_then(|item| self.tree.blocks(&item.blocks).first());
            self.sink().push(
                Code::DeepChoiceNesting,
                span.start..first.map_or(span.end, |block| block.span().end),
                format!(
                    "This branch reaches choice nesting level {level}; the recommended maximum is \
                     {RECOMMENDED_CHOICE_DEPTH}. Consider moving this branch into a new scene and jumping to it \
                     instead."
                ),
                format!("choice nesting level {level}"),
            );
        }
        let inner = Scope { nested: true, choice_level: level };
        let mut options = self.spare.options.pop().unwrap_or_default();
        options.reserve(items.len());
        for item in items {
            // The option's own line: from its marker to the end of its first block.
            let blocks = self.tree.blocks(&item.blocks);
            let head = item.span.start..blocks.first().map_or(item.span.end, |block| block.span().end);
            let body = self.spare.bodies.pop().unwrap_or_default();
            let mut arm = ChoiceArm { condition: None, weight: None, body, span: head };
            let rest = match blocks.first() {
                Some(MdBlock::Paragraph { inlines, .. }) => {
                    for (index, group) in split_lines(self.tree.inlines(inlines)).enumerate() {
                        let lead = if index == 0 { Lead::Option } else { Lead::Line };
                        let parts = self.lines.line(group, lead);
                        if index == 0 {
                            arm.condition = parts.condition;
                            arm.weight = parts.weight;
                        }
                        arm.body.extend(parts.block);
                    }
                    &blocks[1..]
                }
                _ => blocks,
            };
            for block in rest {
                self.block(block, inner, &mut arm.body);
            }
            options.push(arm);
        }
        Choices { ordered, options, span: span.clone() }
    }

    fn quote(&mut self, blocks: &[MdBlock], scope: Scope, out: &mut Vec<Block>) {
        let Some(first) = blocks.first() else { return };
        match self.marker(first) {
            None => {
                for block in blocks {
                    self.block(block, scope, out);
                }
            }
            Some((marker, _)) if marker != Marker::If => {
                self.sink().push(
                    Code::SeveredControlBranch,
                    first.span(),
                    format!(
                        "`{}` starts a separate blockquote without a connected `if`. Keep the `if`, every \
                         `elseif`, and the optional `else` inside one connected blockquote.",
                        marker.as_str()
                    ),
                    "no connected `if`",
                );
                for block in &blocks[1..] {
                    self.block(block, scope, out);
                }
            }
            Some((_, condition)) => {
                let inner = Scope { nested: true, ..scope };
                // Each arm's condition and its body: the blocks up to the next marker. The `if`
                // opening the quote is read once, above.
                let mut arms: SmallVec<[(Option<crate::ast::Cond>, Range<usize>); 4]> = smallvec![(condition, 1..1)];
                let mut seen_else = false;
                for (index, block) in blocks.iter().enumerate().skip(1) {
                    match self.marker(block) {
                        Some((marker, condition)) => {
                            let misplaced = match marker {
                                Marker::If => !arms.is_empty(),
                                Marker::ElseIf | Marker::Else => seen_else,
                            };
                            if misplaced {
                                self.sink().push(
                                    Code::MalformedBranchOrder,
                                    block.span(),
                                    format!(
                                        "`{}` cannot appear here. A control block must contain one `if`, \
                                         followed by zero or more `elseif` branches, then at most one `else`.",
                                        marker.as_str()
                                    ),
                                    "out of order",
                                );
                            }
                            seen_else |= marker == Marker::Else;
                            arms.push((condition, index + 1..index + 1));
                        }
                        None => {
                            if let Some((_, body)) = arms.last_mut() {
                                body.end = index + 1;
                            }
                        }
                    }
                }
                let mut built = self.spare.arms.pop().unwrap_or_default();
                for (condition, body) in arms {
                    let mut arm = Arm { condition, body: self.spare.bodies.pop().unwrap_or_default() };
                    for block in &blocks[body] {
                        self.block(block, inner, &mut arm.body);
                    }
                    built.push(arm);
                }
                out.push(Block::Branches(ControlBlock { arms: built, start: first.span().start }));
            }
        }
    }

    /// Reads a paragraph as a control marker, reporting a malformed one.
    fn marker(&mut self, block: &MdBlock) -> Option<(Marker, Option<crate::ast::Cond>)> {
        let MdBlock::Paragraph { inlines, .. } = block else { return None };
        let inlines = self.tree.inlines(inlines);
        let (marker, marker_span) = match inlines.first() {
            Some(MdInline::Code { text, span }) => match leaf::marker(text) {
                Some(marker) => (marker, span.clone()),
                None => return None,
            },
            _ => return None,
        };
        let mut rest = inlines[1..].iter().filter(|inline| !is_blank(inline)).peekable();
        let mut condition = None;
        if let Some(MdInline::Code { text, span }) = rest.peek() {
            if let CodeKind::Condition(key) = leaf::code(text) {
                condition = Some(crate::ast::Cond { key: key.into(), span: span.clone() });
                rest.next();
            }
        }
        if let Some(extra) = rest.next() {
            // The error-code guide marks from the condition (the marker, without one) through
            // the first word fused to it: `` `Rich?` `` to `Alice` (C39).
            let from = condition.as_ref().map_or(marker_span.start, |condition| condition.span.start);
            let mut fused = extra.span();
            if matches!(extra, MdInline::SoftBreak { .. } | MdInline::HardBreak { .. }) {
                fused = rest.next().map_or(fused, MdInline::span);
            }
            let word = self.tree.written(&fused).find(|c: char| c.is_whitespace() || c == ':');
            let to = match word {
                Some(len) if len > 0 => fused.start + len,
                _ => fused.end,
            };
            self.sink().push(
                Code::MarkerNotAlone,
                from..to.max(from),
                format!(
                    "A `{}` marker must stand alone in its paragraph. Put a quoted blank line (`>`) between the \
                     marker and its branch body.",
                    marker.as_str()
                ),
                "marker shares its paragraph",
            );
        }
        match (marker, &condition) {
            (Marker::If | Marker::ElseIf, None) => self.sink().push(
                Code::MissingBranchCondition,
                marker_span,
                format!(
                    "A `{0}` marker requires a condition in a separate code span, such as `{0}` `Rich?`.",
                    marker.as_str()
                ),
                "condition missing",
            ),
            (Marker::Else, Some(found)) => {
                self.sink().push(
                    Code::ElseWithCondition,
                    marker_span.start..found.span.end,
                    format!(
                        "An `else` marker cannot have the condition `{}?`. Remove the condition for a fallback \
                         branch, or change `else` to `elseif`.",
                        found.key
                    ),
                    "else with a condition",
                );
                condition = None;
            }
            _ => {}
        }
        Some((marker, condition))
    }
}

fn is_blank(inline: &MdInline) -> bool {
    matches!(inline, MdInline::Text { text, .. } if text.trim().is_empty())
}

/// The words of some inlines of a tree, with every construct flattened to its text.
pub(crate) fn plain_text(tree: &MdTree, inlines: &[MdInline], out: &mut String) {
    for inline in inlines {
        match inline {
            MdInline::Text { text, .. } | MdInline::Code { text, .. } => out.push_str(text),
            MdInline::Styled { children, .. } | MdInline::Link { children, .. } | MdInline::Image { children, .. } => {
                plain_text(tree, tree.inlines(children), out)
            }
            MdInline::SoftBreak { .. } | MdInline::HardBreak { .. } => out.push(' '),
        }
    }
}
