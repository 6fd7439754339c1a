//! `stagehand graph`: reads a script, playbook or agent machine and prints `stagehand_documents::render`'s
//! drawing of it.

use std::path::Path;
use std::process::ExitCode;

use crate::compile::Settings;

/// The output formats, as the command line names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Graphviz DOT.
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
}

impl From<Format> for stagehand_documents::Format {
    fn from(format: Format) -> Self {
        match format {
            Format::Dot => stagehand_documents::Format::Dot,
            Format::Mermaid => stagehand_documents::Format::Mermaid,
        }
    }
}

/// Prints the graph of a script (compiled as `settings` say) or a playbook.
pub fn run(file: &Path, format: Format, settings: &Settings) -> ExitCode {
    let options = stagehand_chatmapper::Options::default();
    let opened = crate::play::open_document(file, settings, options, None).and_then(|document| {
        document.draw(format.into()).ok_or(format!("{}: a ChatMapper project has no graph to draw", file.display()))
    });
    match opened {
        Ok(drawn) => {
            crate::out::write(&drawn);
            ExitCode::SUCCESS
        }
        Err(message) => {
            errln!("stagehand graph: {}", message.trim_end());
            ExitCode::FAILURE
        }
    }
}
