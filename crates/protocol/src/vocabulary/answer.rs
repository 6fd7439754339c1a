//! What the world says about a key, and the questions a run asks.

use std::borrow::Cow;
use std::fmt;

/// The kind of answer a question needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnswerKind {
    /// A truth, for a condition.
    Truth,
    /// Words, for a query in speech or in a label.
    Text,
    /// A finite, non-negative number, for a random option's dynamic weight.
    Number,
}

impl fmt::Display for AnswerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AnswerKind::Truth => "a truth (true or false)",
            AnswerKind::Text => "words (a string)",
            AnswerKind::Number => "a finite, non-negative number",
        })
    }
}

/// One key a run asks the world about, and the kind of answer it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Question<'a> {
    /// The key, as the playbook names it.
    pub key: &'a str,
    /// The kind of answer it needs.
    pub kind: AnswerKind,
}

/// What the world said about one key. On the wire an answer is the bare JSON value it is: a
/// boolean is a truth, a string is words, a number is a number.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<'a> {
    /// `true` or `false`.
    Truth(bool),
    /// Words.
    Text(Cow<'a, str>),
    /// A number (only a random option's dynamic weight asks for one).
    Number(f64),
}

impl Answer<'_> {
    /// The answer's kind.
    pub fn kind(&self) -> AnswerKind {
        match self {
            Answer::Truth(_) => AnswerKind::Truth,
            Answer::Text(_) => AnswerKind::Text,
            Answer::Number(_) => AnswerKind::Number,
        }
    }

    /// Whether this answer fits a question of `kind`. A weight must be finite and non-negative.
    pub fn fits(&self, kind: AnswerKind) -> bool {
        match (self, kind) {
            (Answer::Truth(_), AnswerKind::Truth) | (Answer::Text(_), AnswerKind::Text) => true,
            (Answer::Number(n), AnswerKind::Number) => n.is_finite() && *n >= 0.0,
            _ => false,
        }
    }

    /// The answer with owned words, independent of whatever it borrowed.
    pub fn into_owned(self) -> Answer<'static> {
        match self {
            Answer::Truth(b) => Answer::Truth(b),
            Answer::Text(text) => Answer::Text(Cow::Owned(text.into_owned())),
            Answer::Number(n) => Answer::Number(n),
        }
    }
}

/// One answer and the key it answers.
pub type Entry<'a> = (Cow<'a, str>, Answer<'a>);

/// The answers a `supply` carries, by key, in the order given. When a key is given more than
/// once, the first answer is the one read.
///
/// Answers either own their entries or borrow them: a driver in a hot loop can keep one buffer of
/// entries, refill it for each request, and lend it with [`Answers::borrowed`], so answering
/// allocates nothing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answers<'a> {
    entries: Cow<'a, [Entry<'a>]>,
}

impl Answers<'static> {
    /// No answers, as a constant.
    pub const EMPTY: Answers<'static> = Answers::empty_const();
}

impl<'a> Answers<'a> {
    /// No answers.
    pub fn new() -> Self {
        Answers::empty_const()
    }

    /// No answers, in a `const` context (a shared empty set).
    pub const fn empty_const() -> Self {
        Answers { entries: Cow::Owned(Vec::new()) }
    }

    /// Room for `capacity` answers.
    pub fn with_capacity(capacity: usize) -> Self {
        Answers { entries: Cow::Owned(Vec::with_capacity(capacity)) }
    }

    /// Answers lent from a buffer the caller keeps.
    pub fn borrowed(entries: &'a [Entry<'a>]) -> Self {
        Answers { entries: Cow::Borrowed(entries) }
    }

    /// Adds an answer, builder style.
    pub fn with(mut self, key: impl Into<Cow<'a, str>>, answer: Answer<'a>) -> Self {
        self.insert(key, answer);
        self
    }

    /// Adds an answer (copying lent entries first).
    pub fn insert(&mut self, key: impl Into<Cow<'a, str>>, answer: Answer<'a>) {
        self.entries.to_mut().push((key.into(), answer));
    }

    /// The answer given for a key, if any.
    pub fn get(&self, key: &str) -> Option<&Answer<'a>> {
        self.entries.iter().find(|(k, _)| same_key(k, key)).map(|(_, answer)| answer)
    }

    /// Every key and answer, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Answer<'a>)> {
        self.entries.iter().map(|(k, a)| (k.as_ref(), a))
    }

    /// How many answers there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The answers, owning everything they hold.
    pub fn into_owned(self) -> Answers<'static> {
        let entries = match self.entries {
            Cow::Owned(entries) => {
                entries.into_iter().map(|(k, a)| (Cow::Owned(k.into_owned()), a.into_owned())).collect()
            }
            Cow::Borrowed(entries) => {
                entries.iter().map(|(k, a)| (Cow::Owned(k.to_string()), a.clone().into_owned())).collect()
            }
        };
        Answers { entries: Cow::Owned(entries) }
    }
}

/// Whether two keys are the same, cheaply when a driver answers with the very key it was asked:
/// compare addresses first, then text.
pub fn same_key(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

impl<'a, K: Into<Cow<'a, str>>> FromIterator<(K, Answer<'a>)> for Answers<'a> {
    fn from_iter<I: IntoIterator<Item = (K, Answer<'a>)>>(iter: I) -> Self {
        Answers { entries: Cow::Owned(iter.into_iter().map(|(k, a)| (k.into(), a)).collect()) }
    }
}
