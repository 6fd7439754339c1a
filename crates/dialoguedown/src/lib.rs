//! # stagehand-dialoguedown
//!
//! The DialogueDown compiler: a `*.dialogue.md` script in, a [`Playbook`] out — the same
//! playbook the DialogueDown reference compiler emits — together with every problem found on
//! the way, each a located [`Diagnostic`] with a stable `DLG####` code.
//!
//! ```
//! use stagehand_dialoguedown::{compile, Options};
//!
//! let compilation = compile("Alice: Hello.\n\nBob: Goodbye.\n", "hello.dialogue.md", &Options::default());
//! assert!(compilation.diagnostics.is_empty());
//! let playbook = compilation.playbook.expect("no errors");
//! assert_eq!(playbook.nodes.len(), 3); // two lines and the end
//! let json = stagehand_playbook::write(&playbook);
//! assert!(json.contains("\"Goodbye.\""));
//! ```
//!
//! ## Stages
//!
//! A script is parsed in pieces of about 64 KiB, and each top-level Markdown block goes through
//! every later stage as soon as its piece is parsed, so apart from the playbook being built no
//! stage ever holds more than a few pieces of the script.
//!
//! 1. **Markdown front-end** (`markdown`): `pulldown-cmark` (strikethrough, tables and front
//!    matter detection enabled) parses the source; an explicit-stack builder keeps only what the
//!    language models, each piece with its byte span, text borrowed from the source, children
//!    as ranges into flat arrays reused from block to block. Front matter and comments are
//!    dropped; other unmodeled Markdown is kept as text or ignored, per [`Options::unmodeled`].
//!    A long script is parsed in pieces cut at top-level headings where that cannot change the
//!    result, so pulldown-cmark's own tree is never whole either, and (unless
//!    [`Options::one_thread`]) a second, scoped thread parses pieces ahead while the calling
//!    thread runs the later stages on the pieces parsed, parsing the next piece itself whenever
//!    the one it needs is not ready (`pipeline`).
//! 2. **Transpile and desugar** (`transpile`, `line`, `leaf`): headings become scene tokens,
//!    paragraphs lines (split at hard breaks), lists choices, marker-led blockquotes conditional
//!    blocks. Each line's leading condition (and an option's weight), speaker prefix, tags, game
//!    calls and `=>` jumps are read; effect-only lines become control lines.
//! 3. **Semantic analysis** (`analysis`, `speakers`): scenes get anchors, lines are bound to
//!    speakers in one table (declarations, references, partial declarations), jumps are
//!    classified and random weights checked. Who the default speaker is, and whether each
//!    jump's scene exists, wait for the end of the script.
//! 4. **Graph and emission** (`graph`): a node per block in reading order, wired by
//!    succession, options, branch arms and diverts; jumps are patched and speakers settled
//!    once the script has ended, and the whole is a [`Playbook`].
//!
//! Every syntax diagnostic (`DLG1xxx`) is reported in every mode, whichever stage finds it (a
//! random choice's weights are checked in analysis). In the default [`Mode::StageBoundary`],
//! when there are syntax errors the other diagnostics of analysis are dropped; in
//! [`Mode::BestEffort`] they are kept. Either way a compile with any error yields no playbook.
//! Diagnostics render for people with [`render_human`] and for tools with [`render_json`].
//!
//! ## Configuration
//!
//! [`Options::default()`] is the reference compiler with no `dialogue.toml`. A project's file
//! is read with [`Options::from_toml`] (configured speakers, `mode`, and
//! `[markdown.unmodeled]` overrides); finding the file is the caller's business.
//!
//! ## Limits
//!
//! No input panics the compiler or exhausts its stack: containers nested deeper than
//! [`MAX_NESTING`] are cut off with a `DLG1901` error (a code of this compiler's own; the
//! reference compiler has no such limit), and every later stage recurses only as deep as the
//! tree it was given. Work and memory grow linearly with the script.

mod analysis;
mod ast;
mod config;
mod diagnostics;
mod graph;
mod leaf;
mod line;
mod markdown;
mod nul;
mod pipeline;
mod render;
mod speakers;
mod styled;
mod transpile;

pub use config::{script_name, ConfigError, ConfiguredSpeaker, Handling, Mode, Options, Unmodeled};
pub use diagnostics::{line_columns, Code, Diagnostic, Severity};
pub use render::{render_human, render_human_with, render_json, render_json_values, write_human};
pub use stagehand_playbook::Playbook;

/// How many containers (blockquotes, lists, items, emphasis, links) may nest inside each other
/// before the compiler stops following them and reports `DLG1901`.
pub const MAX_NESTING: usize = markdown::MAX_DEPTH;

/// What a compile produced.
#[derive(Debug, Clone)]
pub struct Compilation {
    /// The playbook, when the script compiled without errors.
    pub playbook: Option<Playbook>,
    /// Everything found, errors, warnings and notes alike, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// Where in the source each node of the playbook was written, by node: a byte offset (the
    /// start of its line, list or `if`; the source's length for the shared end node). Empty
    /// when there is no playbook. The playbook format carries no positions; this is how a tool
    /// over the compiled graph (`stagehand check`'s lints) points at source lines. A `u32` each
    /// (4 bytes a node): a script of 4 GiB or more is refused (`DLG1902`).
    pub node_offsets: Vec<u32>,
}

impl Compilation {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compiles a script. `file_name` is named in every diagnostic; the playbook records
/// [`Options::script`] as its `script`, else the last component of `file_name`. A UTF-8
/// byte-order mark at the start of `source` is skipped.
pub fn compile(source: &str, file_name: &str, options: &Options) -> Compilation {
    compile_into(source, file_name, options, graph::Lowering::new)
}

/// Compiles a script into the lowering `lowering` makes for a script of so many bytes (a test
/// lowers the number of nodes a playbook may hold). A NUL reads as U+FFFD before anything else
/// (C33), and what is reported is placed in the script as given.
fn compile_into(
    source: &str,
    file_name: &str,
    options: &Options,
    lowering: impl FnOnce(usize) -> graph::Lowering,
) -> Compilation {
    let Some(read) = nul::replaced(source) else {
        return compile_read(source, file_name, options, lowering(source.len()));
    };
    let mut compilation = compile_read(&read.text, file_name, options, lowering(read.text.len()));
    read.place(&mut compilation);
    compilation
}

/// Compiles a script as read (no NUL in it) into `lowering`.
fn compile_read(source: &str, file_name: &str, options: &Options, mut lowering: graph::Lowering) -> Compilation {
    // Each top-level Markdown block goes through every later stage as soon as its piece is
    // parsed, so no stage holds more than a few pieces of the script, besides the playbook.
    let mut sink = diagnostics::Sink::default();
    let mut analyzer = analysis::Analyzer::new(options);
    let mut blocks = Vec::new();
    let mut room = line::LineRoom::default();
    pipeline::parse_script(source, &options.unmodeled, !options.one_thread, &mut sink, |tree, block, sink| {
        transpile::transpile(tree, block, sink, &mut blocks, &mut room, &mut lowering.emptied);
        analyzer.blocks(&mut blocks);
        lowering.blocks(blocks.drain(..));
    });
    let (speakers, mut found) = analyzer.finish();
    let script = options.script.as_deref().unwrap_or_else(|| config::file_part(file_name));
    let (playbook, offsets) = lowering.finish(script, source.len(), speakers, &mut found);
    // A stage that found errors is the last whose diagnostics count, unless in best effort.
    // Syntax that analysis checks (a random choice's weights) belongs with the syntax stages:
    // it is always reported, and its errors end the compile there like theirs.
    // An unknown reserved tag in speech is found as the line is read, but it is the semantic
    // tag validator's finding (C37), counted with analysis's.
    found.take_code(&mut sink, Code::UnknownReservedTag);
    sink.take_syntax(&mut found);
    if options.mode == Mode::BestEffort || !sink.has_errors() {
        sink.append(found);
    }
    let (playbook, node_offsets) = if sink.has_errors() { (None, Vec::new()) } else { (Some(playbook), offsets) };
    Compilation { playbook, diagnostics: sink.finish(source, file_name), node_offsets }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `DLG1902`: no script in a test can make 2^32 nodes, so the limit is lowered to three.
    #[test]
    fn a_script_with_more_nodes_than_a_playbook_holds_is_refused() {
        let compile_with = |source: &str| {
            compile_into(source, "many.dialogue.md", &Options::default(), |len| graph::Lowering::new(len).limited(3))
        };
        let many = compile_with("Alice: One.\n\nAlice: Two.\n\nAlice: Three.\n");
        let found: Vec<_> = many.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(found, [Code::TooManyNodes]);
        assert!(many.playbook.is_none());
        assert!(many.diagnostics[0].message.contains("more nodes or speakers than a playbook holds"));
        let few = compile_with("Alice: One.\n");
        assert!(few.diagnostics.is_empty(), "{:?}", few.diagnostics);
        assert_eq!(few.playbook.map(|playbook| playbook.nodes.len()), Some(2));
    }
}
