//! [`KeyIndex`]: which receipt an idempotency key names, found by the key's hash (decision H50).
//!
//! A session finds every key it is given (a miss, for a fresh key, is the common case) and
//! records one per executed action, for the session's life. This is the smallest table that
//! does that: open addressing with linear probing, at most half full, in two arrays — one byte
//! a slot that is empty or holds seven bits of the key's hash (a tag), and the receipt's index
//! beside it. A fresh key's probe reads only tags, a quarter of the memory the indices take, so
//! it misses the cache less often as the session grows (H53): the slot's index and the key's
//! whole hash are read only when a tag matches, one probe in 128. The keys' hashes are kept by receipt, so growing
//! the table hashes no key again and a key's text is compared only when the whole hash
//! matches. The hash is the session's (foldhash seeded from the session's id, H32): this table
//! never sees a key's text.

use super::chunked::Chunked;

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

/// Receipt indices by their keys' hashes.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyIndex {
    /// A power of two of slots (or none), at most half of them full: [`EMPTY`] or the tag of
    /// the hash of the key whose receipt's index is in `slots` at the same place.
    tags: Vec<u8>,
    /// A receipt's index, for each slot whose tag is not [`EMPTY`].
    slots: Vec<u32>,
    /// Each receipt's key hash, by the receipt's index (in chunks: growing copies none).
    hashes: Chunked<u64>,
}

impl KeyIndex {
    /// The index of the receipt whose key hashes to `hash` and for which `is_key` holds.
    #[inline]
    pub(crate) fn find(&self, hash: u64, is_key: impl Fn(usize) -> bool) -> Option<usize> {
        let mask = self.tags.len().checked_sub(1)?;
        let wanted = tag(hash);
        let mut at = hash as usize & mask;
        loop {
            let found = *self.tags.get(at)?;
            if found == EMPTY {
                return None;
            }
            if found == wanted {
                let index = *self.slots.get(at)? as usize;
                if self.hashes.get(index) == Some(&hash) && is_key(index) {
                    return Some(index);
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// Indexes the next receipt (the one at [`len`](Self::len)), whose key hashes to `hash`
    /// and is not indexed yet.
    #[inline]
    pub(crate) fn insert(&mut self, hash: u64) {
        let index = self.hashes.len();
        self.hashes.push(hash);
        if 2 * self.hashes.len() > self.tags.len() {
            self.grow();
        } else {
            self.place(hash, index);
        }
    }

    /// How many receipts are indexed.
    pub(crate) fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Forgets every receipt (a table that had grown is given back, so a host that keeps one
    /// receipt at a time clears a small one: H39).
    pub(crate) fn clear(&mut self) {
        self.hashes.truncate(0);
        if self.tags.len() > SMALLEST {
            self.tags = Vec::new();
            self.slots = Vec::new();
        } else {
            self.tags.fill(EMPTY);
        }
    }

    /// Puts receipt `index` in the first empty slot from its hash's. A receipt past the
    /// slots' numbering (four billion in one session) is not indexed.
    #[inline]
    fn place(&mut self, hash: u64, index: usize) {
        let Ok(index) = u32::try_from(index) else { return };
        let mask = self.tags.len() - 1;
        let mut at = hash as usize & mask;
        while let Some(found) = self.tags.get_mut(at) {
            if *found == EMPTY {
                *found = tag(hash);
                if let Some(slot) = self.slots.get_mut(at) {
                    *slot = index;
                }
                return;
            }
            at = (at + 1) & mask;
        }
    }

    /// Quadruples the slots (at least [`SMALLEST`]) and places every receipt again, from the
    /// hashes kept: a growing table is between an eighth and a half full, and places each
    /// receipt again a third of a time on average.
    #[cold]
    fn grow(&mut self) {
        let size = (4 * self.hashes.len()).next_power_of_two().max(SMALLEST);
        // Zeroed memory, not written: a large table comes zeroed from the system.
        self.tags = vec![EMPTY; size];
        self.slots = vec![0; size];
        let hashes = std::mem::take(&mut self.hashes);
        for (index, hash) in hashes.iter().enumerate() {
            self.place(*hash, index);
        }
        self.hashes = hashes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_finds_what_it_indexed_and_nothing_else() {
        let keys: Vec<String> = (0..5_000).map(|n| format!("k{n}")).collect();
        // A weak hash (many collisions, all in a few runs) still finds each key by its text.
        let hash = |key: &str| key.len() as u64 * 7 + u64::from(key.as_bytes()[key.len() - 1] % 4);
        let mut index = KeyIndex::default();
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(index.find(hash(key), |i| keys[i] == *key), None);
            index.insert(hash(key));
            assert_eq!(index.len(), n + 1);
            assert_eq!(index.find(hash(key), |i| keys[i] == *key), Some(n));
        }
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(index.find(hash(key), |i| keys[i] == *key), Some(n));
        }
        assert_eq!(index.find(hash("k5000"), |i| keys[i] == "k5000"), None);
        index.clear();
        assert_eq!(index.find(hash("k1"), |i| keys[i] == "k1"), None);
        index.insert(hash("k0"));
        assert_eq!(index.find(hash("k0"), |i| keys[i] == "k0"), Some(0));
    }
}
