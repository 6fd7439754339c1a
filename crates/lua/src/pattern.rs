//! Lua 5.1 pattern matching (reference manual §5.4.1), written for the sandbox: every step is charged to an
//! instruction budget, and backtracking keeps its choice points on the heap, so no pattern and no subject can
//! hang the host or overflow its stack.
//!
//! The matcher follows Lua 5.1.5's semantics to the letter, including its quirks: a pattern ends at its first
//! NUL byte (except for `string.find`'s plain search), `^` anchors only at the start of `find`, `match` and
//! `gsub` patterns (never in `gmatch`), `$` anchors only as the last character, the undocumented frontier
//! `%f[set]` exists, a back-reference to a position capture never matches, and malformed patterns are
//! reported only when the matcher reaches the malformed part.
//!
//! Costs: one step for each pattern item tried at a subject position and for each backtrack, one per subject
//! byte a quantifier or `%b` scans, and for sets, back-references and plain searches one more per 32 bytes
//! they compare. The stack of choice points grows by at most one entry per pattern byte, so its size is
//! bounded by the pattern's length.

use std::ops::Range;

/// How many captures a pattern may open (Lua's `LUA_MAXCAPTURES`).
pub(crate) const MAX_CAPTURES: usize = 32;

/// The characters that make `string.find` search with patterns rather than plainly (Lua's `SPECIALS`).
const SPECIALS: &[u8] = b"^$*+?.([%-";

/// Why a match stopped without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// A Lua error with Lua 5.1's message (a malformed pattern, a bad capture reference).
    Error(&'static str),
    /// The instruction budget ran out.
    Budget,
    /// The result would not fit in the memory the state has left.
    Memory,
}

const ENDS_WITH_PERCENT: Stop = Stop::Error("malformed pattern (ends with '%')");
const MISSING_BRACKET: Stop = Stop::Error("malformed pattern (missing ']')");
const INVALID_CAPTURE_INDEX: Stop = Stop::Error("invalid capture index");
const INVALID_PATTERN_CAPTURE: Stop = Stop::Error("invalid pattern capture");
const UNFINISHED_CAPTURE: Stop = Stop::Error("unfinished capture");
const TOO_MANY_CAPTURES: Stop = Stop::Error("too many captures");
const UNBALANCED_PATTERN: Stop = Stop::Error("unbalanced pattern");
const MISSING_FRONTIER_SET: Stop = Stop::Error("missing '[' after '%f' in pattern");

/// A step allowance: what is left of the budget, and what this operation has spent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Steps {
    remaining: u64,
    spent: u64,
}

impl Steps {
    /// An allowance of `remaining` steps; the budget is exhausted when a charge reaches it.
    pub(crate) fn new(remaining: u64) -> Steps {
        Steps { remaining, spent: 0 }
    }

    /// Steps charged so far.
    pub(crate) fn spent(&self) -> u64 {
        self.spent
    }

    fn charge(&mut self, steps: u64) -> Result<(), Stop> {
        if steps >= self.remaining {
            self.spent = self.spent.saturating_add(self.remaining);
            self.remaining = 0;
            Err(Stop::Budget)
        } else {
            self.remaining -= steps;
            self.spent = self.spent.saturating_add(steps);
            Ok(())
        }
    }
}

/// Extra steps for comparing `bytes` bytes.
fn bulk(bytes: usize) -> u64 {
    (bytes / 32) as u64
}

/// One captured value, as a range of the subject or a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Capture {
    /// A substring of the subject.
    Text(Range<usize>),
    /// A position capture `()`: the 1-based position in the subject.
    Position(usize),
}

/// The length of a capture slot while matching.
#[derive(Clone, Copy, Debug)]
enum Length {
    Unfinished,
    Position,
    Closed(usize),
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    init: usize,
    len: Length,
}

/// A choice point or an undo record on the backtracking stack.
#[derive(Clone, Copy, Debug)]
enum Frame {
    /// A capture was opened: on failure, forget it.
    Opened,
    /// Capture `0` was closed: on failure, reopen it.
    Closed(usize),
    /// An optional item matched one character: on failure, go on at `s` without it.
    Optional { s: usize, p: usize },
    /// A greedy item matched `count` characters from `s`: on failure, retry with one fewer.
    Greedy { s: usize, count: usize, ep: usize },
    /// A lazy item at `p..ep` is at `s`: on failure, take one more character if it matches.
    Lazy { s: usize, p: usize, ep: usize },
}

/// A pattern and a subject, with the capture state of the current attempt.
struct Matcher<'a> {
    src: &'a [u8],
    pat: &'a [u8],
    level: usize,
    capture: [Slot; MAX_CAPTURES],
    stack: Vec<Frame>,
}

/// The part of `pattern` Lua 5.1's matcher sees: everything before the first NUL byte.
fn until_nul(pattern: &[u8]) -> &[u8] {
    match pattern.iter().position(|&b| b == 0) {
        Some(end) => &pattern[..end],
        None => pattern,
    }
}

/// Whether `c` belongs to the class letter `cl` (`%a`, `%D`…); any other `cl` stands for itself.
fn match_class(c: u8, cl: u8) -> bool {
    let res = match cl.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c < 0x20 || c == 0x7f,
        b'd' => c.is_ascii_digit(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => c == b' ' || (0x09..=0x0d).contains(&c),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return cl == c,
    };
    if cl.is_ascii_lowercase() {
        res
    } else {
        !res
    }
}

impl<'a> Matcher<'a> {
    fn new(src: &'a [u8], pat: &'a [u8]) -> Matcher<'a> {
        Matcher {
            src,
            pat,
            level: 0,
            capture: [Slot { init: 0, len: Length::Unfinished }; MAX_CAPTURES],
            stack: Vec::new(),
        }
    }

    /// The pattern byte at `p`, or 0 past its end (where C reads the terminating NUL).
    fn pat_at(&self, p: usize) -> u8 {
        self.pat.get(p).copied().unwrap_or(0)
    }

    /// The subject byte at `s`, or 0 at its end (Lua strings carry a terminating NUL).
    fn src_at(&self, s: usize) -> u8 {
        self.src.get(s).copied().unwrap_or(0)
    }

    /// Where the single-character class starting at `p` ends.
    fn class_end(&self, p: usize) -> Result<usize, Stop> {
        let first = self.pat_at(p);
        let mut p = p + 1;
        match first {
            b'%' => {
                if self.pat_at(p) == 0 {
                    Err(ENDS_WITH_PERCENT)
                } else {
                    Ok(p + 1)
                }
            }
            b'[' => {
                if self.pat_at(p) == b'^' {
                    p += 1;
                }
                loop {
                    if self.pat_at(p) == 0 {
                        return Err(MISSING_BRACKET);
                    }
                    let c = self.pat_at(p);
                    p += 1;
                    if c == b'%' && self.pat_at(p) != 0 {
                        p += 1;
                    }
                    if self.pat_at(p) == b']' {
                        break;
                    }
                }
                Ok(p + 1)
            }
            _ => Ok(p),
        }
    }

    /// Whether `c` is in the set whose `[` is at `p` and whose `]` is at `ec`.
    fn match_bracket(&self, c: u8, p: usize, ec: usize) -> bool {
        let mut p = p;
        let mut sig = true;
        if self.pat_at(p + 1) == b'^' {
            sig = false;
            p += 1;
        }
        loop {
            p += 1;
            if p >= ec {
                return !sig;
            }
            let pc = self.pat_at(p);
            if pc == b'%' {
                p += 1;
                if match_class(c, self.pat_at(p)) {
                    return sig;
                }
            } else if self.pat_at(p + 1) == b'-' && p + 2 < ec {
                p += 2;
                if pc <= c && c <= self.pat_at(p) {
                    return sig;
                }
            } else if pc == c {
                return sig;
            }
        }
    }

    /// Whether `c` matches the single-character class at `p..ep`.
    fn single_match(&self, c: u8, p: usize, ep: usize) -> bool {
        match self.pat_at(p) {
            b'.' => true,
            b'%' => match_class(c, self.pat_at(p + 1)),
            b'[' => self.match_bracket(c, p, ep - 1),
            pc => pc == c,
        }
    }

    /// Whether the subject byte at `s` exists and matches the class at `p..ep`, charging for a long set (the
    /// step that tries the item is charged by the caller).
    fn item_matches(&self, s: usize, p: usize, ep: usize, steps: &mut Steps) -> Result<bool, Stop> {
        steps.charge(bulk(ep - p))?;
        Ok(s < self.src.len() && self.single_match(self.src[s], p, ep))
    }

    /// `%bxy` at `s`, with `p` just after `%b`: where the balanced run ends, if there is one.
    fn match_balance(&self, s: usize, p: usize, steps: &mut Steps) -> Result<Option<usize>, Stop> {
        if self.pat_at(p) == 0 || self.pat_at(p + 1) == 0 {
            return Err(UNBALANCED_PATTERN);
        }
        if self.src_at(s) != self.pat_at(p) {
            return Ok(None);
        }
        let (open, close) = (self.pat_at(p), self.pat_at(p + 1));
        let mut depth = 1usize;
        for i in s + 1..self.src.len() {
            steps.charge(1)?;
            let c = self.src[i];
            if c == close {
                depth -= 1;
                if depth == 0 {
                    return Ok(Some(i + 1));
                }
            } else if c == open {
                depth += 1;
            }
        }
        Ok(None)
    }

    /// The capture a back-reference digit `l` names.
    fn check_capture(&self, l: u8) -> Result<usize, Stop> {
        let index = usize::from(l).wrapping_sub(usize::from(b'1'));
        if index >= self.level || matches!(self.capture[index].len, Length::Unfinished) {
            return Err(INVALID_CAPTURE_INDEX);
        }
        Ok(index)
    }

    /// A back-reference `%l` at `s`: where it ends, if the subject repeats the capture there.
    fn match_capture(&self, s: usize, l: u8, steps: &mut Steps) -> Result<Option<usize>, Stop> {
        let index = self.check_capture(l)?;
        let Slot { init, len } = self.capture[index];
        let Length::Closed(len) = len else {
            // A position capture has no text; Lua 5.1 compares a huge length and never matches.
            return Ok(None);
        };
        steps.charge(bulk(len))?;
        if self.src.len() - s >= len && self.src[init..init + len] == self.src[s..s + len] {
            Ok(Some(s + len))
        } else {
            Ok(None)
        }
    }

    fn start_capture(&mut self, s: usize, what: Length) -> Result<(), Stop> {
        if self.level >= MAX_CAPTURES {
            return Err(TOO_MANY_CAPTURES);
        }
        self.capture[self.level] = Slot { init: s, len: what };
        self.level += 1;
        self.stack.push(Frame::Opened);
        Ok(())
    }

    fn end_capture(&mut self, s: usize) -> Result<(), Stop> {
        let Some(l) = (0..self.level).rev().find(|&l| matches!(self.capture[l].len, Length::Unfinished)) else {
            return Err(INVALID_PATTERN_CAPTURE);
        };
        self.capture[l].len = Length::Closed(s - self.capture[l].init);
        self.stack.push(Frame::Closed(l));
        Ok(())
    }

    /// Matches the pattern from `p` against the subject from `s`; the end of the match, if any. The capture
    /// state afterwards is the successful path's.
    fn run(&mut self, s: usize, p: usize, steps: &mut Steps) -> Result<Option<usize>, Stop> {
        self.level = 0;
        self.stack.clear();
        let (mut s, mut p) = (s, p);
        loop {
            steps.charge(1)?;
            // Each arm either continues at a new (s, p), or falls through to backtracking.
            let advanced = match self.pat_at(p) {
                b'(' => {
                    if self.pat_at(p + 1) == b')' {
                        self.start_capture(s, Length::Position)?;
                        p += 2;
                    } else {
                        self.start_capture(s, Length::Unfinished)?;
                        p += 1;
                    }
                    true
                }
                b')' => {
                    self.end_capture(s)?;
                    p += 1;
                    true
                }
                b'%' if self.pat_at(p + 1) == b'b' => match self.match_balance(s, p + 2, steps)? {
                    Some(end) => {
                        s = end;
                        p += 4;
                        true
                    }
                    None => false,
                },
                b'%' if self.pat_at(p + 1) == b'f' => {
                    p += 2;
                    if self.pat_at(p) != b'[' {
                        return Err(MISSING_FRONTIER_SET);
                    }
                    let ep = self.class_end(p)?;
                    steps.charge(bulk(ep - p))?;
                    let previous = if s == 0 { 0 } else { self.src[s - 1] };
                    if self.match_bracket(previous, p, ep - 1) || !self.match_bracket(self.src_at(s), p, ep - 1) {
                        false
                    } else {
                        p = ep;
                        true
                    }
                }
                b'%' if self.pat_at(p + 1).is_ascii_digit() => {
                    match self.match_capture(s, self.pat_at(p + 1), steps)? {
                        Some(end) => {
                            s = end;
                            p += 2;
                            true
                        }
                        None => false,
                    }
                }
                0 => return Ok(Some(s)),
                b'$' if self.pat_at(p + 1) == 0 => {
                    if s == self.src.len() {
                        return Ok(Some(s));
                    }
                    false
                }
                _ => {
                    let ep = self.class_end(p)?;
                    let m = self.item_matches(s, p, ep, steps)?;
                    match self.pat_at(ep) {
                        b'?' => {
                            if m {
                                self.stack.push(Frame::Optional { s, p: ep + 1 });
                                s += 1;
                            }
                            p = ep + 1;
                            true
                        }
                        b'*' => {
                            s = self.greedy(s, p, ep, steps)?;
                            p = ep + 1;
                            true
                        }
                        b'+' => {
                            if m {
                                s = self.greedy(s + 1, p, ep, steps)?;
                                p = ep + 1;
                                true
                            } else {
                                false
                            }
                        }
                        b'-' => {
                            self.stack.push(Frame::Lazy { s, p, ep });
                            p = ep + 1;
                            true
                        }
                        _ => {
                            if m {
                                s += 1;
                                p = ep;
                                true
                            } else {
                                false
                            }
                        }
                    }
                }
            };
            if !advanced {
                match self.backtrack(steps)? {
                    Some((next_s, next_p)) => {
                        s = next_s;
                        p = next_p;
                    }
                    None => return Ok(None),
                }
            }
        }
    }

    /// Counts how many characters from `s` match the item at `p..ep`, pushes the greedy choice point and
    /// returns where the rest of the pattern is tried first: after all of them.
    fn greedy(&mut self, s: usize, p: usize, ep: usize, steps: &mut Steps) -> Result<usize, Stop> {
        let mut count = 0;
        while self.item_matches(s + count, p, ep, steps)? {
            steps.charge(1)?;
            count += 1;
        }
        self.stack.push(Frame::Greedy { s, count, ep });
        Ok(s + count)
    }

    /// Undoes the failed path back to the latest choice point with an alternative left; where to go on.
    fn backtrack(&mut self, steps: &mut Steps) -> Result<Option<(usize, usize)>, Stop> {
        while let Some(frame) = self.stack.pop() {
            steps.charge(1)?;
            match frame {
                Frame::Opened => self.level -= 1,
                Frame::Closed(l) => self.capture[l].len = Length::Unfinished,
                Frame::Optional { s, p } => return Ok(Some((s, p))),
                Frame::Greedy { s, count, ep } => {
                    if count > 0 {
                        self.stack.push(Frame::Greedy { s, count: count - 1, ep });
                        return Ok(Some((s + count - 1, ep + 1)));
                    }
                }
                Frame::Lazy { s, p, ep } => {
                    if self.item_matches(s, p, ep, steps)? {
                        self.stack.push(Frame::Lazy { s: s + 1, p, ep });
                        return Ok(Some((s + 1, ep + 1)));
                    }
                }
            }
        }
        Ok(None)
    }

    /// Capture `i` of a match of `s..e` (the whole match when there are no captures and `i` is 0).
    fn one_capture(&self, i: usize, s: usize, e: usize) -> Result<Capture, Stop> {
        if i >= self.level {
            return if i == 0 { Ok(Capture::Text(s..e)) } else { Err(INVALID_CAPTURE_INDEX) };
        }
        let Slot { init, len } = self.capture[i];
        match len {
            Length::Unfinished => Err(UNFINISHED_CAPTURE),
            Length::Position => Ok(Capture::Position(init + 1)),
            Length::Closed(len) => Ok(Capture::Text(init..init + len)),
        }
    }

    /// All captures of a match; with `whole` (`s..e`), the whole match stands in when there are none.
    fn captures(&self, whole: Option<(usize, usize)>) -> Result<Vec<Capture>, Stop> {
        match whole {
            Some((s, e)) if self.level == 0 => Ok(vec![Capture::Text(s..e)]),
            _ => (0..self.level).map(|i| self.one_capture(i, 0, 0)).collect(),
        }
    }
}

/// What `string.find`, `string.match` or one step of `string.gsub` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// Where the match starts and ends (0-based, end exclusive).
    pub(crate) span: Range<usize>,
    /// The captures: for `find`, only the pattern's own; for `match`, the whole match if it has none.
    pub(crate) captures: Vec<Capture>,
}

/// Lua 5.1's `posrelat` and clamping of `find`'s `init` (a 1-based, possibly negative position) to a 0-based
/// start in `0..=len`.
pub(crate) fn start_position(init: i64, len: usize) -> usize {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let mut pos = init;
    if pos < 0 {
        pos = pos.saturating_add(len_i).saturating_add(1);
    }
    let pos = if pos >= 0 { pos } else { 0 };
    let start = pos - 1;
    if start < 0 {
        0
    } else if start > len_i {
        len
    } else {
        start as usize
    }
}

/// Plain substring search from `start`, charging steps for the bytes examined.
fn plain_find(src: &[u8], needle: &[u8], start: usize, steps: &mut Steps) -> Result<Option<usize>, Stop> {
    let Some((&first, rest)) = needle.split_first() else {
        return Ok(Some(start));
    };
    let mut at = start;
    while src.len() - at >= needle.len() {
        let window = &src[at..=src.len() - needle.len()];
        let Some(offset) = window.iter().position(|&b| b == first) else {
            steps.charge(1 + bulk(window.len()))?;
            return Ok(None);
        };
        steps.charge(1 + bulk(offset) + bulk(rest.len()))?;
        at += offset;
        if &src[at + 1..at + needle.len()] == rest {
            return Ok(Some(at));
        }
        at += 1;
    }
    Ok(None)
}

/// `string.find` (`find`) or `string.match` (not `find`) of `pattern` in `src` from the 1-based `init`.
pub(crate) fn find(
    src: &[u8],
    pattern: &[u8],
    init: i64,
    plain: bool,
    find: bool,
    steps: &mut Steps,
) -> Result<Option<Found>, Stop> {
    let start = start_position(init, src.len());
    if find && (plain || !until_nul(pattern).iter().any(|b| SPECIALS.contains(b))) {
        return Ok(plain_find(src, pattern, start, steps)?
            .map(|at| Found { span: at..at + pattern.len(), captures: Vec::new() }));
    }
    let (pat, anchor) = split_anchor(pattern);
    let mut m = Matcher::new(src, pat);
    let mut s1 = start;
    loop {
        if let Some(e) = m.run(s1, 0, steps)? {
            let captures = m.captures(if find { None } else { Some((s1, e)) })?;
            return Ok(Some(Found { span: s1..e, captures }));
        }
        if s1 >= src.len() || anchor {
            return Ok(None);
        }
        s1 += 1;
    }
}

/// One step of a `string.gmatch` iteration from the 0-based `pos`: where the next step starts and the
/// captures (the whole match if none), or `None` when there are no more matches. `^` is not an anchor here.
pub(crate) fn gmatch_next(
    src: &[u8],
    pattern: &[u8],
    pos: usize,
    steps: &mut Steps,
) -> Result<Option<(usize, Vec<Capture>)>, Stop> {
    let mut m = Matcher::new(src, until_nul(pattern));
    for s in pos..=src.len() {
        if let Some(e) = m.run(s, 0, steps)? {
            let next = if e == s { e + 1 } else { e };
            return Ok(Some((next, m.captures(Some((s, e)))?)));
        }
    }
    Ok(None)
}

/// The next match of a `string.gsub` at or after the 0-based `pos` (only at `pos` if the pattern is anchored):
/// its span and, for a table replacement (`first_only`), the first capture or, for a function, all of them
/// (the whole match if none).
pub(crate) fn gsub_next(
    src: &[u8],
    pattern: &[u8],
    pos: usize,
    first_only: bool,
    steps: &mut Steps,
) -> Result<Option<Found>, Stop> {
    let (pat, anchor) = split_anchor(pattern);
    let mut m = Matcher::new(src, pat);
    let mut s = pos;
    while s <= src.len() {
        if let Some(e) = m.run(s, 0, steps)? {
            let captures = if first_only { vec![m.one_capture(0, s, e)?] } else { m.captures(Some((s, e)))? };
            return Ok(Some(Found { span: s..e, captures }));
        }
        if anchor {
            break;
        }
        s += 1;
    }
    Ok(None)
}

/// Whether a `gsub` pattern is anchored, and the pattern the matcher sees.
pub(crate) fn split_anchor(pattern: &[u8]) -> (&[u8], bool) {
    match until_nul(pattern).split_first() {
        Some((b'^', rest)) => (rest, true),
        _ => (until_nul(pattern), false),
    }
}

/// Appends a capture's text (a position in decimal, as Lua prints it).
fn push_capture(out: &mut Vec<u8>, src: &[u8], capture: &Capture) {
    match capture {
        Capture::Text(range) => out.extend_from_slice(&src[range.clone()]),
        Capture::Position(at) => out.extend_from_slice(at.to_string().as_bytes()),
    }
}

/// `string.gsub` with a string replacement (`%0`–`%9` name captures, `%` quotes anything else) and at most
/// `max` substitutions. Fails with [`Stop::Memory`] once the result would pass `max_bytes`.
pub(crate) fn gsub_string(
    src: &[u8],
    pattern: &[u8],
    repl: &[u8],
    max: i32,
    max_bytes: usize,
    steps: &mut Steps,
) -> Result<(Vec<u8>, i32), Stop> {
    let (pat, anchor) = split_anchor(pattern);
    let mut m = Matcher::new(src, pat);
    let mut out = Vec::new();
    let mut s = 0;
    let mut n = 0;
    while n < max {
        let end = m.run(s, 0, steps)?;
        if let Some(e) = end {
            n += 1;
            steps.charge(1 + bulk(repl.len()))?;
            let mut i = 0;
            while i < repl.len() {
                let c = repl[i];
                if c != b'%' {
                    out.push(c);
                } else {
                    i += 1;
                    // A '%' at the very end quotes the string's terminating NUL, as in C.
                    let d = repl.get(i).copied().unwrap_or(0);
                    if !d.is_ascii_digit() {
                        out.push(d);
                    } else if d == b'0' {
                        out.extend_from_slice(&src[s..e]);
                    } else {
                        let capture = m.one_capture(usize::from(d - b'1'), s, e)?;
                        push_capture(&mut out, src, &capture);
                    }
                }
                i += 1;
            }
        }
        match end {
            Some(e) if e > s => s = e,
            _ if s < src.len() => {
                out.push(src[s]);
                s += 1;
            }
            _ => break,
        }
        if out.len() > max_bytes {
            return Err(Stop::Memory);
        }
        if anchor {
            break;
        }
    }
    out.extend_from_slice(&src[s..]);
    if out.len() > max_bytes {
        return Err(Stop::Memory);
    }
    Ok((out, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unlimited() -> Steps {
        Steps::new(u64::MAX)
    }

    fn texts(src: &[u8], found: &Found) -> Vec<String> {
        found
            .captures
            .iter()
            .map(|c| match c {
                Capture::Text(r) => String::from_utf8_lossy(&src[r.clone()]).into_owned(),
                Capture::Position(p) => format!("@{p}"),
            })
            .collect()
    }

    #[test]
    fn basic_finds_and_matches() {
        let f = find(b"hello world", b"o w", 1, false, true, &mut unlimited()).unwrap().unwrap();
        assert_eq!(f.span, 4..7);
        let f = find(b"key = value", b"(%w+)%s*=%s*(%w+)", 1, false, false, &mut unlimited()).unwrap().unwrap();
        assert_eq!(texts(b"key = value", &f), ["key", "value"]);
        let f = find(b"abc", b"()b()", 1, false, false, &mut unlimited()).unwrap().unwrap();
        assert_eq!(texts(b"abc", &f), ["@2", "@3"]);
        assert_eq!(find(b"abc", b"^b", 1, false, true, &mut unlimited()).unwrap(), None);
        assert_eq!(find(b"abc", b"(", 1, false, true, &mut unlimited()), Err(UNFINISHED_CAPTURE));
        assert_eq!(find(b"abc", b"%", 1, false, true, &mut unlimited()), Err(ENDS_WITH_PERCENT));
    }

    #[test]
    fn start_positions_follow_lua_51() {
        assert_eq!(start_position(1, 3), 0);
        assert_eq!(start_position(0, 3), 0);
        assert_eq!(start_position(-1, 3), 2);
        assert_eq!(start_position(-10, 3), 0);
        assert_eq!(start_position(10, 3), 3);
        assert_eq!(start_position(i64::MIN, 3), 0);
        assert_eq!(start_position(i64::MAX, 3), 3);
    }

    #[test]
    fn backtracking_is_budgeted_and_the_stack_is_bounded() {
        let subject = vec![b'a'; 40];
        let mut pattern = b"a*".repeat(40);
        pattern.push(b'b');
        let mut steps = Steps::new(100_000);
        assert_eq!(find(&subject, &pattern, 1, false, true, &mut steps), Err(Stop::Budget));
        assert_eq!(steps.spent(), 100_000);
        let mut m = Matcher::new(&subject, &pattern);
        let mut steps = Steps::new(10_000);
        assert_eq!(m.run(0, 0, &mut steps), Err(Stop::Budget));
        assert!(m.stack.len() <= pattern.len() + 1);
    }

    #[test]
    fn gsub_string_replacements() {
        let (out, n) =
            gsub_string(b"hello world", b"(o)", b"[%1%0%%]", i32::MAX, usize::MAX, &mut unlimited()).unwrap();
        assert_eq!((out.as_slice(), n), (&b"hell[oo%] w[oo%]rld"[..], 2));
        let (out, n) = gsub_string(b"abc", b"b", b"x%", i32::MAX, usize::MAX, &mut unlimited()).unwrap();
        assert_eq!((out.as_slice(), n), (&b"ax\0c"[..], 1));
        assert_eq!(gsub_string(b"abc", b"b", b"%2", 9, usize::MAX, &mut unlimited()), Err(INVALID_CAPTURE_INDEX));
        assert_eq!(gsub_string(b"abc", b"", b"xx", 9, 4, &mut unlimited()), Err(Stop::Memory));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_input_never_panics(
            src in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..48),
            pat in proptest::collection::vec(proptest::sample::select(b"ab%[]^-()*+?.$0129bfzsad\0".to_vec()), 0..24),
            init in proptest::prelude::any::<i64>(),
            max in -2i32..6,
            pos in 0usize..50,
        ) {
            let budget = 20_000;
            let pos = pos.min(src.len());
            let _ = find(&src, &pat, init, false, true, &mut Steps::new(budget));
            let _ = find(&src, &pat, init, true, true, &mut Steps::new(budget));
            let _ = find(&src, &pat, init, false, false, &mut Steps::new(budget));
            let _ = gmatch_next(&src, &pat, pos, &mut Steps::new(budget));
            let _ = gmatch_next(&src, &pat, src.len() + 1, &mut Steps::new(budget));
            let _ = gsub_next(&src, &pat, pos, true, &mut Steps::new(budget));
            let _ = gsub_next(&src, &pat, pos, false, &mut Steps::new(budget));
            let _ = gsub_string(&src, &pat, &pat, max, 1 << 16, &mut Steps::new(budget));
            let mut m = Matcher::new(&src, until_nul(&pat));
            let _ = m.run(pos, 0, &mut Steps::new(budget));
            proptest::prop_assert!(m.stack.len() <= pat.len() + 1);
        }
    }
}
