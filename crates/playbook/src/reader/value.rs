//! The machinery the streaming reader is built from: where a value sits ([`At`]), what it was
//! expected to be ([`Expect`]), and how an object's properties are read one by one
//! ([`read_object`]), in document order, holding back only those that wait on another property.
//!
//! Serde carries errors as its own type, so a refusal is kept in the read's [`Ctx`] and a
//! placeholder error carries the failure out; the caller takes the refusal back from the context.

use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use smallvec::SmallVec;

use super::{Checker, JsonPath, Refusal, Rule};

/// The state of one read: the checkers the header is judged by, and the first refusal.
pub(super) struct Ctx<'c> {
    pub(super) checkers: &'c [Box<dyn Checker>],
    refusal: RefCell<Option<Refusal>>,
}

impl<'c> Ctx<'c> {
    pub(super) fn new(checkers: &'c [Box<dyn Checker>]) -> Self {
        Ctx { checkers, refusal: RefCell::new(None) }
    }

    /// Keeps the refusal (the first one wins) and returns the error that carries it out.
    pub(super) fn refuse<E: de::Error>(&self, refusal: Refusal) -> E {
        self.refusal.borrow_mut().get_or_insert(refusal);
        E::custom("refused by a reader rule")
    }

    /// The refusal, if a rule refused.
    pub(super) fn take(&self) -> Option<Refusal> {
        self.refusal.borrow_mut().take()
    }

    /// An error from reading a held-back value, as the error of the read around it.
    pub(super) fn lift<E: de::Error>(&self, error: serde_json::Error) -> E {
        if self.refusal.borrow().is_some() {
            E::custom("refused by a reader rule")
        } else {
            E::custom(error)
        }
    }
}

/// A path built on the stack as the reader descends, turned into a [`JsonPath`] only on refusal.
#[derive(Clone, Copy)]
pub(super) enum Here<'p> {
    Root,
    Key(&'p Here<'p>, &'p str),
    Index(&'p Here<'p>, usize),
}

impl Here<'_> {
    fn path(&self) -> JsonPath {
        match self {
            Here::Root => JsonPath::root(),
            Here::Key(parent, key) => parent.path().key(*key),
            Here::Index(parent, index) => parent.path().index(*index),
        }
    }
}

/// Where a value sits, and the read it belongs to.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) here: &'a Here<'a>,
}

impl At<'_> {
    /// A shape refusal of the value here.
    pub(super) fn refusal(&self, message: impl Into<String>) -> Refusal {
        Refusal::new(Rule::Shape, self.here.path(), message)
    }

    /// Refuses the value here, as the error of the read.
    pub(super) fn refuse<E: de::Error>(&self, message: impl Into<String>) -> E {
        self.ctx.refuse(self.refusal(message))
    }
}

/// What was found where something else was expected, described as a refusal says it.
pub(super) enum Found<'a> {
    Null,
    Bool(bool),
    Number(String),
    Text(&'a str),
    Array,
    Object,
}

impl fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Null => f.write_str("null"),
            Found::Bool(b) => write!(f, "{b}"),
            Found::Number(n) => f.write_str(n),
            Found::Text(s) => write!(f, "the text {}", Value::from(*s)),
            Found::Array => f.write_str("an array"),
            Found::Object => f.write_str("an object"),
        }
    }
}

fn float(value: f64) -> String {
    serde_json::Number::from_f64(value).map_or_else(|| value.to_string(), |n| n.to_string())
}

/// What one value is expected to be, and what to make of it. Every kind of JSON value it does
/// not take is refused as "expected …, found …".
pub(super) trait Expect<'de>: Sized {
    type Out;
    fn at(&self) -> At<'_>;
    /// What was expected, as a refusal says it ("an object", "a string").
    fn expected(&self) -> String;

    fn mismatch<E: de::Error>(&self, found: Found<'_>) -> E {
        self.at().refuse(format!("expected {}, found {found}", self.expected()))
    }
    fn on_map<A: MapAccess<'de>>(self, _map: A) -> Result<Self::Out, A::Error> {
        Err(self.mismatch(Found::Object))
    }
    fn on_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<Self::Out, A::Error> {
        Err(self.mismatch(Found::Array))
    }
    fn on_str<E: de::Error>(self, text: &str) -> Result<Self::Out, E> {
        Err(self.mismatch(Found::Text(text)))
    }
    fn on_u64<E: de::Error>(self, n: u64) -> Result<Self::Out, E> {
        Err(self.mismatch(Found::Number(n.to_string())))
    }
    fn on_i64<E: de::Error>(self, n: i64) -> Result<Self::Out, E> {
        Err(self.mismatch(Found::Number(n.to_string())))
    }
    fn on_f64<E: de::Error>(self, n: f64) -> Result<Self::Out, E> {
        Err(self.mismatch(Found::Number(float(n))))
    }
    fn on_bool<E: de::Error>(self, b: bool) -> Result<Self::Out, E> {
        Err(self.mismatch(Found::Bool(b)))
    }
}

/// An [`Expect`] as serde's visitor and seed.
pub(super) struct Visit<X>(pub(super) X);

impl<'de, X: Expect<'de>> Visitor<'de> for Visit<X> {
    type Value = X::Out;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.expected())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<X::Out, E> {
        self.0.on_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<X::Out, E> {
        self.0.on_i64(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<X::Out, E> {
        self.0.on_u64(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<X::Out, E> {
        self.0.on_f64(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<X::Out, E> {
        self.0.on_str(v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<X::Out, E> {
        Err(self.0.mismatch(Found::Null))
    }
    fn visit_none<E: de::Error>(self) -> Result<X::Out, E> {
        Err(self.0.mismatch(Found::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<X::Out, A::Error> {
        self.0.on_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<X::Out, A::Error> {
        self.0.on_map(map)
    }
}

impl<'de, X: Expect<'de>> DeserializeSeed<'de> for Visit<X> {
    type Value = X::Out;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<X::Out, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Reads the value of `d` as `expect` says.
pub(super) fn read<'de, X: Expect<'de>, D: Deserializer<'de>>(d: D, expect: X) -> Result<X::Out, D::Error> {
    d.deserialize_any(Visit(expect))
}

/// A string, as any string type.
pub(super) struct Text<'a, S>(pub(super) At<'a>, pub(super) PhantomData<S>);

impl<'de, S: for<'s> From<&'s str>> Expect<'de> for Text<'_, S> {
    type Out = S;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "a string".into()
    }
    fn on_str<E: de::Error>(self, text: &str) -> Result<S, E> {
        Ok(S::from(text))
    }
}

/// `true` or `false`.
pub(super) struct Flag<'a>(pub(super) At<'a>);

impl<'de> Expect<'de> for Flag<'_> {
    type Out = bool;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "true or false".into()
    }
    fn on_bool<E: de::Error>(self, b: bool) -> Result<bool, E> {
        Ok(b)
    }
}

/// A non-negative integer, described as `what`.
pub(super) struct Whole<'a>(pub(super) At<'a>, pub(super) &'static str);

impl<'de> Expect<'de> for Whole<'_> {
    type Out = u64;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        format!("{} (a non-negative integer)", self.1)
    }
    fn on_u64<E: de::Error>(self, n: u64) -> Result<u64, E> {
        Ok(n)
    }
    /// JSON Schema's "integer" is any number whose fractional part is zero, so `-0`, `1.0` and
    /// `1e0` are integers the schema allows; anything else written as a float is no integer.
    fn on_f64<E: de::Error>(self, n: f64) -> Result<u64, E> {
        // Below 2^64 exactly: `u64::MAX as f64` rounds up to 2^64, which no `u64` holds.
        const LIMIT: f64 = 18_446_744_073_709_551_616.0;
        // `-0` is zero; NaN and the infinities have no zero fractional part.
        if n.fract() == 0.0 && n > -1.0 && n < LIMIT {
            return Ok(n as u64);
        }
        Err(self.mismatch(Found::Number(float(n))))
    }
}

/// A position in a table (a node or a speaker), described as `what`.
pub(super) fn index<'de, D: Deserializer<'de>>(d: D, at: At<'_>, what: &'static str) -> Result<usize, D::Error> {
    let n = read(d, Whole(at, what))?;
    usize::try_from(n).map_err(|_| Whole(at, what).mismatch(Found::Number(n.to_string())))
}

/// A node or speaker reference, described as `what`: stored as a `u32` (PB7). One beyond
/// `u32::MAX` is refused under the reference rule, as one beyond the table is, never truncated.
pub(super) fn reference<'de, D: Deserializer<'de>>(d: D, at: At<'_>, what: &'static str) -> Result<u32, D::Error> {
    let n = read(d, Whole(at, what))?;
    u32::try_from(n).map_err(|_| {
        at.ctx.refuse(Refusal::new(
            Rule::Reference,
            at.here.path(),
            format!("{what} {n} lands nowhere: a playbook's tables hold at most {} entries", u64::from(u32::MAX) + 1),
        ))
    })
}

/// Any number, as `f64`.
pub(super) struct Number<'a>(pub(super) At<'a>);

impl<'de> Expect<'de> for Number<'_> {
    type Out = f64;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "a number".into()
    }
    fn on_u64<E: de::Error>(self, n: u64) -> Result<f64, E> {
        Ok(n as f64)
    }
    fn on_i64<E: de::Error>(self, n: i64) -> Result<f64, E> {
        Ok(n as f64)
    }
    fn on_f64<E: de::Error>(self, n: f64) -> Result<f64, E> {
        Ok(n)
    }
}

/// How one element of a list is read.
pub(super) trait Item {
    type Out;
    fn read<'de, D: Deserializer<'de>>(d: D, at: At<'_>) -> Result<Self::Out, D::Error>;
}

struct Element<'a, I>(At<'a>, PhantomData<I>);

impl<'de, I: Item> DeserializeSeed<'de> for Element<'_, I> {
    type Value = I::Out;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<I::Out, D::Error> {
        I::read(d, self.0)
    }
}

/// An array, each element read as `I` into the collection `C`.
pub(super) struct List<'a, I, C>(pub(super) At<'a>, pub(super) PhantomData<(I, C)>);

impl<'a, I, C> List<'a, I, C> {
    pub(super) fn new(at: At<'a>) -> Self {
        List(at, PhantomData)
    }
}

impl<'de, I: Item, C: Gather<I::Out>> Expect<'de> for List<'_, I, C> {
    type Out = C;
    fn at(&self) -> At<'_> {
        self.0
    }
    fn expected(&self) -> String {
        "an array".into()
    }
    fn on_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<C, A::Error> {
        // Most lists are short (a line's one fragment, a node's one or two edges): gathered on
        // the stack first, each is then allocated once, at its exact length.
        let mut items: SmallVec<[I::Out; 4]> = SmallVec::new();
        for i in 0.. {
            let here = Here::Index(self.0.here, i);
            match seq.next_element_seed(Element::<I>(At { ctx: self.0.ctx, here: &here }, PhantomData))? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(C::gather(items))
    }
}

/// A collection a list is read into, allocated at its exact length (collecting into a `Vec`
/// would reserve room for four).
pub(super) trait Gather<T> {
    fn gather(items: SmallVec<[T; 4]>) -> Self;
}

impl<T> Gather<T> for Vec<T> {
    fn gather(items: SmallVec<[T; 4]>) -> Self {
        let mut out = Vec::with_capacity(items.len());
        out.extend(items);
        out
    }
}

impl<T> Gather<T> for Box<[T]> {
    fn gather(items: SmallVec<[T; 4]>) -> Self {
        Vec::gather(items).into_boxed_slice()
    }
}

impl<T> Gather<T> for SmallVec<[T; 1]> {
    fn gather(items: SmallVec<[T; 4]>) -> Self {
        let mut out = SmallVec::with_capacity(items.len());
        out.extend(items);
        out
    }
}

/// A string in a list.
pub(super) struct TextItem<S>(PhantomData<S>);

impl<S: for<'s> From<&'s str>> Item for TextItem<S> {
    type Out = S;
    fn read<'de, D: Deserializer<'de>>(d: D, at: At<'_>) -> Result<S, D::Error> {
        read(d, Text(at, PhantomData))
    }
}

/// An object being read property by property.
pub(super) trait Builder {
    /// Whether the property can be read now; `false` holds it back until it can (a property
    /// whose meaning depends on the object's `kind`, before the kind is known).
    fn ready(&self, key: &str) -> bool;
    /// Reads one property; an unknown one is skipped.
    fn property<'de, D: Deserializer<'de>>(&mut self, key: &str, d: D, at: At<'_>) -> Result<(), D::Error>;
}

/// Skips a value this reader does not read, checking it as [`Skip`] does (serde's `IgnoredAny`
/// would place a bad string a character earlier than reading it does).
pub(super) fn skip<'de, D: Deserializer<'de>>(d: D) -> Result<(), D::Error> {
    d.deserialize_any(Skip).map(drop)
}

struct Property<'b, 'a, B> {
    builder: &'b mut B,
    key: &'b str,
    at: At<'a>,
}

impl<'de, B: Builder> DeserializeSeed<'de> for Property<'_, '_, B> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.builder.property(self.key, d, self.at)
    }
}

/// A property name, borrowed from the text where it can be.
struct Key;

impl<'de> Visitor<'de> for Key {
    type Value = std::borrow::Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.to_owned().into())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
}

impl<'de> DeserializeSeed<'de> for Key {
    type Value = std::borrow::Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

/// Reads every property of an object into `builder`, in document order. A property that is not
/// ready is held back as a JSON value and read as soon as it is (when the document is written
/// in the documented order, nothing is ever held back).
pub(super) fn read_object<'de, A: MapAccess<'de>, B: Builder>(
    mut map: A,
    builder: &mut B,
    at: At<'_>,
) -> Result<(), A::Error> {
    let mut held: Vec<(String, Value)> = Vec::new();
    while let Some(key) = map.next_key_seed(Key)? {
        if !builder.ready(&key) {
            held.push((key.into_owned(), map.next_value()?));
            continue;
        }
        map.next_value_seed(Property { builder: &mut *builder, key: &key, at })?;
        if !held.is_empty() && held.iter().all(|(key, _)| builder.ready(key)) {
            for (key, value) in std::mem::take(&mut held) {
                builder.property(&key, &value, at).map_err(|error| at.ctx.lift(error))?;
            }
        }
    }
    Ok(())
}

/// Any JSON value, checked and thrown away: what a refusal's syntax scan reads the text as. It
/// goes through `deserialize_any`, so serde_json's nesting limit holds as it does while reading.
pub(super) struct Skip;

impl<'de> de::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Skip, D::Error> {
        deserializer.deserialize_any(Skip)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}
