//! Playthroughs as a player meets them, over the host session of any document: a Lua world whose
//! commands matter, undo that rewinds the world, a failed command held, and saves loaded into the
//! document they came from and into edited ones — for scripts and ChatMapper projects alike.

mod support;

use stagehand_lua::Value;
use stagehand_session::host::Move;
use stagehand_session::{Save, SaveKind};
use stagehand_worlds::{Happening, LoadError, Loaded, LuaWorld, NoWorld, Playthrough, ReplayError, Waiting};
use support::{document, example, next_until_not_next, said, Shared};

const FAIR: &str = r#"# The Fair

Mira: Welcome to the club fair!

- Join the art club.

  `JoinClub("You", "Art")` Mira hands you a paintbrush.

- Join the chess club.

  `JoinClub("You", "Chess")` Mira hands you a pawn.

- `You.Rich?` Buy your way into the yacht club.

Mira: Now, about the party tonight.

`You.InClub?` Mira: Members get in free!

Mira: See you there.
"#;

const WORLD: &str = r#"
You = { InClub = false, Rich = false }
function JoinClub(who, club)
  if club == "Chess" then error("the chess club is full") end
  _G[who].InClub = true
  _G[who].Club = club
end
"#;

/// Starts the fair and stands at the menu.
fn at_the_menu<'d>(fair: &'d stagehand_documents::Document, world: &Shared) -> Playthrough<'d> {
    let (mut p, opened) = Playthrough::start(fair, world.boxed(), 3, None).expect("it starts");
    assert_eq!(said(&opened), ["Welcome to the club fair!"]);
    next_until_not_next(&mut p);
    assert!(matches!(p.waiting(), Waiting::Choice { .. }), "{:?}", p.waiting());
    p
}

#[test]
fn a_command_changes_what_a_later_condition_sees() {
    let fair = document("fair.dialogue.md", FAIR);
    let world = Shared::new(WORLD, 1);
    let mut p = at_the_menu(&fair, &world);
    let Waiting::Choice { options } = p.waiting() else { unreachable!() };
    assert_eq!(options.iter().map(|(_, available)| *available).collect::<Vec<_>>(), [true, true, false]);
    let mut lines = said(&p.choose(0));
    lines.extend(next_until_not_next(&mut p));
    assert!(lines.contains(&"Members get in free!".to_owned()), "{lines:?}");
    assert_eq!(world.read("You.Club"), Value::String("Art".into()));
    assert_eq!(p.waiting(), Waiting::Ended);
}

#[test]
fn an_unavailable_option_is_refused_and_not_journalled() {
    let fair = document("fair.dialogue.md", FAIR);
    let mut p = at_the_menu(&fair, &Shared::new(WORLD, 1));
    let journalled = p.history().len();
    for position in [2, 7, -1] {
        let happenings = p.choose(position);
        assert!(matches!(happenings[..], [Happening::Event(stagehand_protocol::OwnedEvent::Refused { .. })]));
    }
    assert_eq!(p.history().len(), journalled);
    assert!(matches!(p.waiting(), Waiting::Choice { .. }));
}

#[test]
fn undo_replays_and_the_world_rewinds_with_the_story() {
    let fair = document("fair.dialogue.md", FAIR);
    let world = Shared::new(WORLD, 1);
    let mut p = at_the_menu(&fair, &world);
    let before = (p.history().to_vec(), p.view());
    p.choose(0);
    next_until_not_next(&mut p);
    assert_eq!(world.read("You.InClub"), Value::Boolean(true));
    // Undo move by move back to the menu: the world forgets the club.
    while p.history().len() > before.0.len() {
        assert!(p.undo().unwrap());
    }
    assert_eq!((p.history().to_vec(), p.view()), before);
    assert_eq!(world.read("You.InClub"), Value::Boolean(false));
    assert!(!p.undo().unwrap() || p.history().len() < before.0.len());
}

#[test]
fn a_failed_command_holds_the_run_until_retried_skipped_or_undone() {
    let fair = document("fair.dialogue.md", FAIR);
    let mut p = at_the_menu(&fair, &Shared::new(WORLD, 1));
    p.choose(1);
    next_until_not_next(&mut p);
    let Waiting::Held { effect } = p.waiting() else { panic!("held: {:?}", p.waiting()) };
    assert_eq!(stagehand_worlds::command_text(&effect), r#"JoinClub("You", "Chess")"#);
    let again = p.retry();
    assert!(again.iter().any(|h| matches!(h, Happening::Failed { explanation, .. } if explanation.contains("full"))));
    assert!(matches!(p.waiting(), Waiting::Held { .. }));
    p.skip();
    assert!(!matches!(p.waiting(), Waiting::Held { .. }), "{:?}", p.waiting());
    let skip = p.history().iter().rposition(|r| r.entry.step == Move::Done).expect("the skip is journalled");
    assert_eq!(p.history()[skip].entry.by, stagehand_session::Sender::Player);
    while p.history().len() > skip + 1 {
        assert!(p.undo().unwrap());
    }
    assert!(p.undo().unwrap());
    assert!(matches!(p.waiting(), Waiting::Held { .. }), "undo takes the skip back: {:?}", p.waiting());
}

#[test]
fn undo_keeps_the_opening() {
    let fair = document("fair.dialogue.md", FAIR);
    let (mut p, _) = Playthrough::start(&fair, Box::new(NoWorld), 3, None).unwrap();
    assert!(!p.undo().unwrap());
    assert_eq!(p.waiting(), Waiting::Next);
}

/// Plays to just after taking the art club, and saves.
fn saved_after_the_art_club(fair: &stagehand_documents::Document) -> Save {
    let mut p = at_the_menu(fair, &Shared::new(WORLD, 1));
    p.choose(0);
    p.move_on();
    p.save()
}

#[test]
fn a_save_reads_back_and_restores_at_once_with_the_world_rebuilt() {
    let fair = document("fair.dialogue.md", FAIR);
    let save = saved_after_the_art_club(&fair);
    let json = save.to_json();
    assert!(json.contains("\"stagehand-save\": 0"), "{json}");
    assert!(json.contains("\"label\": \"Join the art club.\""), "{json}");
    assert_eq!(Save::from_json(&json, SaveKind::Script), Ok(save.clone()));
    let world = Shared::new(WORLD, 1);
    let (loaded, how) = Playthrough::load(&fair, world.boxed(), &json).unwrap();
    assert_eq!(how, Loaded::Restored);
    assert_eq!(loaded.save(), save);
    assert_eq!(world.read("You.InClub"), Value::Boolean(true), "the world is rebuilt by the replay");
}

#[test]
fn a_line_reworded_elsewhere_replays_and_a_new_scene_too() {
    let fair = document("fair.dialogue.md", FAIR);
    let save = saved_after_the_art_club(&fair);
    let reworded = document("fair.dialogue.md", &FAIR.replace("Welcome to the club fair!", "Welcome, all!"));
    let (loaded, how) = Playthrough::load(&reworded, Shared::new(WORLD, 1).boxed(), &save.to_json()).unwrap();
    assert_eq!(how, Loaded::Replayed { steps: save.journal.len() });
    assert_eq!(loaded.history().len(), save.journal.len());

    let longer = document("fair.dialogue.md", &format!("{FAIR}\n# Afterwards\n\nMira: Years later, you paint.\n"));
    let (mut loaded, how) = Playthrough::load(&longer, Shared::new(WORLD, 1).boxed(), &save.to_json()).unwrap();
    assert!(matches!(how, Loaded::Replayed { .. }));
    let lines = next_until_not_next(&mut loaded);
    assert!(lines.contains(&"Members get in free!".to_owned()), "{lines:?}");
    assert!(lines.contains(&"Years later, you paint.".to_owned()), "{lines:?}");
}

#[test]
fn the_chosen_option_removed_refuses_the_load_naming_the_step() {
    let fair = document("fair.dialogue.md", FAIR);
    let save = saved_after_the_art_club(&fair);
    let edited =
        FAIR.replace("- Join the art club.\n\n  `JoinClub(\"You\", \"Art\")` Mira hands you a paintbrush.\n\n", "");
    let edited = document("fair.dialogue.md", &edited);
    let error = Playthrough::load(&edited, Shared::new(WORLD, 1).boxed(), &save.to_json()).err().unwrap();
    let step = save.journal.iter().position(|e| matches!(e.step, Move::Choose { .. })).unwrap() + 1;
    match &error {
        LoadError::Replay(ReplayError::Diverged { step: at, command, .. }) => {
            assert_eq!(*at, step);
            assert!(command.contains("choose option 1"), "options count from 1: {command}");
        }
        other => panic!("{other:?}"),
    }
    let message = error.to_string();
    assert!(message.contains(&format!("step {step}")) && message.contains("Join the art club."), "{message}");
}

#[test]
fn a_save_for_another_version_another_kind_or_a_broken_one_is_refused() {
    let fair = document("fair.dialogue.md", FAIR);
    let save = saved_after_the_art_club(&fair);
    let later = save.to_json().replace("\"stagehand-save\": 0", "\"stagehand-save\": 9");
    assert!(matches!(Playthrough::load(&fair, Box::new(NoWorld), &later), Err(LoadError::Save(_))));
    assert!(Playthrough::load(&fair, Box::new(NoWorld), "{").is_err());
    let crossing = example("the-crossing.json");
    let error = Playthrough::load(&crossing, Box::new(NoWorld), &save.to_json()).err().unwrap();
    assert!(error.to_string().contains("a save of a DialogueDown script, not of a ChatMapper project"), "{error}");
}

#[test]
fn a_save_from_another_script_names_that_script() {
    let club = document("club.dialogue.md", "Mira: Welcome!\n\n- Stay.\n\n  Mira: Good.\n\n- Go.\n");
    let other = document("ada.dialogue.md", "Ada: Hello.\n\nAda: Bye.\n");
    let (mut p, _) = Playthrough::start(&club, Box::new(NoWorld), 1, None).unwrap();
    p.move_on();
    p.choose(0);
    let error = Playthrough::load(&other, Box::new(NoWorld), &p.save().to_json()).err().unwrap();
    assert!(matches!(error, LoadError::OtherScript { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("club.dialogue.md") && message.contains("ada.dialogue.md"), "{message}");
}

#[test]
fn a_number_the_world_cannot_give_is_written_as_lua_writes_it() {
    let weights = document("w.dialogue.md", "- `weight%` A.\n- `far%` B.\n");
    let world = LuaWorld::new("w.lua", "weight = 0/0 far = -1/0", 1).expect("the world loads");
    let (_, opened) = Playthrough::start(&weights, Box::new(world), 1, None).unwrap();
    let problems: Vec<&String> = opened
        .iter()
        .filter_map(|h| match h {
            Happening::Guessed { problem: Some(problem), .. } => Some(problem),
            _ => None,
        })
        .collect();
    assert_eq!(problems.len(), 2, "{opened:?}");
    assert!(problems.iter().all(|p| !p.contains("Number(")), "no Rust debug spelling: {problems:?}");
    assert!(problems[0].contains("answered nan") || problems[0].contains("answered -nan"), "{}", problems[0]);
    assert!(problems[1].contains("answered -inf"), "{}", problems[1]);
}

const CARDS: &str = "# The Cards\n\nTeller: Let us see.\n\n- `70%` Teller: The Sun.\n- `20%` Teller: The Moon.\n- `10%` Teller: The Tower.\n\nTeller: That is all.\n";

#[test]
fn a_restart_draws_on_and_undo_replays_the_same_draws() {
    // Seed 4's first two draws pick the Sun, then the Moon (conformance/stagehand/random-static-weights).
    let cards = document("cards.dialogue.md", CARDS);
    let (mut p, _) = Playthrough::start(&cards, Box::new(NoWorld), 4, None).unwrap();
    assert_eq!(said(&p.move_on()), ["The Sun."]);
    assert_eq!(said(&p.restart().unwrap()), ["Let us see."]);
    assert_eq!(said(&p.move_on()), ["The Moon."]);
    let view = p.view();
    assert!(p.undo().unwrap());
    assert_eq!(said(&p.move_on()), ["The Moon."]);
    assert_eq!(p.view(), view);
    // Undoing the restart too comes back to the Sun.
    assert!(p.undo().unwrap());
    assert!(p.undo().unwrap());
    let history: Vec<String> = p
        .history()
        .iter()
        .flat_map(|r| said(&r.events.iter().cloned().map(Happening::Event).collect::<Vec<_>>()))
        .collect();
    assert_eq!(history, ["Let us see.", "The Sun."]);
}

/// Two conversations of one playthrough: the vault opens only once the gate gave the key.
fn gate_and_vault() -> String {
    let entry = |conversation: i64, id: i64, text: &str, condition: &str, script: &str, links: &[i64]| {
        let links: Vec<serde_json::Value> = links
            .iter()
            .map(|to| serde_json::json!({"OriginConvoID": conversation, "DestinationConvoID": conversation, "OriginDialogID": id, "DestinationDialogID": to}))
            .collect();
        serde_json::json!({"ID": id, "IsRoot": id == 0, "ConditionsString": condition, "UserScript": script,
            "OutgoingLinks": links, "Fields": {"Title": if id == 0 { "START" } else { "line" }, "Actor": "1", "Dialogue Text": text}})
    };
    serde_json::json!({"Title": "Gate and vault", "Assets": {
        "Actors": [{"ID": 1, "Fields": {"Name": "Keeper"}}],
        "UserVariables": [{"Fields": {"Name": "has_key", "Initial Value": "False"}}],
        "Conversations": [
            {"ID": 1, "Fields": {"Title": "Gate"}, "DialogNodes": [
                entry(1, 0, "", "", "", &[1]),
                entry(1, 1, "Take the key.", "", "Variable[\"has_key\"] = true", &[])]},
            {"ID": 2, "Fields": {"Title": "Vault"}, "DialogNodes": [
                entry(2, 0, "", "Variable[\"has_key\"] == true", "", &[1]),
                entry(2, 1, "The vault opens.", "", "", &[])]}]}})
    .to_string()
}

#[test]
fn another_conversation_starts_in_the_same_playthrough_and_replays() {
    let project = document("gate.json", &gate_and_vault());
    let (mut p, opened) = Playthrough::start(&project, Box::new(NoWorld), 0, None).unwrap();
    assert_eq!(said(&opened), ["Take the key."]);
    p.move_on();
    assert_eq!(p.waiting(), Waiting::Ended);
    assert_eq!(said(&p.begin(Some("Vault"))), ["The vault opens."], "the key from the gate counts");
    assert!(matches!(p.begin(Some("Cellar"))[..], [Happening::Rejected(_)]), "an unknown one is refused");

    let (again, how) = Playthrough::load(&project, Box::new(NoWorld), &p.save().to_json()).unwrap();
    assert_eq!(how, Loaded::Restored);
    assert_eq!(again.waiting(), Waiting::Next);
    assert_eq!(again.history(), p.history());

    assert!(p.undo().unwrap(), "the second start is a move like any other");
    assert_eq!(p.waiting(), Waiting::Ended);
    assert_eq!(said(&p.begin(Some("2"))), ["The vault opens."]);
}

#[test]
fn a_project_save_loads_after_an_unrelated_edit_and_is_refused_where_it_differs() {
    let crossing = example("the-crossing.json");
    let (mut p, _) = Playthrough::start(&crossing, Box::new(NoWorld), 0, None).unwrap();
    next_until_not_next(&mut p);
    p.choose(0);
    let json = p.save().to_json();
    assert!(json.contains("\"stagehand-chatmapper-save\": 0") && json.contains("\"project\""), "{json}");

    let path = format!("{}/../../examples/the-crossing.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    // A line the save never reached is reworded, and an actor renamed: unrelated to the run.
    let edited = text.replace("Hold the rail.", "Hold the rail tight.");
    assert_ne!(edited, text);
    let edited = document("the-crossing.json", &edited);
    assert_ne!(edited.fingerprint(), crossing.fingerprint());
    let (loaded, how) = Playthrough::load(&edited, Box::new(NoWorld), &json).unwrap();
    assert_eq!(how, Loaded::Replayed { steps: p.history().len() });
    assert_eq!(loaded.waiting(), p.waiting());

    let moved = text.replace("\"Menu Text\": \"I'll take the crossing.\"", "\"Menu Text\": \"I'll board.\"");
    let moved = document("the-crossing.json", &moved);
    let error = Playthrough::load(&moved, Box::new(NoWorld), &json).err().unwrap();
    assert!(error.to_string().contains("is no longer option 1"), "{error}");
}

#[test]
fn a_command_failed_twice_then_done_saves_and_loads() {
    let world = "Tries = 0\nfunction Fly() Tries = Tries + 1 if Tries < 3 then error(\"not yet\") end end\n";
    let script = document("fly.dialogue.md", "Ada: Ready? `Fly()`\n\nAda: Landed.\n");
    let (mut p, _) = Playthrough::start(&script, Shared::new(world, 1).boxed(), 1, None).unwrap();
    assert!(matches!(p.waiting(), Waiting::Held { .. }), "{:?}", p.waiting());
    p.retry();
    assert!(matches!(p.waiting(), Waiting::Held { .. }), "the second try fails too");
    p.retry();
    assert_eq!(p.waiting(), Waiting::Next, "the third flies");
    let again = Shared::new(world, 1);
    let (loaded, how) = Playthrough::load(&script, again.boxed(), &p.save().to_json()).unwrap();
    assert_eq!(how, Loaded::Restored);
    assert_eq!(loaded.waiting(), Waiting::Next);
    assert_eq!(again.read("Tries"), Value::Number(3.0), "every try is made again");
}
