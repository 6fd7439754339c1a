//! Waking live trace streams on other servers: after a commit, a server sends PostgreSQL's
//! `NOTIFY` on one channel with the session's id, and every server `LISTEN`s on it and wakes its
//! live streams, which then read the store as they do when they poll (decision S20).
//!
//! Only a wake-up (issue 14, item 3): nothing is read from a notification but that something
//! committed, streams poll behind it, and a notification lost, late or never sent (a database
//! without `LISTEN`/`NOTIFY`, such as CockroachDB; a dropped connection) delays a stream by one
//! poll at most. So its failures are noted once and retried slowly, never answered to a client.

use std::time::Duration;

use sqlx::postgres::PgListener;
use sqlx::{Connection, PgConnection};
use tokio::sync::mpsc;

use crate::app::Shared;

/// The channel every server listens on.
pub const CHANNEL: &str = "stagehand_commits";

/// How many notifications may wait to be sent; more are dropped (a stream's poll covers them).
const WAITING: usize = 1024;

/// How long a task waits before it connects again after a failure.
const BACKOFF: Duration = Duration::from_secs(2);

/// Hands commits to the task that sends them, without waiting on the database.
#[derive(Debug)]
pub struct Notifier {
    sender: mpsc::Sender<String>,
    /// This process's mark in every payload, so it skips its own notifications.
    origin: String,
}

/// The commits waiting to be sent, for [`start`].
#[derive(Debug)]
pub struct Outgoing(mpsc::Receiver<String>);

impl Notifier {
    /// A notifier and the queue [`start`] sends from.
    pub fn new() -> (Notifier, Outgoing) {
        let (sender, receiver) = mpsc::channel(WAITING);
        (Notifier { sender, origin: crate::secret::random_hex(8) }, Outgoing(receiver))
    }

    /// Says that the session `id` committed. Never waits; dropped when the queue is full.
    pub fn notify(&self, id: &str) {
        let _ = self.sender.try_send(id.to_owned());
    }
}

/// The payload of a notification: `ORIGIN:SESSION`.
fn payload(origin: &str, id: &str) -> String {
    format!("{origin}:{id}")
}

/// Whether a payload came from this process.
fn from_origin(payload: &str, origin: &str) -> bool {
    payload.split_once(':').is_some_and(|(from, _)| from == origin)
}

/// How long a server waits at start for its first `LISTEN` before it serves without one (its
/// streams poll meanwhile, and the listener goes on trying).
const FIRST_LISTEN: Duration = Duration::from_secs(10);

/// Starts the two tasks over the PostgreSQL database at `url`: one sends the commits of this
/// process, one listens and wakes this process's live streams. Both end when the server shuts
/// down. Returns once the first `LISTEN` is in place (or failed, or took too long), so a server
/// that says it listens hears every commit made after that.
pub async fn start(url: &str, state: &Shared, outgoing: Outgoing) {
    let Some(origin) = state.notifier.as_ref().map(|n| n.origin.clone()) else { return };
    tokio::spawn(send(url.to_owned(), state.clone(), origin.clone(), outgoing));
    let (ready, listening) = tokio::sync::oneshot::channel();
    tokio::spawn(listen(url.to_owned(), state.clone(), origin, ready));
    let _ = tokio::time::timeout(FIRST_LISTEN, listening).await;
}

async fn send(url: String, state: Shared, origin: String, Outgoing(mut outgoing): Outgoing) {
    let mut shutdown = state.shutdown.subscribe();
    let mut connection: Option<PgConnection> = None;
    let mut noted = false;
    loop {
        let id = tokio::select! {
            id = outgoing.recv() => match id { Some(id) => id, None => return },
            _ = shutdown.changed() => return,
        };
        // Commits that arrived meanwhile: one notification per session.
        let mut ids = vec![id];
        while let Ok(more) = outgoing.try_recv() {
            if !ids.contains(&more) {
                ids.push(more);
            }
        }
        if connection.is_none() {
            match PgConnection::connect(&url).await {
                Ok(opened) => connection = Some(opened),
                Err(error) => {
                    noted = note_once(noted, &error);
                    tokio::time::sleep(BACKOFF).await;
                    continue;
                }
            }
        }
        let Some(open) = connection.as_mut() else { continue };
        for id in &ids {
            let sent = sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANNEL)
                .bind(payload(&origin, id))
                .execute(&mut *open)
                .await;
            if let Err(error) = sent {
                noted = note_once(noted, &error);
                connection = None;
                tokio::time::sleep(BACKOFF).await;
                break;
            }
        }
    }
}

async fn listen(url: String, state: Shared, origin: String, ready: tokio::sync::oneshot::Sender<()>) {
    let mut shutdown = state.shutdown.subscribe();
    let mut noted = false;
    let mut ready = Some(ready);
    loop {
        let connected = async {
            let mut listener = PgListener::connect(&url).await?;
            listener.listen(CHANNEL).await?;
            Ok::<_, sqlx::Error>(listener)
        };
        let mut listener = tokio::select! {
            connected = connected => match connected {
                Ok(listener) => listener,
                Err(error) => {
                    noted = note_once(noted, &error);
                    if let Some(ready) = ready.take() {
                        let _ = ready.send(());
                    }
                    tokio::select! {
                        () = tokio::time::sleep(BACKOFF) => continue,
                        _ = shutdown.changed() => return,
                    }
                }
            },
            _ = shutdown.changed() => return,
        };
        if let Some(ready) = ready.take() {
            let _ = ready.send(());
        }
        // Commits made while no one listened are not heard of: wake the streams to look.
        state.committed.send_modify(|n| *n = n.wrapping_add(1));
        loop {
            let received = tokio::select! {
                received = listener.recv() => received,
                _ = shutdown.changed() => return,
            };
            match received {
                Ok(notification) if !from_origin(notification.payload(), &origin) => {
                    state.committed.send_modify(|n| *n = n.wrapping_add(1));
                }
                Ok(_) => {}
                Err(error) => {
                    noted = note_once(noted, &error);
                    break;
                }
            }
        }
    }
}

/// Notes the first failure on standard error (live streams fall back to polling); later ones
/// are not repeated.
fn note_once(noted: bool, error: &sqlx::Error) -> bool {
    if !noted {
        crate::note!("stagehand serve: LISTEN/NOTIFY is unavailable ({error}); live traces poll the database");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_knows_its_own_notifications() {
        let (notifier, _) = Notifier::new();
        let mine = payload(&notifier.origin, "s1");
        assert!(from_origin(&mine, &notifier.origin));
        assert!(!from_origin(&payload("other", "s1"), &notifier.origin));
        assert!(!from_origin("garbage", &notifier.origin));
    }

    #[tokio::test]
    async fn notifying_never_waits_and_drops_what_does_not_fit() {
        let (notifier, Outgoing(mut queue)) = Notifier::new();
        for n in 0..WAITING + 10 {
            notifier.notify(&format!("s{n}"));
        }
        let mut queued = 0;
        while queue.try_recv().is_ok() {
            queued += 1;
        }
        assert_eq!(queued, WAITING);
    }
}
