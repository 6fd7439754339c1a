//! Rendering diagnostics for people (rustc-like, through `ariadne`) and for tools (JSON).

use std::borrow::Cow;

use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind, Source};

use serde_json::{json, Value};

use crate::diagnostics::{Diagnostic, Severity};

/// Source lines longer than this (in bytes) are not quoted: the diagnostic names its place
/// instead, so a megabyte-long line does not flood the terminal once per problem.
const LONGEST_QUOTED_LINE: usize = 1_000;

/// Renders diagnostics the way rustc does — code, message, `file:line:column`, the source line
/// with the span underlined — in plain ASCII without colour.
///
/// ```
/// use stagehand_dialoguedown::{compile, render_human, Options};
/// let source = "=> The market\n";
/// let compilation = compile(source, "town.dialogue.md", &Options::default());
/// let text = render_human(&compilation.diagnostics, source, "town.dialogue.md");
/// assert!(text.contains("[DLG1113] Warning"));
/// assert!(text.contains("town.dialogue.md:1:1"));
/// ```
pub fn render_human(diagnostics: &[Diagnostic], source: &str, file_name: &str) -> String {
    render_human_with(diagnostics, source, file_name, false)
}

/// Renders diagnostics for people, with ANSI colour when `color` is set.
pub fn render_human_with(diagnostics: &[Diagnostic], source: &str, file_name: &str, color: bool) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_human(diagnostics, source, file_name, color, &mut out);
    // Each report is UTF-8 (ariadne writes `str`s), so this takes the buffer without a copy.
    String::from_utf8(out).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// [`render_human_with`], written to `out` one report at a time, so the rendering of many
/// diagnostics is never held whole (a big script's advice alone can run to megabytes). Stops
/// at the first failure to write, and returns it.
pub fn write_human(
    diagnostics: &[Diagnostic],
    source: &str,
    file_name: &str,
    color: bool,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    if diagnostics.is_empty() {
        return Ok(());
    }
    // A byte-order mark is no column of the first line (the spans count it; the report does not).
    let skip = source.len() - crate::pipeline::without_bom(source).len();
    let source = &source[skip..];
    // One line index for the whole script, shared by every report, ending lines where the
    // specification does (C31).
    let shown = one_line_ending(source);
    let mut cache = (file_name, Source::from(&*shown));
    let mut rendered = Vec::new();
    for diagnostic in diagnostics {
        let kind = match diagnostic.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
            Severity::Info => ReportKind::Advice,
        };
        let start = crate::diagnostics::clamp(source, diagnostic.span.start.saturating_sub(skip));
        let end = crate::diagnostics::clamp(source, diagnostic.span.end.saturating_sub(skip)).max(start);
        let report = Report::build(kind, (file_name, start..end))
            .with_config(
                Config::default().with_color(color).with_char_set(CharSet::Ascii).with_index_type(IndexType::Byte),
            )
            .with_code(diagnostic.code.as_str())
            .with_message(&diagnostic.message)
            .with_label(Label::new((file_name, start..end)).with_message(&diagnostic.label))
            .finish();
        rendered.clear();
        if line_is_quoted(source.as_bytes(), start) && report.write(&mut cache, &mut rendered).is_ok() {
            // ariadne counts the header's column in characters; the specification counts UTF-16
            // code units (C25), which differ after a character outside the Basic Multilingual Plane.
            let line_start = memchr::memrchr(b'\n', &source.as_bytes()[..start]).map_or(0, |found| found + 1);
            let counted = shown[line_start..start].chars().count() + 1;
            if counted != diagnostic.column {
                let theirs = format!(" {file_name}:{}:{counted} ", diagnostic.line);
                let ours = format!(" {file_name}:{}:{} ", diagnostic.line, diagnostic.column);
                let text = String::from_utf8_lossy(&rendered);
                let header = text.find('\n').map_or(0, |found| found + 1);
                if let Some(found) = text[header..].find(&theirs) {
                    let at = header + found;
                    let fixed = format!("{}{ours}{}", &text[..at], &text[at + theirs.len()..]);
                    rendered = fixed.into_bytes();
                }
            }
            out.write_all(&rendered)?;
        } else {
            writeln!(
                out,
                "[{}] {}: {}\n   --> {}:{}:{}: {}",
                diagnostic.code,
                diagnostic.severity,
                diagnostic.message,
                file_name,
                diagnostic.line,
                diagnostic.column,
                diagnostic.label
            )?;
        }
    }
    Ok(())
}

/// The source as ariadne is to read it. ariadne ends a line at `\r`, `\x0B`, `\x0C`, U+0085,
/// U+2028 and U+2029 as well as at `\n`, where the specification ends one at `\n` alone (the
/// CLI Diagnostic Rendering note's DR4: "A `\r` is an ordinary character on its line"); so each
/// such character (but the `\r` of a `\r\n`, which ariadne takes with its `\n`) is shown as
/// spaces, as many as it has bytes, and every byte offset stays where it was (C31).
fn one_line_ending(source: &str) -> Cow<'_, str> {
    let bytes = source.as_bytes();
    let breaks = |at: usize| match bytes[at] {
        0x0B | 0x0C => 1,
        b'\r' if bytes.get(at + 1) != Some(&b'\n') => 1,
        0xC2 if bytes.get(at + 1) == Some(&0x85) => 2,
        0xE2 if bytes.get(at + 1) == Some(&0x80) && matches!(bytes.get(at + 2), Some(0xA8 | 0xA9)) => 3,
        _ => 0,
    };
    let Some(first) = (0..bytes.len()).find(|&at| breaks(at) > 0) else {
        return Cow::Borrowed(source);
    };
    let mut shown = bytes.to_vec();
    let mut at = first;
    while at < bytes.len() {
        let width = breaks(at);
        shown[at..at + width].fill(b' ');
        at += width.max(1);
    }
    // Whole characters became ASCII, so the text is still UTF-8.
    Cow::Owned(String::from_utf8(shown).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
}

/// Whether the line holding byte `at` (its line break included) is at most
/// [`LONGEST_QUOTED_LINE`] bytes long. Only that many bytes either side are looked at, so a
/// megabyte-long line with many diagnostics costs no more than a short one.
fn line_is_quoted(bytes: &[u8], at: usize) -> bool {
    let from = at.saturating_sub(LONGEST_QUOTED_LINE);
    let line_start = match memchr::memrchr(b'\n', &bytes[from..at]) {
        Some(found) => from + found + 1,
        None if from == 0 => 0,
        // No line break within reach behind: the line is longer than that.
        None => return false,
    };
    let reach = (line_start + LONGEST_QUOTED_LINE).min(bytes.len());
    match memchr::memchr(b'\n', &bytes[at..reach]) {
        Some(found) => at + found + 1 - line_start <= LONGEST_QUOTED_LINE,
        None => reach == bytes.len(),
    }
}

/// The diagnostics as a JSON array: one object per diagnostic with `code`, `severity`,
/// `message`, `file`, `line`, `column`, `span` (`start`, `end`, in bytes) and `label`, as
/// `render_json_values` builds them, printed pretty.
pub fn render_json(diagnostics: &[Diagnostic]) -> String {
    serde_json::to_string_pretty(&Value::Array(render_json_values(diagnostics))).unwrap_or_else(|_| "[]".to_owned())
}

/// The diagnostics as JSON values, one object per diagnostic: what [`render_json`] prints, for a
/// tool that gathers them with findings of its own and prints them together.
pub fn render_json_values(diagnostics: &[Diagnostic]) -> Vec<Value> {
    diagnostics
        .iter()
        .map(|diagnostic| {
            json!({
                "code": diagnostic.code.as_str(),
                "severity": diagnostic.severity.as_str(),
                "message": diagnostic.message,
                "file": diagnostic.file,
                "line": diagnostic.line,
                "column": diagnostic.column,
                "span": { "start": diagnostic.span.start, "end": diagnostic.span.end },
                "label": diagnostic.label,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length of the line holding `at`, its break included, found the long way.
    fn line_length(bytes: &[u8], at: usize) -> usize {
        let start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |found| found + 1);
        let next = bytes[at..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |found| at + found + 1);
        next - start
    }

    #[test]
    fn a_line_is_quoted_up_to_the_longest_length_and_no_further() {
        for length in [0, 1, 998, 999, 1000, 1001, 2500] {
            for text in
                [format!("a\n{}\nb", "x".repeat(length)), "x".repeat(length), format!("{}\n", "x".repeat(length))]
            {
                let bytes = text.as_bytes();
                for at in [0, 1, 2, length / 2, length, length + 1, length + 2, bytes.len()] {
                    let at = at.min(bytes.len());
                    let expected = line_length(bytes, at) <= LONGEST_QUOTED_LINE;
                    assert_eq!(line_is_quoted(bytes, at), expected, "length {length}, at {at}");
                }
            }
        }
    }
}
