//! Stagehand's documents, with one answer for every command: what kind a file is (a DialogueDown
//! script, a playbook, a ChatMapper project; [`mod@kind`]), the lints over a compiled graph that
//! `stagehand check` reports ([`mod@lint`]; every kind's findings in [`mod@check`]), a playbook's
//! graph drawn as Graphviz DOT or Mermaid ([`mod@graph`]), a document of any kind opened once and
//! played by sessions that hosts hold without branching on the kind ([`Document`]: sessions,
//! saves, `why`), and the conformance harness with every engine ([`mod@conform`]). Sans-IO:
//! callers read the files and print the results.

pub mod check;
pub mod conform;
pub mod document;
pub mod graph;
pub mod kind;
pub mod lint;
pub mod machine_graph;
mod spelling;
mod why;

pub use document::{kind_of_content, Document, OpenError, OpenOptions};
pub use graph::{render, Format};
pub use kind::{kind, recognised, Kind};
pub use lint::{describe_node, lint, Lint, Places};
pub use machine_graph::render_machine;
pub use spelling::Spelling;
