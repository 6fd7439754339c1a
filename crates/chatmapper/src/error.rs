//! The error [`crate::load`] and the readers return.

use std::fmt;

/// The two export formats Stagehand reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// The XML export (`<ChatMapperProject>`).
    Xml,
    /// The JSON export.
    Json,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Xml => "XML",
            Format::Json => "JSON",
        })
    }
}

/// Why a project could not be loaded. Every variant names the file it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The file is a native ChatMapper project (`.cmp`), which is encrypted.
    #[error(
        "{file}: this is a native ChatMapper project (.cmp), which cannot be read; open it in \
         ChatMapper, export it as XML or JSON (File > Export), and load the exported file"
    )]
    NativeProject {
        /// The file name given to the loader.
        file: String,
    },
    /// The content is neither XML nor JSON, and the file name gives no hint.
    #[error("{file}: not a ChatMapper export: expected an XML export (starting with '<') or a JSON export (starting with '{{')")]
    UnknownFormat {
        /// The file name given to the loader.
        file: String,
    },
    /// The content is malformed, or is not a ChatMapper project of its format.
    #[error("{file}:{line}:{column}: malformed ChatMapper {format} export: {message}")]
    Malformed {
        /// The file name given to the loader.
        file: String,
        /// The format the content was read as.
        format: Format,
        /// The 1-based line of the problem.
        line: usize,
        /// The 1-based column (in characters) of the problem.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

impl LoadError {
    /// The file name the error is about.
    pub fn file(&self) -> &str {
        match self {
            LoadError::NativeProject { file }
            | LoadError::UnknownFormat { file }
            | LoadError::Malformed { file, .. } => file,
        }
    }

    /// The 1-based line and column of the problem, for malformed content.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            LoadError::Malformed { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }
}
