//! Which thread parses which piece of a script.
//!
//! A script is parsed in pieces (see [`markdown::pieces`]), and a piece's Markdown tree does not
//! depend on any other piece, so pieces may be parsed on any thread and in any order. The later
//! stages take every top-level block strictly in order, on the calling thread.
//!
//! With a second thread, both threads parse, at most [`AHEAD`] pieces ahead of the later
//! stages: the second thread parses one piece after another, and the calling thread, whenever
//! the piece it needs next is not parsed yet, parses the next piece nobody has taken instead of
//! waiting. So however the work, or the machine's time, falls between the two threads, neither
//! waits long for the other, and the blocks reach the later stages in the same order as on one
//! thread.

use std::ops::Range;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use crate::config::Unmodeled;
use crate::diagnostics::{Code, Sink};
use crate::markdown::{self, MdBlock, MdTree};

/// How many pieces past the one the later stages are waiting for may be parsed; it bounds what
/// waits in memory. Two keep both threads busy (a piece parses in about the time its blocks take
/// through the later stages); eight held some 4 MB of parsed pieces in flight on the 12.5 MiB
/// script for nothing (issue 11, item 11).
const AHEAD: usize = 2;

/// One piece, parsed.
#[derive(Default)]
struct Parsed<'s> {
    /// Every top-level block of the piece, all in one tree.
    tree: MdTree<'s>,
    roots: Vec<MdBlock>,
    /// What the Markdown front-end found in the piece.
    sink: Sink,
}

/// Parses one piece into `parsed` (empty, or emptied, to begin with).
fn parse<'s>(source: &'s str, policy: &Unmodeled, piece: &Range<usize>, mut parsed: Parsed<'s>) -> Parsed<'s> {
    let Parsed { tree, roots, sink } = &mut parsed;
    markdown::parse(source, policy, piece, tree, sink, |_, block, _| roots.push(block.clone()));
    parsed
}

/// Parses a script into the Markdown tree, handing each top-level block to `on_block` in order
/// with its tree and the sink. With `overlap` and more than one piece, a second thread parses
/// alongside (see the module's documentation).
pub(crate) fn parse_script<'s>(
    source: &'s str,
    policy: &Unmodeled,
    overlap: bool,
    sink: &mut Sink,
    mut on_block: impl FnMut(&MdTree<'s>, &MdBlock, &mut Sink),
) {
    // A byte-order mark an editor wrote is not part of the script: the pieces start after it.
    let skip = source.len() - without_bom(source).len();
    let pieces: Vec<Range<usize>> = markdown::pieces(&source[skip..], markdown::PIECE)
        .into_iter()
        .map(|piece| piece.start + skip..piece.end + skip)
        .collect();
    let mut later = Later { sink, nesting_reported: false, on_block: &mut on_block };
    if overlap && pieces.len() > 1 && alongside(source, policy, &pieces, &mut later) {
        return;
    }
    let mut parsed = Parsed::default();
    for piece in &pieces {
        parsed = later.take(parse(source, policy, piece, parsed));
    }
}

/// The source without the UTF-8 byte-order mark it may begin with.
pub(crate) fn without_bom(source: &str) -> &str {
    source.strip_prefix('\u{feff}').unwrap_or(source)
}

/// The later stages, taking the parsed pieces in order.
struct Later<'k, F> {
    sink: &'k mut Sink,
    /// Whether deep nesting has been reported: each piece reports it, the script only once.
    nesting_reported: bool,
    on_block: &'k mut F,
}

impl<'s, F: FnMut(&MdTree<'s>, &MdBlock, &mut Sink)> Later<'_, F> {
    /// Hands a piece's blocks on, and gives the piece back emptied.
    fn take(&mut self, mut parsed: Parsed<'s>) -> Parsed<'s> {
        let found = &mut parsed.sink.items;
        if self.nesting_reported {
            found.retain(|raw| raw.code != Code::NestingTooDeep);
        }
        self.nesting_reported |= found.iter().any(|raw| raw.code == Code::NestingTooDeep);
        self.sink.items.append(found);
        for root in &parsed.roots {
            (self.on_block)(&parsed.tree, root, self.sink);
        }
        parsed.tree.clear();
        parsed.roots.clear();
        parsed
    }
}

/// What the two threads share.
struct Shared<'s> {
    state: Mutex<State<'s>>,
    /// Signalled whenever a piece is parsed, the later stages move on, or a thread stops.
    changed: Condvar,
}

struct State<'s> {
    /// The first piece no thread has taken yet.
    next: usize,
    /// The piece the later stages wait for; they have every piece before it.
    wanted: usize,
    /// Pieces parsed and not yet handed on, by position.
    parsed: Vec<Option<Parsed<'s>>>,
    /// Emptied pieces, whose arrays the next pieces parsed reuse.
    spare: Vec<Parsed<'s>>,
    /// Set when either thread stops, having finished or panicked: the other waits no more.
    stopped: bool,
}

impl<'s> Shared<'s> {
    fn lock(&self) -> MutexGuard<'_, State<'s>> {
        // Nothing is left half-changed under the lock, so a panic elsewhere does not spoil it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State<'s>>) -> MutexGuard<'a, State<'s>> {
        self.changed.wait(state).unwrap_or_else(PoisonError::into_inner)
    }
}

impl<'s> State<'s> {
    /// Takes the next piece for a thread to parse, with an emptied piece to parse it into, if
    /// there is one it may parse yet.
    fn claim(&mut self) -> Option<(usize, Parsed<'s>)> {
        let piece = self.next;
        if piece >= self.parsed.len() || piece >= self.wanted + AHEAD {
            return None;
        }
        self.next += 1;
        Some((piece, self.spare.pop().unwrap_or_default()))
    }
}

/// Marks the sharing stopped when a thread leaves, however it leaves, and wakes the other.
struct Stop<'a, 's>(&'a Shared<'s>);

impl Drop for Stop<'_, '_> {
    fn drop(&mut self) {
        self.0.lock().stopped = true;
        self.0.changed.notify_all();
    }
}

/// [`parse_script`] with a second thread. Returns `false`, having handed on nothing, when no
/// thread could be started.
fn alongside<'s, F: FnMut(&MdTree<'s>, &MdBlock, &mut Sink)>(
    source: &'s str,
    policy: &Unmodeled,
    pieces: &[Range<usize>],
    later: &mut Later<'_, F>,
) -> bool {
    let shared = Shared {
        state: Mutex::new(State {
            next: 0,
            wanted: 0,
            parsed: pieces.iter().map(|_| None).collect(),
            spare: Vec::new(),
            stopped: false,
        }),
        changed: Condvar::new(),
    };
    std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("stagehand-markdown".into())
            .spawn_scoped(scope, || help(&shared, source, policy, pieces));
        let Ok(helper) = helper else { return false };
        {
            let _stop = Stop(&shared);
            for wanted in 0..pieces.len() {
                // `None` only when the helper stopped before parsing a piece it took: it
                // panicked, and joining it below passes the panic on.
                let Some(parsed) = parsed(&shared, wanted, source, policy, pieces) else { break };
                let emptied = later.take(parsed);
                let mut state = shared.lock();
                state.wanted = wanted + 1;
                state.spare.push(emptied);
                drop(state);
                shared.changed.notify_all();
            }
        }
        if let Err(panic) = helper.join() {
            std::panic::resume_unwind(panic);
        }
        true
    })
}

/// Piece `wanted`, parsed: the calling thread's wait for it is spent parsing pieces itself
/// whenever there is one to take.
fn parsed<'s>(
    shared: &Shared<'s>,
    wanted: usize,
    source: &'s str,
    policy: &Unmodeled,
    pieces: &[Range<usize>],
) -> Option<Parsed<'s>> {
    let mut state = shared.lock();
    loop {
        if let Some(parsed) = state.parsed.get_mut(wanted).and_then(Option::take) {
            return Some(parsed);
        }
        if let Some((piece, into)) = state.claim() {
            drop(state);
            let parsed = parse(source, policy, &pieces[piece], into);
            if piece == wanted {
                return Some(parsed);
            }
            state = shared.lock();
            state.parsed[piece] = Some(parsed);
            continue;
        }
        if state.stopped {
            return None;
        }
        state = shared.wait(state);
    }
}

/// The second thread: parses one piece after another, as far ahead as it may.
fn help<'s>(shared: &Shared<'s>, source: &'s str, policy: &Unmodeled, pieces: &[Range<usize>]) {
    let _stop = Stop(shared);
    loop {
        let (piece, into) = {
            let mut state = shared.lock();
            loop {
                if state.stopped || state.next >= pieces.len() {
                    return;
                }
                if let Some(claimed) = state.claim() {
                    break claimed;
                }
                state = shared.wait(state);
            }
        };
        let parsed = parse(source, policy, &pieces[piece], into);
        shared.lock().parsed[piece] = Some(parsed);
        shared.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each top-level block written out, and what was found, as the later stages see them.
    fn seen(source: &str, overlap: bool) -> (Vec<String>, Vec<(Code, Range<usize>)>) {
        let mut sink = Sink::default();
        let mut blocks = Vec::new();
        parse_script(source, &Unmodeled::default(), overlap, &mut sink, |tree, block, _| {
            let inlines = match block {
                MdBlock::Heading { inlines, .. } | MdBlock::Paragraph { inlines, .. } => tree.inlines(inlines),
                MdBlock::List { .. } | MdBlock::Quote { .. } => &[],
            };
            blocks.push(format!("{block:?} {inlines:?}"));
        });
        (blocks, sink.items.into_iter().map(|raw| (raw.code, raw.span)).collect())
    }

    #[test]
    fn two_threads_hand_on_what_one_does_in_the_same_order() {
        let scene = "# Scene\n\nAlice: *Hi*, `\"Name\"`! #tag\n\n- Go.\n    - Bob: Yes.\n\n| a |\n| - |\n\n";
        let source = scene.repeat(3 * AHEAD * markdown::PIECE / scene.len());
        assert!(markdown::pieces(&source, markdown::PIECE).len() > 2 * AHEAD);
        let one = seen(&source, false);
        assert!(one.0.len() > 1000 && one.1.len() > 100, "{} blocks, {} found", one.0.len(), one.1.len());
        assert_eq!(seen(&source, true), one);
    }

    #[test]
    fn deep_nesting_is_reported_once_however_many_pieces_hold_it() {
        let deep = format!("{}x\n\n", "> ".repeat(markdown::MAX_DEPTH + 5));
        let scene = format!("# Scene\n\n{deep}Alice: Hi.\n\n");
        let source = scene.repeat(3 * markdown::PIECE / scene.len());
        assert!(markdown::pieces(&source, markdown::PIECE).len() > 2);
        for overlap in [false, true] {
            let (_, found) = seen(&source, overlap);
            let reports: Vec<_> = found.iter().filter(|(code, _)| *code == Code::NestingTooDeep).collect();
            assert_eq!(reports.len(), 1, "{reports:?}");
            assert!(reports[0].1.start < scene.len(), "the first is kept: {reports:?}");
        }
    }
}
