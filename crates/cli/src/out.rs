//! Standard output for every command. `println!` panics when the reader has gone (`stagehand
//! compile … | head -1`); here a closed pipe ends the process quietly with status 0, as a
//! command cut short by its reader should, and any other failure to write is reported once on
//! standard error with status 1.

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
        eprintln!("stagehand: cannot write to standard output: {error}");
        std::process::exit(1);
    }
}

/// `println!` through [`line`]: a closed pipe ends the process quietly instead of panicking.
macro_rules! outln {
    ($($argument:tt)*) => {
        $crate::out::line(&format!($($argument)*))
    };
}
