//! Finding cases, opening their documents, and judging them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use stagehand_playbook::{Playbook, Reader};

use crate::fixture::{Expect, Fixture, FixtureKind, Send as SendTurn, Turn};
use crate::subject::{PlaybookSubject, Subject};

/// One case on disk: a folder holding `fixture.json`, or an agent playbook scenario's
/// `case.json` (its format is the agent runtime's own, run by a [`ScenarioRunner`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Case {
    /// The case's name: its folder's name.
    pub name: String,
    /// The folder.
    pub dir: PathBuf,
}

/// What a case came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The engine held the session, or the reader reached the verdict.
    Conformed,
    /// The engine or reader disagreed; the first difference.
    Diverged(String),
    /// The case needs something this build has yet to learn; what, in full.
    NotYetPlayable(Vec<String>),
    /// The case itself is broken (a fixture that does not read, a missing document).
    Broken(String),
}

impl Outcome {
    /// Whether the case conformed.
    pub fn passed(&self) -> bool {
        matches!(self, Outcome::Conformed)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Conformed => f.write_str("conformed"),
            Outcome::Diverged(why) => write!(f, "diverged: {why}"),
            Outcome::NotYetPlayable(missing) => write!(f, "not yet playable: needs {}", missing.join("; ")),
            Outcome::Broken(why) => write!(f, "broken case: {why}"),
        }
    }
}

/// Finds the cases under each path: a folder holding `fixture.json` is a case; any other folder
/// is searched for cases (recursively), in name order.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for path in paths {
        if !path.is_dir() {
            return Err(format!("{}: not a folder of conformance cases", path.display()));
        }
        collect(path, &mut cases).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(cases)
}

fn collect(dir: &Path, cases: &mut Vec<Case>) -> std::io::Result<()> {
    if dir.join("fixture.json").is_file() || dir.join(SCENARIO).is_file() {
        let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
        cases.push(Case { name, dir: dir.to_path_buf() });
        return Ok(());
    }
    let mut children: Vec<PathBuf> =
        std::fs::read_dir(dir)?.filter_map(|entry| entry.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
    children.sort();
    for child in children {
        collect(&child, cases)?;
    }
    Ok(())
}

/// The file that makes a folder an agent playbook scenario.
pub const SCENARIO: &str = "case.json";

/// Plays an agent playbook scenario (a folder holding [`SCENARIO`]) and says what did not hold:
/// the agent runtime's own case runner, when the binary wires it in. Its format is owned by the
/// runtime, so the harness only finds the cases and counts them.
pub type ScenarioRunner = Arc<dyn Fn(&Path) -> Result<(), Vec<String>> + Send + Sync>;

/// Turns a script into a playbook (the DialogueDown compiler, when the binary wires it in).
pub type Compiler = Arc<dyn Fn(&str, &str) -> Result<Playbook, String> + Send + Sync>;

/// Opens documents other than playbooks (a ChatMapper project, say) as subjects whose engines
/// implement the protocol's [`Engine`](stagehand_protocol::Engine).
pub trait Loader: Send + Sync {
    /// Opens `path` (already read as `bytes`) for playing with entropy `seed`; `None` when this
    /// loader does not read such documents.
    fn open(&self, path: &Path, bytes: &[u8], seed: u64) -> Option<Result<Box<dyn Subject>, String>>;
}

/// Reads one of a case's files (its fixture, document or script): `std::fs::read` unless a host
/// plugs in a reader of its own, such as one that bounds what it reads.
pub type ReadFile = Arc<dyn Fn(&Path) -> Result<Vec<u8>, String> + Send + Sync>;

/// Runs cases: the playbook reader and runner built in, a compiler and other loaders plugged in.
#[derive(Clone, Default)]
pub struct Harness {
    compiler: Option<Compiler>,
    loaders: Vec<Arc<dyn Loader>>,
    read: Option<ReadFile>,
    scenarios: Option<ScenarioRunner>,
}

impl fmt::Debug for Harness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Harness")
            .field("compiler", &self.compiler.is_some())
            .field("loaders", &self.loaders.len())
            .field("scenarios", &self.scenarios.is_some())
            .finish()
    }
}

/// The script a case may carry beside its playbook.
pub const SOURCE: &str = "source.dialogue.md";

impl Harness {
    /// A harness that reads playbooks and plays them with the runner.
    pub fn new() -> Self {
        Harness::default()
    }

    /// Compiles `source.dialogue.md` for a playable case whose playbook is missing.
    pub fn with_compiler(mut self, compiler: Compiler) -> Self {
        self.compiler = Some(compiler);
        self
    }

    /// Reads every file of a case through `read` (the command line bounds what it reads).
    pub fn with_reader(mut self, read: ReadFile) -> Self {
        self.read = Some(read);
        self
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        match &self.read {
            Some(read) => read(path),
            None => std::fs::read(path).map_err(|e| e.to_string()),
        }
    }

    fn read_text(&self, path: &Path) -> Result<String, String> {
        String::from_utf8(self.read(path)?)
            .map_err(|e| format!("not UTF-8 text (at byte {})", e.utf8_error().valid_up_to()))
    }

    /// Tries `loader` on every document, before reading it as a playbook.
    pub fn with_loader(mut self, loader: Arc<dyn Loader>) -> Self {
        self.loaders.push(loader);
        self
    }

    /// Plays agent playbook scenarios with `runner`.
    pub fn with_scenarios(mut self, runner: ScenarioRunner) -> Self {
        self.scenarios = Some(runner);
        self
    }

    /// Runs one case.
    pub fn run(&self, case: &Case) -> Outcome {
        if !case.dir.join("fixture.json").is_file() && case.dir.join(SCENARIO).is_file() {
            return match &self.scenarios {
                None => Outcome::NotYetPlayable(vec![format!("an agent playbook scenario runner for {SCENARIO}")]),
                Some(run) => match run(&case.dir) {
                    Ok(()) => Outcome::Conformed,
                    Err(failures) => Outcome::Diverged(failures.join("; ")),
                },
            };
        }
        let fixture_path = case.dir.join("fixture.json");
        let fixture = match self.read_text(&fixture_path) {
            Err(e) => return Outcome::Broken(format!("{}: {e}", fixture_path.display())),
            Ok(text) => match Fixture::parse(&text) {
                Ok(fixture) => fixture,
                Err(e) => return Outcome::Broken(format!("{}: {e}", fixture_path.display())),
            },
        };
        let document = case.dir.join(&fixture.document);
        match &fixture.kind {
            FixtureKind::Readable { accept } => match self.read(&document) {
                Err(e) => Outcome::Broken(format!("{}: {e}", document.display())),
                Ok(bytes) => {
                    let text = String::from_utf8_lossy(&bytes);
                    match (Reader::new().read(&text), accept) {
                        (Ok(_), true) | (Err(_), false) => Outcome::Conformed,
                        (Ok(_), false) => {
                            Outcome::Diverged("the reader accepted a document the fixture refuses".into())
                        }
                        (Err(e), true) => {
                            Outcome::Diverged(format!("the reader refused a document the fixture accepts: {e}"))
                        }
                    }
                }
            },
            FixtureKind::Playable { session, .. } => {
                let missing = yet_to_learn(session.as_deref().unwrap_or_default());
                if !missing.is_empty() {
                    return Outcome::NotYetPlayable(missing);
                }
                match self.open(case, &document, fixture.seed) {
                    Ok(subject) => subject.judge(&fixture),
                    Err(outcome) => outcome,
                }
            }
        }
    }

    fn open(&self, case: &Case, document: &Path, seed: u64) -> Result<Box<dyn Subject>, Outcome> {
        // A missing playbook is compiled from the case's script; one that cannot be read is broken.
        let read = match document.exists() {
            true => Some(self.read(document).map_err(|e| Outcome::Broken(format!("{}: {e}", document.display())))?),
            false => None,
        };
        let playbook = match read {
            Some(bytes) => {
                for loader in &self.loaders {
                    if let Some(opened) = loader.open(document, &bytes, seed) {
                        return opened.map_err(|e| Outcome::Broken(format!("{}: {e}", document.display())));
                    }
                }
                Reader::new()
                    .read(&String::from_utf8_lossy(&bytes))
                    .map_err(|e| Outcome::Broken(format!("{} does not load: {e}", document.display())))?
            }
            None => {
                let source = case.dir.join(SOURCE);
                let Some(compiler) = &self.compiler else {
                    return Err(Outcome::NotYetPlayable(vec![format!(
                        "{} (missing) or a compiler for {SOURCE}",
                        document.display()
                    )]));
                };
                let text = self.read_text(&source).map_err(|e| {
                    Outcome::Broken(format!("neither {} nor {}: {e}", document.display(), source.display()))
                })?;
                compiler(&text, SOURCE).map_err(|e| Outcome::Diverged(format!("{SOURCE} does not compile: {e}")))?
            }
        };
        Ok(Box::new(PlaybookSubject::new(playbook, seed)))
    }
}

/// What a session needs that this build has yet to learn, gathered before a step is taken.
fn yet_to_learn(session: &[Turn]) -> Vec<String> {
    let mut missing = Vec::new();
    for turn in session {
        let need = match turn {
            Turn::Send(SendTurn::Describe) => Some("the describe send (its reply's shape is not settled)"),
            Turn::Expect(Expect::Unsettled("invalidated")) => Some("the invalidated expectation"),
            Turn::Expect(Expect::Unsettled(_)) => Some("the at/out expectations of describe"),
            _ => None,
        };
        if let Some(need) = need {
            if !missing.iter().any(|m| m == need) {
                missing.push(need.to_owned());
            }
        }
    }
    missing
}
