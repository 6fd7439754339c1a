//! Speech: what a line says, as a list of fragments a host renders.

use compact_str::CompactString;

use crate::thin::ThinStr;

/// What is said, in order. Nothing is flattened to a string, because a host re-renders it.
///
/// A boxed slice, not a `Vec`: speech is built once and never grows, so it holds no spare room
/// and costs 16 bytes where it sits (every line, label and nested fragment has one). Build it
/// with `vec![…].into()` or `Speech::default()` (empty, no allocation); it dereferences to
/// `[Fragment]`.
pub type Speech = Box<[Fragment]>;

/// One piece of what a line says, or one effect it runs.
///
/// 32 bytes: the words of the common kinds (`text`, `query`, `default-command`) keep up to 24
/// bytes inline; the rarer kinds' names and targets are thin strings (8 bytes, PB7), so no kind
/// is larger than a thin string beside a boxed speech.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Fragment {
    /// Plain words, as written.
    Text {
        /// The words.
        text: CompactString,
    },
    /// Words under a style. Styles nest, so the children are speech in their own right.
    Styled {
        /// The style.
        style: Style,
        /// The words under it.
        children: Speech,
    },
    /// A link the writer wrote. It shows text; it does not move control.
    Link {
        /// Where the link points.
        target: ThinStr,
        /// What the link shows.
        label: Speech,
    },
    /// An image, with its alt text as speech.
    Image {
        /// Where the image comes from.
        source: ThinStr,
        /// What stands in for it in words.
        alt: Speech,
    },
    /// A line break within one speech (where the source wrapped).
    Break,
    /// A value read from the game and shown in place.
    Query {
        /// The key the world is asked about, as words.
        key: CompactString,
    },
    /// A built-in action the language names, such as a stage direction.
    DefaultCommand {
        /// The phrase the writer wrote.
        action: CompactString,
    },
    /// A call into the game by name.
    CustomCommand {
        /// The command's name, as the host binds it.
        name: ThinStr,
        /// The arguments the writer supplied.
        args: Box<[CompactString]>,
    },
    /// An annotation, kept where in the line it attached.
    Tag {
        /// The tag's name.
        name: ThinStr,
        /// What the tag was given, when it was given anything.
        value: Option<Box<str>>,
        /// Whether the name is one the language reserves.
        reserved: bool,
    },
}

impl Fragment {
    /// Plain words.
    pub fn text(text: impl Into<CompactString>) -> Self {
        Fragment::Text { text: text.into() }
    }

    /// A query for a key.
    pub fn query(key: impl Into<CompactString>) -> Self {
        Fragment::Query { key: key.into() }
    }

    /// Whether the fragment is a command (default or custom): something performed, not said.
    pub fn is_command(&self) -> bool {
        matches!(self, Fragment::DefaultCommand { .. } | Fragment::CustomCommand { .. })
    }

    /// The wire spelling of the fragment's kind.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Fragment::Text { .. } => "text",
            Fragment::Styled { .. } => "styled",
            Fragment::Link { .. } => "link",
            Fragment::Image { .. } => "image",
            Fragment::Break => "break",
            Fragment::Query { .. } => "query",
            Fragment::DefaultCommand { .. } => "default-command",
            Fragment::CustomCommand { .. } => "custom-command",
            Fragment::Tag { .. } => "tag",
        }
    }
}

/// A style over words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// `italic`
    Italic,
    /// `bold`
    Bold,
    /// `strikethrough`
    Strikethrough,
}

impl Style {
    /// Every style, in schema order.
    pub const ALL: [Style; 3] = [Style::Italic, Style::Bold, Style::Strikethrough];

    /// The wire spelling of the style.
    pub fn as_str(self) -> &'static str {
        match self {
            Style::Italic => "italic",
            Style::Bold => "bold",
            Style::Strikethrough => "strikethrough",
        }
    }

    /// The style a wire spelling names, if any.
    pub fn parse(name: &str) -> Option<Style> {
        Style::ALL.into_iter().find(|style| style.as_str() == name)
    }
}
