//! Properties of sessions over any sequence of moves: nothing panics, undo takes back exactly the
//! last move, and a save of any run loads back to the same run.

use proptest::prelude::*;
use stagehand_dialoguedown::{compile, Options};
use stagehand_playbook::Playbook;
use stagehand_runner::Command;
use stagehand_session::{LuaWorld, Save, Session, Waiting};

const FAIR: &str = r#"# The Fair

Mira: Welcome!

- Join the art club.

  `JoinClub("Art")` Mira hands you a brush.

- Join the chess club.

  `JoinClub("Chess")` Mira hands you a pawn.

- `Rich?` Buy a yacht.

# The Party

`InClub?` Mira: Members get in free!

- `50%` DJ: Dance!
- `%` DJ: Waltz!

Mira: Bye.

- Again?

  => [The Fair](#the-fair)

- Stop.
"#;

const WORLD: &str = r#"
InClub = false
Rich = false
Tries = 0
function JoinClub(club)
  Tries = Tries + 1
  if club == "Chess" and Tries % 2 == 1 then error("full") end
  InClub = true
end
"#;

fn playbook() -> Playbook {
    compile(FAIR, "fair.dialogue.md", &Options::default()).playbook.expect("the script compiles")
}

#[derive(Debug, Clone)]
enum Move {
    Next,
    Choose(i64),
    Retry,
    Undo,
    Restart,
}

fn moves() -> impl Strategy<Value = Vec<Move>> {
    prop::collection::vec(
        prop_oneof![
            4 => Just(Move::Next),
            3 => (-1i64..4).prop_map(Move::Choose),
            1 => Just(Move::Retry),
            2 => Just(Move::Undo),
            1 => Just(Move::Restart),
        ],
        0..40,
    )
}

fn world() -> LuaWorld {
    LuaWorld::new("fair.lua", WORLD, 5).expect("the world loads")
}

/// The world's own state, as the script reads it.
fn world_state(world: &LuaWorld) -> String {
    format!("{:?} {:?}", world.read("InClub"), world.read("Tries"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn undo_takes_back_exactly_the_last_move(moves in moves(), seed in 0u64..1000) {
        let playbook = playbook();
        let mut world = world();
        let mut session = Session::new(playbook.clone(), seed);
        session.send(Command::start(), &mut world);
        // Each accepted move's journal before it, the state and the world's state.
        let mut before: Vec<(usize, stagehand_runner::PlayState, String)> = Vec::new();
        for step in moves {
            let snapshot = (session.journal().len(), session.state().clone(), world_state(&world));
            let length = session.journal().len();
            match step {
                Move::Next => { session.send(Command::Next, &mut world); }
                Move::Choose(i) => { session.send(Command::Choose(i), &mut world); }
                Move::Retry => { session.retry(&mut world); }
                Move::Restart => { session.restart(&mut world).expect("the world resets"); }
                Move::Undo => {
                    if session.undo(&mut world).expect("the journal replays") {
                        let (journal, state, kept) = before.pop().expect("a move to take back");
                        prop_assert_eq!(session.journal().len(), journal);
                        prop_assert_eq!(session.state(), &state);
                        prop_assert_eq!(world_state(&world), kept);
                    } else {
                        prop_assert!(before.is_empty());
                    }
                    continue;
                }
            }
            if session.journal().len() > length {
                let player_moved = session.journal()[length].by == stagehand_session::Sender::Player;
                if player_moved {
                    before.push(snapshot);
                }
            }
        }
        // Whatever happened, the run saves and loads back to itself, with its world rebuilt.
        let kept = world_state(&world);
        let json = session.save().to_json();
        let (loaded, _) = Session::load_json(playbook, &json, &mut world).expect("the save loads");
        prop_assert_eq!(loaded.state(), session.state());
        prop_assert_eq!(loaded.journal(), session.journal());
        prop_assert_eq!(world_state(&world), kept);
    }

    #[test]
    fn any_text_is_read_as_a_save_or_refused(text in ".{0,200}") {
        let _ = Save::from_json(&text);
    }

    #[test]
    fn a_held_run_loads_back_held(seed in 0u64..50) {
        let mut world = world();
        let mut session = Session::new(playbook(), seed);
        session.send(Command::start(), &mut world);
        session.send(Command::Next, &mut world);
        session.send(Command::Choose(1), &mut world);
        session.send(Command::Next, &mut world);
        let json = session.save().to_json();
        let (loaded, _) = Session::load_json(playbook(), &json, &mut world).expect("the save loads");
        prop_assert!(matches!(session.waiting(), Waiting::Held { .. }), "{:?}", session.waiting());
        prop_assert_eq!(loaded.waiting(), session.waiting());
    }
}
