//! Writing a save to a file, safely: never over the story's own files, never over a file that is
//! not a Stagehand save unless told to, and atomically (a temporary file beside the target, then
//! a rename), so a failed write leaves what was there.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The most of an existing file read to tell whether it is a save.
const SNIFF_LIMIT: u64 = 256 << 20;

/// Why a save was not written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveFileError {
    /// The target is one of the story's own files (its script, world or configuration).
    #[error("{0} is one of the story's own files; a save never overwrites it, so choose another name")]
    StoryFile(String),
    /// The target exists and is not a Stagehand save.
    #[error("{0} exists and is not a Stagehand save; it was left as it is")]
    NotASave(String),
    /// The target is a folder.
    #[error("{0} is a folder, not a file")]
    Folder(String),
    /// Writing failed (the target is left as it was).
    #[error("{path}: {message}")]
    Io {
        /// The target.
        path: String,
        /// What went wrong.
        message: String,
    },
}

/// Whether `text` is a save some Stagehand engine wrote: a JSON object with a `stagehand-save`
/// key, or a `stagehand-…-save` one (as another engine's saves spell their version).
pub fn is_stagehand_save(text: &str) -> bool {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(text) else { return false };
    map.keys().any(|key| key == "stagehand-save" || (key.starts_with("stagehand-") && key.ends_with("-save")))
}

/// Writes `json` (a save) to `path`.
///
/// Refused when `path` is one of `story_files` (compared after resolving links, so another
/// spelling of the same file is caught too), and, unless `overwrite` is set, when `path` exists
/// and does not hold a Stagehand save ([`is_stagehand_save`]). The save is written to a
/// temporary file in the same folder and renamed over `path`, so a reader sees the old file or
/// the new one, never half of either.
pub fn write_save(path: &Path, json: &str, story_files: &[PathBuf], overwrite: bool) -> Result<(), SaveFileError> {
    let name = path.display().to_string();
    let io = |error: std::io::Error| SaveFileError::Io { path: name.clone(), message: error.to_string() };
    if let Ok(metadata) = std::fs::metadata(path) {
        if metadata.is_dir() {
            return Err(SaveFileError::Folder(name));
        }
        let target = std::fs::canonicalize(path).map_err(io)?;
        if story_files.iter().any(|own| std::fs::canonicalize(own).is_ok_and(|own| own == target)) {
            return Err(SaveFileError::StoryFile(name));
        }
        if !overwrite && !holds_a_save(path) {
            return Err(SaveFileError::NotASave(name));
        }
    }
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temporary = tempfile::Builder::new().prefix(".stagehand-save-").tempfile_in(folder).map_err(io)?;
    temporary.write_all(json.as_bytes()).map_err(io)?;
    temporary.as_file().sync_all().map_err(io)?;
    temporary.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Whether the file holds a Stagehand save (read up to [`SNIFF_LIMIT`]; a larger file is not one
/// this build wrote).
fn holds_a_save(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut text = String::new();
    match file.take(SNIFF_LIMIT + 1).read_to_string(&mut text) {
        Ok(read) if (read as u64) <= SNIFF_LIMIT => is_stagehand_save(&text),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_of_every_engine_are_recognised_and_other_json_is_not() {
        assert!(is_stagehand_save(r#"{"stagehand-save": 0, "script": "a.dialogue.md"}"#));
        assert!(is_stagehand_save(r#"{"stagehand-chatmapper-save": 0}"#));
        assert!(!is_stagehand_save(r#"{"version": 0, "nodes": []}"#));
        assert!(!is_stagehand_save("Alice: Hello.\n"));
        assert!(!is_stagehand_save(r#"["stagehand-save"]"#));
    }
}
