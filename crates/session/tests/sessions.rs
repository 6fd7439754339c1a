//! Sessions as a player meets them: a Lua world whose commands matter, undo by replay, and saves
//! loaded into the script they came from and into edited ones.

use stagehand_dialoguedown::{compile, Options};
use stagehand_lua::Value;
use stagehand_playbook::{plain_text, Playbook};
use stagehand_runner::{Command, OwnedEvent};
use stagehand_session::{
    FactsWorld, Happening, LoadError, Loaded, LuaWorld, NoWorld, ReplayError, Save, Session, Waiting, World,
};

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

fn playbook(source: &str) -> Playbook {
    let compilation = compile(source, "fair.dialogue.md", &Options::default());
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    compilation.playbook.expect("a playbook")
}

fn world() -> LuaWorld {
    LuaWorld::new("fair.lua", WORLD, 1).expect("the world loads")
}

/// Everything said in the happenings, as plain text.
fn said(happenings: &[Happening]) -> Vec<String> {
    happenings
        .iter()
        .filter_map(|h| match h {
            Happening::Event(OwnedEvent::Said { speech, .. } | OwnedEvent::Continued { speech }) => {
                Some(plain_text(speech).trim().to_owned())
            }
            _ => None,
        })
        .collect()
}

/// Moves on with `next` until the run waits for something else, gathering what was said.
fn next_until_not_next(session: &mut Session, world: &mut dyn World) -> Vec<String> {
    let mut lines = Vec::new();
    for _ in 0..50 {
        if session.waiting() != Waiting::Next {
            break;
        }
        lines.extend(said(&session.send(Command::Next, world)));
    }
    lines
}

/// Starts the fair and stands at the menu.
fn at_the_menu(world: &mut dyn World) -> Session {
    let mut session = Session::new(playbook(FAIR), 3);
    let opened = session.send(Command::start(), world);
    assert_eq!(said(&opened), ["Welcome to the club fair!"]);
    next_until_not_next(&mut session, world);
    assert!(matches!(session.waiting(), Waiting::Choice { .. }), "{:?}", session.waiting());
    session
}

#[test]
fn a_command_changes_what_a_later_condition_sees() {
    let mut world = world();
    let mut session = at_the_menu(&mut world);
    let Waiting::Choice { options, .. } = session.waiting() else { unreachable!() };
    assert_eq!(options.iter().map(|(_, available)| *available).collect::<Vec<_>>(), [true, true, false]);
    let mut lines = said(&session.send(Command::Choose(0), &mut world));
    lines.extend(next_until_not_next(&mut session, &mut world));
    assert!(lines.contains(&"Members get in free!".to_owned()), "{lines:?}");
    assert_eq!(world.read("You.Club"), Ok(Value::String("Art".into())));
    assert_eq!(session.waiting(), Waiting::Ended);
}

#[test]
fn an_unavailable_option_is_refused_and_not_journalled() {
    let mut world = world();
    let mut session = at_the_menu(&mut world);
    let journalled = session.journal().len();
    let happenings = session.send(Command::Choose(2), &mut world);
    assert!(happenings.iter().any(|h| matches!(h, Happening::Event(OwnedEvent::Refused { .. }))));
    assert_eq!(session.journal().len(), journalled);
    assert!(matches!(session.waiting(), Waiting::Choice { .. }));
}

#[test]
fn undo_replays_and_the_world_rewinds_with_the_story() {
    let mut world = world();
    let mut session = at_the_menu(&mut world);
    let before = session.state().clone();
    let journal = session.journal().to_vec();
    session.send(Command::Choose(0), &mut world);
    next_until_not_next(&mut session, &mut world);
    assert_eq!(world.read("You.InClub"), Ok(Value::Boolean(true)));

    // Undo move by move back to the menu: the world forgets the club.
    while session.journal().len() > journal.len() {
        assert!(session.undo(&mut world).unwrap());
    }
    assert_eq!(session.state(), &before);
    assert_eq!(session.journal(), journal.as_slice());
    assert_eq!(world.read("You.InClub"), Ok(Value::Boolean(false)));

    // The other way now leads elsewhere: no free entry.
    let mut lines = said(&session.send(Command::Choose(1), &mut world));
    assert!(matches!(session.waiting(), Waiting::Next | Waiting::Held { .. }), "{:?}", session.waiting());
    lines.extend(next_until_not_next(&mut session, &mut world));
    let _ = lines;
}

#[test]
fn a_failed_command_holds_the_run_until_retried_or_undone() {
    let mut world = world();
    let mut session = at_the_menu(&mut world);
    session.send(Command::Choose(1), &mut world);
    next_until_not_next(&mut session, &mut world);
    let Waiting::Held { effect } = session.waiting() else { panic!("held: {:?}", session.waiting()) };
    assert_eq!(stagehand_session::command_text(&effect), r#"JoinClub("You", "Chess")"#);
    let again = session.retry(&mut world);
    assert!(again.iter().any(|h| matches!(h, Happening::Failed { explanation, .. } if explanation.contains("full"))));
    assert!(matches!(session.waiting(), Waiting::Held { .. }));
    assert!(session.undo(&mut world).unwrap());
    assert!(matches!(session.waiting(), Waiting::Choice { .. } | Waiting::Next), "{:?}", session.waiting());
}

#[test]
fn undo_keeps_the_opening() {
    let mut session = Session::new(playbook(FAIR), 3);
    assert!(!session.undo(&mut NoWorld).unwrap());
    session.send(Command::start(), &mut NoWorld);
    assert!(!session.undo(&mut NoWorld).unwrap());
    assert_eq!(session.waiting(), Waiting::Next);
}

/// Plays to just after taking the art club, and saves.
fn saved_after_the_art_club() -> (Save, Session) {
    let mut world = world();
    let mut session = at_the_menu(&mut world);
    session.send(Command::Choose(0), &mut world);
    session.send(Command::Next, &mut world);
    (session.save(), session)
}

#[test]
fn a_save_reads_back_and_restores_at_once() {
    let (save, session) = saved_after_the_art_club();
    let json = save.to_json();
    assert!(json.contains("\"stagehand-save\": 0"), "{json}");
    assert!(json.contains("\"label\": \"Join the art club.\""), "{json}");
    assert_eq!(Save::from_json(&json), Ok(save.clone()));
    let mut world = world();
    let (loaded, how) = Session::load_json(playbook(FAIR), &json, &mut world).unwrap();
    assert_eq!(how, Loaded::Restored);
    assert_eq!(loaded.state(), session.state());
    assert_eq!(world.read("You.InClub"), Ok(Value::Boolean(true)), "the world is rebuilt by the replay");
}

#[test]
fn a_line_reworded_elsewhere_replays() {
    let (save, session) = saved_after_the_art_club();
    let edited = FAIR.replace("Welcome to the club fair!", "Welcome, welcome, one and all!");
    let (loaded, how) = Session::load(playbook(&edited), &save, &mut world()).unwrap();
    assert_eq!(how, Loaded::Replayed { steps: save.journal.len() });
    assert_eq!(loaded.state(), session.state());
}

#[test]
fn a_new_scene_added_replays() {
    let (save, _) = saved_after_the_art_club();
    let edited = format!("{FAIR}\n# Afterwards\n\nMira: Years later, you still paint.\n");
    let edited_playbook = playbook(&edited);
    let mut world = world();
    let (mut loaded, how) = Session::load(edited_playbook, &save, &mut world).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(how, Loaded::Replayed { .. }));
    let lines = next_until_not_next(&mut loaded, &mut world);
    assert!(lines.contains(&"Members get in free!".to_owned()), "{lines:?}");
    assert!(lines.contains(&"Years later, you still paint.".to_owned()), "{lines:?}");
}

#[test]
fn the_chosen_option_removed_refuses_the_load_naming_the_step() {
    let (save, _) = saved_after_the_art_club();
    let edited =
        FAIR.replace("- Join the art club.\n\n  `JoinClub(\"You\", \"Art\")` Mira hands you a paintbrush.\n\n", "");
    assert_ne!(edited, FAIR);
    let error = Session::load(playbook(&edited), &save, &mut world()).unwrap_err();
    let step = save.journal.iter().position(|e| matches!(e.command, Command::Choose(_))).unwrap() + 1;
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
fn a_save_for_another_version_or_a_broken_one_is_refused() {
    let (save, _) = saved_after_the_art_club();
    let json = save.to_json().replace("\"stagehand-save\": 0", "\"stagehand-save\": 9");
    assert!(matches!(Session::load_json(playbook(FAIR), &json, &mut NoWorld), Err(LoadError::Save(_))));
    assert!(Session::load_json(playbook(FAIR), "{", &mut NoWorld).is_err());
    let tampered = save.to_json().replace("\"seed\": 3", "\"seed\": 4");
    assert!(tampered != save.to_json());
    // Another seed leads the same commands to another entropy than the save's state holds.
    assert_eq!(Session::load_json(playbook(FAIR), &tampered, &mut NoWorld).unwrap_err(), LoadError::Inconsistent);
}

#[test]
fn facts_answer_conditions() {
    let mut world = FactsWorld::from_toml("[You]\nRich = true\nInClub = true\n").unwrap();
    let session = at_the_menu(&mut world);
    let Waiting::Choice { options, .. } = session.waiting() else { unreachable!() };
    assert!(options.iter().all(|(_, available)| *available));
}

const CARDS: &str = "# The Cards\n\nTeller: Let us see.\n\n- `70%` Teller: The Sun.\n- `20%` Teller: The Moon.\n- `10%` Teller: The Tower.\n\nTeller: That is all.\n";

#[test]
fn a_restart_draws_on_and_undo_replays_the_same_draws() {
    // Seed 4's first two draws pick the Sun, then the Moon (conformance/stagehand/random-static-weights).
    let mut session = Session::new(playbook(CARDS), 4);
    session.send(Command::start(), &mut NoWorld);
    assert_eq!(said(&session.send(Command::Next, &mut NoWorld)), ["The Sun."]);
    let restarted = session.restart(&mut NoWorld).unwrap();
    assert_eq!(said(&restarted), ["Let us see."]);
    assert_eq!(said(&session.send(Command::Next, &mut NoWorld)), ["The Moon."]);
    let state = session.state().clone();
    assert!(session.undo(&mut NoWorld).unwrap());
    assert_eq!(said(&session.send(Command::Next, &mut NoWorld)), ["The Moon."]);
    assert_eq!(session.state(), &state);
    // Undoing the restart too comes back to the Sun.
    assert!(session.undo(&mut NoWorld).unwrap());
    assert!(session.undo(&mut NoWorld).unwrap());
    let history: Vec<String> = session
        .transcript()
        .iter()
        .flat_map(|r| said(&r.events.iter().cloned().map(Happening::Event).collect::<Vec<_>>()))
        .collect();
    assert_eq!(history, ["Let us see.", "The Sun."]);
}
