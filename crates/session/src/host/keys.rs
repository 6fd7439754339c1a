//! [`KeyIndex`]: which receipt an idempotency key names (decisions H50, H73).
//!
//! A session finds every key it is given (a miss, for a fresh key, is the common case) and
//! records one per executed action, for the session's life. Hosts mostly make their keys in
//! order — a counter (`k9` before `k10`), a time, a UUIDv7 or a ULID — so the index knows its
//! greatest key ([`order`]: the longer key after, keys of one length by their bytes), and a key
//! after it is fresh with one comparison, without a lookup (H73). Receipts are kept in two
//! parts:
//!
//! - **the ascending prefix**: the first receipts, for as long as each one's key came after
//!   the key before it. A key after them is recorded by counting it: no hash, and no memory
//!   written but the receipt's own (a table the size of the session's history, read and written
//!   at random places, misses the cache once the history outgrows it). A key among them is
//!   found by bisection.
//! - **the table**, for every receipt after the first that came out of order: open addressing
//!   with linear probing, at most half full, in two arrays — one byte a slot that is empty or
//!   holds seven bits of the key's hash (a tag), and an entry's number beside it; each entry
//!   keeps its key's whole hash and its receipt's index, so growing the table hashes no key
//!   again and a key's text is compared only when the whole hash matches. A fresh key's probe
//!   reads only tags, a quarter of the memory the numbers take (H53). The hash is the
//!   session's (foldhash seeded from the session's id, H32). When the first key out of order
//!   comes after a short prefix (fewer than [`SHORT`] receipts: keys in no order, as random
//!   ones are), the prefix moves into the table and the greatest key is forgotten, so such a
//!   host's keys are looked for in the table alone, as before H73.

use std::cmp::Ordering;
use std::hash::BuildHasher;

use foldhash::fast::FixedState;

use super::chunked::Chunked;

/// A prefix shorter than this moves into the table when the first key out of order comes.
const SHORT: u32 = 64;

/// A tag that marks an empty slot; a full slot's tag has its top bit set.
const EMPTY: u8 = 0;

/// The fewest slots a table that holds anything has.
const SMALLEST: usize = 16;

/// The tag of `hash`: its top seven bits, with the top bit set (the slot's position comes
/// from the low bits, so the two are independent).
#[inline]
fn tag(hash: u64) -> u8 {
    (hash >> 57) as u8 | 0x80
}

/// How `key` sorts against `other`: a longer key after a shorter one (so a counter written in
/// decimal ascends: `k9`, `k10`), keys of one length by their bytes. Also the order in which a
/// snapshot's receipts are recorded again, so keys a host counted up stay in order.
#[inline]
pub(crate) fn order(key: &[u8], other: &[u8]) -> Ordering {
    key.len().cmp(&other.len()).then_with(|| key.cmp(other))
}

/// Where a fresh key is to be recorded: what [`KeyIndex::find`] learnt while looking for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// After every key recorded, when `count` receipts were indexed.
    After { count: u64 },
    /// Before the greatest key: in the table, under the key's hash.
    Hashed(u64),
}

/// Receipt indices by their keys.
#[derive(Debug, Clone)]
pub(crate) struct KeyIndex {
    /// How many receipts, from the first, are the ascending prefix (their keys increase).
    prefix: u32,
    /// The receipt with the greatest key ([`order`]); none before the first.
    greatest: Option<u32>,
    /// A power of two of slots (or none), at most half of them full: [`EMPTY`] or the tag of
    /// the hash of the key whose entry's number is in `slots` at the same place.
    tags: Vec<u8>,
    /// An entry's number, for each slot whose tag is not [`EMPTY`].
    slots: Vec<u32>,
    /// The table's entries: each key's hash and its receipt's index (in chunks: growing copies
    /// none).
    entries: Chunked<(u64, u32)>,
    hasher: FixedState,
}

impl KeyIndex {
    /// An empty index whose keys are hashed with a seed drawn from the session's id (data the
    /// host chose, never entropy the session reads).
    pub(crate) fn new(session_id: &str) -> Self {
        let seed = FixedState::with_seed(0x5eed).hash_one(session_id);
        KeyIndex {
            prefix: 0,
            greatest: None,
            tags: Vec::new(),
            slots: Vec::new(),
            entries: Chunked::default(),
            hasher: FixedState::with_seed(seed),
        }
    }

    /// The hash of a key's bytes (every key is hashed through here, so the table's hashes agree).
    #[inline]
    fn hash(&self, key: &[u8]) -> u64 {
        self.hasher.hash_one(key)
    }

    /// How many receipts are indexed.
    fn count(&self) -> u64 {
        u64::from(self.prefix) + self.entries.len() as u64
    }

    /// The index of the receipt recorded under `key` (`key_of` gives a receipt's key), or
    /// where `key`, fresh, is to be recorded.
    #[inline]
    pub(crate) fn find<'k>(&self, key: &str, key_of: impl Fn(usize) -> &'k [u8]) -> Result<usize, Place> {
        let Some(greatest) = self.greatest else {
            return match self.entries.len() {
                0 => Err(Place::After { count: 0 }),
                // Keys in no order: the table alone, as if the greatest were never known.
                _ => self.find_before(key, key_of),
            };
        };
        match order(key.as_bytes(), key_of(greatest as usize)) {
            Ordering::Greater => Err(Place::After { count: self.count() }),
            Ordering::Equal => Ok(greatest as usize),
            Ordering::Less => self.find_before(key, key_of),
        }
    }

    /// [`find`](Self::find) for a key before the greatest: bisection of the prefix when it
    /// could be there, then the table.
    fn find_before<'k>(&self, key: &str, key_of: impl Fn(usize) -> &'k [u8]) -> Result<usize, Place> {
        if let Some(index) = self.bisect(key, &key_of) {
            return Ok(index);
        }
        let hash = self.hash(key.as_bytes());
        match self.probe(hash, |i| key_of(i) == key.as_bytes()) {
            Some(index) => Ok(index),
            None => Err(Place::Hashed(hash)),
        }
    }

    /// The receipt of the prefix recorded under `key`.
    #[inline]
    fn bisect<'k>(&self, key: &str, key_of: &impl Fn(usize) -> &'k [u8]) -> Option<usize> {
        let (mut low, mut high) = (0, self.prefix as usize);
        while low < high {
            let middle = low + (high - low) / 2;
            match order(key.as_bytes(), key_of(middle)) {
                Ordering::Less => high = middle,
                Ordering::Greater => low = middle + 1,
                Ordering::Equal => return Some(middle),
            }
        }
        None
    }

    /// The receipt index in the table whose key hashes to `hash` and for which `is_key` holds.
    fn probe(&self, hash: u64, is_key: impl Fn(usize) -> bool) -> Option<usize> {
        let mask = self.tags.len().checked_sub(1)?;
        let wanted = tag(hash);
        let mut at = hash as usize & mask;
        loop {
            let found = *self.tags.get(at)?;
            if found == EMPTY {
                return None;
            }
            if found == wanted {
                let (entry_hash, index) = *self.entries.get(*self.slots.get(at)? as usize)?;
                if entry_hash == hash && is_key(index as usize) {
                    return Some(index as usize);
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// Indexes receipt `index` under `key`, which was fresh and [`find`](Self::find) placed at
    /// `place` (`key_of` gives the key of a receipt indexed before). A receipt past four billion
    /// in one session is not indexed.
    #[inline]
    pub(crate) fn insert<'k>(&mut self, index: usize, key: &str, place: Place, key_of: impl Fn(usize) -> &'k [u8]) {
        let Ok(index) = u32::try_from(index) else { return };
        match place {
            Place::After { count } if count == self.count() => {
                if self.entries.len() == 0 && index == self.prefix {
                    self.prefix += 1;
                } else {
                    self.insert_hashed(self.hash(key.as_bytes()), index);
                }
                self.greatest = Some(index);
            }
            Place::After { .. } => self.insert_late(index, key, key_of),
            Place::Hashed(hash) => {
                if self.entries.len() == 0 && self.prefix < SHORT {
                    self.demote(&key_of);
                }
                self.insert_hashed(hash, index);
            }
        }
    }

    /// Indexes receipt `index` under `key`, whose place was found before another receipt was
    /// indexed: in the table, and as the greatest if it is (while the greatest is known).
    #[cold]
    fn insert_late<'k>(&mut self, index: u32, key: &str, key_of: impl Fn(usize) -> &'k [u8]) {
        let known = self.greatest.is_some() || self.entries.len() == 0;
        let greater =
            known && self.greatest.is_none_or(|g| order(key.as_bytes(), key_of(g as usize)) == Ordering::Greater);
        self.insert_hashed(self.hash(key.as_bytes()), index);
        if greater {
            self.greatest = Some(index);
        }
    }

    /// Moves the prefix into the table and forgets the greatest key: keys that came out of
    /// order this early come in no order, and each is looked for in the table alone (holding
    /// it against the greatest first would only cost a comparison).
    #[cold]
    fn demote<'k>(&mut self, key_of: &impl Fn(usize) -> &'k [u8]) {
        for index in 0..std::mem::take(&mut self.prefix) {
            self.insert_hashed(self.hash(key_of(index as usize)), index);
        }
        self.greatest = None;
    }

    /// Indexes receipt `index` in the table under `hash`.
    fn insert_hashed(&mut self, hash: u64, index: u32) {
        let Ok(number) = u32::try_from(self.entries.len()) else { return };
        self.entries.push((hash, index));
        if 2 * self.entries.len() > self.tags.len() {
            self.grow();
        } else {
            self.place(hash, number);
        }
    }

    /// Forgets every receipt (a table that had grown is given back, so a host that keeps one
    /// receipt at a time clears a small one: H39).
    pub(crate) fn clear(&mut self) {
        self.prefix = 0;
        self.greatest = None;
        self.entries.truncate(0);
        if self.tags.len() > SMALLEST {
            self.tags = Vec::new();
            self.slots = Vec::new();
        } else {
            self.tags.fill(EMPTY);
        }
    }

    /// Puts entry `number` in the first empty slot from its hash's.
    #[inline]
    fn place(&mut self, hash: u64, number: u32) {
        let mask = self.tags.len() - 1;
        let mut at = hash as usize & mask;
        while let Some(found) = self.tags.get_mut(at) {
            if *found == EMPTY {
                *found = tag(hash);
                if let Some(slot) = self.slots.get_mut(at) {
                    *slot = number;
                }
                return;
            }
            at = (at + 1) & mask;
        }
    }

    /// Quadruples the slots (at least [`SMALLEST`]) and places every entry again, from the
    /// hashes kept: a growing table is between an eighth and a half full, and places each
    /// entry again a third of a time on average.
    #[cold]
    fn grow(&mut self) {
        let size = (4 * self.entries.len()).next_power_of_two().max(SMALLEST);
        // Zeroed memory, not written: a large table comes zeroed from the system.
        self.tags = vec![EMPTY; size];
        self.slots = vec![0; size];
        let entries = std::mem::take(&mut self.entries);
        for (number, (hash, _)) in entries.iter().enumerate() {
            // At most four billion entries are kept (`insert_hashed`).
            self.place(*hash, number as u32);
        }
        self.entries = entries;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every key of `keys` in turn, checking each is fresh first and found after, then
    /// that every one is still found; what `find` answered for each fresh key.
    fn record_all(index: &mut KeyIndex, keys: &[String]) -> Vec<Place> {
        let key_of = |i: usize| keys[i].as_bytes();
        let mut places = Vec::new();
        for (n, key) in keys.iter().enumerate() {
            let place = index.find(key, key_of).expect_err("a fresh key is not found");
            index.insert(n, key, place, key_of);
            places.push(place);
            assert_eq!(index.find(key, key_of), Ok(n), "{key} after recording it");
        }
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(index.find(key, key_of), Ok(n), "{key} at the end");
        }
        places
    }

    #[test]
    fn keys_of_one_length_sort_by_their_bytes() {
        // Every pair of keys of one length from a few bytes, lengths 0 to 19: as byte order.
        let bytes = [0u8, 1, b'0', b'9', b'a', 0x7f, 0x80, 0xff];
        for len in 0..20 {
            for n in 0..64 {
                let key: Vec<u8> = (0..len).map(|i| bytes[(n * 7 + i * 3) % bytes.len()]).collect();
                for m in 0..64 {
                    let mut other = key.clone();
                    if let Some(byte) = other.get_mut((m * 5) % len.max(1)) {
                        *byte = bytes[m % bytes.len()];
                    }
                    assert_eq!(order(&key, &other), key.cmp(&other), "{key:?} against {other:?}");
                }
            }
        }
        assert_eq!(order(b"k9", b"k10"), Ordering::Less, "the longer after");
    }

    #[test]
    fn keys_made_in_order_are_only_counted_and_found_by_bisection() {
        let keys: Vec<String> = (0..5_000).map(|n| format!("k{n}")).collect();
        let mut index = KeyIndex::new("s");
        let places = record_all(&mut index, &keys);
        assert!(places.iter().all(|p| matches!(p, Place::After { .. })), "a decimal counter ascends");
        assert_eq!((index.prefix, index.entries.len()), (5_000, 0), "no table was needed");
        let key_of = |i: usize| keys[i].as_bytes();
        assert_eq!(index.find("k5000", key_of), Err(Place::After { count: 5_000 }));
        assert_eq!(index.find("k4999x", key_of), Err(Place::After { count: 5_000 }), "a longer key sorts last");
        assert!(matches!(index.find("k12a", key_of), Err(Place::Hashed(_))), "between two, not recorded");
        assert!(matches!(index.find("", key_of), Err(Place::Hashed(_))));
    }

    #[test]
    fn a_long_prefix_stays_when_keys_come_out_of_order_and_later_keys_go_to_the_table() {
        let mut keys: Vec<String> = (0..1_000).map(|n| format!("k{n}")).collect();
        keys.push("a".to_owned());
        keys.extend((1_000..2_000).map(|n| format!("k{n}")));
        let mut index = KeyIndex::new("s");
        let places = record_all(&mut index, &keys);
        assert!(matches!(places[1_000], Place::Hashed(_)));
        assert!(places[1_001..].iter().all(|p| matches!(p, Place::After { .. })), "after the greatest");
        assert_eq!((index.prefix, index.entries.len()), (1_000, 1_001));
    }

    #[test]
    fn keys_in_no_order_move_a_short_prefix_into_the_table() {
        // A shuffled order (a fixed permutation: 7919 is prime to 5,000).
        let keys: Vec<String> = (0..5_000).map(|n| format!("key-{}", (n * 7919) % 5_000)).collect();
        let mut index = KeyIndex::new("s");
        let places = record_all(&mut index, &keys);
        assert!(places.iter().any(|p| matches!(p, Place::After { .. })));
        assert!(places.iter().any(|p| matches!(p, Place::Hashed(_))));
        assert_eq!((index.prefix, index.entries.len()), (0, 5_000), "every receipt is in the table");
        assert_eq!(index.greatest, None, "and no key is held against the greatest");
        let key_of = |i: usize| keys[i].as_bytes();
        assert!(matches!(index.find("key-9999", key_of), Err(Place::Hashed(_))));
        assert!(index.find("key-5000", key_of).is_err());
        index.clear();
        assert_eq!(index.find("key-0", key_of), Err(Place::After { count: 0 }));
        index.insert(0, "key-0", Place::After { count: 0 }, key_of);
        assert_eq!(index.find(&keys[0], key_of), Ok(0));
    }

    #[test]
    fn a_place_found_before_another_key_was_recorded_is_checked_again() {
        let keys = ["a", "d", "c", "e"];
        let key_of = |i: usize| keys[i].as_bytes();
        let mut index = KeyIndex::new("s");
        index.insert(0, "a", Place::After { count: 0 }, key_of);
        let stale = index.find("c", key_of);
        assert_eq!(stale, Err(Place::After { count: 1 }));
        index.insert(1, "d", index.find("d", key_of).expect_err("fresh"), key_of);
        index.insert(2, "c", stale.expect_err("fresh"), key_of);
        let stale = index.find("e", key_of).expect_err("fresh");
        assert!(matches!(stale, Place::After { .. }));
        for (n, key) in keys.iter().enumerate().take(3) {
            assert_eq!(index.find(key, key_of), Ok(n), "{key}");
        }
        assert_eq!((index.prefix, index.entries.len()), (2, 1), "`c` is in the table, not after `d`");
        assert_eq!(index.greatest, Some(1));
        index.insert(3, "e", stale, key_of);
        assert_eq!(index.greatest, Some(3), "a late place that is still the greatest becomes it");
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(index.find(key, key_of), Ok(n), "{key}");
        }
    }
}
