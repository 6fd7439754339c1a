//! The worlds driver on a host session: it takes lines, carries commands out through the world,
//! answers the keys the world knows, and stops where a person must act.

#[path = "../../documents/tests/host_support/mod.rs"]
mod host_support;

use host_support::{fair, ids};
use stagehand_playbook::Fragment;
use stagehand_protocol::{Answer, AnswerKind};
use stagehand_runner::RunnerEngine;
use stagehand_session::host::{Pending, Session};
use stagehand_worlds::{drive, FactsWorld, Stop, World, WorldError};

/// A world that knows `You.Rich` and records, or refuses, the commands it is given.
struct Ledger {
    rich: Option<bool>,
    refuse: bool,
    performed: Vec<String>,
}

impl World for Ledger {
    fn answer(&mut self, key: &str, _kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        Ok(if key == "You.Rich" { self.rich.map(Answer::Truth) } else { None })
    }

    fn perform(&mut self, effect: &Fragment) -> Result<(), WorldError> {
        self.performed.push(stagehand_worlds::command_text(effect));
        if self.refuse {
            Err(WorldError("the art club is full".to_owned()))
        } else {
            Ok(())
        }
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        Ok(())
    }
}

#[test]
fn the_driver_answers_what_the_world_knows_and_stops_at_the_menu() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "d1", 1).unwrap();
    let mut world = Ledger { rich: Some(true), refuse: false, performed: Vec::new() };
    let driven = drive(&mut session, &mut world, 2);
    assert_eq!(driven.stop, Stop::Person);
    assert!(matches!(session.pending(), Pending::Menu { .. }), "{:?}", session.pending());
    let view = session.describe();
    assert!(ids(&view).contains(&"choose:2".to_owned()), "the world said You.Rich: {:?}", ids(&view));

    // The art club's command is carried out by the world after a restore of the snapshot.
    let json = serde_json::to_string(&session.snapshot().unwrap()).unwrap();
    let mut session = Session::restore(RunnerEngine::new(&playbook, 7), serde_json::from_str(&json).unwrap()).unwrap();
    session.apply("choose:0", "me", 3);
    let driven = drive(&mut session, &mut world, 4);
    assert_eq!(world.performed, ["JoinClub(\"You\", \"Art\")"]);
    assert_eq!(driven.stop, Stop::Person, "{driven:?}");
    assert_eq!(session.describe().pending_questions[0].question_id, "You.InClub", "the world does not know it");
}

#[test]
fn a_key_no_world_knows_and_a_failed_command_stop_for_a_person() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "d2", 1).unwrap();
    let mut nobody = FactsWorld::from_toml("").unwrap();
    let driven = drive(&mut session, &mut nobody, 2);
    assert_eq!(driven.stop, Stop::Person);
    assert_eq!(session.describe().pending_questions[0].question_id, "You.Rich");

    let mut world = Ledger { rich: Some(false), refuse: true, performed: Vec::new() };
    drive(&mut session, &mut world, 3);
    session.apply("choose:0", "me", 4);
    let driven = drive(&mut session, &mut world, 5);
    assert_eq!(driven.stop, Stop::Person);
    assert_eq!(driven.world_error.as_deref(), Some("the art club is full"));
    assert_eq!(ids(&session.describe())[0], "retry", "a failed command waits for a person");
}
