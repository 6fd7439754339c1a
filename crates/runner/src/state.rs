//! The state a run carries between steps: a plain value a host can store and hand back.

/// Where a run is and what it is doing there, plus the entropy it draws random choices from.
///
/// The host owns the game world, so this holds no game state: a situation and a generator's
/// state, nothing else. It is small, cheap to clone, and comparable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlayState {
    /// Where the run is, and what it is doing there.
    pub situation: Situation,
    /// The generator random choices draw from.
    pub entropy: Entropy,
}

impl Default for PlayState {
    fn default() -> Self {
        PlayState::new()
    }
}

impl PlayState {
    /// A run that has not started, with the default seed (0).
    pub fn new() -> Self {
        PlayState::seeded(0)
    }

    /// A run that has not started, drawing random choices from a generator seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        PlayState { situation: Situation::NotStarted, entropy: Entropy::seeded(seed) }
    }
}

/// Where a run is, and what it is doing there. A closed union, so the state cannot contradict
/// itself: the waits stand at the same node [`AtNode`](Situation::AtNode) would, doing something
/// else there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Situation {
    /// Nothing has been started.
    NotStarted,
    /// Standing at a node, waiting for the player's `next`.
    AtNode(usize),
    /// Waiting on the host to carry out the effects just performed.
    AwaitingDone {
        /// The node that asked.
        node: usize,
        /// Where the node carries on once the host is done.
        resume: Resume,
        /// Nodes the walk has passed since the run last gave the person the turn (said a line or
        /// offered a menu): the endless-loop bound counts on from here once the host is done.
        passed: usize,
    },
    /// Waiting on the world to answer the keys just resolved. The keys are not stored: they are
    /// a function of the node and the moment, so the two cannot disagree.
    AwaitingSupply {
        /// The node that asked.
        node: usize,
        /// Which reading of the node the answers are for.
        moment: Moment,
        /// Nodes the walk has passed since the run last gave the person the turn, as in
        /// [`AwaitingDone`](Situation::AwaitingDone).
        passed: usize,
    },
    /// Waiting on the player to choose from the menu just offered.
    AwaitingChoice {
        /// The menu.
        node: usize,
        /// Which options were available when the menu was offered.
        available: Availability,
    },
    /// The run has ended.
    AtEnd,
}

impl Situation {
    /// The node the run stands at, if it stands at one.
    pub fn node(&self) -> Option<usize> {
        match self {
            Situation::AtNode(node)
            | Situation::AwaitingDone { node, .. }
            | Situation::AwaitingSupply { node, .. }
            | Situation::AwaitingChoice { node, .. } => Some(*node),
            Situation::NotStarted | Situation::AtEnd => None,
        }
    }

    /// What the run is waiting for, in words (for explanations).
    pub fn describe(&self) -> &'static str {
        match self {
            Situation::NotStarted => "the run has not started",
            Situation::AtNode(_) => "the run waits for the player to move on with next",
            Situation::AwaitingDone { .. } => "the run waits for the host to carry out a command (done or failed)",
            Situation::AwaitingSupply { .. } => "the run waits for the world's answers (supply)",
            Situation::AwaitingChoice { .. } => "the run waits for the player to choose an option (choose)",
            Situation::AtEnd => "the run has ended",
        }
    }
}

/// Where a node carries on once the host is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resume {
    /// The line continues from this segment (a stop before a query written after a command).
    From(usize),
    /// The node has finished playing: a line gives the player the turn, a control node leaves.
    FromNodeEnd,
}

/// Which reading of a node a `supply` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Moment {
    /// Before playing the node from this segment: its condition and its first segment's queries
    /// (segment 0), or a later segment's queries; a menu's or random choice's conditions,
    /// labels and weights (always segment 0).
    ToPlay(usize),
    /// Before leaving the node: the conditions on its ways out.
    ToLeave,
}

/// Which options of a menu were available when it was offered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Availability {
    /// Every option.
    All,
    /// Only the options whose positions are set in this bit set (bit `i % 64` of word `i / 64`).
    Only(Box<[u64]>),
}

impl Availability {
    /// Builds the availability of `count` options from a predicate.
    pub fn from_fn(count: usize, mut available: impl FnMut(usize) -> bool) -> Availability {
        // The predicate is asked once per option: up to the first unavailable one, then the rest.
        let Some(off) = (0..count).position(|i| !available(i)) else { return Availability::All };
        let mut words = vec![0u64; count.div_ceil(64)];
        for i in 0..off {
            words[i / 64] |= 1 << (i % 64);
        }
        for i in off + 1..count {
            if available(i) {
                words[i / 64] |= 1 << (i % 64);
            }
        }
        Availability::Only(words.into_boxed_slice())
    }

    /// Whether the option at `position` was available.
    pub fn contains(&self, position: usize) -> bool {
        match self {
            Availability::All => true,
            Availability::Only(words) => words.get(position / 64).is_some_and(|w| w & (1 << (position % 64)) != 0),
        }
    }
}

/// A SplitMix64 generator: the entropy random choices draw from, carried in the state so a run
/// replays exactly. Its whole state is one `u64`.
///
/// One draw advances the state by `0x9E3779B97F4A7C15` (wrapping) and mixes it:
/// `z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
/// z ^ (z >> 31)` (wrapping multiplications). See `docs/design/random-choice.md` for how a draw
/// picks an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Entropy {
    /// The generator's state.
    pub state: u64,
}

impl Entropy {
    /// A generator seeded with `seed` (the seed is the initial state).
    pub fn seeded(seed: u64) -> Self {
        Entropy { state: seed }
    }

    /// The next 64 random bits, and the generator after drawing them.
    pub fn next_u64(self) -> (u64, Entropy) {
        let state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31), Entropy { state })
    }

    /// A number in `[0, 1)` from the top 53 bits of the next draw, and the generator after it.
    pub fn next_unit(self) -> (f64, Entropy) {
        let (bits, next) = self.next_u64();
        ((bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64), next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_its_published_sequence() {
        // The reference sequence for seed 1234567.
        let mut entropy = Entropy::seeded(1234567);
        let mut drawn = Vec::new();
        for _ in 0..3 {
            let (bits, next) = entropy.next_u64();
            drawn.push(bits);
            entropy = next;
        }
        assert_eq!(drawn, [6457827717110365317, 3203168211198807973, 9817491932198370423]);
    }

    #[test]
    fn units_lie_in_the_half_open_interval() {
        let mut entropy = Entropy::seeded(7);
        for _ in 0..1000 {
            let (u, next) = entropy.next_unit();
            assert!((0.0..1.0).contains(&u));
            entropy = next;
        }
    }

    #[test]
    fn availability_remembers_each_position() {
        assert_eq!(Availability::from_fn(3, |_| true), Availability::All);
        let some = Availability::from_fn(70, |i| i % 3 == 0);
        assert!(some.contains(0) && some.contains(69) && !some.contains(1) && !some.contains(68));
        assert!(!some.contains(500));
    }
}
