//! Standard output and standard error for every command (docs/design/player.md, P6).
//! `println!` and `eprintln!` panic when the reader has gone (`stagehand compile … | head -1`, or
//! `2>&1 | head -1`); here a closed standard output ends the process quietly with status 0, as a
//! command cut short by its reader should, and any other failure to write it is reported on
//! standard error with status 1. What cannot be written to standard error is dropped: there is
//! nowhere left to say so.

use std::io::Write;

/// Writes `text` and a newline to standard output, and flushes it.
pub fn line(text: &str) {
    write(text);
    write("\n");
}

/// Writes `text` to standard output as it is, and flushes it (a prompt, a document).
pub fn write(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
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

/// Writes `text` to standard error as it is; a failure to write is dropped.
pub fn err(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `eprintln!` through [`err`]: never a panic when standard error has gone.
macro_rules! errln {
    ($($argument:tt)*) => {
        $crate::out::err(&format!("{}\n", format_args!($($argument)*)))
    };
}
