//! Conditions and weights: both objects with a `kind`, never bare scalars, so new kinds stay
//! additive.

use crate::thin::ThinStr;

/// What must hold for a node to play or a way out to be taken.
///
/// A closed union with one member today; the wire shape (`{"kind": "key", "key": …}`) leaves room
/// for negation and expressions.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Condition {
    /// Holds when the world answers the key with `true`.
    Key {
        /// The game-state key the world is asked about, as a truth. A thin string (8 bytes), so
        /// an optional condition costs 8 bytes in every node and edge that may carry one (PB7).
        key: ThinStr,
    },
}

impl Condition {
    /// A key condition.
    pub fn key(key: impl AsRef<str>) -> Self {
        Condition::Key { key: key.as_ref().into() }
    }

    /// The key this condition asks the world about.
    pub fn key_name(&self) -> &str {
        match self {
            Condition::Key { key } => key,
        }
    }
}

/// How often a random arm is taken.
#[derive(Debug, Clone, PartialEq)]
pub enum Weight {
    /// An equal share of whatever the numbered arms leave.
    Auto,
    /// A share the writer stated, relative to the others.
    Number {
        /// The share, written as a percentage.
        percentage: f64,
    },
    /// A share the game decides when asked: the world answers the key with a number.
    Query {
        /// The key the world is asked about, as a number. A thin string (8 bytes), so a weight
        /// is 16 bytes and an edge 40 (PB7).
        key: ThinStr,
    },
}
