//! A document of any kind, opened once and played by as many sessions as a host likes: the one
//! place that turns a file's bytes into an engine (decision H15). Hosts (`stagehand run`, the
//! terminal player, the HTTP server) hold a [`Document`] and its sessions as
//! [`AnySession`]s, and never branch on the kind themselves.
//!
//! Sans-IO: the caller reads the bytes (and a Lua world's source); nothing here touches a file.

use std::fmt;

use serde_json::Value;
use stagehand_agents::machine::Machine;
use stagehand_agents::AgentEngine;
use stagehand_chatmapper::{ChatMapperEngine, Project};
use stagehand_dialoguedown::{compile, Diagnostic};
use stagehand_playbook::Playbook;
use stagehand_runner::{PreparedPlaybook, RunnerEngine};
use stagehand_session::host::{moves_of, snapshot_of, AnySession, HostError, Session};
use stagehand_session::SaveKind;

use crate::check::Finding;
use crate::kind::{recognised, Kind};

/// How to open a document: what compiles a script and what plays a ChatMapper project.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// How a DialogueDown script compiles (its `dialogue.toml` settings, the mode).
    pub compile: stagehand_dialoguedown::Options,
    /// How a ChatMapper project plays (limits, compatibility options). Its seed is each
    /// session's own.
    pub chatmapper: stagehand_chatmapper::Options,
    /// A Lua world run in a ChatMapper project's sandbox before its project script: its name
    /// (for errors) and source.
    pub lua_world: Option<(String, String)>,
    /// Whether to check the document as it opens, as `stagehand check` does (a script's graph
    /// lints, a project's or a machine's findings), keeping what is found in
    /// [`Document::findings`]. Off by default: playing a document does not need it.
    pub check: bool,
}

/// Why a document could not be opened.
#[derive(Debug, Clone, PartialEq)]
pub enum OpenError {
    /// A script that does not compile, with everything the compiler found.
    Compile {
        /// The compiler's diagnostics (errors first among them).
        diagnostics: Vec<Diagnostic>,
    },
    /// The bytes are not a document of the kind they look like: the reader's words, with the
    /// line and column where it has them.
    Unreadable(String),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Compile { diagnostics } => {
                let errors: Vec<String> = diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| format!("{}:{}:{}: {}", d.file, d.line, d.column, d.message))
                    .collect();
                write!(f, "the script does not compile:\n{}", errors.join("\n"))
            }
            OpenError::Unreadable(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for OpenError {}

impl OpenError {
    /// The error for a person reading a terminal: a script's diagnostics rendered against its
    /// `source` as rustc renders them, then each error with its file, line and column.
    pub fn for_people(&self, name: &str, source: &[u8]) -> String {
        match self {
            OpenError::Compile { diagnostics } => {
                let text = String::from_utf8_lossy(source);
                let mut message = stagehand_dialoguedown::render_human(diagnostics, &text, name);
                let located: Vec<String> = diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| format!("{}:{}:{}: {}", d.file, d.line, d.column, d.message))
                    .collect();
                message.push_str(&format!("{name} does not compile:\n{}", located.join("\n")));
                message
            }
            OpenError::Unreadable(message) => message.clone(),
        }
    }
}

/// A document opened and ready to play.
#[derive(Debug)]
pub struct Document {
    name: String,
    kind: Kind,
    body: Body,
    fingerprint: String,
    diagnostics: Vec<Diagnostic>,
    findings: Vec<Finding>,
}

self_cell::self_cell!(
    /// A playbook and its prepared form (context, fingerprint, anchors), built once when the
    /// document opens and borrowed by every engine of it (decision H16).
    struct Prepared {
        owner: Playbook,
        #[covariant]
        dependent: PreparedPlaybook,
    }
    impl {Debug}
);

#[derive(Debug)]
enum Body {
    Playbook(Prepared),
    ChatMapper { project: Box<Project>, options: stagehand_chatmapper::Options, world: Option<(String, String)> },
    Machine(Box<Machine>),
}

impl Document {
    /// Opens `bytes`, named `name` (a file name: `.md` makes a script), as the kind the name and
    /// bytes say ([`mod@crate::kind`]): a script is compiled (warnings are kept in
    /// [`diagnostics`](Self::diagnostics)), a playbook read (JSON or binary) and checked, a
    /// ChatMapper export loaded and its engine built once to prove it plays.
    pub fn open(name: &str, bytes: &[u8], options: &OpenOptions) -> Result<Document, OpenError> {
        let kind = crate::kind(std::path::Path::new(name), bytes);
        Self::open_as(kind, name, bytes, options)
    }

    /// Opens `bytes` as a document of `kind`, whatever its name.
    pub fn open_as(kind: Kind, name: &str, bytes: &[u8], options: &OpenOptions) -> Result<Document, OpenError> {
        let unreadable = |e: &dyn fmt::Display| OpenError::Unreadable(format!("{name}: {e}"));
        let check = options.check;
        let (body, diagnostics, findings) = match kind {
            Kind::Script => {
                let text = std::str::from_utf8(bytes).map_err(|e| unreadable(&format!("not UTF-8 text: {e}")))?;
                let mut compilation = compile(text, name, &options.compile);
                match compilation.playbook.take() {
                    Some(playbook) if !compilation.has_errors() => {
                        let found = if check {
                            crate::check::compiled_findings(name, text, &playbook, &compilation.node_offsets)
                        } else {
                            Vec::new()
                        };
                        (prepare(playbook), compilation.diagnostics, found)
                    }
                    _ => return Err(OpenError::Compile { diagnostics: compilation.diagnostics }),
                }
            }
            Kind::Playbook => {
                let playbook = read_playbook(name, bytes)?;
                let found = if check { crate::check::playbook_findings(name, &playbook) } else { Vec::new() };
                (prepare(playbook), Vec::new(), found)
            }
            Kind::ChatMapper => {
                // The loader's errors name the file already.
                let project =
                    stagehand_chatmapper::load(bytes, name).map_err(|e| OpenError::Unreadable(e.to_string()))?;
                let found = if check { crate::check::project_findings(name, &project) } else { Vec::new() };
                let body = Body::ChatMapper {
                    project: Box::new(project),
                    options: options.chatmapper,
                    world: options.lua_world.clone(),
                };
                (body, Vec::new(), found)
            }
            Kind::Machine => {
                let machine = read_machine(name, bytes)?;
                let found = if check { crate::check::machine_findings(name, &machine) } else { Vec::new() };
                (Body::Machine(Box::new(machine)), Vec::new(), found)
            }
        };
        let fingerprint = match &body {
            Body::Playbook(prepared) => prepared.borrow_dependent().fingerprint().to_owned(),
            Body::ChatMapper { .. } => {
                use stagehand_protocol::Engine;
                chatmapper_engine(&body, 0).map_err(|e| unreadable(&e))?.fingerprint()
            }
            Body::Machine(_) => {
                use stagehand_protocol::Engine;
                agent_engine(&body, "").map_err(|e| unreadable(&e))?.fingerprint()
            }
        };
        Ok(Document { name: name.to_owned(), kind, body, fingerprint, diagnostics, findings })
    }

    /// The name it was opened under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What kind of document it is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its fingerprint (lowercase hex): a playbook's SHA-256 of its canonical form, a project's
    /// digest. The same document opened twice has the same fingerprint.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// What the compiler said of a script that compiled (warnings, notes); empty for other kinds.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// What checking it found, as `stagehand check` finds it (after a script's
    /// [`diagnostics`](Self::diagnostics)); empty unless it was opened with
    /// [`OpenOptions::check`].
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The playbook, for a script or a playbook.
    pub fn playbook(&self) -> Option<&Playbook> {
        match &self.body {
            Body::Playbook(prepared) => Some(prepared.borrow_owner()),
            Body::ChatMapper { .. } | Body::Machine(_) => None,
        }
    }

    /// The project, for a ChatMapper export.
    pub fn project(&self) -> Option<&Project> {
        match &self.body {
            Body::ChatMapper { project, .. } => Some(project),
            Body::Playbook(_) | Body::Machine(_) => None,
        }
    }

    /// The document's graph drawn in `format`: a script's or playbook's nodes, a machine's
    /// states; `None` for a ChatMapper project (it has no graph to draw).
    pub fn draw(&self, format: crate::Format) -> Option<String> {
        match &self.body {
            Body::Playbook(prepared) => Some(crate::render(prepared.borrow_owner(), format)),
            Body::Machine(machine) => Some(crate::render_machine(machine, format)),
            Body::ChatMapper { .. } => None,
        }
    }

    /// How many places a run can stand at: a playbook's nodes, a project's dialogue entries, a
    /// machine's states. A run that moves past more lines than this without the person acting
    /// has been round some of them again.
    pub fn places(&self) -> usize {
        match &self.body {
            Body::Playbook(prepared) => prepared.borrow_owner().nodes.len(),
            Body::ChatMapper { project, .. } => project.conversations.iter().map(|c| c.entries.len()).sum(),
            Body::Machine(machine) => machine.states.len(),
        }
    }

    /// The machine, for an agent playbook.
    pub fn machine(&self) -> Option<&Machine> {
        match &self.body {
            Body::Machine(machine) => Some(machine),
            Body::Playbook(_) | Body::ChatMapper { .. } => None,
        }
    }

    /// A new session of this document under the id `id`, its random choices drawn from `seed`:
    /// `session.started` is traced and the engine started at its entry.
    pub fn start(&self, id: &str, seed: u64, now: u64) -> Result<Box<dyn AnySession + '_>, HostError> {
        self.start_at(id, seed, None, now)
    }

    /// [`start`](Self::start) at `anchor`: a DialogueDown anchor, a ChatMapper conversation by id
    /// or title. An anchor the engine refuses leaves the session stuck, the refusal in its
    /// opening (decision H40).
    pub fn start_at(
        &self,
        id: &str,
        seed: u64,
        anchor: Option<&str>,
        now: u64,
    ) -> Result<Box<dyn AnySession + '_>, HostError> {
        Ok(match &self.body {
            Body::Playbook(prepared) => {
                let engine = RunnerEngine::with(prepared.borrow_dependent(), seed);
                Box::new(Session::starting_at(engine, id, anchor, now)?)
            }
            Body::ChatMapper { .. } => {
                Box::new(Session::starting_at(chatmapper_engine(&self.body, seed)?, id, anchor, now)?)
            }
            Body::Machine(_) => {
                // The session tells the engine the time of each move, its start included.
                Box::new(Session::starting_at(agent_engine(&self.body, id)?, id, anchor, now)?)
            }
        })
    }

    /// Where a player starts: `start`, a scene's anchor, is for a DialogueDown script or
    /// playbook; `conversation`, by id or title, for a ChatMapper project. The other is refused,
    /// naming the one to use; an agent machine is refused, naming `stagehand run` (decision P16).
    pub fn opening(&self, start: Option<&str>, conversation: Option<&str>) -> Result<Option<String>, String> {
        let name = &self.name;
        match (&self.body, start, conversation) {
            (Body::ChatMapper { .. }, Some(anchor), _) => Err(format!(
                "{name} is a ChatMapper project: name the conversation with --conversation {anchor} (--start is for a scene of a DialogueDown script)"
            )),
            // Its players are agents reached through ports, which only `run` and `serve` bind.
            (Body::Machine(_), _, _) => Err(format!(
                "{name} is an agent machine: its players are agents, so run it with `stagehand run {name} TASK --player NAME=PORT …` (examples/agents/README.md)"
            )),
            (Body::Playbook(_), _, Some(_)) => Err(format!(
                "{name} is a DialogueDown script or playbook: --conversation is for ChatMapper projects (start at a scene with --start)"
            )),
            (_, start, conversation) => Ok(start.or(conversation).map(str::to_owned)),
        }
    }

    /// Whether what the document asks is its question to the person playing (a ChatMapper input
    /// prompt, `[?Name]`) rather than a key for a world: a player puts it to the person even
    /// when the input is piped (decision P1).
    pub fn asks_the_person(&self) -> bool {
        matches!(self.body, Body::ChatMapper { .. })
    }

    /// What a save of a playthrough of this document is of (its key and how it names the
    /// document).
    pub fn save_kind(&self) -> SaveKind {
        match self.body {
            Body::Playbook(_) | Body::Machine(_) => SaveKind::Script,
            Body::ChatMapper { .. } => SaveKind::Project,
        }
    }

    /// Where `session` (a session of this document) stands and why each way out is or is not
    /// open, in words, a line each (the terminal player's `:why`). It takes a snapshot of the
    /// session, so it is for a person's command, not for every turn.
    pub fn why(&self, session: &mut dyn AnySession) -> String {
        let Ok(snapshot) = session.snapshot_value() else {
            return "The session could not be read.\n".to_owned();
        };
        let explained = match &self.body {
            Body::Playbook(prepared) => crate::why::playbook(prepared.borrow_owner(), &snapshot),
            Body::ChatMapper { .. } => {
                chatmapper_engine(&self.body, 0).ok().and_then(|engine| crate::why::project(engine, session, &snapshot))
            }
            Body::Machine(_) => None,
        };
        explained.unwrap_or_else(|| format!("{}\n", session.describe().description))
    }

    /// A session of another version of this document put back by replaying its journal on a
    /// fresh engine seeded with `seed` ([`Session::replayed`]): for a snapshot whose fingerprint
    /// is not this document's, or whose engine state another version spelled (P19). A move this
    /// version refuses is an error naming the step. An agent machine's run is not replayed (its
    /// moves are port answers to calls the edited machine may not make).
    pub fn replay(&self, snapshot: Value, seed: u64) -> Result<Box<dyn AnySession + '_>, HostError> {
        Ok(match &self.body {
            Body::Playbook(prepared) => {
                let snapshot = moves_of(snapshot)?;
                Box::new(Session::replayed_moves(RunnerEngine::with(prepared.borrow_dependent(), seed), snapshot)?)
            }
            Body::ChatMapper { .. } => {
                let snapshot = moves_of(snapshot)?;
                Box::new(Session::replayed_moves(chatmapper_engine(&self.body, seed)?, snapshot)?)
            }
            Body::Machine(_) => {
                return Err(HostError::Mismatch("an agent machine's run is not replayed into an edited machine".into()))
            }
        })
    }

    /// A session of this document put back from its snapshot ([`AnySession::snapshot_value`]):
    /// no `session.started`, its trace continues. A snapshot of another document, or of another
    /// shape, is refused with the reason.
    pub fn restore(&self, snapshot: Value) -> Result<Box<dyn AnySession + '_>, HostError> {
        Ok(match &self.body {
            Body::Playbook(prepared) => {
                let snapshot = snapshot_of::<RunnerEngine<'_>>(snapshot)?;
                Box::new(Session::restore(RunnerEngine::with(prepared.borrow_dependent(), 0), snapshot)?)
            }
            Body::ChatMapper { .. } => {
                let snapshot = snapshot_of::<ChatMapperEngine>(snapshot)?;
                Box::new(Session::restore(chatmapper_engine(&self.body, 0)?, snapshot)?)
            }
            Body::Machine(_) => {
                let snapshot = snapshot_of::<AgentEngine>(snapshot)?;
                Box::new(Session::restore(agent_engine(&self.body, &snapshot.session_id)?, snapshot)?)
            }
        })
    }
}

/// A playbook's body: prepared once, so making an engine of it costs nothing that grows with it.
fn prepare(playbook: Playbook) -> Body {
    Body::Playbook(Prepared::new(playbook, |playbook| PreparedPlaybook::new(playbook)))
}

/// The engine of a ChatMapper body, with its world if it has one.
fn chatmapper_engine(body: &Body, seed: u64) -> Result<ChatMapperEngine, stagehand_protocol::EngineError> {
    let Body::ChatMapper { project, options, world } = body else {
        return Err(stagehand_protocol::EngineError::new("not a ChatMapper project"));
    };
    let options = stagehand_chatmapper::Options { seed, ..*options };
    match world {
        Some((name, source)) => ChatMapperEngine::with_world(Project::clone(project), options, name, source),
        None => ChatMapperEngine::new(Project::clone(project), options),
    }
    .map_err(|e| stagehand_protocol::EngineError::new(e.to_string()))
}

/// The engine of an agent machine's body, in the session `id`.
fn agent_engine(body: &Body, id: &str) -> Result<AgentEngine, stagehand_protocol::EngineError> {
    let Body::Machine(machine) = body else {
        return Err(stagehand_protocol::EngineError::new("not an agent machine"));
    };
    AgentEngine::new(Machine::clone(machine), stagehand_agents::runtime::Options::default(), id)
        .map_err(|e| stagehand_protocol::EngineError::new(e.to_string()))
}

/// Reads an agent machine in its JSON or TOML form (TOML by a `.toml` name), naming the file,
/// the rule and the JSON path it refused at.
fn read_machine(name: &str, bytes: &[u8]) -> Result<Machine, OpenError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| OpenError::Unreadable(format!("{name}: not an agent machine: not UTF-8 text: {e}")))?;
    let text = text.trim_start_matches('\u{feff}');
    let read = if name.to_ascii_lowercase().ends_with(".toml") {
        stagehand_agents::machine::read_toml(text)
    } else {
        stagehand_agents::machine::read_json(text)
    };
    read.map_err(|refusal| OpenError::Unreadable(format!("{name}: not an agent machine: {refusal}")))
}

/// Reads a playbook in either form, naming the file (and the line and column, for JSON).
fn read_playbook(name: &str, bytes: &[u8]) -> Result<Playbook, OpenError> {
    playbook_from(bytes).map_err(|refused| match refused.place {
        Some((line, column)) => {
            OpenError::Unreadable(format!("{name}:{line}:{column}: not a playbook: {}", refused.message))
        }
        None => OpenError::Unreadable(format!("{name}: not a playbook: {}", refused.message)),
    })
}

/// Why bytes are not a playbook, and where in the JSON when the reader says.
pub(crate) struct NotAPlaybook {
    /// The line and column of a JSON syntax error.
    pub place: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

/// A playbook in either form (binary, or UTF-8 JSON after an optional byte-order mark): the one
/// reading every command shares, so `check` passes what `play` plays and refuses what it refuses.
pub(crate) fn playbook_from(bytes: &[u8]) -> Result<Playbook, NotAPlaybook> {
    let refused = |message: String| NotAPlaybook { place: None, message };
    if stagehand_playbook::is_binary(bytes) {
        return stagehand_playbook::read_binary(bytes).map_err(|e| refused(e.to_string()));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| refused(format!("not UTF-8 text: {e}")))?;
    stagehand_playbook::read(text.trim_start_matches('\u{feff}')).map_err(|e| match e {
        // serde_json counts a column 0 at an empty line's end; the reader's places count from 1.
        stagehand_playbook::ReadError::Syntax { line, column, message } if line > 0 => {
            NotAPlaybook { place: Some((line, column.max(1))), message }
        }
        other => refused(other.to_string()),
    })
}

/// What kind `bytes` are when their content alone says so, else a script (as `stagehand compile`
/// takes text it does not recognise): the rule for documents that come without a file name.
pub fn kind_of_content(bytes: &[u8]) -> Kind {
    recognised(bytes).unwrap_or(Kind::Script)
}
