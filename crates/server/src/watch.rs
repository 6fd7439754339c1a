//! `stagehand serve --watch DIR`: the writer's preview (issue 15, `docs/design/web.md` W9, W14).
//! The folder's documents are opened at start and opened again when their files change; every
//! version that opens is stored and kept like an upload, so a session of an earlier version goes
//! on playing, and `GET /v1/watch` lists what the folder holds now, including the documents that
//! do not open, with their diagnostics.
//!
//! Changes are found by polling each file's modification time and length twice a second (W14):
//! no dependency, no platform's notification API, the same on every file system (a network mount
//! and a container's bind mount included), and bounded — one `read_dir` and one `stat` a file per
//! tick, in a blocking thread, for a folder a writer edits by hand.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::app::{now_ms, Shared};
use crate::store::StoreError;

/// How often the folder is looked at.
pub const POLL: Duration = Duration::from_millis(500);

/// A file's modification time and length: when either changes, it is read again.
type Stamp = (Option<SystemTime>, u64);

/// One document of the folder as it stands.
#[derive(Debug, Clone)]
struct Entry {
    /// Its file name (documents are read from the folder itself, not its subfolders).
    path: String,
    stamp: Stamp,
    /// What `GET /v1/watch` says of it.
    listed: Value,
}

/// The watched folder and what it holds.
#[derive(Debug)]
pub struct Watch {
    folder: PathBuf,
    entries: RwLock<Vec<Entry>>,
}

/// A file read from the folder: its name, stamp and bytes (when it changed).
struct Read {
    path: String,
    stamp: Stamp,
    bytes: Option<Result<Vec<u8>, String>>,
}

impl Watch {
    /// A watch of `folder`, holding nothing until its first [`Watch::scan`].
    pub fn new(folder: &Path) -> Watch {
        Watch { folder: folder.to_owned(), entries: RwLock::new(Vec::new()) }
    }

    /// `GET /v1/watch`'s body: `{folder, documents: [{path, name, kind?, documentId?,
    /// diagnostics}]}`, by file name.
    pub fn listing(&self) -> Value {
        let entries = self.entries.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        let documents: Vec<&Value> = entries.iter().map(|e| &e.listed).collect();
        json!({"folder": self.folder.display().to_string(), "documents": documents})
    }

    /// The file behind `path` if the listing names it and it lies inside the folder (a link
    /// out of it is not followed), else `None`: no other path is ever read (`..`, an absolute
    /// path, a subfolder, a file that is not a document).
    pub fn file(&self, path: &str) -> Option<PathBuf> {
        let listed = {
            let entries = self.entries.read().unwrap_or_else(std::sync::PoisonError::into_inner);
            entries.iter().any(|e| e.path == path)
        };
        let file = self.folder.join(path);
        (listed && inside(&self.folder, &file)).then_some(file)
    }

    /// Reads the folder once: opens (and stores) every document that is new or changed, drops
    /// those that are gone. `Err` only when the folder cannot be read at all.
    pub async fn scan(&self, state: &Shared) -> Result<(), std::io::Error> {
        let folder = self.folder.clone();
        let known: Vec<(String, Stamp)> = {
            let entries = self.entries.read().unwrap_or_else(std::sync::PoisonError::into_inner);
            entries.iter().map(|e| (e.path.clone(), e.stamp)).collect()
        };
        let limit = state.limits.document_bytes as u64;
        let reads = tokio::task::spawn_blocking(move || read_folder(&folder, &known, limit))
            .await
            .map_err(std::io::Error::other)??;
        let mut next = Vec::with_capacity(reads.len());
        for read in reads {
            let listed = match read.bytes {
                None => {
                    let entries = self.entries.read().unwrap_or_else(std::sync::PoisonError::into_inner);
                    match entries.iter().find(|e| e.path == read.path) {
                        Some(entry) => entry.listed.clone(),
                        None => continue,
                    }
                }
                Some(Err(why)) => refused(&read.path, why, Vec::new()),
                Some(Ok(bytes)) => match open(state, &read.path, bytes).await {
                    Ok(listed) => listed,
                    Err(error) => {
                        // The store failed: keep the file unread, so the next tick tries again.
                        crate::note!("stagehand serve: could not store {}: {error}", read.path);
                        continue;
                    }
                },
            };
            next.push(Entry { path: read.path, stamp: read.stamp, listed });
        }
        *self.entries.write().unwrap_or_else(std::sync::PoisonError::into_inner) = next;
        Ok(())
    }
}

/// Opens `bytes` named `path`, storing and keeping the document when it opens; its listing.
async fn open(state: &Shared, path: &str, bytes: Vec<u8>) -> Result<Value, StoreError> {
    let name = path.to_owned();
    let shared = Arc::new(bytes);
    let source = shared.clone();
    let opened = tokio::task::spawn_blocking(move || crate::host::open(&source, Some(&name), None)).await;
    let opened = match opened {
        Ok(opened) => opened,
        Err(error) => return Ok(refused(path, format!("the document could not be opened: {error}"), Vec::new())),
    };
    match opened {
        Ok(opened) => {
            let now = i64::try_from(now_ms()).unwrap_or(i64::MAX);
            state.store.put_document(&opened.fingerprint, &opened.kind, path, &shared, now).await?;
            state.keep(&opened.fingerprint, Arc::new(opened.document), shared.len());
            Ok(json!({
                "path": path,
                "name": path,
                "kind": opened.kind,
                "documentId": opened.fingerprint,
                "diagnostics": opened.diagnostics,
            }))
        }
        Err(refusal) => Ok(refused(path, refusal.detail, refusal.diagnostics)),
    }
}

/// The listing of a document that does not open: its diagnostics, or one naming why when the
/// compiler gave none (a project or playbook that does not read).
fn refused(path: &str, why: String, diagnostics: Vec<Value>) -> Value {
    let diagnostics = if diagnostics.is_empty() {
        vec![json!({"file": path, "severity": "error", "message": why})]
    } else {
        diagnostics
    };
    json!({"path": path, "name": path, "diagnostics": diagnostics})
}

/// Whether `file` is inside `folder` once links are resolved.
fn inside(folder: &Path, file: &Path) -> bool {
    match (std::fs::canonicalize(folder), std::fs::canonicalize(file)) {
        (Ok(folder), Ok(file)) => file.parent() == Some(folder.as_path()),
        _ => false,
    }
}

/// Whether a file of the folder is a document: the documents crate's rule for folders
/// (`stagehand_documents::kind::in_folder`, decision S38).
fn is_document(path: &Path) -> bool {
    stagehand_documents::kind::in_folder(path)
}

/// Lists the folder's documents by name; reads those whose stamp is not in `known`. A file whose
/// stamp moved while it was read is left for the next tick (it was being written).
fn read_folder(folder: &Path, known: &[(String, Stamp)], limit: u64) -> Result<Vec<Read>, std::io::Error> {
    let mut reads = Vec::new();
    for entry in std::fs::read_dir(folder)? {
        let Ok(entry) = entry else { continue };
        let file = entry.path();
        let Some(path) = file.file_name().and_then(|n| n.to_str()).map(str::to_owned) else { continue };
        if path.starts_with('.') || !is_document(&file) || !inside(folder, &file) {
            continue;
        }
        let Ok(metadata) = std::fs::metadata(&file) else { continue };
        if !metadata.is_file() {
            continue;
        }
        let stamp = (metadata.modified().ok(), metadata.len());
        if known.iter().any(|(p, s)| *p == path && *s == stamp) {
            reads.push(Read { path, stamp, bytes: None });
            continue;
        }
        if metadata.len() > limit {
            let why = format!("{path} is larger than the document limit ({limit} bytes)");
            reads.push(Read { path, stamp, bytes: Some(Err(why)) });
            continue;
        }
        let bytes = match std::fs::read(&file) {
            Ok(bytes) => bytes,
            Err(error) => {
                reads.push(Read { path: path.clone(), stamp, bytes: Some(Err(format!("{path}: {error}"))) });
                continue;
            }
        };
        let after = std::fs::metadata(&file).map(|m| (m.modified().ok(), m.len())).ok();
        if after != Some(stamp) {
            // Being written: keep what was listed (under its old stamp) and read it next tick.
            if let Some((_, old)) = known.iter().find(|(p, _)| *p == path) {
                reads.push(Read { path, stamp: *old, bytes: None });
            }
            continue;
        }
        reads.push(Read { path, stamp, bytes: Some(Ok(bytes)) });
    }
    reads.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(reads)
}

/// Reads `folder` once and keeps watching it until the server shuts down. `Err` when the folder
/// cannot be read at start.
pub async fn start(state: &Shared, folder: &Path) -> Result<(), std::io::Error> {
    let watch = Arc::new(Watch::new(folder));
    watch.scan(state).await?;
    let _ = state.watch.set(watch.clone());
    let state = state.clone();
    let mut shutdown = state.shutdown.subscribe();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = shutdown.changed() => return,
            }
            if *shutdown.borrow() {
                return;
            }
            if let Err(error) = watch.scan(&state).await {
                crate::note!("stagehand serve: cannot read the watched folder {}: {error}", folder_shown(&watch));
            }
        }
    });
    Ok(())
}

fn folder_shown(watch: &Watch) -> String {
    watch.folder.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::is_document;
    use std::path::Path;

    #[test]
    fn documents_are_known_by_their_names() {
        assert!(is_document(Path::new("club-fair.dialogue.md")));
        assert!(is_document(Path::new("the-crossing.XML")));
        assert!(is_document(Path::new("the-crossing.json")));
        assert!(!is_document(Path::new("club-fair.world.lua")));
        assert!(!is_document(Path::new("fair.world.json")) && !is_document(Path::new("fair.world.toml")));
        assert!(!is_document(Path::new("dialogue.toml")));
        assert!(!is_document(Path::new("notes.txt")));
    }
}
