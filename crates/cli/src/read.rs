//! Every file a command reads goes through here: under the size limit of
//! [`stagehand_session::files`] (256 MiB unless `STAGEHAND_MAX_FILE_SIZE` says otherwise), with
//! the file named in any error, and with progress on standard error, in a terminal, while a large
//! file is read.

use std::io::{IsTerminal, Write};
use std::path::Path;

use stagehand_session::files::{self, Size};

/// Files smaller than this are read without a word.
const SHOW_PROGRESS_FROM: u64 = 32 * 1024 * 1024;

/// Reads a UTF-8 text file; the error names the file.
pub fn text(path: &Path) -> Result<String, String> {
    let mut progress = Progress::new(path);
    let text = files::read_text_with(path, &mut |read, size| progress.show(read, size));
    progress.done();
    text.map_err(|e| format!("{}: {e}", path.display()))
}

/// [`text`], for a file that is then compiled or read, which takes long for a large one: in a
/// terminal, a large file's progress line becomes `loading NAME (SIZE)…` until the [`Loading`]
/// returned is dropped.
pub fn text_to_load(path: &Path) -> Result<(String, Loading), String> {
    let text = text(path)?;
    let loading = loading_bytes(path, text.len());
    Ok((text, loading))
}

/// [`text_to_load`] for a file already read as `bytes` (to tell its kind): the bytes become the
/// text without a copy, so a large script is never held twice.
pub fn bytes_to_load(path: &Path, bytes: Vec<u8>) -> Result<(String, Loading), String> {
    let text = String::from_utf8(bytes).map_err(|e| {
        let error = files::ReadError::NotUtf8 { offset: e.utf8_error().valid_up_to() };
        format!("{}: {error}", path.display())
    })?;
    let loading = loading_bytes(path, text.len());
    Ok((text, loading))
}

/// Shows, for a large file of `size` bytes in a terminal, that it is being loaded, until the
/// [`Loading`] returned is dropped.
pub fn loading_bytes(path: &Path, size: usize) -> Loading {
    let shown = std::io::stderr().is_terminal() && size as u64 >= SHOW_PROGRESS_FROM;
    if shown {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[Kloading {} ({})…", path.display(), Size(size as u64));
        let _ = err.flush();
    }
    Loading { shown }
}

/// The `loading …` line of [`text_to_load`]: cleared when this is dropped.
pub struct Loading {
    shown: bool,
}

impl Drop for Loading {
    fn drop(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}

/// Reads a file's bytes; the error names the file.
pub fn bytes(path: &Path) -> Result<Vec<u8>, String> {
    let mut progress = Progress::new(path);
    let bytes = files::read_bytes_with(path, &mut |read, size| progress.show(read, size));
    progress.done();
    bytes.map_err(|e| format!("{}: {e}", path.display()))
}

/// `reading big.json: 40 MiB of 200 MiB`, rewritten in place on a terminal's standard error.
struct Progress<'p> {
    path: &'p Path,
    shown: bool,
    terminal: bool,
}

impl<'p> Progress<'p> {
    fn new(path: &'p Path) -> Progress<'p> {
        Progress { path, shown: false, terminal: std::io::stderr().is_terminal() }
    }

    fn show(&mut self, read: u64, size: Option<u64>) {
        if !self.terminal || read < SHOW_PROGRESS_FROM {
            return;
        }
        let of = size.map(|size| format!(" of {}", Size(size))).unwrap_or_default();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[Kreading {}: {}{of}", self.path.display(), Size(read));
        let _ = err.flush();
        self.shown = true;
    }

    fn done(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
            self.shown = false;
        }
    }
}
