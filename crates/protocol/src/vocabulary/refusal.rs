//! The closed set of refusal reasons.

use std::fmt;

/// Why a command could not be taken. A reason is added, never renamed or reused; its spelling
/// ([`as_str`](Self::as_str)) is the conformance corpus's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefusalReason {
    /// `next` arrived before `start`.
    NotStarted,
    /// `next` arrived after the run ended.
    AlreadyEnded,
    /// A known command arrived where it cannot be taken: `next` while the run waits on the host
    /// or the player, `done`/`failed` when nothing was asked, `supply` when nothing was asked,
    /// or `choose` where no menu waits.
    Misplaced,
    /// The command is one the runner does not define (reported by readers of commands off a
    /// wire; [`Command`](crate::Command) itself is closed).
    UnknownCommand,
    /// The node the run stands at has no way onward.
    LeadsNowhere,
    /// A walk entered a loop of nodes that hand the host nothing, or went on passing nodes that
    /// only hand it commands and questions, never giving the person the turn, for longer than
    /// the bound allows (D10 of `docs/design/runner.md`). The seed note spelled it
    /// `endless-ring`; [`parse`](Self::parse) accepts that spelling too.
    EndlessLoop,
    /// A `supply` left out a key the run asked about.
    UnansweredKey,
    /// A `supply` answered a key the run did not ask about.
    UnaskedKey,
    /// An answer is the wrong kind for its question: words for a condition, a truth for a
    /// query, or anything but a finite, non-negative number for a weight.
    WrongAnswerKind,
    /// One node needs the same key in two ways (as a truth and as words, say), which one answer
    /// cannot be.
    KeyNeededBothWays,
    /// The node is one this build does not play. Stagehand plays every node kind of format
    /// version 0, so its runner never reports this; it stays in the set for other builds and
    /// for drivers that restrict what they play.
    UnplayableNode,
    /// A `choose` named a position outside the options the menu offered.
    NoSuchOption,
    /// A `choose` named an option the menu offered as unavailable.
    UnavailableOption,
    /// A `start` named an anchor the playbook does not have (or, for an engine that starts
    /// conversations, a conversation it does not have). (A Stagehand addition.)
    NoSuchAnchor,
    /// A `start` named a conversation that may not start now: its opening condition does not
    /// hold. (A Stagehand addition, for engines such as ChatMapper's whose conversations are
    /// guarded.)
    CannotStart,
    /// The work a command started failed: an agent playbook's turn ended in its recoverable
    /// `failed` state, was aborted, or met a control-plane error. Unlike the others, the
    /// engine has moved (it rests where the failure left it, with its recovery actions).
    /// (A Stagehand addition: decision H47.)
    RunFailed,
}

impl RefusalReason {
    /// Every reason, in the order they were added.
    pub const ALL: [RefusalReason; 16] = [
        RefusalReason::NotStarted,
        RefusalReason::AlreadyEnded,
        RefusalReason::Misplaced,
        RefusalReason::UnknownCommand,
        RefusalReason::LeadsNowhere,
        RefusalReason::EndlessLoop,
        RefusalReason::UnansweredKey,
        RefusalReason::UnaskedKey,
        RefusalReason::WrongAnswerKind,
        RefusalReason::KeyNeededBothWays,
        RefusalReason::UnplayableNode,
        RefusalReason::NoSuchOption,
        RefusalReason::UnavailableOption,
        RefusalReason::NoSuchAnchor,
        RefusalReason::CannotStart,
        RefusalReason::RunFailed,
    ];

    /// The reason's spelling on the wire (kebab-case, as the corpus writes it).
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalReason::NotStarted => "not-started",
            RefusalReason::AlreadyEnded => "already-ended",
            RefusalReason::Misplaced => "misplaced",
            RefusalReason::UnknownCommand => "unknown-command",
            RefusalReason::LeadsNowhere => "leads-nowhere",
            RefusalReason::EndlessLoop => "endless-loop",
            RefusalReason::UnansweredKey => "unanswered-key",
            RefusalReason::UnaskedKey => "unasked-key",
            RefusalReason::WrongAnswerKind => "wrong-answer-kind",
            RefusalReason::KeyNeededBothWays => "key-needed-both-ways",
            RefusalReason::UnplayableNode => "unplayable-node",
            RefusalReason::NoSuchOption => "no-such-option",
            RefusalReason::UnavailableOption => "unavailable-option",
            RefusalReason::NoSuchAnchor => "no-such-anchor",
            RefusalReason::CannotStart => "cannot-start",
            RefusalReason::RunFailed => "run-failed",
        }
    }

    /// The reason a spelling names. `endless-ring`, the seed's older spelling, reads as
    /// [`EndlessLoop`](Self::EndlessLoop).
    pub fn parse(spelling: &str) -> Option<RefusalReason> {
        if spelling == "endless-ring" {
            return Some(RefusalReason::EndlessLoop);
        }
        RefusalReason::ALL.into_iter().find(|reason| reason.as_str() == spelling)
    }
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_round_trips_its_spelling() {
        for reason in RefusalReason::ALL {
            assert_eq!(RefusalReason::parse(reason.as_str()), Some(reason));
        }
        assert_eq!(RefusalReason::parse("endless-ring"), Some(RefusalReason::EndlessLoop));
        assert_eq!(RefusalReason::parse("no-such-reason"), None);
    }

    #[test]
    fn the_corpus_spellings_are_kept() {
        let spelled: Vec<_> = RefusalReason::ALL.iter().map(|r| r.as_str()).collect();
        for corpus in [
            "not-started",
            "already-ended",
            "misplaced",
            "unknown-command",
            "leads-nowhere",
            "endless-loop",
            "unanswered-key",
            "unasked-key",
            "wrong-answer-kind",
            "key-needed-both-ways",
            "unplayable-node",
            "no-such-option",
            "unavailable-option",
        ] {
            assert!(spelled.contains(&corpus), "{corpus} is missing");
        }
    }
}
