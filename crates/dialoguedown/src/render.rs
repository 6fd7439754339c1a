//! Rendering diagnostics for people (rustc-like, through `ariadne`) and for tools (JSON).

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
    if diagnostics.is_empty() {
        return String::new();
    }
    let mut out = Vec::new();
    // A byte-order mark is no column of the first line (the spans count it; the report does not).
    let skip = source.len() - crate::pipeline::without_bom(source).len();
    let source = &source[skip..];
    // One line index for the whole script, shared by every report.
    let mut cache = (file_name, Source::from(source));
    let mut line_starts = vec![0];
    line_starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
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
        let line = line_starts.partition_point(|&at| at <= start).max(1);
        let line_length = line_starts.get(line).map_or(source.len(), |&next| next) - line_starts[line - 1];
        let mut rendered = Vec::new();
        if line_length <= LONGEST_QUOTED_LINE && report.write(&mut cache, &mut rendered).is_ok() {
            out.extend(rendered);
        } else {
            out.extend(
                format!(
                    "[{}] {}: {}\n   --> {}:{}:{}: {}\n",
                    diagnostic.code,
                    diagnostic.severity,
                    diagnostic.message,
                    file_name,
                    diagnostic.line,
                    diagnostic.column,
                    diagnostic.label
                )
                .into_bytes(),
            );
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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
