//! Reads each playbook named on the command line, JSON or binary, and prints the reader's
//! verdict. Nothing else is loaded, so `/usr/bin/time -v` on it gives the peak memory of a
//! process that loads one playbook (BENCHMARKS.md). With `--stream` first, a JSON playbook is
//! read from its file as a stream (`Reader::read_from`) instead of from its whole text.
fn main() {
    let stream = std::env::args().nth(1).as_deref() == Some("--stream");
    for path in std::env::args().skip(1 + usize::from(stream)) {
        if stream {
            let read = std::fs::File::open(&path)
                .map_err(|error| error.to_string())
                .and_then(|file| stagehand_playbook::Reader::new().read_from(file).map_err(|error| error.to_string()));
            match read {
                Ok(playbook) => println!("{path}: accepted ({} nodes)", playbook.nodes.len()),
                Err(error) => println!("{path}: refused: {error}"),
            }
            continue;
        }
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
