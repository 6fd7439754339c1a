//! Diagnostics: every problem the compiler finds, with a stable `DLG####` code, a severity, a
//! message in plain words and the place in the script it points at.
//!
//! The compiler never stops at the first problem: each stage pushes into a [`Sink`] and carries
//! on, so one run reports everything it can see.

use std::ops::Range;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// A neutral note: nothing is wrong.
    Info,
    /// The script compiles, but something is suspect.
    Warning,
    /// The script does not compile until this is fixed.
    Error,
}

impl Severity {
    /// The lower-case spelling used in JSON and in rendered output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every diagnostic code the compiler reports. The leading digit names the category:
/// `1` syntax, `2` semantic, `3` style; `DLG19xx` are this compiler's own codes (its resource
/// limits, and a prefix with two ids, C34).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// `DLG1003`: content after a jump on the same line can never play.
    UnreachableAfterJump,
    /// `DLG1101`: tags in a speaker prefix with neither a name nor an `@id`, or tags that open a
    /// line with no speaker prefix (C17).
    TagsWithoutSpeaker,
    /// `DLG1102`: a code span that is not a query or a command.
    NotAGameCall,
    /// `DLG1103`: an element a label or alt text may not hold.
    DisallowedInLabel,
    /// `DLG1104`: an option without a weight in a random choice.
    MissingWeight,
    /// `DLG1105`: a weight that is not a valid percentage.
    InvalidWeight,
    /// `DLG1106`: a condition in a place where it guards nothing.
    ConditionGuardsNothing,
    /// `DLG1107`: a styled name followed by a colon, which is not a speaker prefix.
    StyledSpeakerPrefix,
    /// `DLG1108`: an `elseif` or `else` that opens a blockquote of its own.
    SeveredControlBranch,
    /// `DLG1109`: control markers out of their `if`, `elseif`, `else` order.
    MalformedBranchOrder,
    /// `DLG1110`: a control marker sharing its paragraph with other content.
    MarkerNotAlone,
    /// `DLG1111`: an `if` or `elseif` without its condition.
    MissingBranchCondition,
    /// `DLG1112`: an `else` with a condition.
    ElseWithCondition,
    /// `DLG1113`: `=>` with no link after it.
    DanglingArrow,
    /// `DLG1114`: Markdown that the compiler left out of the script.
    IgnoredMarkdown,
    /// `DLG1901`: blocks or inlines nested deeper than the compiler follows.
    NestingTooDeep,
    /// `DLG1902`: a script that makes more nodes or speakers than a playbook holds.
    TooManyNodes,
    /// `DLG1903`: a line that would open with a speaker prefix but that it names more than one
    /// `@id` (C34), so it has no speaker.
    PrefixWithTwoIds,
    /// `DLG2001`: two scenes with the same anchor.
    DuplicateAnchor,
    /// `DLG2002`: a heading with nothing to make an anchor from.
    HeadingWithoutAnchor,
    /// `DLG2003`: a name and an id, each already in use, bound together late.
    AmbiguousSpeakerBinding,
    /// `DLG2004`: one id bound to two names.
    IdBoundToTwoNames,
    /// `DLG2005`: one name bound to two ids.
    NameBoundToTwoIds,
    /// `DLG2006`: two default speakers.
    TwoDefaultSpeakers,
    /// `DLG2007`: an id that never gets a name.
    UnnamedSpeakerId,
    /// `DLG2008`: a `##tag` the language does not know.
    UnknownReservedTag,
    /// `DLG2009`: a jump to a scene that does not exist.
    MissingJumpTarget,
    /// `DLG2010`: random weights that are all zero.
    ZeroWeights,
    /// `DLG2015`: a scene heading inside a branch or an option.
    HeadingInsideBranch,
    /// `DLG2016`: a jump to another file or a URL, which is not resolved yet.
    JumpOutsideScript,
    /// `DLG3002`: choices nested deeper than is easy to read.
    DeepChoiceNesting,
    /// `DLG3003`: static weights that do not total 100%.
    WeightsNotHundred,
    /// `DLG3004`: a random choice with a single option.
    SingleOptionRandom,
}

impl Code {
    /// Every code, in numeric order.
    pub const ALL: [Code; 33] = [
        Code::UnreachableAfterJump,
        Code::TagsWithoutSpeaker,
        Code::NotAGameCall,
        Code::DisallowedInLabel,
        Code::MissingWeight,
        Code::InvalidWeight,
        Code::ConditionGuardsNothing,
        Code::StyledSpeakerPrefix,
        Code::SeveredControlBranch,
        Code::MalformedBranchOrder,
        Code::MarkerNotAlone,
        Code::MissingBranchCondition,
        Code::ElseWithCondition,
        Code::DanglingArrow,
        Code::IgnoredMarkdown,
        Code::NestingTooDeep,
        Code::TooManyNodes,
        Code::PrefixWithTwoIds,
        Code::DuplicateAnchor,
        Code::HeadingWithoutAnchor,
        Code::AmbiguousSpeakerBinding,
        Code::IdBoundToTwoNames,
        Code::NameBoundToTwoIds,
        Code::TwoDefaultSpeakers,
        Code::UnnamedSpeakerId,
        Code::UnknownReservedTag,
        Code::MissingJumpTarget,
        Code::ZeroWeights,
        Code::HeadingInsideBranch,
        Code::JumpOutsideScript,
        Code::DeepChoiceNesting,
        Code::WeightsNotHundred,
        Code::SingleOptionRandom,
    ];

    /// The stable spelling, such as `DLG1003`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::UnreachableAfterJump => "DLG1003",
            Code::TagsWithoutSpeaker => "DLG1101",
            Code::NotAGameCall => "DLG1102",
            Code::DisallowedInLabel => "DLG1103",
            Code::MissingWeight => "DLG1104",
            Code::InvalidWeight => "DLG1105",
            Code::ConditionGuardsNothing => "DLG1106",
            Code::StyledSpeakerPrefix => "DLG1107",
            Code::SeveredControlBranch => "DLG1108",
            Code::MalformedBranchOrder => "DLG1109",
            Code::MarkerNotAlone => "DLG1110",
            Code::MissingBranchCondition => "DLG1111",
            Code::ElseWithCondition => "DLG1112",
            Code::DanglingArrow => "DLG1113",
            Code::IgnoredMarkdown => "DLG1114",
            Code::NestingTooDeep => "DLG1901",
            Code::TooManyNodes => "DLG1902",
            Code::PrefixWithTwoIds => "DLG1903",
            Code::DuplicateAnchor => "DLG2001",
            Code::HeadingWithoutAnchor => "DLG2002",
            Code::AmbiguousSpeakerBinding => "DLG2003",
            Code::IdBoundToTwoNames => "DLG2004",
            Code::NameBoundToTwoIds => "DLG2005",
            Code::TwoDefaultSpeakers => "DLG2006",
            Code::UnnamedSpeakerId => "DLG2007",
            Code::UnknownReservedTag => "DLG2008",
            Code::MissingJumpTarget => "DLG2009",
            Code::ZeroWeights => "DLG2010",
            Code::HeadingInsideBranch => "DLG2015",
            Code::JumpOutsideScript => "DLG2016",
            Code::DeepChoiceNesting => "DLG3002",
            Code::WeightsNotHundred => "DLG3003",
            Code::SingleOptionRandom => "DLG3004",
        }
    }

    /// Whether the code is a syntax code (`DLG1xxx`, this compiler's own `DLG19xx` among them):
    /// the script's surface, whichever stage notices it. Every mode reports every one of them.
    pub fn is_syntax(self) -> bool {
        self.as_str().as_bytes().get(3) == Some(&b'1')
    }

    /// The severity a diagnostic with this code has.
    pub fn severity(self) -> Severity {
        match self {
            Code::UnreachableAfterJump
            | Code::StyledSpeakerPrefix
            | Code::PrefixWithTwoIds
            | Code::DanglingArrow
            | Code::JumpOutsideScript
            | Code::DeepChoiceNesting
            | Code::WeightsNotHundred
            | Code::SingleOptionRandom => Severity::Warning,
            Code::IgnoredMarkdown => Severity::Info,
            _ => Severity::Error,
        }
    }

    /// The code's short title, as the error-code reference lists it.
    pub fn title(self) -> &'static str {
        match self {
            Code::UnreachableAfterJump => "unreachable content after a jump",
            Code::TagsWithoutSpeaker => "tags without a speaker",
            Code::NotAGameCall => "not a game call",
            Code::DisallowedInLabel => "disallowed element in a label",
            Code::MissingWeight => "missing weight in a random choice",
            Code::InvalidWeight => "invalid choice weight",
            Code::ConditionGuardsNothing => "condition guards nothing",
            Code::StyledSpeakerPrefix => "styled speaker prefix",
            Code::SeveredControlBranch => "severed control branch",
            Code::MalformedBranchOrder => "malformed control branch order",
            Code::MarkerNotAlone => "control marker must stand alone",
            Code::MissingBranchCondition => "missing control branch condition",
            Code::ElseWithCondition => "else branch cannot have a condition",
            Code::DanglingArrow => "dangling jump arrow",
            Code::IgnoredMarkdown => "markdown left out of the script",
            Code::NestingTooDeep => "nesting too deep",
            Code::TooManyNodes => "too many nodes for a playbook",
            Code::PrefixWithTwoIds => "speaker prefix with more than one id",
            Code::DuplicateAnchor => "duplicate scene anchor",
            Code::HeadingWithoutAnchor => "heading without an anchor",
            Code::AmbiguousSpeakerBinding => "ambiguous speaker binding",
            Code::IdBoundToTwoNames => "id bound to two names",
            Code::NameBoundToTwoIds => "name bound to two ids",
            Code::TwoDefaultSpeakers => "more than one default speaker",
            Code::UnnamedSpeakerId => "unnamed speaker id",
            Code::UnknownReservedTag => "unknown reserved tag",
            Code::MissingJumpTarget => "jump to a missing scene",
            Code::ZeroWeights => "random choice weights sum to zero",
            Code::HeadingInsideBranch => "scene heading inside a branch",
            Code::JumpOutsideScript => "jump outside this script is not resolved yet",
            Code::DeepChoiceNesting => "deeply nested choice branch",
            Code::WeightsNotHundred => "choice weights do not total 100%",
            Code::SingleOptionRandom => "single-option random choice",
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// How serious it is (the code's default severity).
    pub severity: Severity,
    /// What is wrong and how to fix it, in plain words.
    pub message: String,
    /// The script's file name, as given to the compiler.
    pub file: String,
    /// The 1-based line the span starts on.
    pub line: usize,
    /// The 1-based column (in UTF-16 code units, C25) the span starts at.
    pub column: usize,
    /// The byte range in the source the diagnostic points at.
    pub span: Range<usize>,
    /// A short label for the span itself.
    pub label: String,
}

impl Diagnostic {
    /// Whether this diagnostic stops the script from compiling.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A diagnostic before it is placed in a file: code, span, message and label.
#[derive(Debug, Clone)]
pub(crate) struct Raw {
    pub code: Code,
    pub span: Range<usize>,
    pub message: String,
    pub label: String,
}

/// Where the stages put what they find.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pub items: Vec<Raw>,
}

impl Sink {
    /// Records a diagnostic.
    pub fn push(&mut self, code: Code, span: Range<usize>, message: impl Into<String>, label: impl Into<String>) {
        self.items.push(Raw { code, span, message: message.into(), label: label.into() });
    }

    /// Reports (`DLG2008`) a reserved tag the language does not know, named as the script
    /// names it (its value too: `##default=x` is unknown, `##default` is not).
    pub fn unknown_reserved_tag(&mut self, name: &str, value: Option<&str>, span: Range<usize>) {
        let named = match value {
            Some(value) => format!("{name}={value}"),
            None => name.to_owned(),
        };
        self.push(
            Code::UnknownReservedTag,
            span,
            format!(
                "'##{named}' is not a known reserved tag. Use a custom tag ('#{named}') or one of DialogueDown's \
                 reserved tags."
            ),
            "unknown reserved tag",
        );
    }

    /// Takes on the diagnostics with `code` that `other` recorded, leaving it the rest.
    pub fn take_code(&mut self, other: &mut Sink, code: Code) {
        let (taken, rest) = std::mem::take(&mut other.items).into_iter().partition(|raw| raw.code == code);
        other.items = rest;
        self.items.extend::<Vec<Raw>>(taken);
    }

    /// Takes on everything another sink recorded.
    pub fn append(&mut self, mut other: Sink) {
        self.items.append(&mut other.items);
    }

    /// Takes on the syntax diagnostics (see [`Code::is_syntax`]) `other` recorded, leaving it
    /// the rest.
    pub fn take_syntax(&mut self, other: &mut Sink) {
        let (syntax, rest) = std::mem::take(&mut other.items).into_iter().partition(|raw| raw.code.is_syntax());
        other.items = rest;
        self.items.extend::<Vec<Raw>>(syntax);
    }

    /// Whether any error has been recorded.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|raw| raw.code.severity() == Severity::Error)
    }

    /// Places every diagnostic in the file: line, column, and a span clamped to the source.
    /// One forward walk over the source serves every diagnostic, so a long line with many
    /// problems stays linear.
    pub fn finish(self, source: &str, file: &str) -> Vec<Diagnostic> {
        let mut items = self.items;
        items.sort_by_key(|raw| (raw.span.start, raw.code));
        let mut cursor = Cursor::start(source);
        items
            .into_iter()
            .map(|raw| {
                let start = clamp(source, raw.span.start);
                let end = clamp(source, raw.span.end.max(start));
                cursor.advance(source, start);
                Diagnostic {
                    code: raw.code,
                    severity: raw.code.severity(),
                    message: raw.message,
                    file: file.to_owned(),
                    line: cursor.line,
                    column: cursor.column,
                    span: start..end,
                    label: raw.label,
                }
            })
            .collect()
    }
}

/// A position walked forward through the source.
struct Cursor {
    at: usize,
    line: usize,
    column: usize,
}

impl Cursor {
    /// The start of `source`, past a byte-order mark: editors show it in no column.
    fn start(source: &str) -> Cursor {
        Cursor { at: source.len() - crate::pipeline::without_bom(source).len(), line: 1, column: 1 }
    }

    fn advance(&mut self, source: &str, to: usize) {
        if to <= self.at {
            return;
        }
        let passed = &source[self.at..to];
        match memchr::memrchr(b'\n', passed.as_bytes()) {
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', passed.as_bytes()).count();
                self.column = 1 + utf16_units(&passed[last + 1..]);
            }
            None => self.column += utf16_units(passed),
        }
        self.at = to;
    }
}

/// How many UTF-16 code units `text` is: the unit columns are counted in (the reference's
/// `LineMap`, and the Language Server Protocol's default), so a character outside the Basic
/// Multilingual Plane, an emoji, is two columns.
fn utf16_units(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// The line and column (both from 1, columns in UTF-16 code units) of byte `at` of `source`.
pub(crate) fn line_column(source: &str, at: usize) -> (usize, usize) {
    let mut cursor = Cursor::start(source);
    cursor.advance(source, clamp(source, at));
    (cursor.line, cursor.column)
}

/// The line and column (both from 1, columns in UTF-16 code units, as diagnostics count them) of each
/// byte offset of `source`, in the order given; one pass over the source however many there are.
/// Each is a pair of `u32` (8 bytes, not 16: a big script's playbook has hundreds of thousands
/// of nodes to place); a line or column past `u32::MAX` reads as `u32::MAX`.
pub fn line_columns(source: &str, offsets: &[u32]) -> Vec<(u32, u32)> {
    let mut places = vec![(1, 1); offsets.len()];
    let mut cursor = Cursor::start(source);
    let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let mut place = |i: usize| {
        cursor.advance(source, clamp(source, stagehand_playbook::position(offsets[i])));
        places[i] = (narrow(cursor.line), narrow(cursor.column));
    };
    // A compile's offsets come in reading order: no order of them is built then.
    if offsets.is_sorted() {
        (0..offsets.len()).for_each(&mut place);
    } else {
        let mut order: Vec<usize> = (0..offsets.len()).collect();
        order.sort_by_key(|&i| offsets[i]);
        order.into_iter().for_each(&mut place);
    }
    places
}

/// The nearest char boundary at or before `at`, within the source.
pub(crate) fn clamp(source: &str, at: usize) -> usize {
    let mut at = at.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}
