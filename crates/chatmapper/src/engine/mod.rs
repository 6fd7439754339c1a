//! The ChatMapper engine: plays a [`Project`] as the "Runtime semantics" page says, behind the
//! runner's protocol ([`Command`] in, [`OwnedEvent`]s out).
//!
//! | Module | Owns |
//! | --- | --- |
//! | this one | the engine, its options, its log, `observe`, snapshots |
//! | `index` | what is read off the project once: nodes, resolved links, priority groups, compiled chunks |
//! | `offered` | the offered set in the page's four steps |
//! | `entering` | entering a node, the walk (play, menu or end), the runaway guard, rendering speech |
//! | `protocol` | the matrix: which command is taken where, and the refusals |
//! | `status` | SimStatus, kept in Lua's `Conversation[c].Dialog[d].SimStatus` |
//! | `environment` | the Lua surface: asset tables, `Variable`, `Conversation`, `Dialog`, the status functions |
//! | `state` | where the run stands, as data |
//!
//! # The protocol
//!
//! - `start` names a conversation by ID (an anchor that is a whole number matching a
//!   conversation's ID) or else by Title; with no anchor it is the first conversation in the
//!   document. An unknown one is refused `no-such-anchor`; one whose root's condition is false (or
//!   that has no start entry) is refused `cannot-start`. `start` is legal anywhere: it begins that
//!   conversation keeping variables and statuses (a trigger from the host, in the page's words).
//!   The playthrough itself (tables, Initial Values, the project script) was set up once, by
//!   [`ChatMapperEngine::new`].
//! - Each non-empty `|` segment of a line is one `said`, naming the speaker (the entry's `Actor`
//!   field's actor's Name), and waits for `next`. `[em1]`/`[em3]` render as bold, `[em2]`/`[em4]`
//!   as italic.
//! - A menu is `offer { ordered: true }` with every option available, answered by `choose`. An
//!   option is labelled by its Menu Text (`[f]`, `[a]` and pictures stripped, `[var=…]`
//!   substituted), or by its Dialogue Text when that says nothing (`[f]` alone: decision M27).
//! - An input prompt (`[?Name]`, `[var=?Name]`) is `resolve [Name]` (every prompt of the line, in
//!   order), answered by `supply {Name: words}`; the answer is stored in `Variable[lua_key(Name)]`
//!   and the line is then said.
//! - `ended` when the offered set is empty.
//! - The runaway guard: more than [`Options::max_automatic_advances`] entries entered without a
//!   player decision (`choose`, `supply` or `start`) is refused `endless-loop`, and the
//!   conversation stops there ([`ChatMapperEngine::is_finished`] is then true). A ring of groups
//!   (groups that expand into each other) is refused `endless-loop` the same way (decision M10),
//!   and so is a ring of false Passthrough entries that put each other in their place (M18).
//! - Everything else is refused: `next` before `start` (`not-started`), after the end
//!   (`already-ended`), anything out of place (`misplaced`), a `choose` outside the menu
//!   (`no-such-option`), a `supply` missing or adding keys or giving a non-text answer
//!   (`unanswered-key`, `unasked-key`, `wrong-answer-kind`).
//!
//! A script or condition that fails (a Lua error, the instruction budget, the memory cap) is logged
//! ([`ChatMapperEngine::take_log`]) and play goes on; a failed condition counts as true.

mod entering;
mod environment;
mod index;
mod offered;
mod protocol;
mod seam;
mod state;
mod status;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use stagehand_lua::{format_number, Key, Limits, Sandbox, ScriptError, ScriptHost, SnapshotKey, SnapshotValue, Value};
use stagehand_runner::{Command, OwnedEvent};

use crate::model::{Id, Project};

use index::Index;
use state::{Situation, State};

pub use status::SimStatus;

/// How many lines the engine's log keeps between two [`ChatMapperEngine::take_log`] calls; later
/// lines are counted and dropped (a condition failing on every step must not grow memory forever).
pub const MAX_LOG_LINES: usize = 10_000;

/// The engine's log of diagnostics: failed conditions and scripts, links to nothing, `print`.
#[derive(Debug, Default)]
pub(crate) struct Log {
    lines: Vec<String>,
    dropped: usize,
}

impl Log {
    /// Adds a line, or counts it as dropped when the log is full.
    pub(crate) fn push(&mut self, line: String) {
        if self.lines.len() < MAX_LOG_LINES {
            self.lines.push(line);
        } else {
            self.dropped += 1;
        }
    }

    /// Takes every line, ending with a note of how many were dropped, if any.
    fn take(&mut self) -> Vec<String> {
        let mut lines = std::mem::take(&mut self.lines);
        if self.dropped > 0 {
            lines.push(format!("{} more lines were dropped: the log keeps {MAX_LOG_LINES}", self.dropped));
            self.dropped = 0;
        }
        lines
    }
}

/// How an engine is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// The Lua host's limits: instructions per condition or script, and memory. With
    /// [`ChatMapperEngine::new`] the memory cap is an allowance beyond what the project's own tables
    /// and compiled chunks take (16 MiB by default).
    pub limits: Limits,
    /// The seed of `math.random`.
    pub seed: u64,
    /// The runaway guard: how many entries may be entered automatically (lines played and single
    /// choices played through) since the player last decided, before the engine reports a
    /// possible loop.
    pub max_automatic_advances: usize,
    /// A compatibility option, off by default (decision M11). The page makes an entry a player
    /// choice only when its Menu Text is non-empty, so an entry of the player actor (an actor whose
    /// `IsPlayer` is true) with Dialogue Text and no Menu Text is a line that plays by itself.
    /// Some projects write their branches that way; with this option such entries are player
    /// choices too, labelled in menus by their Dialogue Text (its segments joined by spaces). The
    /// CLI's `--player-lines-as-choices` sets it, and `check` warns where it would matter.
    #[serde(default)]
    pub player_lines_as_choices: bool,
}

impl Default for Options {
    /// The host's default limits, seed 0, 10,000 automatic advances, and the page's rule for
    /// choices.
    fn default() -> Self {
        Options { limits: Limits::default(), seed: 0, max_automatic_advances: 10_000, player_lines_as_choices: false }
    }
}

impl Options {
    /// The default options with this seed.
    pub fn seeded(seed: u64) -> Self {
        Options { seed, ..Options::default() }
    }
}

/// Why an engine could not be made, or a snapshot not taken or restored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The Lua host failed (creating it, building the tables, or saving or restoring them).
    #[error("the Lua host failed: {0}")]
    Host(#[from] ScriptError),
    /// The snapshot was taken of another project (or was altered).
    #[error("the snapshot does not fit this project: {0}")]
    Mismatch(String),
}

/// A conversation entry, by the IDs the project gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EntryRef {
    /// The conversation's ID.
    pub conversation: Id,
    /// The entry's ID within it.
    pub entry: Id,
}

/// A saved playthrough: where the run stands, the current conversation, the menu's options with
/// the group scripts they carry, deferred statuses, the Lua globals that hold data (variables,
/// assets, statuses, relationships, any global a script made) and the random generator's state.
/// Plain data: serialize it for a save, [`ChatMapperEngine::restore`] it on an engine of the same
/// project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    state: State,
    lua: stagehand_lua::Snapshot,
    rng: u64,
    nodes: usize,
}

/// Plays one ChatMapper project: one playthrough, any number of conversations.
pub struct ChatMapperEngine {
    project: Project,
    index: Index,
    host: Box<dyn ScriptHost>,
    state: State,
    log: Log,
    options: Options,
    /// The memory cap [`new`](ChatMapperEngine::new) set: the project's own data plus the
    /// allowance. A restore lifts it while the saved tables replace the live ones, then sets it
    /// again.
    cap: Option<usize>,
}

impl std::fmt::Debug for ChatMapperEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatMapperEngine")
            .field("project", &self.project.title)
            .field("state", &self.state)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ChatMapperEngine {
    /// Starts a playthrough of `project` in a fresh [`Sandbox`]: compiles every condition and
    /// script once, creates the tables, seeds the variables from their Initial Values and runs the
    /// project script (an error there is logged).
    ///
    /// The memory cap ([`Limits::memory_bytes`]) is an allowance for what scripts add: the tables
    /// and chunks of the project itself are made first, uncapped (they are bounded by the project,
    /// already in memory), and the cap is then set to what they use plus the allowance (decision
    /// M14). So a project of any size plays, and a script that hoards memory is still stopped.
    pub fn new(project: Project, options: Options) -> Result<Self, EngineError> {
        Self::build(project, options, None)
    }

    /// As [`new`](Self::new), with a world: a Lua chunk the game supplies (`name` labels its
    /// errors), run once in the same sandbox after the ChatMapper tables are made and before the
    /// project script, so the functions and tables it defines (`game.has_item`, `Quest`) are
    /// visible to every condition and script. Its data globals are saved in snapshots like any
    /// other; its functions are code and survive restores. A world that fails to load is an error.
    pub fn with_world(project: Project, options: Options, name: &str, source: &str) -> Result<Self, EngineError> {
        Self::build(project, options, Some((name, source)))
    }

    fn build(project: Project, options: Options, world: Option<(&str, &str)>) -> Result<Self, EngineError> {
        let mut host = Sandbox::new(Limits { memory_bytes: 0, ..options.limits }, options.seed)?;
        let index = Self::prepare(&project, &mut host, &options)?;
        let mut cap = None;
        if options.limits.memory_bytes > 0 {
            host.set_memory_cap(0)?;
            let bytes = host.used_memory().saturating_add(options.limits.memory_bytes);
            host.set_memory_cap(bytes)?;
            cap = Some(bytes);
        }
        if let Some((name, source)) = world {
            host.load(name, source)?;
        }
        let mut engine = Self::finish(project, index, Box::new(host), options);
        engine.cap = cap;
        Ok(engine)
    }

    /// As [`new`](Self::new), on a host of the caller's (its limits and seed are the caller's:
    /// its memory cap counts the project's own tables too).
    pub fn with_host(project: Project, mut host: Box<dyn ScriptHost>, options: Options) -> Result<Self, EngineError> {
        let index = Self::prepare(&project, host.as_mut(), &options)?;
        Ok(Self::finish(project, index, host, options))
    }

    /// Creates the tables and compiles every condition and script.
    fn prepare(project: &Project, host: &mut dyn ScriptHost, options: &Options) -> Result<Index, EngineError> {
        environment::create(host, project)?;
        Ok(Index::build(project, host, options.player_lines_as_choices))
    }

    /// Runs the project script and makes the engine.
    fn finish(project: Project, index: Index, mut host: Box<dyn ScriptHost>, options: Options) -> Self {
        let mut log = Log::default();
        if !project.user_script.trim().is_empty() {
            if let Err(error) = host.load("project script", &project.user_script) {
                log.push(format!("the project script failed: {error}"));
            }
        }
        let mut engine = ChatMapperEngine { project, index, host, state: State::new(), log, options, cap: None };
        engine.drain_print();
        engine
    }

    /// Takes one command and reports what it did. Never panics; a command that does not fit is
    /// refused.
    pub fn send(&mut self, command: Command<'_>) -> Vec<OwnedEvent> {
        let mut events = Vec::new();
        self.step(command, &mut events);
        self.drain_print();
        events
    }

    /// Whether the current conversation has ended (or was stopped by the runaway guard).
    pub fn is_finished(&self) -> bool {
        matches!(self.state.situation, Situation::Ended | Situation::Halted)
    }

    /// Takes the diagnostics logged since the last call (at most [`MAX_LOG_LINES`], then a note of
    /// how many were dropped): conditions that could not be evaluated,
    /// scripts that failed or were stopped, links to nothing, and the output of Lua's `print`.
    pub fn take_log(&mut self) -> Vec<String> {
        self.drain_print();
        self.log.take()
    }

    /// The project being played.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The options the engine was made with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The value of `Variable[lua_key(name)]` (nil when unset or not a scalar).
    pub fn variable(&self, name: &str) -> Value {
        environment::read_variable(self.host.as_ref(), name).unwrap_or(Value::Nil)
    }

    /// An entry's SimStatus, or `None` when the entry does not exist or a script wrote something
    /// that is not a status.
    pub fn status(&self, conversation: Id, entry: Id) -> Option<SimStatus> {
        self.index.find(conversation, entry)?;
        match status::read(self.host.as_ref(), conversation, entry) {
            Value::String(s) => SimStatus::parse(&s),
            _ => None,
        }
    }

    /// The offered set from an entry now (running conditions, but entering nothing and marking
    /// nothing), or `None` when the entry does not exist.
    pub fn offered(&mut self, conversation: Id, entry: Id) -> Option<Vec<EntryRef>> {
        let from = self.index.find(conversation, entry)?;
        let offered = offered::offered(&self.index, self.host.as_mut(), &mut self.log, from);
        Some(offered.offered.into_iter().map(|o| self.entry_ref(o.node)).collect())
    }

    /// The candidates whose conditions were false when the engine last computed an offered set
    /// (the menu now shown, the line now said, or the end), in the order they were met: the
    /// options a menu left out because their conditions closed them. Nothing is evaluated again.
    pub fn closed(&self) -> Vec<EntryRef> {
        self.state.closed.iter().map(|&n| self.entry_ref(n)).collect()
    }

    /// The words a menu would show for an entry now, as plain text (emphasis as its words): its
    /// Menu Text with `[f]`, `[a]`, pictures and prompts stripped and `[var=…]` substituted, or its
    /// Dialogue Text where that says nothing (M27) or the entry is a player line offered as a
    /// choice (M11). `None` when the entry does not exist or would not be offered as a choice.
    pub fn label(&self, conversation: Id, entry: Id) -> Option<String> {
        let node = self.index.find(conversation, entry)?;
        if !self.index.nodes[node].is_choice {
            return None;
        }
        Some(crate::markup::spans(&self.label_of(node)).into_iter().map(|span| span.text).collect())
    }

    /// Whether an entry's condition holds now (empty and unevaluable conditions hold), or `None`
    /// when the entry does not exist.
    pub fn condition_holds(&mut self, conversation: Id, entry: Id) -> Option<bool> {
        let node = self.index.find(conversation, entry)?;
        Some(offered::holds(&self.index.nodes[node], self.host.as_mut(), &mut self.log))
    }

    /// The engine's state for conformance claims, as JSON:
    ///
    /// ```json
    /// {"variables": {"<lua key>": <value>, ...},
    ///  "simStatus": {"<conversation ID>": {"<entry ID>": "Untouched" | "WasOffered" | "WasDisplayed", ...}, ...}}
    /// ```
    ///
    /// `variables` holds the whole `Variable` table (booleans, numbers, strings; a nested table as an
    /// object); `simStatus` every entry of every conversation, as Lua holds it.
    pub fn observe(&self) -> Json {
        let variables = match self.host.snapshot(&["Variable"]) {
            Ok(snapshot) => snapshot.globals.get("Variable").map_or(Json::Null, to_json),
            Err(error) => Json::String(format!("unreadable: {error}")),
        };
        let mut statuses = Map::new();
        for conversation in &self.project.conversations {
            let mut entries = Map::new();
            for entry in &conversation.entries {
                let value = match status::read(self.host.as_ref(), conversation.id, entry.id) {
                    Value::String(s) => Json::String(s),
                    Value::Nil => Json::Null,
                    other => Json::String(other.to_string()),
                };
                entries.insert(entry.id.to_string(), value);
            }
            statuses.insert(conversation.id.to_string(), Json::Object(entries));
        }
        let mut out = Map::new();
        out.insert("variables".into(), variables);
        out.insert("simStatus".into(), Json::Object(statuses));
        Json::Object(out)
    }

    /// Saves the playthrough. (It takes `&mut self` because it asks Lua which globals hold data;
    /// nothing changes.)
    pub fn snapshot(&mut self) -> Result<Snapshot, EngineError> {
        let names = self.data_globals()?;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let lua = self.host.snapshot(&names)?;
        Ok(Snapshot { state: self.state.clone(), lua, rng: self.host.rng_state(), nodes: self.index.nodes.len() })
    }

    /// Puts a saved playthrough back: Lua's data globals (globals made since are removed), the
    /// random generator, and where the run stood. The log is left as it is.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), EngineError> {
        self.check_fits(snapshot)?;
        // What the project script printed as this engine was made was said when the
        // playthrough began; the restored playthrough does not say it again (M21).
        self.drain_print();
        self.log.take();
        let now = self.data_globals()?;
        if self.cap.is_some() {
            self.host.set_memory_cap(0)?;
        }
        let restored = self.host.restore(&snapshot.lua);
        if let Some(cap) = self.cap {
            self.host.set_memory_cap(cap)?;
        }
        restored?;
        for name in now.iter().filter(|n| !snapshot.lua.globals.contains_key(n.as_str())) {
            self.host.set(&[Key::Name(name)], Value::Nil)?;
        }
        environment::load_surface(self.host.as_mut())?;
        self.host.set_rng_state(snapshot.rng);
        self.state = snapshot.state.clone();
        if let Some(c) = self.state.conversation {
            let id = self.project.conversations[c].id;
            self.host.call(environment::ENTER, &[Value::Number(id as f64)])?;
        }
        Ok(())
    }

    fn check_fits(&self, snapshot: &Snapshot) -> Result<(), EngineError> {
        let count = self.index.nodes.len();
        let mismatch = |what: &str| Err(EngineError::Mismatch(what.to_owned()));
        if snapshot.nodes != count {
            return mismatch("it was taken of a project with another number of entries");
        }
        let state = &snapshot.state;
        let mut nodes: Vec<usize> = state.deferred.iter().chain(&state.closed).copied().collect();
        match &state.situation {
            Situation::Speaking { node, .. } | Situation::Asking { node, .. } => nodes.push(*node),
            Situation::Choosing { options } => {
                nodes.extend(options.iter().flat_map(|o| std::iter::once(o.node).chain(o.carried.iter().copied())))
            }
            Situation::NotStarted | Situation::Ended | Situation::Halted => {}
        }
        if nodes.iter().any(|&n| n >= count) {
            return mismatch("it names an entry the project does not have");
        }
        if state.conversation.is_some_and(|c| c >= self.project.conversations.len()) {
            return mismatch("it names a conversation the project does not have");
        }
        Ok(())
    }

    /// The globals that hold data, listed by the surface's helper.
    fn data_globals(&mut self) -> Result<Vec<String>, EngineError> {
        let listed = match self.host.call(environment::GLOBALS, &[])? {
            Value::String(s) => s,
            _ => String::new(),
        };
        Ok(listed.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect())
    }

    fn entry_ref(&self, node: usize) -> EntryRef {
        let node = &self.index.nodes[node];
        EntryRef { conversation: node.conversation_id, entry: node.entry_id }
    }

    fn drain_print(&mut self) {
        for line in self.host.take_log() {
            self.log.push(format!("print: {line}"));
        }
    }
}

/// A snapshot value as JSON: tables become objects keyed by their keys' `tostring`.
fn to_json(value: &SnapshotValue) -> Json {
    match value {
        SnapshotValue::Nil => Json::Null,
        SnapshotValue::Boolean(b) => Json::Bool(*b),
        SnapshotValue::Number(n) => {
            serde_json::Number::from_f64(*n).map_or_else(|| Json::String(format_number(*n)), Json::Number)
        }
        SnapshotValue::String(s) => Json::String(s.clone()),
        SnapshotValue::Table(entries) => {
            let mut map = Map::new();
            for entry in entries {
                let key = match &entry.key {
                    SnapshotKey::Boolean(b) => b.to_string(),
                    SnapshotKey::Number(n) => format_number(*n),
                    SnapshotKey::String(s) => s.clone(),
                };
                map.insert(key, to_json(&entry.value));
            }
            Json::Object(map)
        }
    }
}
