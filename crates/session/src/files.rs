//! Reading the files a story is made of (scripts, playbooks, projects, worlds, configurations,
//! saves) with a size limit, so that `/dev/zero` or a huge file is refused with a clear message
//! instead of exhausting memory.
//!
//! The limit is [`DEFAULT_LIMIT`] (256 MiB) unless the environment variable [`LIMIT_VARIABLE`]
//! (`STAGEHAND_MAX_FILE_SIZE`) names another, in bytes or with a unit (`64MiB`, `1G`). Reading
//! stops one byte past the limit, so memory stays bounded whatever the file is (a FIFO, a device,
//! a file still growing); the size the file system reports is not trusted.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The size limit when [`LIMIT_VARIABLE`] does not set one: 256 MiB.
pub const DEFAULT_LIMIT: u64 = 256 * 1024 * 1024;

/// The environment variable that overrides [`DEFAULT_LIMIT`].
pub const LIMIT_VARIABLE: &str = "STAGEHAND_MAX_FILE_SIZE";

/// How much is read at a time, and how often progress is reported.
const CHUNK: usize = 1024 * 1024;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file holds more than the limit.
    #[error(
        "the file is larger than {}, the most Stagehand reads (set {LIMIT_VARIABLE} to raise it, e.g. {LIMIT_VARIABLE}=1GiB)",
        Size(*limit)
    )]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// A text file is not UTF-8.
    #[error("not UTF-8 text (at byte {offset})")]
    NotUtf8 {
        /// The byte offset of the first byte that is not UTF-8.
        offset: usize,
    },
    /// The limit in [`LIMIT_VARIABLE`] is not a size.
    #[error("{LIMIT_VARIABLE}={0:?} is not a size: write bytes, or a number with KiB, MiB or GiB (or K, M, G)")]
    BadLimit(String),
}

/// A size in bytes, written for people (`256 MiB`).
#[derive(Debug, Clone, Copy)]
pub struct Size(pub u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
        for (unit, size) in UNITS {
            if self.0 >= size {
                return match self.0 % size {
                    0 => write!(f, "{} {unit}", self.0 / size),
                    _ => write!(f, "{:.1} {unit}", self.0 as f64 / size as f64),
                };
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

/// The limit in force: [`LIMIT_VARIABLE`] if it is set, else [`DEFAULT_LIMIT`].
pub fn limit() -> Result<u64, ReadError> {
    match std::env::var(LIMIT_VARIABLE) {
        Ok(value) => parse_size(&value).ok_or(ReadError::BadLimit(value)),
        Err(_) => Ok(DEFAULT_LIMIT),
    }
}

/// Reads a size: bytes (`1048576`), or a number with a unit (`64MiB`, `64M`, `1.5GiB`, `512k`).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    if let Ok(whole) = number.parse::<u64>() {
        return whole.checked_mul(scale);
    }
    let fraction: f64 = number.parse().ok()?;
    let bytes = fraction * scale as f64;
    (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// Reads a whole file of at most `limit` bytes. `progress` is told how much has been read (and
/// the size the file system reports, when it reports one) after each mebibyte.
pub fn read_bytes_limited(
    path: &Path,
    limit: u64,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path)?;
    let reported = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    if reported.is_some_and(|size| size > limit) {
        return Err(ReadError::TooLarge { limit });
    }
    let mut bytes = Vec::with_capacity(reported.map_or(0, |size| usize::try_from(size).unwrap_or(0)));
    let mut source = file.take(limit.saturating_add(1));
    let mut chunk = vec![0; CHUNK];
    loop {
        let read = match source.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error.into()),
        };
        bytes.extend_from_slice(&chunk[..read]);
        if bytes.len() as u64 > limit {
            return Err(ReadError::TooLarge { limit });
        }
        progress(bytes.len() as u64, reported);
    }
    Ok(bytes)
}

/// Reads a whole file under the [`limit`] in force.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_bytes_limited(path, limit()?, &mut |_, _| {})
}

/// Reads a whole UTF-8 text file under the [`limit`] in force.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    read_text_with(path, &mut |_, _| {})
}

/// [`read_text`], telling `progress` how far it has got.
pub fn read_text_with(path: &Path, progress: &mut dyn FnMut(u64, Option<u64>)) -> Result<String, ReadError> {
    text(read_bytes_limited(path, limit()?, progress)?)
}

/// [`read_bytes`], telling `progress` how far it has got.
pub fn read_bytes_with(path: &Path, progress: &mut dyn FnMut(u64, Option<u64>)) -> Result<Vec<u8>, ReadError> {
    read_bytes_limited(path, limit()?, progress)
}

fn text(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 { offset: e.utf8_error().valid_up_to() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_or_without_a_unit() {
        assert_eq!(parse_size("1048576"), Some(1 << 20));
        assert_eq!(parse_size("64MiB"), Some(64 << 20));
        assert_eq!(parse_size("64 M"), Some(64 << 20));
        assert_eq!(parse_size("1.5GiB"), Some(3 << 29));
        assert_eq!(parse_size("512k"), Some(512 << 10));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
        assert_eq!(Size(DEFAULT_LIMIT).to_string(), "256 MiB");
        assert_eq!(Size(1536).to_string(), "1.5 KiB");
    }

    #[test]
    fn a_file_past_the_limit_is_refused_having_read_one_byte_more() {
        let dir = std::env::temp_dir().join(format!("stagehand-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let path = dir.join("big.txt");
        std::fs::write(&path, "x".repeat(4096)).expect("written");
        assert_eq!(read_bytes_limited(&path, 4096, &mut |_, _| {}).expect("at the limit").len(), 4096);
        let refused = read_bytes_limited(&path, 4095, &mut |_, _| {}).expect_err("past the limit");
        assert!(refused.to_string().contains("larger than 4.0 KiB"), "{refused}");
        std::fs::remove_dir_all(&dir).expect("removed");
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_device_is_refused_at_the_limit() {
        let mut reads = 0;
        let refused = read_bytes_limited(Path::new("/dev/zero"), 3 * CHUNK as u64, &mut |_, _| reads += 1);
        assert!(matches!(refused, Err(ReadError::TooLarge { .. })), "{refused:?}");
        assert!(reads <= 3, "read {reads} chunks");
    }
}
