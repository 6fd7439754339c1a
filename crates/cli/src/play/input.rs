//! Where the player's input comes from: in a terminal, a line editor with history (rustyline);
//! piped, standard input line by line. Either way each line read is counted, so a message about
//! a line that is not valid where it was read can name it (`input line 3`).

use std::io::{BufRead, Read};

use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

/// The longest line read: a move, a command or an answer is short, and a pipe that never sends a
/// line ending (`< /dev/zero`) must not fill memory.
const LONGEST_LINE: u64 = 64 * 1024;

/// The source of the player's lines: the story's moves and the answers to its questions alike.
pub struct Input {
    /// How many lines have been read.
    number: usize,
    /// The line editor, in a terminal.
    editor: Option<DefaultEditor>,
}

impl Input {
    /// Input from a terminal (with line editing and history) or from a pipe.
    pub fn new(terminal: bool) -> Input {
        let editor = if terminal { DefaultEditor::new().ok() } else { None };
        Input { number: 0, editor }
    }

    /// Whether the lines come from a person at a terminal (else from a pipe, echoed as read).
    pub fn is_terminal(&self) -> bool {
        self.editor.is_some()
    }

    /// The number of the line read last, counting from 1.
    pub fn number(&self) -> usize {
        self.number
    }

    /// Reads a line, showing `prompt` first in a terminal; without its line ending. `None` when
    /// the input has ended (or, in a terminal, the person pressed Ctrl-D or Ctrl-C).
    pub fn read(&mut self, prompt: &str) -> Option<String> {
        let line = match &mut self.editor {
            Some(editor) => match editor.readline(prompt) {
                Ok(line) => {
                    if !line.trim().is_empty() {
                        let _ = editor.add_history_entry(line.as_str());
                    }
                    line
                }
                Err(ReadlineError::Eof | ReadlineError::Interrupted) => return None,
                Err(_) => return None,
            },
            None => {
                crate::out::write(prompt);
                crate::out::flush();
                let mut line = String::new();
                match std::io::stdin().lock().take(LONGEST_LINE).read_line(&mut line) {
                    Ok(0) => return None,
                    Ok(_) if !line.ends_with('\n') && line.len() as u64 >= LONGEST_LINE => {
                        errln!(
                            "stagehand play: input line {} is longer than {LONGEST_LINE} bytes; reading stops",
                            self.number + 1
                        );
                        return None;
                    }
                    Ok(_) => {}
                    Err(error) => {
                        errln!("stagehand play: input line {}: {error}", self.number + 1);
                        return None;
                    }
                }
                line.truncate(line.trim_end_matches(['\n', '\r']).len());
                line
            }
        };
        self.number += 1;
        Some(line)
    }
}
