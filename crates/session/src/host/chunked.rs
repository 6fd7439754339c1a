//! [`Chunked`]: a list that grows in chunks of a fixed size, so growing it never copies what it
//! already holds (a session's receipts grow by one every turn for the session's life; a `Vec`
//! would copy them all each time it doubles: decision H36).

/// How many items a chunk holds: `1 << BITS`.
const BITS: usize = 10;
const CHUNK: usize = 1 << BITS;
const MASK: usize = CHUNK - 1;

/// A growing list kept in chunks of [`CHUNK`] items.
#[derive(Debug, Clone)]
pub(crate) struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked { chunks: Vec::new(), len: 0 }
    }
}

impl<T> Chunked<T> {
    /// How many items it holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends an item.
    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        let chunk = self.len >> BITS;
        if chunk == self.chunks.len() {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        self.chunks[chunk].push(item);
        self.len += 1;
    }

    /// The item at `index`.
    pub(crate) fn get(&self, index: usize) -> Option<&T> {
        self.chunks.get(index >> BITS)?.get(index & MASK)
    }

    /// The item at `index`, to change it.
    pub(crate) fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        self.chunks.get_mut(index >> BITS)?.get_mut(index & MASK)
    }

    /// Keeps the first `len` items (the chunks keep their room).
    pub(crate) fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let (first, last) = (len >> BITS, (self.len - 1) >> BITS);
        for (at, chunk) in self.chunks.iter_mut().enumerate().take(last + 1).skip(first) {
            chunk.truncate(len.saturating_sub(at << BITS));
        }
        self.len = len;
    }

    /// The items in `range`, in order.
    pub(crate) fn range(&self, range: std::ops::Range<usize>) -> Span<'_, T> {
        Span { list: self, next: range.start, end: range.end.min(self.len) }
    }

    /// Every item, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flatten()
    }
}

/// Some items of a [`Chunked`], in order.
#[derive(Debug, Clone)]
pub(crate) struct Span<'c, T> {
    list: &'c Chunked<T>,
    next: usize,
    end: usize,
}

impl<'c, T> Iterator for Span<'c, T> {
    type Item = &'c T;

    fn next(&mut self) -> Option<&'c T> {
        if self.next >= self.end {
            return None;
        }
        let item = self.list.get(self.next);
        self.next += 1;
        item
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end.saturating_sub(self.next);
        (left, Some(left))
    }
}

impl<T> ExactSizeIterator for Span<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_holds_what_a_vec_holds_across_chunks() {
        let mut list = Chunked::default();
        let mut plain = Vec::new();
        for n in 0..3 * CHUNK + 7 {
            list.push(n);
            plain.push(n);
        }
        for cut in [3 * CHUNK + 7, 3 * CHUNK, 2 * CHUNK + 5, CHUNK, 1, 0] {
            list.truncate(cut);
            plain.truncate(cut);
            assert_eq!(list.len(), plain.len());
            assert_eq!(list.iter().copied().collect::<Vec<_>>(), plain);
            for extra in 0..CHUNK + 3 {
                list.push(extra);
                plain.push(extra);
            }
            assert_eq!(list.iter().copied().collect::<Vec<_>>(), plain);
            let (from, to) = (plain.len() / 3, plain.len() - 2);
            assert_eq!(list.range(from..to).copied().collect::<Vec<_>>(), plain[from..to]);
            assert_eq!(list.range(from..to).len(), to - from);
            assert_eq!(list.get(plain.len()), None);
        }
    }
}
