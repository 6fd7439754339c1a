//! One lane per session in this process: applies to one session wait their turn here, so they
//! rarely race each other to the database, and no more than a bound wait at once (decision S4).
//! The lane is only an economy: correctness rests on the store's compare-and-swap, which also
//! orders applies from other processes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

#[derive(Debug, Default)]
struct Lane {
    turn: Arc<AsyncMutex<()>>,
    queued: usize,
}

/// The lanes, by session id.
#[derive(Debug)]
pub struct Lanes {
    lanes: Mutex<HashMap<String, Lane>>,
    bound: usize,
}

/// A turn in a session's lane; the next request goes when it is dropped.
#[derive(Debug)]
pub struct Turn<'a> {
    lanes: &'a Lanes,
    id: String,
    _guard: OwnedMutexGuard<()>,
}

impl Lanes {
    /// Lanes that let at most `bound` requests wait on one session.
    pub fn new(bound: usize) -> Lanes {
        Lanes { lanes: Mutex::new(HashMap::new()), bound }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Lane>> {
        self.lanes.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for the session's turn; `None` when `bound` requests already wait on it.
    pub async fn enter(&self, id: &str) -> Option<Turn<'_>> {
        let turn = {
            let mut lanes = self.lock();
            let lane = lanes.entry(id.to_owned()).or_default();
            if lane.queued >= self.bound {
                return None;
            }
            lane.queued += 1;
            lane.turn.clone()
        };
        // If this future is dropped while waiting, the count must still go down.
        let leave = Leave { lanes: self, id: id.to_owned(), armed: true };
        let guard = turn.lock_owned().await;
        let mut leave = leave;
        leave.armed = false;
        Some(Turn { lanes: self, id: id.to_owned(), _guard: guard })
    }

    fn leave(&self, id: &str) {
        let mut lanes = self.lock();
        if let Some(lane) = lanes.get_mut(id) {
            lane.queued -= 1;
            if lane.queued == 0 {
                lanes.remove(id);
            }
        }
    }

    /// How many sessions have a lane now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no session has a lane.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

struct Leave<'a> {
    lanes: &'a Lanes,
    id: String,
    armed: bool,
}

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.lanes.leave(&self.id);
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.lanes.leave(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_lane_holds_a_bounded_queue_and_is_forgotten_when_empty() {
        let lanes = Lanes::new(2);
        let first = lanes.enter("s").await.unwrap();
        // A second waits; a third is refused while two are queued.
        let lanes_ref = &lanes;
        let second = lanes_ref.enter("s");
        tokio::pin!(second);
        assert!(futures_util::poll!(second.as_mut()).is_pending());
        assert!(lanes.enter("s").await.is_none());
        // Another session has its own lane.
        drop(lanes.enter("t").await.unwrap());
        drop(first);
        let second = second.await.unwrap();
        drop(second);
        assert!(lanes.is_empty());
    }
}
