//! Speech as plain text: the one lossy reading every non-rendering consumer shares.
//!
//! | Fragment | Plain text |
//! | --- | --- |
//! | `text` | its text |
//! | `styled` | its children, flattened |
//! | `link` | its label, flattened |
//! | `image` | its alt, flattened |
//! | `break` | a single space |
//! | `query` | the answer, else the key in braces (`{Key}`) |
//! | `tag`, `default-command`, `custom-command` | nothing |
//!
//! Nothing is trimmed: the result is exactly what the fragments compose.

use std::borrow::Cow;

use crate::speech::Fragment;

/// Flattens speech, naming each query by its [placeholder](placeholder_for).
///
/// ```
/// use stagehand_playbook::{plain_text, Fragment, Style};
/// let speech = vec![
///     Fragment::text("My key is "),
///     Fragment::Styled { style: Style::Bold, children: vec![Fragment::text("rusty")].into() },
///     Fragment::text(", "),
///     Fragment::query("Hero"),
///     Fragment::text("."),
/// ];
/// assert_eq!(plain_text(&speech), "My key is rusty, {Hero}.");
/// ```
pub fn plain_text(speech: &[Fragment]) -> String {
    plain_text_with(speech, |key| Cow::Owned(placeholder_for(key)))
}

/// Flattens speech, asking `answer` what each query key is worth.
pub fn plain_text_with<'k>(speech: &'k [Fragment], mut answer: impl FnMut(&'k str) -> Cow<'k, str>) -> String {
    let mut out = String::new();
    flatten(speech, &mut answer, &mut out);
    out
}

fn flatten<'k>(speech: &'k [Fragment], answer: &mut dyn FnMut(&'k str) -> Cow<'k, str>, out: &mut String) {
    for fragment in speech {
        match fragment {
            Fragment::Text { text } => out.push_str(text),
            Fragment::Styled { children, .. } => flatten(children, answer, out),
            Fragment::Link { label, .. } => flatten(label, answer, out),
            Fragment::Image { alt, .. } => flatten(alt, answer, out),
            Fragment::Break => out.push(' '),
            Fragment::Query { key } => out.push_str(&answer(key)),
            Fragment::Tag { .. } | Fragment::DefaultCommand { .. } | Fragment::CustomCommand { .. } => {}
        }
    }
}

/// What stands in for a query nobody answered: the key in braces, `{Key}`.
pub fn placeholder_for(key: &str) -> String {
    format!("{{{key}}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Style;

    #[test]
    fn every_kind_flattens_as_the_table_says() {
        let speech = vec![
            Fragment::text("a"),
            Fragment::Styled { style: Style::Italic, children: vec![Fragment::text("b")].into() },
            Fragment::Link { target: "#t".into(), label: vec![Fragment::text("c")].into() },
            Fragment::Image { source: "i.png".into(), alt: vec![Fragment::text("d")].into() },
            Fragment::Break,
            Fragment::query("k"),
            Fragment::Tag { name: "t".into(), value: Some("v".into()), reserved: true },
            Fragment::DefaultCommand { action: "wave".into() },
            Fragment::CustomCommand { name: "Wave".into(), args: vec!["x".into()].into() },
        ];
        assert_eq!(plain_text(&speech), "abcd {k}");
        assert_eq!(plain_text_with(&speech, |_| Cow::Borrowed("")), "abcd ");
    }

    #[test]
    fn nothing_is_trimmed() {
        assert_eq!(plain_text(&[Fragment::text(" spaced ")]), " spaced ");
        assert_eq!(plain_text(&[]), "");
    }
}
