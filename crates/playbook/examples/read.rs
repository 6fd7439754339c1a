//! Reads each playbook named on the command line and prints the reader's verdict.
fn main() {
    for path in std::env::args().skip(1) {
        match std::fs::read_to_string(&path) {
            Ok(text) => match stagehand_playbook::read(&text) {
                Ok(playbook) => println!("{path}: accepted ({} nodes)", playbook.nodes.len()),
                Err(error) => println!("{path}: refused: {error}"),
            },
            Err(error) => println!("{path}: {error}"),
        }
    }
}
