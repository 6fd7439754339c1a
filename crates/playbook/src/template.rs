//! Reading a line's speech as a template: where its commands split it, and which keys it asks.
//!
//! A line is played in the order it was written. Its top-level commands split it into
//! [`Segment`]s: a run of words, then the command that ends it. A line with `n` top-level commands
//! has `n + 1` segments, and the last one has no command. Only top-level fragments are commands:
//! a command nested inside a styled run, a link's label or an image's alt text is kept whole with
//! the words around it, and is never performed (the compiler writes such a call as plain text).

use crate::speech::Fragment;

/// A run of words and the command that follows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment<'a> {
    /// The words before the command, possibly none.
    pub words: &'a [Fragment],
    /// The command that ends the segment; `None` only for a line's last segment.
    pub command: Option<&'a Fragment>,
}

impl<'a> Segment<'a> {
    /// Whether the words hold anything other than whitespace, line breaks, tags and commands,
    /// judged before any query is filled (a query always says something).
    pub fn says_something(&self) -> bool {
        says_something(self.words)
    }

    /// Whether the words ask the world anything, however deeply a query sits.
    pub fn has_keys(&self) -> bool {
        has_keys(self.words)
    }
}

fn says_something(words: &[Fragment]) -> bool {
    words.iter().any(|fragment| match fragment {
        Fragment::Text { text } => !text.chars().all(char::is_whitespace),
        Fragment::Styled { children, .. } => says_something(children),
        Fragment::Link { .. } | Fragment::Image { .. } | Fragment::Query { .. } => true,
        Fragment::Break | Fragment::DefaultCommand { .. } | Fragment::CustomCommand { .. } | Fragment::Tag { .. } => {
            false
        }
    })
}

/// The segments of a piece of speech, in order.
///
/// ```
/// use stagehand_playbook::{segments, Fragment};
/// let speech = vec![
///     Fragment::text("Hi. "),
///     Fragment::CustomCommand { name: "Wave".into(), args: Box::default() },
///     Fragment::text(" Bye."),
/// ];
/// let parts: Vec<_> = segments(&speech).collect();
/// assert_eq!(parts.len(), 2);
/// assert_eq!(parts[0].words, &speech[..1]);
/// assert!(parts[0].command.is_some());
/// assert_eq!(parts[1].words, &speech[2..]);
/// ```
pub fn segments(speech: &[Fragment]) -> Segments<'_> {
    Segments { rest: Some(speech) }
}

/// The iterator [`segments`] returns.
#[derive(Debug, Clone)]
pub struct Segments<'a> {
    rest: Option<&'a [Fragment]>,
}

impl<'a> Iterator for Segments<'a> {
    type Item = Segment<'a>;

    fn next(&mut self) -> Option<Segment<'a>> {
        let rest = self.rest?;
        match rest.iter().position(Fragment::is_command) {
            Some(at) => {
                self.rest = Some(&rest[at + 1..]);
                Some(Segment { words: &rest[..at], command: Some(&rest[at]) })
            }
            None => {
                self.rest = None;
                Some(Segment { words: rest, command: None })
            }
        }
    }
}

/// Whether a piece of speech asks the world anything, however deeply a query sits.
pub fn has_keys(speech: &[Fragment]) -> bool {
    let mut found = false;
    for_each_key(speech, &mut |_| found = true);
    found
}

/// Visits every query key in a piece of speech, in the order written, descending into styled
/// runs, link labels and image alt text. A key written twice is visited twice.
pub fn for_each_key<'a>(speech: &'a [Fragment], visit: &mut dyn FnMut(&'a str)) {
    for fragment in speech {
        match fragment {
            Fragment::Query { key } => visit(key),
            Fragment::Styled { children, .. } => for_each_key(children, visit),
            Fragment::Link { label, .. } => for_each_key(label, visit),
            Fragment::Image { alt, .. } => for_each_key(alt, visit),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Style;

    fn wave() -> Fragment {
        Fragment::CustomCommand { name: "Wave".into(), args: Box::default() }
    }

    #[test]
    fn a_line_without_commands_is_one_segment() {
        let speech = vec![Fragment::text("Hello.")];
        let parts: Vec<_> = segments(&speech).collect();
        assert_eq!(parts, vec![Segment { words: &speech[..], command: None }]);
    }

    #[test]
    fn a_line_ending_with_a_command_has_an_empty_last_segment() {
        let speech = vec![Fragment::text("Hello. "), wave()];
        let parts: Vec<_> = segments(&speech).collect();
        assert_eq!(parts.len(), 2);
        assert!(parts[1].words.is_empty());
        assert!(!parts[1].says_something());
    }

    #[test]
    fn whitespace_breaks_and_tags_say_nothing_but_a_query_does() {
        let quiet = [
            Fragment::text("  \n"),
            Fragment::Break,
            Fragment::Tag { name: "aside".into(), value: None, reserved: false },
        ];
        assert!(!Segment { words: &quiet, command: None }.says_something());
        let query = [Fragment::query("name")];
        assert!(Segment { words: &query, command: None }.says_something());
    }

    #[test]
    fn keys_are_found_however_deeply_they_sit() {
        let speech = vec![Fragment::Styled {
            style: Style::Bold,
            children: vec![Fragment::Link { target: "#x".into(), label: vec![Fragment::query("deep")].into() }].into(),
        }];
        assert!(has_keys(&speech));
        let mut keys = Vec::new();
        for_each_key(&speech, &mut |key| keys.push(key));
        assert_eq!(keys, ["deep"]);
        assert!(!has_keys(&[Fragment::text("plain")]));
    }

    #[test]
    fn nested_commands_do_not_split_a_line() {
        let speech = vec![Fragment::Styled { style: Style::Italic, children: vec![wave()].into() }];
        assert_eq!(segments(&speech).count(), 1);
    }
}
