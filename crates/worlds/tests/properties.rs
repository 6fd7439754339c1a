//! Properties of playthroughs over any sequence of moves: nothing panics, undo takes back exactly
//! the person's last move (the world rewinds with it), and a save of any run loads back to the
//! same run, its world rebuilt.

mod support;

use proptest::prelude::*;
use stagehand_session::{Save, SaveKind, Sender};
use stagehand_worlds::{Playthrough, Waiting};
use support::{document, Shared};

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

#[derive(Debug, Clone)]
enum Step {
    Next,
    Choose(i64),
    Retry,
    Skip,
    Undo,
    Restart,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            4 => Just(Step::Next),
            3 => (-1i64..4).prop_map(Step::Choose),
            1 => Just(Step::Retry),
            1 => Just(Step::Skip),
            2 => Just(Step::Undo),
            1 => Just(Step::Restart),
        ],
        0..40,
    )
}

/// The world's own state, as the script reads it.
fn world_state(world: &Shared) -> String {
    format!("{:?} {:?}", world.read("InClub"), world.read("Tries"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn undo_takes_back_exactly_the_last_move(steps in steps(), seed in 0u64..1000) {
        let fair = document("fair.dialogue.md", FAIR);
        let world = Shared::new(WORLD, 5);
        let (mut p, _) = Playthrough::start(&fair, world.boxed(), seed, None).expect("it starts");
        // Before each of the person's moves: the journal's length, the view and the world's state.
        let mut before = Vec::new();
        for step in steps {
            let snapshot = (p.history().len(), p.view(), world_state(&world));
            let length = p.history().len();
            match step {
                Step::Next => { p.move_on(); }
                Step::Choose(i) => { p.choose(i); }
                Step::Retry => { p.retry(); }
                Step::Skip => { p.skip(); }
                Step::Restart => { p.restart().expect("the world resets"); }
                Step::Undo => {
                    if p.undo().expect("the journal replays") {
                        let (journal, view, kept) = before.pop().expect("a move to take back");
                        prop_assert_eq!(p.history().len(), journal);
                        prop_assert_eq!(p.view(), view);
                        prop_assert_eq!(world_state(&world), kept);
                    } else {
                        prop_assert!(before.is_empty());
                    }
                    continue;
                }
            }
            if p.history().len() > length && p.history()[length].entry.by == Sender::Player {
                before.push(snapshot);
            }
        }
        // Whatever happened, the run saves and loads back to itself, with its world rebuilt.
        let kept = world_state(&world);
        let json = p.save().to_json();
        let again = Shared::new(WORLD, 5);
        let (loaded, _) = Playthrough::load(&fair, again.boxed(), &json).expect("the save loads");
        prop_assert_eq!(loaded.view(), p.view());
        prop_assert_eq!(loaded.save(), p.save());
        prop_assert_eq!(world_state(&again), kept);
    }

    #[test]
    fn any_text_is_read_as_a_save_or_refused(text in ".{0,200}") {
        let _ = Save::from_json(&text, SaveKind::Script);
        let _ = Save::from_json(&text, SaveKind::Project);
    }

    #[test]
    fn a_held_run_loads_back_held(seed in 0u64..50) {
        let fair = document("fair.dialogue.md", FAIR);
        let (mut p, _) = Playthrough::start(&fair, Shared::new(WORLD, 5).boxed(), seed, None).unwrap();
        p.move_on();
        p.choose(1);
        p.move_on();
        prop_assert!(matches!(p.waiting(), Waiting::Held { .. }), "{:?}", p.waiting());
        let json = p.save().to_json();
        let (loaded, _) = Playthrough::load(&fair, Shared::new(WORLD, 5).boxed(), &json).expect("the save loads");
        prop_assert_eq!(loaded.waiting(), p.waiting());
    }
}
