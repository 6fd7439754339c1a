//! Standard output and standard error for every command (docs/design/player.md, P6).
//! `println!` and `eprintln!` panic when the reader has gone (`stagehand compile … | head -1`, or
//! `2>&1 | head -1`); here a closed standard output ends the process quietly with status 0, as a
//! command cut short by its reader should, and any other failure to write it is reported on
//! standard error with status 1. What cannot be written to standard error is dropped: there is
//! nowhere left to say so.

use std::cell::RefCell;
use std::io::Write;

thread_local! {
    /// Output held back while a long transcript is piped ([`hold`]), written in large blocks.
    static HELD: RefCell<Option<Vec<u8>>> = const { RefCell::new(None) };
}

/// From now on, standard output is written in blocks of 64 KiB rather than line by line; it is
/// written out before input is read, before anything goes to standard error, and at the end.
pub fn hold() {
    HELD.with(|held| *held.borrow_mut() = Some(Vec::with_capacity(1 << 16)));
}

/// Writes `text` and a newline to standard output.
pub fn line(text: &str) {
    write(text);
    write("\n");
}

/// Writes `text` to standard output as it is (a prompt, a document), at once unless held.
pub fn write(text: &str) {
    let full = HELD.with(|held| {
        held.borrow_mut().as_mut().map(|buffer| {
            buffer.extend_from_slice(text.as_bytes());
            buffer.len() >= 1 << 16
        })
    });
    match full {
        Some(false) => {}
        Some(true) => flush(),
        None => put(text.as_bytes()),
    }
}

/// Writes out what is held.
pub fn flush() {
    let held = HELD.with(|held| held.borrow_mut().as_mut().map(std::mem::take)).unwrap_or_default();
    if !held.is_empty() {
        put(&held);
    }
}

fn put(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_all(bytes).and_then(|()| out.flush()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        err(&format!("stagehand: cannot write to standard output: {error}\n"));
        std::process::exit(1);
    }
}

/// `println!` through [`line()`]: a closed pipe ends the process quietly instead of panicking.
macro_rules! outln {
    ($($argument:tt)*) => {
        $crate::out::line(&format!($($argument)*))
    };
}

/// Writes `text` to standard error as it is (what is held on standard output first, so the two
/// keep their order when they share a pipe); a failure to write is dropped.
pub fn err(text: &str) {
    flush();
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `eprintln!` through [`err`]: never a panic when standard error has gone.
macro_rules! errln {
    ($($argument:tt)*) => {
        $crate::out::err(&format!("{}\n", format_args!($($argument)*)))
    };
}
