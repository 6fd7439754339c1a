//! A ChatMapper project played by a person: [`ChatMapperRun`] plays an XML or JSON export on a
//! [`ChatMapperEngine`] behind the same [`Playable`] seam as a DialogueDown session, so the
//! terminal player (and any host) drives both kinds alike.
//!
//! - The engine's input prompts (`resolve`, words) are answered by the [`World`] (in a terminal,
//!   the person), then `supply`d; the answers are journalled as the world's.
//! - ChatMapper never asks the host to perform anything, so there is nothing to retry.
//! - Undo and load **replay**: a fresh engine is built from the project and the seed and the
//!   journal is sent to it again. A `start` after the first (`:start CONVERSATION`) begins that
//!   conversation in the same playthrough, keeping variables and statuses; `:restart` begins a
//!   fresh playthrough with a fresh journal. Nothing is ever undone by inverse effects.
//! - A Lua world (`--world FILE.lua`) also runs in the project's sandbox, so the functions and
//!   tables it defines are visible to the project's conditions and scripts.
//! - A save holds a version, the SHA-256 of the project's bytes, the seed and the journal. Loading
//!   replays the journal; into another version of the project it is refused at the first step the
//!   story no longer accepts (or where the option taken has moved).
//! - What the engine logs (scripts and conditions that failed, Lua's `print`) is shown to the
//!   person as log lines.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use stagehand_chatmapper::{ChatMapperEngine, Options, Project};
use stagehand_playbook::{plain_text, Fingerprint, Fragment};
use stagehand_runner::{AnswerKind, Command, OwnedEvent, RefusalReason};
use stagehand_session::{
    ask_world, capitalized, opening, option_label, refusal_explanation, same_option, undo_point, Entry, EntryWire,
    Happening, LoadError, Loaded, Playable, Record, ReplayError, SaveError, Waiting, World, WorldError, SAVE_VERSION,
};

/// The key that marks a ChatMapper save and holds its format version.
const SAVE_KEY: &str = "stagehand-chatmapper-save";

/// A world's Lua chunk, run in the project's sandbox by every engine of a run.
#[derive(Debug, Clone)]
pub struct WorldChunk {
    /// The file's name, for its errors.
    pub name: String,
    /// Its source.
    pub source: String,
}

/// A run of a ChatMapper project: the engine, the journal of every command it accepted, and what
/// the front-end needs to know about where it stands.
pub struct ChatMapperRun {
    /// The file's name, for people.
    name: String,
    /// SHA-256 of the project's bytes.
    fingerprint: Fingerprint,
    /// The options the engine was made with (a save's seed replaces theirs).
    options: Options,
    /// The project as read, to build fresh engines from.
    project: Project,
    /// The world chunk every engine runs, if any.
    world: Option<WorldChunk>,
    /// The playthrough.
    core: Core,
}

impl ChatMapperRun {
    /// Reads a project from a file's bytes into a run that has not started.
    #[cfg(test)]
    pub fn open(bytes: &[u8], name: &str, options: Options) -> Result<ChatMapperRun, String> {
        Self::open_in(bytes, name, options, None)
    }

    /// As `open`, with a world chunk every engine of the run runs.
    pub fn open_in(
        bytes: &[u8],
        name: &str,
        options: Options,
        world: Option<WorldChunk>,
    ) -> Result<ChatMapperRun, String> {
        let project = stagehand_chatmapper::load(bytes, name).map_err(|e| e.to_string())?;
        let fingerprint = Fingerprint(Sha256::digest(bytes).into());
        let core = Core::new(&project, options, world.as_ref()).map_err(|e| format!("{name}: {e}"))?;
        Ok(ChatMapperRun { name: name.to_owned(), fingerprint, options, project, world, core })
    }

    /// Lets the world answer the engine's input prompt, if one waits.
    fn serve(&mut self, world: &mut dyn World, out: &mut Vec<Happening>) -> Option<Entry> {
        if self.core.asking.is_empty() {
            return None;
        }
        let answers = ask_world(&self.core.asking, world, out);
        Some(Entry::world(Command::Supply(answers)))
    }

    /// Replays `entries` on a fresh engine (the world reset first).
    fn replay(&self, options: Options, entries: &[Entry], world: &mut dyn World) -> Result<Core, ReplayError> {
        world.reset()?;
        let mut core = Core::new(&self.project, options, self.world.as_ref()).map_err(|e| ReplayError::Diverged {
            step: 1,
            command: "start".into(),
            explanation: format!("the engine could not be made: {e}"),
        })?;
        for (index, entry) in entries.iter().enumerate() {
            let diverged = |explanation: String| ReplayError::Diverged {
                step: index + 1,
                command: entry.to_string(),
                explanation,
            };
            if let (Command::Choose(position), Some(expected)) = (&entry.command, &entry.label) {
                if let Some(options) = &core.offer {
                    same_option(expected, *position, option_label(options, *position)).map_err(diverged)?;
                }
            }
            if let Err(events) = core.apply(entry.clone()) {
                return Err(diverged(refusal_explanation(&events)));
            }
        }
        core.engine.get_mut().take_log();
        world.take_log();
        Ok(core)
    }

    /// Where the run stands, read off the engine's snapshot: the current conversation and the
    /// entry speaking or asking, or the entries the menu offers. (The engine has no accessor for
    /// its position; should the snapshot's shape change, `why` says less, not something else.)
    fn position(&self) -> Option<Position> {
        let mut engine = self.core.engine.try_borrow_mut().ok()?;
        let snapshot = serde_json::to_value(engine.snapshot().ok()?).ok()?;
        let state = snapshot.get("state")?;
        let conversation = state.get("conversation").and_then(Json::as_u64).and_then(|c| usize::try_from(c).ok());
        let situation = state.get("situation")?;
        let node = |name: &str| situation.get(name)?.get("node")?.as_u64().and_then(|n| usize::try_from(n).ok());
        let current = node("Speaking").or_else(|| node("Asking"));
        let offered = situation
            .get("Choosing")
            .and_then(|c| c.get("options"))
            .and_then(Json::as_array)
            .map(|options| {
                options.iter().filter_map(|o| o.get("node")?.as_u64().and_then(|n| usize::try_from(n).ok())).collect()
            })
            .unwrap_or_default();
        Some(Position { conversation, current, offered })
    }

    /// An entry named for people, `entry 3 ("Accept the token") of conversation 1 ("The Crossing")`,
    /// by its node index (the engine numbers entries in document order).
    fn entry_name(&self, node: usize) -> Option<String> {
        let mut rest = node;
        for conversation in &self.project.conversations {
            match conversation.entries.get(rest) {
                Some(entry) => {
                    return Some(format!(
                        "entry {} ({:?}) of conversation {} ({:?})",
                        entry.id,
                        entry.title(),
                        conversation.id,
                        conversation.title()
                    ))
                }
                None => rest -= conversation.entries.len(),
            }
        }
        None
    }
}

impl ChatMapperRun {
    /// The candidates the last offered set left out because their conditions were false, one a
    /// line with its Menu Text (or Title) and its condition; nothing when none were.
    fn closed(&self) -> String {
        let Ok(engine) = self.core.engine.try_borrow() else { return String::new() };
        let closed = engine.closed();
        if closed.is_empty() {
            return String::new();
        }
        let mut out = String::from("Closed by their conditions (false now):\n");
        for place in closed {
            let Some(entry) = self.project.entry(place.conversation, place.entry) else { continue };
            let shown = if entry.menu_text().trim().is_empty() { entry.title() } else { entry.menu_text() };
            let title = self.project.conversation(place.conversation).map_or("", |c| c.title());
            out.push_str(&format!(
                "  - {:?}: entry {} of conversation {} ({title:?}), condition {}\n",
                shown.trim(),
                place.entry,
                place.conversation,
                entry.conditions.trim()
            ));
        }
        out
    }
}

/// Where the engine stands, as its snapshot says.
struct Position {
    /// The current conversation, by index.
    conversation: Option<usize>,
    /// The entry speaking or asking, by node index (document order).
    current: Option<usize>,
    /// The entries the menu offers, by node index.
    offered: Vec<usize>,
}

/// A playthrough: the engine, the journal and transcript, and what it waits for.
struct Core {
    /// The engine (in a cell so that `why` can ask it for a snapshot).
    engine: RefCell<ChatMapperEngine>,
    journal: Vec<Entry>,
    transcript: Vec<Record>,
    waiting: Waiting,
    /// The input prompt's questions while the engine waits for `supply`.
    asking: Vec<(String, AnswerKind)>,
    /// The last menu offered.
    offer: Option<Vec<(Vec<Fragment>, bool)>>,
}

impl Core {
    fn new(
        project: &Project,
        options: Options,
        world: Option<&WorldChunk>,
    ) -> Result<Core, stagehand_chatmapper::EngineError> {
        let engine = match world {
            Some(world) => ChatMapperEngine::with_world(project.clone(), options, &world.name, &world.source)?,
            None => ChatMapperEngine::new(project.clone(), options)?,
        };
        Ok(Core {
            engine: RefCell::new(engine),
            journal: Vec::new(),
            transcript: Vec::new(),
            waiting: Waiting::NotStarted,
            asking: Vec::new(),
            offer: None,
        })
    }

    /// Sends one command. Accepted, it is journalled and its events returned; refused, nothing
    /// changes and the events (with the refusal) come back as the error. A `start` once the run
    /// has begun starts that conversation in the same playthrough, keeping variables and
    /// statuses (decision M15). The runaway guard's `endless-loop` stops the conversation, so that
    /// refusal is journalled like an accepted command.
    fn apply(&mut self, mut entry: Entry) -> Result<Vec<OwnedEvent>, Vec<OwnedEvent>> {
        let engine = self.engine.get_mut();
        let events = engine.send(entry.command.clone());
        let halted = engine.is_finished()
            && events.iter().any(|e| matches!(e, OwnedEvent::Refused { reason: RefusalReason::EndlessLoop, .. }));
        if !halted && events.iter().any(|e| matches!(e, OwnedEvent::Refused { .. })) {
            return Err(events);
        }
        if let (Command::Choose(position), Some(options)) = (&entry.command, &self.offer) {
            entry.label = option_label(options, *position);
        }
        self.asking.clear();
        for event in &events {
            match event {
                OwnedEvent::Said { .. } | OwnedEvent::Continued { .. } => self.waiting = Waiting::Next,
                OwnedEvent::Offer { ordered, options } => {
                    self.offer = Some(options.clone());
                    self.waiting = Waiting::Choice { ordered: *ordered, options: options.clone() };
                }
                OwnedEvent::Ended => self.waiting = Waiting::Ended,
                OwnedEvent::Resolve { questions } => {
                    self.asking = questions.clone();
                    let names: Vec<&str> = questions.iter().map(|(name, _)| name.as_str()).collect();
                    self.waiting =
                        Waiting::Stuck { waiting: format!("an input prompt waits for {}", names.join(", ")) };
                }
                OwnedEvent::Refused { .. } => {
                    self.waiting = Waiting::Stuck { waiting: "the conversation was stopped as a possible loop".into() };
                }
                OwnedEvent::Perform { .. } => {}
            }
        }
        self.transcript.push(Record { entry: entry.clone(), events: events.clone() });
        self.journal.push(entry);
        Ok(events)
    }

    /// What the engine logged since it was last asked, each line once, with how often it came
    /// (a condition that fails in a loop logs the same line on every pass): what the project's
    /// Lua `print`s is for the person, everything else is the engine's diagnostic.
    fn take_log(&mut self) -> Vec<Happening> {
        let mut lines: Vec<(String, usize)> = Vec::new();
        for line in self.engine.get_mut().take_log() {
            match lines.iter_mut().find(|(seen, _)| *seen == line) {
                Some((_, count)) => *count += 1,
                None => lines.push((line, 1)),
            }
        }
        lines
            .into_iter()
            .map(|(line, count)| match (line.strip_prefix("print: "), count) {
                (Some(printed), _) => Happening::Log(printed.to_owned()),
                (None, 1) => Happening::Diagnostic(line),
                (None, n) => Happening::Diagnostic(format!("{line} ({n} times)")),
            })
            .collect()
    }
}

impl Playable for ChatMapperRun {
    fn send(&mut self, command: Command<'static>, world: &mut dyn World) -> Vec<Happening> {
        let mut out = Vec::new();
        let mut next = Some(Entry::player(command));
        while let Some(entry) = next.take() {
            let result = self.core.apply(entry);
            out.extend(self.core.take_log());
            match result {
                Ok(events) => out.extend(events.into_iter().map(Happening::Event)),
                Err(events) => {
                    out.extend(events.into_iter().map(Happening::Event));
                    break;
                }
            }
            next = self.serve(world, &mut out);
        }
        out
    }

    fn retry(&mut self, _world: &mut dyn World) -> Vec<Happening> {
        Vec::new()
    }

    fn undo(&mut self, world: &mut dyn World) -> Result<bool, ReplayError> {
        let Some(kept) = undo_point(&self.core.journal) else { return Ok(false) };
        self.core = self.replay(self.options, &self.core.journal[..kept], world)?;
        Ok(true)
    }

    /// A fresh playthrough (variables and statuses as the project sets them) opened as the run
    /// was; the journal starts again with it.
    fn restart(&mut self, world: &mut dyn World) -> Result<Vec<Happening>, WorldError> {
        let opening = opening(&self.core.journal);
        world.reset()?;
        self.core = Core::new(&self.project, self.options, self.world.as_ref())
            .map_err(|e| WorldError(format!("the engine could not be made afresh: {e}")))?;
        Ok(self.send(opening, world))
    }

    fn waiting(&self) -> Waiting {
        self.core.waiting.clone()
    }

    fn history(&self) -> &[Record] {
        &self.core.transcript
    }

    fn why(&self) -> String {
        let mut out = String::new();
        let position = self.position();
        let conversation = position
            .as_ref()
            .and_then(|p| p.conversation)
            .and_then(|c| self.project.conversations.get(c))
            .map(|c| format!("conversation {} ({:?})", c.id, c.title()));
        let waiting = self.waiting();
        let (conversation, current, offered) = match &position {
            Some(p) => (conversation, p.current.and_then(|n| self.entry_name(n)), p.offered.clone()),
            None => (conversation, None, Vec::new()),
        };
        let place = conversation.clone().unwrap_or_else(|| format!("the project {:?}", self.project.title));
        match &waiting {
            Waiting::NotStarted => out.push_str("No conversation has started.\n"),
            Waiting::Next => {
                let entry = current.unwrap_or_else(|| place.clone());
                out.push_str(&format!("At {entry}: a line is being said; Enter moves on.\n"));
            }
            Waiting::Choice { options, .. } => {
                let count = match options.len() {
                    1 => "one option".to_owned(),
                    n => format!("{n} options"),
                };
                out.push_str(&format!("In {place}: a menu of {count}.\n"));
                out.push_str("The engine offers only the entries whose conditions hold now; these are open:\n");
                for (i, (label, _)) in options.iter().enumerate() {
                    let target = offered.get(i).and_then(|&n| self.entry_name(n));
                    match target {
                        Some(target) => {
                            out.push_str(&format!("  {}. {:?} -> {target}\n", i + 1, plain_text(label).trim()))
                        }
                        None => out.push_str(&format!("  {}. {:?}\n", i + 1, plain_text(label).trim())),
                    }
                }
                out.push_str(&self.closed());
            }
            Waiting::Ended => {
                out.push_str(&format!("{} has ended: nothing more is offered.\n", capitalized(&place)));
                out.push_str(&self.closed());
            }
            Waiting::Stuck { waiting } => {
                let entry = current.unwrap_or(place);
                out.push_str(&format!("At {entry}: the run cannot go on ({waiting}); :undo or :restart.\n"));
            }
            Waiting::Held { .. } => out.push_str("The run holds.\n"),
        }
        out
    }

    fn save_json(&self) -> String {
        let wire = SaveWire {
            version: SAVE_VERSION,
            project: self.name.clone(),
            fingerprint: self.fingerprint.to_hex(),
            seed: self.options.seed,
            journal: self.core.journal.iter().map(EntryWire::from).collect(),
        };
        serde_json::to_string_pretty(&wire).unwrap_or_default() + "\n"
    }

    fn load_json(&mut self, json: &str, world: &mut dyn World) -> Result<Loaded, LoadError> {
        let malformed = |message: String| LoadError::Save(SaveError::Malformed(message));
        let value: Json = serde_json::from_str(json).map_err(|e| malformed(e.to_string()))?;
        if value.get(SAVE_KEY).is_none() {
            let what = if value.get("stagehand-save").is_some() {
                "it is a save of a DialogueDown script, not of a ChatMapper project".to_owned()
            } else {
                format!("it has no {SAVE_KEY:?} version")
            };
            return Err(malformed(what));
        }
        let version = value.get(SAVE_KEY).and_then(Json::as_u64);
        if version != Some(SAVE_VERSION) {
            return Err(LoadError::Save(SaveError::Version(version.unwrap_or(u64::MAX))));
        }
        let wire: SaveWire = serde_json::from_value(value).map_err(|e| malformed(e.to_string()))?;
        let fingerprint = Fingerprint::from_hex(&wire.fingerprint)
            .ok_or_else(|| LoadError::Save(SaveError::Fingerprint(wire.fingerprint.clone())))?;
        let journal: Vec<Entry> = wire.journal.into_iter().map(Entry::from).collect();
        let core = self.replay(Options { seed: wire.seed, ..self.options }, &journal, world)?;
        self.core = core;
        self.options.seed = wire.seed;
        Ok(if fingerprint == self.fingerprint { Loaded::Restored } else { Loaded::Replayed { steps: journal.len() } })
    }
}

/// A ChatMapper save as written:
///
/// ```json
/// {
///   "stagehand-chatmapper-save": 0,
///   "project": "examples/the-crossing.json",
///   "fingerprint": "<SHA-256 of the project's bytes>",
///   "seed": 0,
///   "journal": [
///     { "by": "player", "command": "start" },
///     { "by": "player", "command": "choose", "option": 0, "label": "I'll take the crossing." }
///   ]
/// }
/// ```
#[derive(Serialize, Deserialize)]
struct SaveWire {
    #[serde(rename = "stagehand-chatmapper-save")]
    version: u64,
    project: String,
    fingerprint: String,
    seed: u64,
    journal: Vec<EntryWire>,
}

#[cfg(test)]
mod tests {
    use stagehand_session::NoWorld;

    use super::*;

    fn crossing() -> ChatMapperRun {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/the-crossing.json");
        let bytes = std::fs::read(path).expect("the example");
        ChatMapperRun::open(&bytes, "the-crossing.json", Options::seeded(0)).expect("it opens")
    }

    fn said(happenings: &[Happening]) -> Vec<String> {
        happenings
            .iter()
            .filter_map(|h| match h {
                Happening::Event(OwnedEvent::Said { speech, .. }) => Some(plain_text(speech)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_run_saves_loads_and_undoes_by_replay() {
        let mut run = crossing();
        assert_eq!(run.waiting(), Waiting::NotStarted);
        assert_eq!(said(&run.send(Command::start(), &mut NoWorld)), ["The river runs high tonight."]);
        assert_eq!(said(&run.send(Command::Next, &mut NoWorld)).len(), 1, "the second segment");
        run.send(Command::Next, &mut NoWorld);
        assert!(matches!(run.waiting(), Waiting::Choice { ref options, .. } if options.len() == 2));
        let refused = run.send(Command::Choose(5), &mut NoWorld);
        assert!(matches!(refused[..], [Happening::Event(OwnedEvent::Refused { .. })]), "{refused:?}");
        assert_eq!(run.history().len(), 3, "a refused command is not journalled");
        run.send(Command::Choose(0), &mut NoWorld);
        assert_eq!(run.history()[3].entry.label.as_deref(), Some("I'll take the crossing."));

        let saved = run.save_json();
        let mut again = crossing();
        assert_eq!(again.load_json(&saved, &mut NoWorld), Ok(Loaded::Restored));
        assert_eq!(again.waiting(), run.waiting());
        assert_eq!(again.history(), run.history());

        assert_eq!(run.undo(&mut NoWorld), Ok(true));
        assert!(matches!(run.waiting(), Waiting::Choice { .. }));
        assert_eq!(said(&run.send(Command::Choose(1), &mut NoWorld)), ["I'll wait for morning."]);
        for _ in 0..3 {
            assert_eq!(run.undo(&mut NoWorld), Ok(true));
        }
        assert_eq!(run.undo(&mut NoWorld), Ok(false), "the opening start stays");
        assert!(run.retry(&mut NoWorld).is_empty());
    }

    /// Two conversations of one playthrough: the vault opens only once the gate gave the key.
    fn gate_and_vault() -> ChatMapperRun {
        let entry = |conversation: i64, id: i64, text: &str, condition: &str, script: &str, links: &[i64]| {
            let links: Vec<Json> = links
                .iter()
                .map(|to| serde_json::json!({"OriginConvoID": conversation, "DestinationConvoID": conversation, "OriginDialogID": id, "DestinationDialogID": to}))
                .collect();
            serde_json::json!({"ID": id, "IsRoot": id == 0, "ConditionsString": condition, "UserScript": script,
                "OutgoingLinks": links, "Fields": {"Title": if id == 0 { "START" } else { "line" }, "Actor": "1", "Dialogue Text": text}})
        };
        let project = serde_json::json!({"Title": "Gate and vault", "Assets": {
            "Actors": [{"ID": 1, "Fields": {"Name": "Keeper"}}],
            "UserVariables": [{"Fields": {"Name": "has_key", "Initial Value": "False"}}],
            "Conversations": [
                {"ID": 1, "Fields": {"Title": "Gate"}, "DialogNodes": [
                    entry(1, 0, "", "", "", &[1]),
                    entry(1, 1, "Take the key.", "", "Variable[\"has_key\"] = true", &[])]},
                {"ID": 2, "Fields": {"Title": "Vault"}, "DialogNodes": [
                    entry(2, 0, "", "Variable[\"has_key\"] == true", "", &[1]),
                    entry(2, 1, "The vault opens.", "", "", &[])]}]}});
        ChatMapperRun::open(project.to_string().as_bytes(), "gate.json", Options::seeded(0)).expect("it opens")
    }

    #[test]
    fn another_conversation_starts_in_the_same_playthrough_and_replays() {
        let mut run = gate_and_vault();
        assert_eq!(said(&run.send(Command::start(), &mut NoWorld)), ["Take the key."]);
        run.send(Command::Next, &mut NoWorld);
        assert_eq!(run.waiting(), Waiting::Ended);
        let vault = run.send(Command::start_at("Vault"), &mut NoWorld);
        assert_eq!(said(&vault), ["The vault opens."], "the key from the gate counts: {vault:?}");

        let saved = run.save_json();
        let mut again = gate_and_vault();
        assert_eq!(again.load_json(&saved, &mut NoWorld), Ok(Loaded::Restored));
        assert_eq!(again.waiting(), Waiting::Next);
        assert_eq!(again.history(), run.history());

        assert_eq!(run.undo(&mut NoWorld), Ok(true), "the second start is a move like any other");
        assert_eq!(run.waiting(), Waiting::Ended);
        assert_eq!(said(&run.send(Command::start_at("2"), &mut NoWorld)), ["The vault opens."]);

        run.restart(&mut NoWorld).expect("it restarts");
        assert_eq!(run.history().len(), 1, "a restart is a fresh playthrough with a fresh journal");
        assert_eq!(run.waiting(), Waiting::Next);
    }

    #[test]
    fn broken_saves_are_refused_without_changing_the_run() {
        let mut run = crossing();
        run.send(Command::start(), &mut NoWorld);
        for json in ["", "[]", "{\"stagehand-chatmapper-save\": 7}", "{\"stagehand-chatmapper-save\": 0}"] {
            assert!(matches!(run.load_json(json, &mut NoWorld), Err(LoadError::Save(_))), "{json}");
        }
        let mut save: Json = serde_json::from_str(&run.save_json()).expect("JSON");
        save["fingerprint"] = Json::String("nope".into());
        let refused = run.load_json(&save.to_string(), &mut NoWorld);
        assert!(matches!(refused, Err(LoadError::Save(SaveError::Fingerprint(_)))), "{refused:?}");
        assert_eq!(run.waiting(), Waiting::Next);
    }
}
