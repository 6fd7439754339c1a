//! Starting at a named place (H40), what a host that renders more than receipts gets (H44), and
//! `why` for either kind: through `Document` and `AnySession`, as every host holds them.

use stagehand_documents::{Document, OpenOptions};
use stagehand_protocol::{OwnedEvent, Receipt, Status};
use stagehand_session::host::{Move, Pending};

fn example(name: &str) -> Document {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Document::open(name, &bytes, &OpenOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_session_opens_at_an_anchor_and_a_refused_one_leaves_it_stuck() {
    let fair = example("club-fair.dialogue.md");
    let mut secret = fair.start_at("s", 0, Some("the-secret-club"), 1).unwrap();
    let opening = secret.take_opening_events();
    assert!(
        opening.iter().any(|e| matches!(e, OwnedEvent::Said { speaker: Some(s), .. } if s == "Stranger")),
        "{opening:?}"
    );
    assert_eq!(secret.journal(), [Move::Start { anchor: Some("the-secret-club".into()) }]);

    let mut nowhere = fair.start_at("n", 0, Some("the-moon"), 1).unwrap();
    assert!(matches!(nowhere.pending(), Pending::Stuck { .. }), "{:?}", nowhere.pending());
    assert_eq!(nowhere.describe().status, Status::Error);
    let opening = nowhere.take_opening_events();
    assert!(matches!(opening[..], [OwnedEvent::Refused { .. }]), "{opening:?}");
}

#[test]
fn start_is_taken_though_not_advertised_and_a_refused_one_is_not_journalled() {
    let fair = example("club-fair.dialogue.md");
    let mut session = fair.start("s", 3, 1).unwrap();
    assert!(session.describe().actions.iter().all(|a| !a.id.starts_with("start")), "not advertised");
    let journalled = session.journal().len();
    let view = session.describe();
    let refused = session.apply("start:the-moon", "k1", 2);
    assert!(matches!(&refused, Receipt::Rejected { reason } if reason.contains("no-such-anchor")), "{refused:?}");
    assert_eq!((session.journal().len(), session.describe()), (journalled, view), "nothing happened");
    assert!(!session.has_key("k1"), "a rejected key is not remembered");

    let receipt = session.apply("start:the-secret-club", "k2", 3);
    assert!(matches!(receipt, Receipt::Executed { .. }), "{receipt:?}");
    assert_eq!(session.journal().last(), Some(&Move::Start { anchor: Some("the-secret-club".into()) }));
    assert!(matches!(session.apply("undo", "k3", 4), Receipt::Executed { .. }));
    assert_eq!(session.journal().len(), journalled, "undo takes the start back");
    assert!(matches!(session.apply("start", "k4", 5), Receipt::Executed { .. }), "the entry again");
}

#[test]
fn kept_events_are_the_engines_own_and_only_for_the_host_that_asks() {
    let crossing = example("the-crossing.json");
    let mut session = crossing.start("c", 0, 1).unwrap();
    assert!(matches!(session.apply("next", "k1", 2), Receipt::Executed { .. }));
    assert!(session.take_events().is_empty(), "not kept unless asked");
    session.keep_events();
    assert!(matches!(session.apply("next", "k2", 3), Receipt::Executed { .. }));
    let events = session.take_events();
    assert!(events.iter().any(|e| matches!(e, OwnedEvent::Offer { options, .. } if options.len() == 2)), "{events:?}");
    assert!(session.take_events().is_empty(), "taken once");
    assert!(session.take_log().is_empty(), "the crossing logs nothing");
}

#[test]
fn why_explains_either_kind() {
    let fair = example("club-fair.dialogue.md");
    let mut session = fair.start("s", 3, 1).unwrap();
    for n in 0..20 {
        let key = format!("k{n}");
        match session.pending().clone() {
            Pending::Menu { .. } => break,
            Pending::Resolve { asked } => session.input(&asked[0].key, "no", &key, 2),
            Pending::Perform { .. } => session.apply("done", &key, 2),
            _ => session.apply("next", &key, 2),
        };
    }
    let why = fair.why(session.as_mut());
    assert!(why.contains("Ways out:") && why.contains("option 1 \"Join the art club.\""), "{why}");

    let crossing = example("the-crossing.json");
    let mut session = crossing.start("c", 0, 1).unwrap();
    for key in ["k1", "k2"] {
        session.apply("next", key, 2);
    }
    let why = crossing.why(session.as_mut());
    assert!(why.contains("a menu of 2 options") && why.contains("I'll take the crossing."), "{why}");
}
