//! Configuration: what a project's `dialogue.toml` says, as [`Options`] the compiler reads.
//!
//! [`Options::default()`] is the reference compiler's behaviour with no configuration at all:
//! no configured speakers, the `stage-boundary` mode, and the default handling of unmodeled
//! Markdown (authoring aids ignored, anything that might be content kept).

use std::path::{Component, Path};

use serde::Deserialize;

/// Everything a compile can be told.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    /// Speakers the project declares, in the order written; they come first in the speaker table.
    pub speakers: Vec<ConfiguredSpeaker>,
    /// How far a compile goes after an error.
    pub mode: Mode,
    /// What becomes of each kind of Markdown the language does not model.
    pub unmodeled: Unmodeled,
    /// Keep the whole compile on the calling thread. Off by default: a script that is cut into
    /// more than one piece (of about 64 KiB) then has pieces parsed ahead on a second,
    /// short-lived thread while the calling thread compiles what is already parsed. The result
    /// is the same either way; a host that must not have threads started for it (or that runs
    /// many compiles side by side) sets this.
    pub one_thread: bool,
    /// The name the playbook records as its `script`; [`script_name`] gives the one a project
    /// wants. By default, the last component of the file name [`crate::compile`] is given, so
    /// that no folder of the machine it was compiled on is recorded.
    pub script: Option<String>,
}

/// The name a playbook records for the script at `path` (see [`Options::script`]): its path
/// below `root` — the folder of the project's `dialogue.toml` — `/`-separated, when it lies
/// there, else its file name. The paths are compared as written, so give both absolute (or both
/// relative to the same folder); one that climbs out of `root` with `..` is not below it.
pub fn script_name(path: &Path, root: Option<&Path>) -> String {
    let below = root.and_then(|root| path.strip_prefix(root).ok()).filter(|rest| {
        rest.components().next().is_some() && rest.components().all(|part| matches!(part, Component::Normal(_)))
    });
    match below {
        Some(rest) => rest.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"),
        None => file_part(&path.to_string_lossy()).to_owned(),
    }
}

/// The last component of a file name, whichever separator it was written with.
pub(crate) fn file_part(name: &str) -> &str {
    name.rsplit(['/', '\\']).find(|part| !part.is_empty()).unwrap_or(name)
}

/// A speaker declared in `dialogue.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConfiguredSpeaker {
    /// The display name (required, non-empty).
    pub name: String,
    /// The stable `@id`, if any.
    pub id: Option<String>,
    /// Whether this speaker voices lines that name nobody.
    pub default: bool,
    /// Tags, each a name and an optional value.
    pub tags: Vec<(String, Option<String>)>,
}

/// How far a compile proceeds after an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Report every syntax diagnostic (`DLG1xxx`) and, when any is an error, leave out what
    /// semantic analysis would add, much of which follows from them (the default).
    #[default]
    StageBoundary,
    /// Report what every stage finds, for the fullest picture.
    BestEffort,
}

impl Mode {
    /// Every mode, in the order the configuration guide lists them.
    pub const ALL: [Mode; 2] = [Mode::StageBoundary, Mode::BestEffort];

    /// The mode's name in `dialogue.toml` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::StageBoundary => "stage-boundary",
            Mode::BestEffort => "best-effort",
        }
    }

    /// The mode a name stands for.
    pub fn parse(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|mode| mode.as_str() == name)
    }
}

/// What happens to one kind of unmodeled Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// Its source text becomes dialogue text.
    Keep,
    /// It is left out of the dialogue, like a comment.
    Ignore,
}

/// The handling of each kind of unmodeled Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unmodeled {
    /// Fenced and indented code blocks (default: ignore).
    pub code_block: Handling,
    /// `---` dividers after the front matter (default: ignore).
    pub thematic_break: Handling,
    /// Pipe tables (default: ignore).
    pub table: Handling,
    /// Raw HTML other than comments (default: keep).
    pub raw_html: Handling,
    /// `<https://…>` autolinks (default: keep).
    pub autolink: Handling,
    /// Anything else unmodeled (default: keep).
    pub other: Handling,
}

impl Default for Unmodeled {
    fn default() -> Self {
        Unmodeled {
            code_block: Handling::Ignore,
            thematic_break: Handling::Ignore,
            table: Handling::Ignore,
            raw_html: Handling::Keep,
            autolink: Handling::Keep,
            other: Handling::Keep,
        }
    }
}

/// Why a `dialogue.toml` could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message} (line {line}, column {column})", code.map(|code| format!("{code}: ")).unwrap_or_default())]
pub struct ConfigError {
    /// The diagnostic code, when the problem is one a script can have too: configured speakers
    /// that conflict (`DLG2004`, `DLG2005`), as declarations in a script would (C19).
    pub code: Option<crate::Code>,
    /// What is wrong.
    pub message: String,
    /// The 1-based line of the problem (1 when unknown).
    pub line: usize,
    /// The 1-based column of the problem (1 when unknown).
    pub column: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    speakers: Vec<FileSpeaker>,
    mode: Option<String>,
    markdown: Option<FileMarkdown>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpeaker {
    name: String,
    id: Option<toml::Spanned<String>>,
    #[serde(default)]
    default: bool,
    #[serde(default)]
    tags: Vec<FileTag>,
}

/// A configured tag: the guide's "plain name or a `name=value` pair", or an inline table.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a tag is a string (\"name\" or \"name=value\") or a table { name, value }")]
enum FileTag {
    Plain(String),
    Table(FileTagTable),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTagTable {
    name: String,
    value: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileMarkdown {
    unmodeled: Option<toml::Table>,
}

impl Options {
    /// Reads a `dialogue.toml`. Keys left out keep their defaults.
    pub fn from_toml(text: &str) -> Result<Options, ConfigError> {
        let file: File = toml::from_str(text).map_err(|error| {
            let (line, column) = error.span().map_or((1, 1), |span| crate::diagnostics::line_column(text, span.start));
            ConfigError { code: None, message: error.message().to_owned(), line, column }
        })?;
        let fail = |message: String, needle: &str| {
            let (line, column) = text.find(needle).map_or((1, 1), |at| crate::diagnostics::line_column(text, at));
            ConfigError { code: None, message, line, column }
        };
        let mut options = Options::default();
        if let Some(mode) = file.mode {
            options.mode = Mode::parse(&mode).ok_or_else(|| {
                fail(format!("unknown mode \"{mode}\"; use \"stage-boundary\" or \"best-effort\""), "mode")
            })?;
        }
        let mut defaults = 0;
        let mut ids = Vec::with_capacity(file.speakers.len());
        for speaker in file.speakers {
            if speaker.name.trim().is_empty() {
                return Err(fail("a configured speaker needs a non-empty name".into(), "name"));
            }
            defaults += usize::from(speaker.default);
            let tags = speaker
                .tags
                .into_iter()
                .map(|tag| match tag {
                    FileTag::Plain(text) => match text.split_once('=') {
                        Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                        None => (text, None),
                    },
                    FileTag::Table(FileTagTable { name, value }) => (name, value),
                })
                .collect();
            ids.push(speaker.id.as_ref().map(|id| id.span().start));
            options.speakers.push(ConfiguredSpeaker {
                name: speaker.name,
                id: speaker.id.map(toml::Spanned::into_inner),
                default: speaker.default,
                tags,
            });
        }
        // Conflicting speakers are refused here, at the entry that conflicts, as the binder
        // would report them in a script (C19); entries that agree are one speaker.
        if let Some((at, raw)) = crate::speakers::configured_conflict(&options.speakers) {
            let (line, column) = ids[at].map_or((1, 1), |start| crate::diagnostics::line_column(text, start));
            return Err(ConfigError { code: Some(raw.code), message: raw.message, line, column });
        }
        if defaults > 1 {
            return Err(fail("at most one configured speaker may set default = true".into(), "default"));
        }
        if let Some(table) = file.markdown.and_then(|markdown| markdown.unmodeled) {
            for (key, value) in table {
                let handling = match value.as_str() {
                    Some("keep") => Handling::Keep,
                    Some("ignore") => Handling::Ignore,
                    _ => {
                        return Err(fail(
                            format!("unmodeled handling for \"{key}\" must be \"keep\" or \"ignore\""),
                            &key,
                        ))
                    }
                };
                let slot = match key.as_str() {
                    "code-block" => &mut options.unmodeled.code_block,
                    "thematic-break" => &mut options.unmodeled.thematic_break,
                    "table" => &mut options.unmodeled.table,
                    "raw-html" => &mut options.unmodeled.raw_html,
                    "autolink" => &mut options.unmodeled.autolink,
                    "other" => &mut options.unmodeled.other,
                    _ => return Err(fail(format!("unknown unmodeled construct \"{key}\""), &key)),
                };
                *slot = handling;
            }
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_is_the_default() {
        assert_eq!(Options::from_toml("").unwrap(), Options::default());
    }

    #[test]
    fn speakers_mode_and_overrides_are_read() {
        let text = r#"
mode = "best-effort"

[[speakers]]
name = "Narrator"
id = "narrator"
default = true

[[speakers]]
name = "Alice"
tags = ["main", "mood=cheerful", { name = "quest=intro", value = "started" }]

[markdown.unmodeled]
table = "keep"
"#;
        let options = Options::from_toml(text).unwrap();
        assert_eq!(options.mode, Mode::BestEffort);
        assert_eq!(options.speakers.len(), 2);
        assert!(options.speakers[0].default);
        assert_eq!(
            options.speakers[1].tags,
            vec![
                ("main".to_owned(), None),
                ("mood".to_owned(), Some("cheerful".to_owned())),
                ("quest=intro".to_owned(), Some("started".to_owned()))
            ]
        );
        assert_eq!(options.unmodeled.table, Handling::Keep);
        assert_eq!(options.unmodeled.code_block, Handling::Ignore);
    }

    #[test]
    fn an_unknown_construct_is_located() {
        let error = Options::from_toml("[markdown.unmodeled]\nfootnote = \"keep\"\n").unwrap_err();
        assert!(error.message.contains("footnote"));
        assert_eq!((error.line, error.column), (2, 1));
    }

    #[test]
    fn malformed_toml_is_located() {
        let error = Options::from_toml("mode = \n").unwrap_err();
        assert_eq!(error.line, 1);
    }
}
