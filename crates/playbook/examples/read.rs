//! Reads each playbook named on the command line, JSON or binary, and prints the reader's
//! verdict. Nothing else is loaded, so `/usr/bin/time -v` on it gives the peak memory of a
//! process that loads one playbook (BENCHMARKS.md).
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) => {
                println!("{path}: {error}");
                continue;
            }
        };
        let read = if stagehand_playbook::is_binary(&bytes) {
            stagehand_playbook::read_binary(&bytes).map_err(|error| error.to_string())
        } else {
            match String::from_utf8(bytes) {
                Ok(text) => stagehand_playbook::read(&text).map_err(|error| error.to_string()),
                Err(error) => Err(error.to_string()),
            }
        };
        match read {
            Ok(playbook) => println!("{path}: accepted ({} nodes)", playbook.nodes.len()),
            Err(error) => println!("{path}: refused: {error}"),
        }
    }
}
