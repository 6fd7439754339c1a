//! Durable runs, one turn a command: what `stagehand run` and `stagehand run resume` do, as a
//! library (decisions H12, H43). A turn plays a session of a [`Document`] on with the worlds
//! driver until a person must act, then parks it in a [`Store`] or, when the story ended, deletes
//! its record.
//!
//! A turn's result is one JSON envelope: `{"outcome":"ended"|"awaiting"|"failed","sessionId",
//! "said":[...]}` (`said` holds the `said` and `continued` events), with the `view` unless it ended, the `receipt` on a resume, and the `error`
//! when it failed.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use stagehand_documents::Document;
use stagehand_protocol::{Receipt, Reported};
use stagehand_session::host::{AnySession, TraceRecord};
use stagehand_session::parked::{Parked, ParkedError, Performed, Printed, Store, PARKED_VERSION};

use crate::drive::{drive, Stop};
use crate::ports::Bindings;
use crate::World;

/// The exit status of a turn that parked.
pub const PARKED: u8 = 3;

/// What a run is of, for its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOf {
    /// The document, as the record names it.
    pub document: String,
    /// The world, if any.
    pub world: Option<String>,
    /// The seed.
    pub seed: u64,
    /// Where the trace is appended, if anywhere.
    pub trace: Option<String>,
    /// The port bindings of an agent playbook's run.
    pub ports: Option<Bindings>,
}

impl RunOf {
    /// A new run of `document`, with its paths made absolute (a resume may come from another
    /// folder): `world` to answer it, `seed` for its random choices, `trace` to append to.
    pub fn new(
        document: &std::path::Path,
        world: Option<&std::path::Path>,
        seed: u64,
        trace: Option<&std::path::Path>,
        ports: Option<Bindings>,
    ) -> RunOf {
        let absolute = |path: &std::path::Path| {
            std::fs::canonicalize(path)
                .or_else(|_| std::path::absolute(path))
                .unwrap_or_else(|_| path.to_path_buf())
                .display()
                .to_string()
        };
        RunOf { document: absolute(document), world: world.map(absolute), seed, trace: trace.map(absolute), ports }
    }

    /// What a parked record's run is of.
    pub fn of_record(record: &Parked) -> Result<RunOf, RunError> {
        let ports = match &record.ports {
            None => None,
            Some(value) => Some(serde_json::from_value(value.clone()).map_err(|e| {
                RunError::Refused(format!("the run {} has port bindings that cannot be read: {e}", record.session_id))
            })?),
        };
        Ok(RunOf {
            document: record.document.clone(),
            world: record.world.clone(),
            seed: record.seed,
            trace: record.trace.clone(),
            ports,
        })
    }
}

/// What one turn did.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The envelope.
    pub envelope: Value,
    /// The exit status: 0 ended (record deleted), 2 failed (record kept), 3 parked.
    pub status: u8,
    /// The trace records the turn made, in order (appended to the run's trace file, if it has
    /// one, before the record was kept).
    pub trace: Vec<TraceRecord>,
    /// Lines the world wrote for the person.
    pub log: Vec<String>,
}

/// Why a turn could not be taken (exit status 1: nothing changed).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The record could not be found, read or written.
    #[error(transparent)]
    Parked(#[from] ParkedError),
    /// The record does not fit the document as it is now.
    #[error("{0}")]
    Refused(String),
    /// The action is not one that may be applied now.
    #[error("{0}")]
    Rejected(String),
    /// The turn was taken but could not be kept: its trace or its record could not be written
    /// (exit status 2; the record is as it was before the turn, H54).
    #[error("{0}")]
    Unsaved(String),
}

impl RunError {
    /// The exit status: 2 when the turn could not be kept (CONTRACT.md §3: "failure to persist
    /// a parked session"), else 1 (nothing changed).
    pub fn status(&self) -> u8 {
        match self {
            RunError::Unsaved(_) => 2,
            _ => 1,
        }
    }
}

/// The first port flag `lineup` holds, as it was given (`--player NAME=…`, `--captain …`,
/// `--judge …`), or `None` when it binds nothing.
fn port_flag(lineup: &stagehand_ports::LineupSpec) -> Option<String> {
    if let Some(player) = lineup.players.first() {
        return Some(format!("--player {}=…", player.name));
    }
    if lineup.captain.is_some() {
        return Some("--captain …".to_owned());
    }
    lineup.judge.as_ref().map(|_| "--judge …".to_owned())
}

/// What was said: each `said`, and each `continued` (the rest of a line after a command).
fn said(reported: &[Reported]) -> Vec<Reported> {
    reported.iter().filter(|r| r.kind == "said" || r.kind == "continued").cloned().collect()
}

/// What a turn said, and the lines the world wrote, before its last drive.
#[derive(Default)]
struct Before {
    reported: Vec<Reported>,
    log: Vec<String>,
}

/// Plays the session on, then parks, keeps or deletes its record; the turn.
fn settle(
    mut session: Box<dyn AnySession + '_>,
    world: &mut dyn World,
    mut record: Parked,
    before: Before,
    receipt: Option<(&str, &str, Receipt)>,
    store: &Store,
    now: u64,
) -> Result<Turn, RunError> {
    let Before { mut reported, log } = before;
    let mut driven = drive(session.as_mut(), world, now);
    reported.extend(driven.reported);
    record.performed.extend(driven.performed.into_iter().map(|(at, call)| Performed { at, call }));
    // What the moves an undo or a restart took back performed is forgotten with them (H56).
    let moves = session.journal().len();
    record.performed.retain(|performed| performed.at < moves);
    if matches!(driven.stop, Stop::Person) {
        record.parks.retain(|&at| at < moves);
        record.parks.push(moves);
    }
    driven.log.extend(session.take_log());
    // The contract's order: the outcome first, then the session, what was said, and the rest.
    let (outcome, status) = match &driven.stop {
        Stop::Ended => ("ended", 0),
        Stop::Person => ("awaiting", PARKED),
        Stop::Failed(_) => ("failed", 2),
    };
    let mut envelope = json!({"outcome": outcome, "sessionId": session.id(), "said": said(&reported)});
    let object = envelope.as_object_mut().expect("an object");
    if let Stop::Failed(error) = &driven.stop {
        object.insert("error".into(), error.clone().into());
    }
    if status != 0 {
        object.insert("view".into(), serde_json::to_value(session.describe()).expect("a view is JSON"));
    }
    if let Some(error) = &driven.world_error {
        object.insert("worldError".into(), error.clone().into());
    }
    if let Some((key, action, receipt)) = receipt {
        object.insert("receipt".into(), serde_json::to_value(&receipt).expect("a receipt is JSON"));
        record.envelopes.insert(key.to_owned(), Printed { action: action.to_owned(), envelope: envelope.clone() });
    }
    if status == 0 {
        session.dispose(now);
    } else {
        record.session = session
            .snapshot_value()
            .map_err(|e| RunError::Unsaved(format!("the run cannot be parked: {e}; the turn was not kept")))?;
        record.updated_at = now;
    }
    // The trace first: a turn whose records cannot be written is not kept, so the file's
    // sequence never skips; then the record (H54).
    let trace = session.take_trace();
    let unsaved = |e: ParkedError| RunError::Unsaved(format!("{e}; the turn was not kept"));
    if let Some(path) = &record.trace {
        append_trace(path, &trace).map_err(|e| RunError::Unsaved(format!("{e}; the turn was not kept")))?;
    }
    if status == 0 {
        store.remove(session.id()).map_err(unsaved)?;
        if !record.envelopes.is_empty() {
            store.save_ended(session.id(), &record.envelopes, now).map_err(unsaved)?;
        }
    } else {
        store.save(&record).map_err(unsaved)?;
    }
    let mut log = log;
    log.extend(driven.log);
    Ok(Turn { envelope, status, trace, log })
}

/// Appends `records` to the file `path` (created `0600` if need be: it holds what a person
/// answered), as JSON lines.
fn append_trace(path: &str, records: &[TraceRecord]) -> Result<(), String> {
    use std::io::Write;
    let lines: String =
        records.iter().filter_map(|record| serde_json::to_string(record).ok()).map(|line| line + "\n").collect();
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .and_then(|mut f| f.write_all(lines.as_bytes()))
        .map_err(|e| format!("{path}: cannot write the trace: {e}"))
}

/// Begins a run of `document` under the id `id`: plays until a person must act and parks it.
/// With a `reply`, once it would park the reply is taken as `run resume` takes an action, and
/// the turn holds both; a reply that cannot be taken parks nothing (H54).
pub fn begin(
    document: &Document,
    world: &mut dyn World,
    id: &str,
    of: RunOf,
    reply: Option<&str>,
    store: &Store,
    now: u64,
) -> Result<Turn, RunError> {
    if let Some(machine) = document.machine() {
        let missing = crate::ports::unbound(machine, of.ports.as_ref());
        if !missing.is_empty() {
            return Err(RunError::Refused(format!(
                "{}: the agent machine needs its ports bound: {} (SPEC is exec:COMMAND or openai:MODEL@URL)",
                of.document,
                missing.join(", ")
            )));
        }
    } else if let Some(bound) = of.ports.as_ref().and_then(|ports| port_flag(&ports.lineup)) {
        // Only an agent machine calls ports: a flag that binds one for anything else would be
        // kept in the parked record and never used (decision P17).
        return Err(RunError::Refused(format!(
            "{}: {bound} binds an agent's port, and only an agent machine has players, a Captain or a judge; \
             this is {}: run it without --player, --captain and --judge",
            of.document,
            document.kind().described()
        )));
    }
    let fingerprint = document.fingerprint().to_owned();
    let mut session = document.start(id, of.seed, now).map_err(|e| RunError::Refused(e.to_string()))?;
    let mut reported = session.take_opening();
    let mut record = Parked {
        schema_version: PARKED_VERSION,
        session_id: id.to_owned(),
        document: of.document,
        fingerprint,
        world: of.world,
        seed: of.seed,
        trace: of.trace,
        ports: of.ports.as_ref().map(|p| serde_json::to_value(p).expect("bindings are JSON")),
        created_at: now,
        updated_at: now,
        session: Value::Null,
        envelopes: BTreeMap::new(),
        performed: Vec::new(),
        parks: Vec::new(),
    };
    let Some(reply) = reply else {
        return settle(session, world, record, Before { reported, log: Vec::new() }, None, store, now);
    };
    let mut driven = drive(session.as_mut(), world, now);
    reported.append(&mut driven.reported);
    driven.log.extend(session.take_log());
    record.performed.extend(driven.performed.drain(..).map(|(at, call)| Performed { at, call }));
    if !matches!(driven.stop, Stop::Person) {
        // It ended or failed before anyone could reply: the turn is that.
        return settle(session, world, record, Before { reported, log: driven.log }, None, store, now);
    }
    // It would have parked here: a later undo comes back to it (P22).
    record.parks.push(session.journal().len());
    let (key, receipt) = take(session.as_mut(), reply, None, now)?;
    if let Receipt::Executed { events, .. } = &receipt {
        reported.extend(events.iter().cloned());
    }
    settle(session, world, record, Before { reported, log: driven.log }, Some((&key, reply, receipt)), store, now)
}

/// Which run `stagehand run resume` means, and the action: `ID [ACTION]`, or with `last` the run
/// parked last and `[ACTION]`. With `last` and a `key` some run (parked or ended) already printed
/// under, that run: a retry means the run its key was used on, not one parked since (P18).
pub fn which(
    store: &Store,
    words: &[String],
    last: bool,
    key: Option<&str>,
) -> Result<(String, Option<String>), String> {
    match (last, words) {
        (true, [_, _, ..]) => Err("with --last, give only the action".to_owned()),
        (true, words) => {
            let id = match key.and_then(|key| store.used_key(key)) {
                Some(id) => id,
                None => store.last().map_err(|e| e.to_string())?,
            };
            Ok((id, words.first().cloned()))
        }
        (false, [id, rest @ ..]) => Ok((id.clone(), rest.first().cloned())),
        (false, []) => Err("name the run: `stagehand run resume ID [ACTION]`, or `--last`".to_owned()),
    }
}

/// For a run that ended: the envelope a resume of `action` under `key` printed, again (exit
/// status 0); the same key with another action is refused. `None` when the key printed nothing.
pub fn replay_ended(store: &Store, id: &str, action: Option<&str>, key: &str) -> Option<Result<Turn, RunError>> {
    let printed = store.ended_envelope(id, key)?;
    if action != Some(printed.action.as_str()) {
        return Some(Err(RunError::Rejected(format!(
            "the idempotency key {key:?} was already used for {}, and the run {id} ended",
            printed.action
        ))));
    }
    Some(Ok(Turn { envelope: printed.envelope, status: 0, trace: Vec::new(), log: Vec::new() }))
}

/// Takes one action on the parked run `record` (a session of `document`, restored): an action
/// id, free text (a number too) for the first pending question, or, when no question waits, an
/// action's number in the view's list (from 1; P21).
/// Without an action the run is shown as it stands. With a `key` already used for the same
/// action, as it was typed or as the action it named, the envelope printed then is given again
/// and nothing is applied.
pub fn resume(
    document: &Document,
    world: &mut dyn World,
    mut record: Parked,
    action: Option<&str>,
    key: Option<&str>,
    store: &Store,
    now: u64,
) -> Result<Turn, RunError> {
    if let Some(printed) = key.and_then(|key| record.envelopes.get(key)).filter(|p| Some(p.action.as_str()) == action) {
        // The same words under the same key: what was printed then, before the view (which
        // has moved on) could give a number or a text another meaning.
        return Ok(reprinted(printed));
    }
    let fingerprint = document.fingerprint();
    let mut before = Before::default();
    let mut session = if fingerprint == record.fingerprint {
        let snapshot = record.session.take();
        match document.restore(snapshot.clone()) {
            Ok(session) => session,
            // Written by another version that spells the engine's state otherwise: its moves
            // are taken again, or the step that cannot be is named; never reset (P19).
            Err(unrestorable) => {
                let replayed = document.replay(snapshot, record.seed).map_err(|e| {
                    RunError::Refused(format!(
                        "the run {} cannot be restored ({unrestorable}), nor replayed: {e}",
                        record.session_id
                    ))
                })?;
                before.log.push(format!(
                    "{}: the run {} was parked by another version of Stagehand ({unrestorable}); its moves were taken again",
                    record.document, record.session_id
                ));
                replayed
            }
        }
    } else {
        // An edited document: the run's moves are taken again on it, or the step that cannot
        // be is named (H55).
        let replayed = document.replay(record.session.take(), record.seed).map_err(|e| {
            RunError::Refused(format!(
                "{}: the document changed since the run {} was parked, and the run cannot be replayed into it: {e}",
                record.document, record.session_id
            ))
        })?;
        before.log.push(format!(
            "{}: the document changed since the run was parked; its moves were taken again on it",
            record.document
        ));
        record.fingerprint = fingerprint.to_owned();
        replayed
    };
    rebuild(world, &record.performed);
    if session.id() != record.session_id {
        return Err(RunError::Refused(format!(
            "the record of the run {} holds the session {:?}: it was not written by `stagehand run`",
            record.session_id,
            session.id()
        )));
    }
    let Some(action) = action else {
        return settle(session, world, record, before, None, store, now);
    };
    let moves = session.journal().len();
    let (key, mut receipt) = take(session.as_mut(), action, key, now)?;
    if matches!(receipt, Receipt::Executed { .. }) && session.journal().len() < moves {
        receipt = back_to_the_last_park(session.as_mut(), &record.parks, moves, receipt, now);
    }
    if let Some(printed) = record.envelopes.get(&key) {
        if printed.envelope.get("receipt") == Some(&serde_json::to_value(&receipt).expect("a receipt is JSON")) {
            return Ok(reprinted(printed));
        }
    }
    let reported = match &receipt {
        Receipt::Executed { events, .. } => events.clone(),
        _ => Vec::new(),
    };
    settle(session, world, record, Before { reported, log: before.log }, Some((&key, action, receipt)), store, now)
}

/// After an `undo` that took the journal back from `moves`: undoes on until it holds no more
/// than it held at the park before the one at `moves`, so the person's own last move is taken
/// back, not a line or an answer the driver took on its own after it (P22). The receipt is the
/// first undo's, with the events the last one reported. Without an earlier park, one undo stands.
fn back_to_the_last_park(
    session: &mut dyn AnySession,
    parks: &[usize],
    moves: usize,
    mut receipt: Receipt,
    now: u64,
) -> Receipt {
    let Some(&target) = parks.iter().rev().find(|&&at| at < moves) else { return receipt };
    while session.journal().len() > target {
        let key = (session.receipt_count()..).map(|n| format!("undo:{n}")).find(|k| !session.has_key(k));
        let Some(key) = key else { break };
        let Receipt::Executed { events, .. } = session.apply("undo", &key, now) else { break };
        if let Receipt::Executed { events: all, .. } = &mut receipt {
            *all = events;
        }
    }
    receipt
}

/// Makes the world stand where the run left it: carries out again, in order, every command it
/// carried out for the moves the session holds (what it says doing so was said then). A world
/// that keeps no state has nothing to rebuild.
fn rebuild(world: &mut dyn World, performed: &[Performed]) {
    if world.keeps_state() {
        for performed in performed {
            // Whether it failed then or fails now, the world is as the run left it.
            world.perform(&performed.call.fragment()).ok();
        }
        world.take_log();
    }
}

/// What a resume printed under a key, printed again: nothing is applied or written.
fn reprinted(printed: &Printed) -> Turn {
    let status = match printed.envelope["outcome"].as_str() {
        Some("failed") => 2,
        _ => PARKED,
    };
    Turn { envelope: printed.envelope.clone(), status, trace: Vec::new(), log: Vec::new() }
}

/// Applies `action` as `run resume` reads it (an action id; else, while a question waits, its
/// answer; else the action's number in the view's list from 1) under `key` (a fresh one when absent): the
/// key and the receipt. A rejected action is an error, and nothing changed.
fn take(
    session: &mut dyn AnySession,
    action: &str,
    key: Option<&str>,
    now: u64,
) -> Result<(String, Receipt), RunError> {
    let key = match key {
        Some(key) => key.to_owned(),
        None => (session.receipt_count()..).map(|n| format!("cli:{n}")).find(|k| !session.has_key(k)).expect("a key"),
    };
    let view = session.describe();
    // While a question waits, anything but an action id answers it, a number too (P21).
    let receipt = if let Some(known) = view.actions.iter().find(|a| a.id == action) {
        session.apply(&known.id.clone(), &key, now)
    } else if let Some(question) = view.pending_questions.first() {
        session.input(&question.question_id.clone(), action, &key, now)
    } else if let Some(known) =
        action.parse::<usize>().ok().and_then(|n| n.checked_sub(1)).and_then(|n| view.actions.get(n))
    {
        session.apply(&known.id.clone(), &key, now)
    } else {
        // Not advertised: the session rejects it (or, under a used key, says so).
        session.apply(action, &key, now)
    };
    if let Receipt::Rejected { reason } = &receipt {
        // The session's reason names the action and, when it is not one now, lists those that are.
        if action.trim().is_empty() {
            let listed: Vec<&str> = view.actions.iter().map(|a| a.id.as_str()).collect();
            return Err(RunError::Rejected(format!(
                "the action is empty: give an action id or its number (the actions now: {})",
                listed.join(", ")
            )));
        }
        return Err(RunError::Rejected(reason.clone()));
    }
    Ok((key, receipt))
}

/// How to go on with the run a turn parked or kept, for standard error (CONTRACT.md §3: "stdout
/// gets the question text; stderr gets a hint"; P20); `None` when it ended.
pub fn hint(envelope: &Value) -> Option<String> {
    let id = envelope["sessionId"].as_str().filter(|_| envelope["outcome"] != "ended")?;
    let what = if envelope["outcome"] == "failed" { "kept" } else { "parked" };
    Some(format!("(run {what}) continue with: stagehand run resume {id} ACTION"))
}

/// A turn's envelope in words for a person: what was said, a line each, then the end, or the
/// error, the pending questions and the numbered actions ([`hint`] says how to resume).
pub fn for_a_person(envelope: &Value) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    // A line that opens with a command is said blank, then continued after it: shown as one
    // line, as the player shows it (`Painter::event_in_line`).
    let mut opened: Option<Option<&str>> = None;
    for said in envelope["said"].as_array().into_iter().flatten() {
        let (speaker, text) = (said["speaker"].as_str(), said["text"].as_str().unwrap_or(""));
        let (speaker, text) = match (said["type"].as_str(), opened.take()) {
            (Some("said"), _) if text.trim().is_empty() => {
                opened = Some(speaker);
                continue;
            }
            (Some("continued"), Some(speaker)) => (speaker, text.trim_start().to_owned()),
            (Some("continued"), None) => (None, format!("  {}", text.trim_start())),
            _ => (speaker, text.to_owned()),
        };
        match speaker {
            Some(speaker) => writeln!(out, "{speaker}: {text}"),
            None => writeln!(out, "{text}"),
        }
        .ok();
    }
    match envelope["outcome"].as_str() {
        Some("ended") => out.push_str("(the story ended)\n"),
        _ => {
            let view = &envelope["view"];
            if let Some(error) = envelope["error"].as_str().or(view["lastError"].as_str()) {
                writeln!(out, "error: {error}").ok();
            }
            // What the world said of its failure (H11): what a person can act on.
            if let Some(error) = envelope["worldError"].as_str() {
                writeln!(out, "  the world said: {error}").ok();
            }
            for question in view["pendingQuestions"].as_array().into_iter().flatten() {
                writeln!(out, "? {}", question["text"].as_str().unwrap_or("")).ok();
            }
            // While a question waits a number answers it, so the actions are not numbered (P21).
            let asked = view["pendingQuestions"].as_array().is_some_and(|q| !q.is_empty());
            for (n, action) in view["actions"].as_array().into_iter().flatten().enumerate() {
                let (id, label) = (action["id"].as_str().unwrap_or(""), action["label"].as_str().unwrap_or(""));
                let bullet = if asked { "-".to_owned() } else { format!("{}.", n + 1) };
                writeln!(out, "  {bullet} {label}  [{id}]").ok();
            }
        }
    }
    out
}
