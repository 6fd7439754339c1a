//! Stagehand's conformance harness: reads fixture-0 cases, holds each playable session against
//! an engine turn by turn, checks the host contract through the host session, and judges each
//! readable case by its verdict.
//!
//! A case is a folder holding `fixture.json` and the document it names. [`discover`] finds
//! cases under a path; a [`Harness`] runs one and reports an [`Outcome`]: conformed, diverged
//! (with the first difference), not yet playable (with everything missing), or broken.
//!
//! Every engine is driven through the protocol's one seam, [`stagehand_protocol::Engine`]: the
//! harness opens a document as a [`Subject`] (the runner's [`PlaybookSubject`] built in, other
//! kinds through a [`Loader`]), which makes fresh engines for [`judge`]. A fixture's `session`
//! is held against an engine directly ([`hold`]); its `host` script (Stagehand's extension,
//! [`Host`]) against `stagehand_session::host::Session` over one ([`hold_host`]).
//!
//! Sessions are held strictly, as the corpus asks: each `expect` takes the runtime's **next**
//! message, never searching ahead; a send while the runtime's messages are unread, a run that
//! ends before the session, and a session that ends before the run are each their own failure.
//!
//! ```no_run
//! use stagehand_conformance::{discover, Harness};
//! let cases = discover(&["conformance/dialoguedown/playable".into()]).unwrap();
//! let harness = Harness::new();
//! for case in &cases {
//!     println!("{}: {}", case.name, harness.run(case));
//! }
//! ```

mod case;
mod claims;
mod fixture;
mod host;
mod session;
mod subject;

pub use case::{discover, Case, Compiler, Harness, Loader, Outcome, ReadFile, ScenarioRunner, SCENARIO, SOURCE};
pub use fixture::{
    Expect, Fixture, FixtureError, FixtureKind, Host, HostStep, PerformClaim, ReceiptClaim, Send, SpeechClaim, Turn,
};
pub use host::hold_host;
pub use session::{command, hold, hold_final, show, Divergence};
pub use subject::{judge, PlaybookSubject, Subject};

/// The repository's root, for tests that read the vendored corpus.
pub fn repository_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
