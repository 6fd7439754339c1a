//! Parked runs: a host session written to disk between two commands of `stagehand run`
//! (decision H12).
//!
//! A record lives at `${XDG_STATE_HOME:-$HOME/.local/state}/stagehand/sessions/<id>.json`. The
//! folder is made `0700` and the file `0600` (a record holds what a person answered); it is
//! written to a temporary file in the same folder and renamed over the old one, so a record is
//! always whole.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The version of a parked record's shape.
pub const PARKED_VERSION: u32 = 1;

/// One parked run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Parked {
    /// [`PARKED_VERSION`].
    pub schema_version: u32,
    /// The session's id (the record's file name without `.json`).
    pub session_id: String,
    /// The document played, as given (made absolute when it could be).
    pub document: String,
    /// The document's fingerprint when the run began.
    pub fingerprint: String,
    /// The world that answers the run, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world: Option<String>,
    /// The seed random choices draw from.
    pub seed: u64,
    /// Where the trace is appended, if anywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// When the run began (Unix milliseconds).
    pub created_at: u64,
    /// When the record was last written (Unix milliseconds).
    pub updated_at: u64,
    /// The port bindings of an agent playbook's run (`--player`, `--captain`, `--judge` and the
    /// directory they run in), as `stagehand_worlds::ports::Bindings` spells them; never a
    /// secret (an `openai:` key is read from the environment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Value>,
    /// The host session's snapshot, receipts included.
    pub session: Value,
    /// The envelope each resume printed, by idempotency key: a resume replayed with the same key
    /// prints it again.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub envelopes: BTreeMap<String, Printed>,
    /// Every command the world carried out (or tried to) for the moves the session still holds,
    /// in order: a resume makes the world afresh and carries them out again, so a world that
    /// keeps state (a Lua world) stands where it stood (decision H56).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub performed: Vec<Performed>,
    /// How many moves the session's journal held each time the run parked, oldest first (only
    /// those it still holds): `undo` goes back to the park before the last, past the moves the
    /// driver took on its own (decision P22).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parks: Vec<usize>,
}

/// A command the world carried out for a run, and the move it was for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Performed {
    /// How many moves the session's journal held when the world carried it out: the move after
    /// them settled it, so once the journal is that short again (an undo, a restart) it is
    /// forgotten.
    pub at: usize,
    /// The command.
    pub call: crate::host::Call,
}

/// An envelope a resume printed, with the action it was given (as the person wrote it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Printed {
    /// The action, as given.
    pub action: String,
    /// The envelope.
    pub envelope: Value,
}

/// Why a record could not be found, read or written.
#[derive(Debug, thiserror::Error)]
pub enum ParkedError {
    /// No state folder: neither `XDG_STATE_HOME` nor `HOME` is set.
    #[error("there is nowhere to park runs: set XDG_STATE_HOME or HOME")]
    NoHome,
    /// The id names no record (or is not an id at all).
    #[error("no parked run has the id {0:?}")]
    Unknown(String),
    /// No run is parked (for `--last`).
    #[error("no run is parked")]
    None,
    /// The record exists and cannot be read as one.
    #[error("{path}: the parked run cannot be read: {why}")]
    Unreadable {
        /// The record's file.
        path: String,
        /// Why.
        why: String,
    },
    /// The folder or the file could not be written.
    #[error("{path}: {error}")]
    Io {
        /// The file or folder.
        path: String,
        /// The error.
        error: std::io::Error,
    },
}

/// A run held by one process ([`Store::hold`]): released when dropped.
#[derive(Debug)]
pub struct Held {
    file: fs::File,
    lock: PathBuf,
    record: PathBuf,
}

impl Drop for Held {
    fn drop(&mut self) {
        // A process that waited on this file and holds it once it is gone finds no record
        // either, so it changes nothing; one that comes later locks a new file.
        if !self.record.exists() {
            fs::remove_file(&self.lock).ok();
        }
        self.file.unlock().ok();
    }
}

/// The folder of parked records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    folder: PathBuf,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ParkedError + '_ {
    move |error| ParkedError::Io { path: path.display().to_string(), error }
}

/// Whether `id` can name a record: letters, digits, `-` and `_` only (no path may hide in it).
fn is_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The ids of the `<id>.json` files in `folder` (none when it cannot be read).
fn ids(folder: &Path) -> Vec<String> {
    let entries = fs::read_dir(folder).map(|entries| entries.flatten().collect::<Vec<_>>()).unwrap_or_default();
    entries
        .iter()
        .filter_map(|entry| entry.file_name().to_str()?.strip_suffix(".json").filter(|id| is_id(id)).map(str::to_owned))
        .collect()
}

/// An ended run's file: its envelopes by key and when it ended; a file written before P18 holds
/// only the envelopes.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Ended {
    Timed {
        #[serde(rename = "endedAt")]
        ended_at: u64,
        envelopes: BTreeMap<String, Printed>,
    },
    Untimed(BTreeMap<String, Printed>),
}

impl Store {
    /// The store in `folder`.
    pub fn at(folder: impl Into<PathBuf>) -> Store {
        Store { folder: folder.into() }
    }

    /// The store the environment names: `$XDG_STATE_HOME/stagehand/sessions`, else
    /// `$HOME/.local/state/stagehand/sessions` (an empty variable counts as unset, and so does
    /// an `XDG_STATE_HOME` that is not an absolute path, as the XDG Base Directory
    /// specification has it).
    pub fn from_env() -> Result<Store, ParkedError> {
        Store::named_by(std::env::var_os("XDG_STATE_HOME"), std::env::var_os("HOME"))
    }

    /// [`from_env`](Self::from_env), given the two variables' values.
    fn named_by(xdg_state_home: Option<OsString>, home: Option<OsString>) -> Result<Store, ParkedError> {
        let set = |value: Option<OsString>| value.filter(|v| !v.is_empty()).map(PathBuf::from);
        let state = match set(xdg_state_home).filter(|state| state.is_absolute()) {
            Some(state) => state,
            None => set(home).ok_or(ParkedError::NoHome)?.join(".local").join("state"),
        };
        Ok(Store::at(state.join("stagehand").join("sessions")))
    }

    /// The folder.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Where the record of `id` lives.
    pub fn path(&self, id: &str) -> PathBuf {
        self.folder.join(format!("{id}.json"))
    }

    /// Writes `record` whole: to a temporary file beside it, then renamed over the old one.
    pub fn save(&self, record: &Parked) -> Result<PathBuf, ParkedError> {
        if !is_id(&record.session_id) {
            return Err(ParkedError::Unknown(record.session_id.clone()));
        }
        let path = self.path(&record.session_id);
        write_private(&self.folder, &path, &serde_json::to_vec(record).expect("a record is JSON"))?;
        Ok(path)
    }

    /// Where the envelopes of the ended run `id` are kept.
    fn ended_path(&self, id: &str) -> PathBuf {
        self.folder.join("ended").join(format!("{id}.json"))
    }

    /// Keeps the envelopes an ended run printed, by key, with when it ended (`ended_at`, Unix
    /// milliseconds), so that a resume retried with the same key after the end prints the same
    /// envelope (the record itself is deleted).
    pub fn save_ended(
        &self,
        id: &str,
        envelopes: &BTreeMap<String, Printed>,
        ended_at: u64,
    ) -> Result<(), ParkedError> {
        if !is_id(id) {
            return Err(ParkedError::Unknown(id.to_owned()));
        }
        fs::create_dir_all(&self.folder).map_err(io(&self.folder))?;
        restrict(&self.folder, 0o700)?;
        let path = self.ended_path(id);
        let folder = self.folder.join("ended");
        let ended = Ended::Timed { ended_at, envelopes: envelopes.clone() };
        write_private(&folder, &path, &serde_json::to_vec(&ended).expect("envelopes are JSON"))
    }

    /// The envelopes the ended run `id` printed, and when it ended (0 when its file does not say).
    fn ended(&self, id: &str) -> Option<(u64, BTreeMap<String, Printed>)> {
        if !is_id(id) {
            return None;
        }
        let text = crate::files::read_text(&self.ended_path(id)).ok()?;
        Some(match serde_json::from_str(&text).ok()? {
            Ended::Timed { ended_at, envelopes } => (ended_at, envelopes),
            Ended::Untimed(envelopes) => (0, envelopes),
        })
    }

    /// What the ended run `id` printed under `key`, if it did.
    pub fn ended_envelope(&self, id: &str, key: &str) -> Option<Printed> {
        self.ended(id)?.1.remove(key)
    }

    /// The run, parked or ended, that printed an envelope under `key`; when several did, the one
    /// written last (a parked record's `updatedAt`, an ended run's end). `None` when none did.
    /// `run resume --last` retried under its key means that run, not one parked since (P18).
    pub fn used_key(&self, key: &str) -> Option<String> {
        let mut newest: Option<(u64, String)> = None;
        let mut consider = |candidate: (u64, String)| {
            if newest.as_ref().is_none_or(|n| candidate > *n) {
                newest = Some(candidate);
            }
        };
        for id in ids(&self.folder) {
            if let Ok(record) = self.load(&id) {
                if record.envelopes.contains_key(key) {
                    consider((record.updated_at, id));
                }
            }
        }
        for id in ids(&self.folder.join("ended")) {
            if let Some((ended_at, envelopes)) = self.ended(&id) {
                if envelopes.contains_key(key) {
                    consider((ended_at, id));
                }
            }
        }
        newest.map(|(_, id)| id)
    }

    /// The record of `id`.
    pub fn load(&self, id: &str) -> Result<Parked, ParkedError> {
        if !is_id(id) {
            return Err(ParkedError::Unknown(id.to_owned()));
        }
        let path = self.path(id);
        let text = match crate::files::read_text(&path) {
            Ok(text) => text,
            Err(crate::files::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ParkedError::Unknown(id.to_owned()))
            }
            Err(e) => return Err(ParkedError::Unreadable { path: path.display().to_string(), why: e.to_string() }),
        };
        let unreadable = |why: String| ParkedError::Unreadable { path: path.display().to_string(), why };
        let record: Parked = serde_json::from_str(&text).map_err(|e| unreadable(e.to_string()))?;
        if record.schema_version != PARKED_VERSION {
            return Err(unreadable(format!(
                "its schema version is {}; this Stagehand reads {PARKED_VERSION}",
                record.schema_version
            )));
        }
        if record.session_id != id {
            return Err(unreadable(format!("it holds the run {:?}", record.session_id)));
        }
        Ok(record)
    }

    /// The id of the record written last (the newest `updatedAt`; ties go to the greater id);
    /// when every record there is unreadable, why the first one is.
    pub fn last(&self) -> Result<String, ParkedError> {
        let entries = match fs::read_dir(&self.folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ParkedError::None),
            Err(e) => return Err(io(&self.folder)(e)),
        };
        let mut newest: Option<(u64, String)> = None;
        let mut unreadable = None;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json")).filter(|id| is_id(id)) else {
                continue;
            };
            // A record that cannot be read is skipped while another can be; naming it loads it
            // and says why.
            match self.load(id) {
                Ok(record) => {
                    let candidate = (record.updated_at, record.session_id);
                    if newest.as_ref().is_none_or(|n| candidate > *n) {
                        newest = Some(candidate);
                    }
                }
                Err(error) => unreadable = unreadable.or(Some(error)),
            }
        }
        // Only unreadable records: "no run is parked" would hide them; say what is wrong.
        newest.map(|(_, id)| id).ok_or_else(|| unreadable.unwrap_or(ParkedError::None))
    }

    /// Holds the run `id` for one command: waits until no other process holds it, and keeps it
    /// until the guard is dropped (or the process ends), so two resumes of one run take turns
    /// rather than both applying to the same record and one of them being lost (H54). The lock
    /// is the operating system's on `<id>.lock` beside the record, removed with the guard when
    /// no record is left (the run ended, or there was none).
    pub fn hold(&self, id: &str) -> Result<Held, ParkedError> {
        if !is_id(id) {
            return Err(ParkedError::Unknown(id.to_owned()));
        }
        fs::create_dir_all(&self.folder).map_err(io(&self.folder))?;
        restrict(&self.folder, 0o700)?;
        let path = self.folder.join(format!("{id}.lock"));
        let file = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io(&path))?;
        file.lock().map_err(io(&path))?;
        Ok(Held { file, lock: path, record: self.path(id) })
    }

    /// Deletes the record of `id` (a record already gone is not an error).
    pub fn remove(&self, id: &str) -> Result<(), ParkedError> {
        if !is_id(id) {
            return Err(ParkedError::Unknown(id.to_owned()));
        }
        let path = self.path(id);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(&path)(e)),
            _ => Ok(()),
        }
    }
}

/// Writes `bytes` to `path` in `folder` (made `0700`) as a `0600` file: to a temporary file beside
/// it, then renamed over the old one.
fn write_private(folder: &Path, path: &Path, bytes: &[u8]) -> Result<(), ParkedError> {
    fs::create_dir_all(folder).map_err(io(folder))?;
    restrict(folder, 0o700)?;
    let mut file =
        tempfile::Builder::new().prefix(".parked-").suffix(".tmp").tempfile_in(folder).map_err(io(folder))?;
    restrict(file.path(), 0o600)?;
    file.write_all(bytes).map_err(io(path))?;
    file.as_file().sync_all().map_err(io(path))?;
    file.persist(path).map_err(|e| ParkedError::Io { path: path.display().to_string(), error: e.error })?;
    Ok(())
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> Result<(), ParkedError> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(io(path))
}

#[cfg(not(unix))]
fn restrict(_path: &Path, _mode: u32) -> Result<(), ParkedError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, updated_at: u64) -> Parked {
        Parked {
            schema_version: PARKED_VERSION,
            session_id: id.to_owned(),
            document: "story.dialogue.md".to_owned(),
            fingerprint: "ab".to_owned(),
            world: None,
            seed: 0,
            trace: None,
            created_at: 1,
            updated_at,
            ports: None,
            session: Value::Null,
            envelopes: BTreeMap::new(),
            performed: Vec::new(),
            parks: Vec::new(),
        }
    }

    #[test]
    fn an_ended_run_is_found_by_its_key_and_a_file_without_its_end_still_reads() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("sessions"));
        let printed = |action: &str| Printed { action: action.to_owned(), envelope: Value::from(action) };
        let envelopes = |key: &str, action: &str| BTreeMap::from([(key.to_owned(), printed(action))]);
        assert_eq!(store.used_key("k"), None);
        store.save_ended("old", &envelopes("k", "1"), 50).unwrap();
        let mut parked = record("parked", 40);
        parked.envelopes = envelopes("k", "2");
        store.save(&parked).unwrap();
        assert_eq!(store.used_key("k").as_deref(), Some("old"), "the newer of the two");
        assert_eq!(store.used_key("other"), None);
        // Written before P18: the envelopes alone, counted as ended at 0.
        fs::write(store.ended_path("older"), serde_json::to_vec(&envelopes("j", "3")).unwrap()).unwrap();
        assert_eq!(store.ended_envelope("older", "j"), Some(printed("3")));
        assert_eq!(store.ended_envelope("old", "k"), Some(printed("1")));
        assert_eq!(store.used_key("j").as_deref(), Some("older"));
    }

    #[test]
    fn the_state_folder_is_an_absolute_xdg_state_home_else_home() {
        let folder = |xdg: Option<&str>, home: Option<&str>| {
            Store::named_by(xdg.map(OsString::from), home.map(OsString::from)).map(|store| store.folder)
        };
        let sessions = |base: &str| Path::new(base).join("stagehand").join("sessions");
        assert_eq!(folder(Some("/x/state"), Some("/home/u")).unwrap(), sessions("/x/state"));
        let fallback = sessions("/home/u/.local/state");
        // Empty, or relative (the XDG Base Directory specification: "consider the path invalid
        // and ignore it"), the variable is not used.
        assert_eq!(folder(Some(""), Some("/home/u")).unwrap(), fallback);
        assert_eq!(folder(Some("state"), Some("/home/u")).unwrap(), fallback);
        assert_eq!(folder(None, Some("/home/u")).unwrap(), fallback);
        assert!(matches!(folder(Some("rel"), None), Err(ParkedError::NoHome)));
    }

    #[test]
    fn records_round_trip_the_newest_is_last_and_ids_hold_no_paths() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("sessions"));
        assert!(matches!(store.last(), Err(ParkedError::None)));
        store.save(&record("a", 5)).unwrap();
        store.save(&record("b", 9)).unwrap();
        store.save(&record("c", 7)).unwrap();
        assert_eq!(store.load("a").unwrap(), record("a", 5));
        assert_eq!(store.last().unwrap(), "b");
        assert!(matches!(store.load("../a"), Err(ParkedError::Unknown(_))));
        assert!(matches!(store.load("zz"), Err(ParkedError::Unknown(_))));
        fs::write(store.path("bad"), "{").unwrap();
        assert!(matches!(store.load("bad"), Err(ParkedError::Unreadable { .. })));
        store.remove("b").unwrap();
        assert_eq!(store.last().unwrap(), "c");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(store.folder()), 0o700);
            assert_eq!(mode(&store.path("a")), 0o600);
        }
    }
}
