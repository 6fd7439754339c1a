//! The dialogue tree: the script in the language's own words, after jumps are assembled,
//! control lines recognized and defaults filled (the reference compiler's "desugared" AST).
//!
//! Speech is kept as playbook [`Fragment`]s already, since nothing between here and the
//! playbook changes a fragment; what analysis resolves (speakers, jump targets) sits beside it.

use std::ops::Range;

use stagehand_playbook::{CompactString, Fragment};

/// One block of the script body.
#[derive(Debug, Clone)]
pub(crate) enum Block {
    /// A heading: where a scene starts.
    Scene(SceneHeading),
    /// A spoken line.
    Line(Line),
    /// An effect-only line: commands and at most one jump, nothing said.
    Control(ControlLine),
    /// A list: a player choice, or a random one when its options carry weights.
    Choices(Choices),
    /// A conditional block: `if` / `elseif` / `else` arms.
    Branches(ControlBlock),
}

/// A heading token.
#[derive(Debug, Clone)]
pub(crate) struct SceneHeading {
    /// The heading's words, flattened.
    pub title: String,
    /// Whether it sits inside a branch or an option (which is an error).
    pub nested: bool,
    /// The anchor it gives its scene, once analysis has looked: none when the heading makes
    /// no anchor, repeats an earlier scene's, or is nested.
    pub anchor: Option<String>,
    pub span: Range<usize>,
    /// The heading's text without its `#` marks: where a problem with the title is placed (C39).
    pub title_span: Range<usize>,
}

/// A key condition, as written.
#[derive(Debug, Clone)]
pub(crate) struct Cond {
    pub key: CompactString,
    pub span: Range<usize>,
}

/// A tag in a speaker prefix.
#[derive(Debug, Clone)]
pub(crate) struct TagSyntax {
    pub name: CompactString,
    pub value: Option<CompactString>,
    pub reserved: bool,
    pub span: Range<usize>,
}

/// Who speaks a line, as written (unresolved).
#[derive(Debug, Clone)]
pub(crate) enum SpeakerSyntax {
    /// No prefix: whoever the default speaker is.
    Default,
    /// `Alice:`
    Name { name: CompactString, span: Range<usize> },
    /// `@A:`
    Id { id: CompactString, span: Range<usize> },
    /// `Alice @A #tag:` (boxed, so the common prefixes keep every line small)
    Declaration(Box<Declaration>),
    /// `@A #tag:` (boxed, like a declaration)
    Partial(Box<Partial>),
}

/// A full speaker declaration: `Alice @A #tag:`.
#[derive(Debug, Clone)]
pub(crate) struct Declaration {
    pub name: CompactString,
    pub id: Option<CompactString>,
    pub tags: Vec<TagSyntax>,
    pub span: Range<usize>,
}

/// A partial declaration, adding tags to an id: `@A #tag:`.
#[derive(Debug, Clone)]
pub(crate) struct Partial {
    pub id: CompactString,
    pub tags: Vec<TagSyntax>,
    pub span: Range<usize>,
}

/// Where a jump leads, once analysis has looked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JumpTarget {
    /// Not resolved yet (before analysis), or resolved to nothing.
    Unresolved,
    /// The reserved `#END`.
    End,
    /// A scene, by the anchor after the `#` (whether one exists is checked as jumps are wired).
    Anchor,
    /// Another file or a URL: no divert is wired.
    Outside,
}

/// An assembled `=> [label](target)`.
#[derive(Debug, Clone)]
pub(crate) struct Jump {
    pub label: Vec<Fragment>,
    pub target: Box<str>,
    /// A condition written right before the `=>` on the same line.
    pub condition: Option<Cond>,
    pub resolved: JumpTarget,
    pub span: Range<usize>,
    /// The target as written in the link: where a missing scene is reported (C39).
    pub target_span: Range<usize>,
}

/// A spoken line.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub condition: Option<Cond>,
    pub speaker: SpeakerSyntax,
    /// The speaker's position in the speaker table, once analysis binds it.
    pub speaker_index: usize,
    pub speech: Vec<Fragment>,
    pub jump: Option<Box<Jump>>,
    /// The byte the line starts at (where [`Compilation::node_offsets`](crate::Compilation) points).
    pub start: usize,
}

/// An effect-only line.
#[derive(Debug, Clone)]
pub(crate) struct ControlLine {
    pub condition: Option<Cond>,
    pub effects: Vec<Fragment>,
    pub jump: Option<Box<Jump>>,
    /// The byte the line starts at.
    pub start: usize,
}

/// A choice weight, as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum WeightSyntax {
    /// `50%`
    Number(f64),
    /// `%`
    Auto,
    /// `Key%`
    Query(CompactString),
    /// Something that is not a valid weight (`-10%`).
    Invalid(String),
}

/// A list of options.
#[derive(Debug, Clone)]
pub(crate) struct Choices {
    pub ordered: bool,
    pub options: Vec<ChoiceArm>,
    pub span: Range<usize>,
}

impl Choices {
    /// Whether the engine picks (any option carries a weight).
    pub fn is_random(&self) -> bool {
        self.options.iter().any(|option| option.weight.is_some())
    }
}

/// One option of a list.
#[derive(Debug, Clone)]
pub(crate) struct ChoiceArm {
    pub condition: Option<Cond>,
    pub weight: Option<(WeightSyntax, Range<usize>)>,
    pub body: Vec<Block>,
    pub span: Range<usize>,
}

/// A conditional block.
#[derive(Debug, Clone)]
pub(crate) struct ControlBlock {
    pub arms: Vec<Arm>,
    /// The byte the block's `if` starts at.
    pub start: usize,
}

/// Emptied containers, given back by the graph once it has lowered what was in them, for the
/// transpiler to fill again: a long script reuses a few of each instead of allocating one per
/// block.
#[derive(Debug, Default)]
pub(crate) struct Spare {
    /// Option and arm bodies.
    pub bodies: Vec<Vec<Block>>,
    /// The options of a list.
    pub options: Vec<Vec<ChoiceArm>>,
    /// The arms of a conditional block.
    pub arms: Vec<Vec<Arm>>,
}

/// One arm of a conditional block; the `else` has no condition.
#[derive(Debug, Clone)]
pub(crate) struct Arm {
    pub condition: Option<Cond>,
    pub body: Vec<Block>,
}
