//! Every trace line a session writes, for documents of each kind (DialogueDown, ChatMapper, an
//! agent machine) driven through undo, restart, rejected and failed moves, replayed and reused
//! keys, snapshot and restore, and dispose, validates against `docs/schema/trace.schema.json` in
//! full (`allOf`/`if`/`then`/`not`, `pattern`, `type`, `minimum` included), and the lines of a
//! session, across its restores, are contiguous, properly nested, begin with one
//! `session.started` and end with `session.disposed` (an agent runtime's own records of its
//! start and its end standing right after the one and right before the other; its own records
//! contiguous and paired after an undo, a restart and a restore as well).

mod agent_support;
mod schema_support;

use schema_support::{fits, schema};
use serde_json::Value;
use stagehand_agents::runtime::Options;
use stagehand_agents::AgentEngine;
use stagehand_documents::{Document, OpenOptions};
use stagehand_protocol::{Receipt, View};
use stagehand_session::host::{AnySession, Pending, Session};

/// Checks every line of one session's whole trace (its lines across restores, in order).
fn check_lines(lines: &[String]) {
    let trace_schema = schema("trace.schema.json");
    let mut open: Option<(String, String)> = None;
    let mut started = 0;
    // What the engine traced as it was disposed stands right before the session's own
    // session.disposed, in no boundary (H70).
    let closing_from =
        lines[..lines.len() - 1].iter().rposition(|l| !l.contains("\"engine\":true")).map_or(0, |i| i + 1);
    for (i, line) in lines.iter().enumerate() {
        let json: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {i}: {e}: {line}"));
        fits(&json, &trace_schema, &trace_schema).unwrap_or_else(|e| panic!("line {i}: {e}: {line}"));
        assert_eq!(json["sequence"], i as u64 + 1, "line {i} is out of sequence: {line}");
        assert_eq!(json["sessionId"], serde_json::from_str::<Value>(&lines[0]).unwrap()["sessionId"]);
        let kind = json["type"].as_str().unwrap().to_owned();
        if json["engine"] == true {
            // The engine's records stand inside the boundary of the move that caused them, or
            // right after session.started for what the engine traced as it started (H48).
            let opening = lines[..i].iter().all(|l| l.contains("\"engine\":true") || l.contains("\"session.started\""));
            let closing = i >= closing_from;
            assert!(open.is_some() || opening || closing, "line {i} is an engine record outside a boundary: {line}");
            continue;
        }
        let call = json["callId"].as_str().unwrap_or("").to_owned();
        match kind.as_str() {
            "session.started" => {
                assert_eq!(i, 0, "session.started is the first line and only once");
                started += 1;
            }
            "apply.started" | "input.received" => {
                assert!(open.is_none(), "line {i} starts inside {open:?}");
                open = Some((call, kind));
            }
            "apply.finished" | "input.settled" => {
                let (was, start) = open.take().unwrap_or_else(|| panic!("line {i} finishes nothing: {line}"));
                assert_eq!(was, call, "line {i}");
                assert_eq!(start == "apply.started", kind == "apply.finished", "line {i}");
            }
            "session.disposed" => assert_eq!(i, lines.len() - 1, "session.disposed is the last line"),
            other => panic!("line {i}: {other}"),
        }
    }
    assert_eq!(started, 1);
    assert!(open.is_none(), "a boundary never finished");
    assert!(lines.last().unwrap().contains("\"session.disposed\""));
}

/// A view fits `view.schema.json`, and no unavailable option is an action.
fn fits_view(view: &View) {
    let schema = schema("view.schema.json");
    let json = serde_json::to_value(view).unwrap();
    fits(&json, &schema, &schema).unwrap_or_else(|e| panic!("{e}: {json}"));
    for option in &view.unavailable {
        let id = format!("choose:{}", option.position);
        assert!(view.actions.iter().all(|a| a.id != id), "{id} is unavailable: {json}");
        assert!(!option.why.is_empty(), "{json}");
    }
}

/// A receipt fits the view schema's `receipt`.
fn fits_receipt(receipt: &Receipt) {
    let schema = schema("view.schema.json");
    let json = serde_json::to_value(receipt).unwrap();
    fits(&json, &schema["$defs"]["receipt"], &schema).unwrap_or_else(|e| panic!("{e}: {json}"));
}

/// The runtime's own records (schema 2) are contiguous from 1 within its session, and each
/// `*.started` is finished once, by a `*.finished` with the same call id (CONTRACT.md §1.7); no
/// call id and no turn id is given twice in the session, an undo's or a restart's replay
/// included (A53).
fn check_engine_records(lines: &[String]) {
    let mut open: Vec<(String, String)> = Vec::new();
    let mut calls = std::collections::HashSet::new();
    let mut turns = std::collections::HashSet::new();
    let mut next = 1;
    for line in lines {
        let json: Value = serde_json::from_str(line).unwrap();
        if json["engine"] != true {
            continue;
        }
        let event = &json["payload"];
        assert_eq!(event["sequence"], next, "the runtime's sequence: {line}");
        next += 1;
        let kind = event["type"].as_str().unwrap();
        let call = event["callId"].as_str().unwrap_or("").to_owned();
        if kind == "boss.input.received" || kind == "apply.started" {
            assert!(turns.insert(event["turnId"].to_string()), "turn {} given twice: {line}", event["turnId"]);
        }
        if let Some(stem) = kind.strip_suffix(".started") {
            if stem != "session" {
                assert!(!open.iter().any(|(_, c)| c == &call), "{call} started twice: {line}");
                assert!(calls.insert(call.clone()), "{call} given to a second call: {line}");
                open.push((stem.to_owned(), call));
            }
        } else if let Some(stem) = kind.strip_suffix(".finished") {
            let at = open.iter().position(|(s, c)| s == stem && c == &call);
            let at = at.unwrap_or_else(|| panic!("{kind} {call} finishes nothing: {line}"));
            open.remove(at);
        }
    }
    assert!(open.is_empty(), "never finished: {open:?}");
}

fn lines(session: &mut dyn AnySession, into: &mut Vec<String>) {
    into.extend(session.take_trace().iter().map(|r| r.to_json_line()));
}

fn pick(view: &View, n: usize) -> Option<(bool, String, String)> {
    let moves = view.actions.len() + view.pending_questions.len();
    if moves == 0 {
        return None;
    }
    let i = n % moves;
    Some(match view.actions.get(i) {
        Some(a) => (true, a.id.clone(), String::new()),
        None => {
            let q = &view.pending_questions[i - view.actions.len()];
            (false, q.question_id.clone(), if q.text.contains("number") { "1".into() } else { "yes".into() })
        }
    })
}

/// Plays a DialogueDown or ChatMapper document: moves chosen from each view, with a rejected
/// move, a replayed key, a reused key, undo and restart, and a snapshot and restore midway.
fn play(document: &Document, seed: usize) -> Vec<String> {
    let mut all = Vec::new();
    let mut session = document.start("s", 1, 1).expect("it starts");
    let mut recorded: Vec<(bool, String, String, String, String)> = Vec::new();
    let mut now = 2;
    for n in 0..40 {
        now += 1;
        let key = format!("k{n}");
        let view = session.describe();
        fits_view(&view);
        if n == 3 {
            session.apply("no-such-action", &key, now); // rejected; the key stays free
        }
        if n == 12 || n == 25 {
            let snapshot = session.snapshot_value().expect("a snapshot");
            lines(session.as_mut(), &mut all);
            session = document.restore(snapshot).expect("it restores");
            // Every receipt recorded before comes back byte for byte, and nothing is traced.
            for (is_action, id, text, key, receipt) in &recorded {
                let again = if *is_action { session.apply(id, key, now) } else { session.input(id, text, key, now) };
                assert_eq!(&serde_json::to_string(&again).unwrap(), receipt, "{key} after a restore");
            }
            assert!(session.take_trace().is_empty(), "a replayed key traces nothing");
        }
        let chosen = match n {
            7 | 19 if view.actions.iter().any(|a| a.id == "undo") => Some((true, "undo".into(), String::new())),
            15 if view.actions.iter().any(|a| a.id == "restart") => Some((true, "restart".into(), String::new())),
            _ => pick(&view, n * 7 + seed),
        };
        let Some((is_action, id, text)) = chosen else { break };
        let receipt = if is_action {
            let first = session.apply(&id, &key, now);
            assert_eq!(session.apply(&id, &key, now + 1), first);
            let reused = session.apply("some-other-action", &key, now + 1);
            assert!(matches!(&reused, Receipt::Rejected { .. }) || matches!(first, Receipt::Rejected { .. }));
            first
        } else {
            let first = session.input(&id, &text, &key, now);
            session.input(&id, "other", &key, now + 1);
            first
        };
        fits_receipt(&receipt);
        if !matches!(receipt, Receipt::Rejected { .. }) {
            recorded.push((is_action, id, text, key, serde_json::to_string(&receipt).unwrap()));
        }
    }
    session.dispose(now + 2);
    lines(session.as_mut(), &mut all);
    all
}

#[test]
fn dialoguedown_trace_lines_fit_the_schema() {
    let examples = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    let mut played = 0;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let path = entry.unwrap().path();
        let name = path.to_string_lossy().into_owned();
        if ![".dialogue.md", ".json", ".xml"].iter().any(|end| name.ends_with(end)) {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let Ok(document) = Document::open(&name, &bytes, &OpenOptions::default()) else { continue };
        for seed in 0..3 {
            let all = play(&document, seed);
            check_lines(&all);
        }
        played += 1;
    }
    assert!(played >= 4, "examples played: {played}");
}

#[test]
fn agent_trace_lines_fit_the_schema() {
    for reviewer_fails in [false, true] {
        let document = agent_support::open();
        let mut all = Vec::new();
        let mut session = document.start("a", 0, 1).expect("it starts");
        session.input("nowhere", "x", "bad", 2); // rejected
        let task = serde_json::to_string(&session.input("task", "a poem", "task", 2)).unwrap();
        session.input("task", "a poem", "task", 2); // replayed
        let mut restored = false;
        for n in 0..60 {
            if !restored {
                // A snapshot is taken only at a safe point (CONTRACT.md §1.9); the first one is used.
                if let Ok(snapshot) = session.snapshot_value() {
                    lines(session.as_mut(), &mut all);
                    session = document.restore(snapshot).unwrap();
                    restored = true;
                    let again = session.input("task", "a poem", "task", 9);
                    assert_eq!(serde_json::to_string(&again).unwrap(), task, "a receipt survives the restore");
                }
            }
            let Pending::Call { call } = session.pending().clone() else { break };
            fits_view(&session.describe());
            let answer = agent_support::ports(&call, reviewer_fails);
            fits_receipt(&session.answer(answer, &format!("k{n}"), 3 + n));
        }
        assert!(restored, "the run was restored once midway");
        if let Ok(snapshot) = session.snapshot_value() {
            lines(session.as_mut(), &mut all);
            session = document.restore(snapshot).unwrap();
        }
        // Every runtime pair is closed once the run has settled.
        check_engine_records(&all);
        let view = session.describe();
        fits_view(&view);
        for action in &view.actions {
            fits_receipt(&session.apply(&action.id, "late", 100));
        }
        session.dispose(200);
        session.dispose(201);
        lines(session.as_mut(), &mut all);
        check_lines(&all);
        // And after the late actions (an undo into a call left outstanding again, which the
        // dispose then aborts), the runtime's records go on contiguous and paired (A49).
        check_engine_records(&all);
        // The host's dispose ended the runtime's session too: its one session.disposed stands
        // right before the host's (H70).
        let disposed: Vec<&String> = all.iter().filter(|l| l.contains("\"type\":\"session.disposed\"")).collect();
        assert_eq!(disposed.len(), 2, "{disposed:?}");
        assert!(disposed[0].contains("\"engine\":true") && !disposed[1].contains("\"engine\":true"), "{disposed:?}");
        assert_eq!(disposed[0], &all[all.len() - 2], "the runtime's ends right before the host's");
    }
}

/// Answers up to `limit` port calls the session has pending, with the example's ports.
fn answer_calls(session: &mut dyn AnySession, reviewer_fails: bool, now: &mut u64, limit: usize) {
    for _ in 0..limit {
        let Pending::Call { call } = session.pending().clone() else { return };
        *now += 1;
        let answer = agent_support::ports(&call, reviewer_fails);
        fits_receipt(&session.answer(answer, &format!("k{now}"), *now));
    }
}

/// Applies `action` (it must be offered and executed) under a key of its own.
fn take_action(session: &mut dyn AnySession, action: &str, now: &mut u64) {
    *now += 1;
    assert!(session.describe().actions.iter().any(|a| a.id == action), "{action} is offered");
    let receipt = session.apply(action, &format!("{action}-{now}"), *now);
    assert!(matches!(receipt, Receipt::Executed { .. }), "{action}: {receipt:?}");
}

#[test]
fn the_runtimes_records_continue_after_undo_restart_and_restore() {
    for reviewer_fails in [false, true] {
        let document = agent_support::open();
        let mut all = Vec::new();
        let mut session = document.start("a", 0, 1).expect("it starts");
        let mut now = 2;
        session.input("task", "a poem", "task", now);
        // Undo lands on the call before the last answer: it is outstanding again.
        answer_calls(session.as_mut(), reviewer_fails, &mut now, 3);
        take_action(session.as_mut(), "undo", &mut now);
        answer_calls(session.as_mut(), reviewer_fails, &mut now, 2);
        take_action(session.as_mut(), "undo", &mut now);
        answer_calls(session.as_mut(), reviewer_fails, &mut now, 60);
        // A restore, then an undo and a restart of the restored session.
        let snapshot = session.snapshot_value().expect("at rest");
        lines(session.as_mut(), &mut all);
        session = document.restore(snapshot).unwrap();
        take_action(session.as_mut(), "undo", &mut now);
        answer_calls(session.as_mut(), reviewer_fails, &mut now, 1);
        take_action(session.as_mut(), "restart", &mut now);
        session.input("task", "a song", "task-again", now);
        answer_calls(session.as_mut(), reviewer_fails, &mut now, 2);
        session.dispose(now + 1);
        lines(session.as_mut(), &mut all);
        check_lines(&all);
        check_engine_records(&all);
    }
}

/// A session of the example put back on an edited machine by replaying its journal (H55; only
/// dialogue documents are replayed by `Document`, but `Session::replayed` takes any engine): the
/// runtime's records go on from the last the old session wrote, the boundary the replay leaves
/// open is written again (its call's start before its finish), and no turn or call id is given
/// twice (H72, A53).
#[test]
fn an_agent_session_replayed_on_an_edited_machine_continues_the_runtimes_records() {
    let old = agent_support::open();
    let approved = r#"{ guard = "approved", target = "approved" }"#;
    assert!(agent_support::MACHINE.contains(approved));
    // The edit: an approved draft is revised once more, so the journal ends on a call.
    let edited = agent_support::MACHINE.replace(approved, r#"{ guard = "approved", target = "revise" }"#);
    let edited = Document::open("write-review-revise.toml", edited.as_bytes(), &OpenOptions::default()).unwrap();
    let engine = |document: &Document| {
        AgentEngine::new(document.machine().expect("a machine").clone(), Options::default(), "s").unwrap()
    };
    let mut all = Vec::new();
    let mut session = Session::starting_at(engine(&old), "s", None, 1).expect("it starts");
    let mut now = 2;
    session.input("task", "a poem", "task", now);
    answer_calls(&mut session, false, &mut now, 60);
    assert!(matches!(session.pending(), Pending::Ended), "{:?}", session.pending());
    lines(&mut session, &mut all);
    let snapshot = session.snapshot().expect("it ended at rest");
    let mut replayed = Session::replayed(engine(&edited), snapshot).expect("the journal replays");
    assert!(matches!(replayed.pending(), Pending::Call { .. }), "{:?}", replayed.pending());
    answer_calls(&mut replayed, false, &mut now, 3);
    replayed.dispose(now + 1);
    lines(&mut replayed, &mut all);
    check_lines(&all);
    check_engine_records(&all);
}
