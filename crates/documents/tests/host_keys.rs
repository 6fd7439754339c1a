//! Idempotency keys in every order a host makes them (decision H73): counted up, one out of
//! order in the middle of a count, in no order at all, the empty key and keys longer and shorter
//! than the rest. Whatever the order, every key replays its own receipt and executes nothing,
//! before and after a snapshot is restored, and a fresh key still executes.

mod host_support;

use host_support::{choose, fair, make, Choice};
use stagehand_protocol::{Engine, Receipt};
use stagehand_runner::RunnerEngine;
use stagehand_session::host::{Session, SessionSnapshot};

/// The keys, in the order the host uses them.
fn keys() -> Vec<String> {
    let mut keys: Vec<String> = (1..=80).map(|n| format!("k{n}")).collect();
    keys.push("a".to_owned());
    keys.extend((81..=120).map(|n| format!("k{n}")));
    keys.extend((1..=40u64).map(|n| format!("{:016x}", n.wrapping_mul(0x9e37_79b9_7f4a_7c15))));
    keys.extend(["", "zzzzzzzzzzzzzzzzzzzzzzzz", "k0", "k"].map(str::to_owned));
    keys
}

/// A move from the session's view, or a restart when the story ended.
fn next_move<E: Engine>(session: &Session<E>, pick: usize) -> Choice {
    choose(&session.describe(), pick).unwrap_or_else(|| Choice::Apply("restart".to_owned()))
}

/// Applies each key's move again and checks it returns the receipt it gave and changes nothing.
fn replays<E: Engine>(session: &mut Session<E>, given: &[(String, Choice, Receipt)]) {
    let (count, view) = (session.receipt_count(), session.describe());
    for (key, choice, receipt) in given {
        assert_eq!(&make(session, choice, key, 9_999), receipt, "{key:?} replayed");
    }
    assert_eq!(session.receipt_count(), count, "no replay recorded anything");
    assert_eq!(session.describe(), view, "no replay moved the session");
}

#[test]
fn every_key_replays_its_own_receipt_whatever_order_the_keys_came_in() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).expect("a session");
    let mut given = Vec::new();
    for (turn, key) in keys().into_iter().enumerate() {
        assert!(!session.has_key(&key), "{key:?} is fresh");
        let choice = next_move(&session, turn);
        let receipt = make(&mut session, &choice, &key, turn as u64);
        assert!(matches!(receipt, Receipt::Executed { .. }), "{key:?}: {receipt:?}");
        assert!(session.has_key(&key), "{key:?} is recorded");
        given.push((key, choice, receipt));
    }
    assert_eq!(session.receipt_count(), given.len());
    replays(&mut session, &given);

    let json = serde_json::to_string(&session.snapshot().expect("a snapshot")).expect("JSON");
    let snapshot: SessionSnapshot<_> = serde_json::from_str(&json).expect("it reads back");
    let mut restored = Session::restore(RunnerEngine::new(&playbook, 7), snapshot).expect("it restores");
    replays(&mut restored, &given);

    // Fresh keys after the restore execute: after every key, between two, and before all.
    for (turn, key) in ["k121", "k1000", "k60a", "0", "b"].into_iter().enumerate() {
        assert!(!restored.has_key(key), "{key:?} is fresh after the restore");
        let choice = next_move(&restored, turn);
        let receipt = make(&mut restored, &choice, key, 20_000);
        assert!(matches!(receipt, Receipt::Executed { .. }), "{key:?} after the restore: {receipt:?}");
        given.push((key.to_owned(), choice, receipt));
    }
    replays(&mut restored, &given);
}
