//! What the session says when something does not fit: values as Lua 5.1 writes them, and a save
//! from another script named by that script.

use stagehand_dialoguedown::{compile, Options};
use stagehand_playbook::Playbook;
use stagehand_runner::{AnswerKind, Command};
use stagehand_session::{ask_world, Happening, LoadError, LuaWorld, NoWorld, Session};

fn playbook(source: &str, file: &str) -> Playbook {
    let compilation = compile(source, file, &Options::default());
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    compilation.playbook.expect("a playbook")
}

#[test]
fn a_number_the_world_cannot_give_is_written_as_lua_writes_it() {
    let mut world = LuaWorld::new("w.lua", "weight = 0/0 far = -1/0", 1).expect("the world loads");
    let mut out = Vec::new();
    ask_world(&[("weight".into(), AnswerKind::Number), ("far".into(), AnswerKind::Number)], &mut world, &mut out);
    let problems: Vec<String> = out
        .iter()
        .filter_map(|h| match h {
            Happening::Guessed { problem: Some(problem), .. } => Some(problem.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(problems.len(), 2, "{out:?}");
    for problem in &problems {
        assert!(!problem.contains("Number("), "no Rust debug spelling: {problem}");
    }
    assert!(problems[0].contains("answered nan") || problems[0].contains("answered -nan"), "{}", problems[0]);
    assert!(problems[1].contains("answered -inf"), "{}", problems[1]);
}

#[test]
fn a_save_from_another_script_names_that_script() {
    let club = playbook("Mira: Welcome!\n\n- Stay.\n\n  Mira: Good.\n\n- Go.\n", "club.dialogue.md");
    let other = playbook("Ada: Hello.\n\nAda: Bye.\n", "ada.dialogue.md");
    let mut session = Session::new(club, 1);
    session.send(Command::start(), &mut NoWorld);
    session.send(Command::Next, &mut NoWorld);
    session.send(Command::Choose(0), &mut NoWorld);
    let error = Session::load(other, &session.save(), &mut NoWorld).unwrap_err();
    assert!(matches!(error, LoadError::OtherScript { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("club.dialogue.md") && message.contains("ada.dialogue.md"), "{message}");
}
