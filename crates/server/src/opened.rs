//! [`Opened`]: the documents this process has opened, kept for the next request that needs them,
//! within a budget (decision S30).
//!
//! Every upload, every version a watched folder's writer saves and every document a session
//! needs is opened (compiled, read) once and kept here, so a session's request does not open its
//! document again. The store keeps every document for good; this process keeps only the most
//! recently used, up to a budget counted in the documents' source bytes, and opens one again
//! from the store when it is asked for after it was let go. A session this process keeps in
//! memory (S25) holds its own document, so letting one go here never stops a session.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use stagehand_documents::Document;

/// Opened documents by fingerprint, the most recently used kept within a budget.
#[derive(Debug)]
pub struct Opened {
    kept: RwLock<HashMap<String, Kept>>,
    /// The most source bytes kept (the newest document is kept whatever its size).
    budget: usize,
    /// Counts uses, to tell which document was used longest ago.
    clock: AtomicU64,
}

#[derive(Debug)]
struct Kept {
    document: Arc<Document>,
    /// The size of the document's source, in bytes.
    bytes: usize,
    /// The clock when it was last used.
    used: AtomicU64,
}

impl Opened {
    /// Nothing kept yet; at most `budget` source bytes will be.
    pub fn new(budget: usize) -> Opened {
        Opened { kept: RwLock::new(HashMap::new()), budget, clock: AtomicU64::new(0) }
    }

    /// The document with this fingerprint, if it is kept.
    pub fn get(&self, fingerprint: &str) -> Option<Arc<Document>> {
        let kept = self.kept.read().unwrap_or_else(PoisonError::into_inner);
        let found = kept.get(fingerprint)?;
        found.used.store(self.tick(), Ordering::Relaxed);
        Some(found.document.clone())
    }

    /// Keeps `document` (opened from `bytes` source bytes), letting the documents used longest
    /// ago go while the kept ones' sources come to more than the budget.
    pub fn keep(&self, fingerprint: &str, document: Arc<Document>, bytes: usize) {
        let used = AtomicU64::new(self.tick());
        let mut kept = self.kept.write().unwrap_or_else(PoisonError::into_inner);
        kept.insert(fingerprint.to_owned(), Kept { document, bytes, used });
        let mut total: usize = kept.values().map(|k| k.bytes).sum();
        while total > self.budget && kept.len() > 1 {
            let oldest = kept
                .iter()
                .filter(|(key, _)| key.as_str() != fingerprint)
                .min_by_key(|(_, k)| k.used.load(Ordering::Relaxed))
                .map(|(key, _)| key.clone());
            let Some(oldest) = oldest else { break };
            if let Some(gone) = kept.remove(&oldest) {
                total -= gone.bytes;
            }
        }
    }

    /// How many documents are kept.
    pub fn len(&self) -> usize {
        self.kept.read().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagehand_documents::OpenOptions;

    fn script(n: usize) -> Arc<Document> {
        let text = format!("Line {n}.\n");
        Arc::new(Document::open("a.dialogue.md", text.as_bytes(), &OpenOptions::default()).expect("it opens"))
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_newest_always_stays() {
        let opened = Opened::new(250);
        for n in 0..3 {
            opened.keep(&format!("d{n}"), script(n), 100);
        }
        // 300 bytes over a budget of 250: d0, used longest ago, went.
        assert_eq!(opened.len(), 2);
        assert!(opened.get("d0").is_none());
        // d1 used now: d2 is the oldest when d3 comes.
        assert!(opened.get("d1").is_some());
        opened.keep("d3", script(3), 100);
        assert!(opened.get("d2").is_none());
        assert!(opened.get("d1").is_some() && opened.get("d3").is_some());
        // A document larger than the whole budget is kept, alone.
        opened.keep("big", script(4), 1_000);
        assert_eq!(opened.len(), 1);
        assert!(opened.get("big").is_some());
        // Keeping the same fingerprint again replaces it, counted once.
        opened.keep("big", script(5), 1_000);
        assert_eq!(opened.len(), 1);
    }
}
