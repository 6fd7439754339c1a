//! A thin string: 8 bytes where it sits, for the model's rare strings.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

/// An immutable string that costs one pointer (8 bytes) where it sits, for the strings the model
/// holds rarely (a condition's or a weight's key, a link's target, an image's source, a custom
/// command's or tag's name): they would otherwise make every [`Fragment`](crate::Fragment),
/// [`Edge`](crate::Edge) and [`Node`](crate::Node) as large as their 16- or 24-byte string (PB7
/// in `docs/design/playbook.md`).
///
/// It is a `Box<Box<str>>`: the string's bytes in one allocation, its pointer and length in a
/// second, small one. That costs an extra allocation and an extra step to read, which is why
/// only strings the common kinds never hold are thin. It dereferences to `str`, compares with
/// `str`, and converts from `&str`, `String` and `Box<str>` with `into()`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ThinStr(Box<Box<str>>);

impl ThinStr {
    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for ThinStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ThinStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for ThinStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<Box<str>> for ThinStr {
    fn from(text: Box<str>) -> Self {
        ThinStr(Box::new(text))
    }
}

impl From<&str> for ThinStr {
    fn from(text: &str) -> Self {
        ThinStr(Box::new(text.into()))
    }
}

impl From<String> for ThinStr {
    fn from(text: String) -> Self {
        ThinStr(Box::new(text.into_boxed_str()))
    }
}

impl From<&String> for ThinStr {
    fn from(text: &String) -> Self {
        ThinStr::from(text.as_str())
    }
}

impl From<compact_str::CompactString> for ThinStr {
    fn from(text: compact_str::CompactString) -> Self {
        ThinStr::from(text.into_string())
    }
}

impl From<ThinStr> for String {
    fn from(text: ThinStr) -> Self {
        (*text.0).into()
    }
}

impl From<ThinStr> for Box<str> {
    fn from(text: ThinStr) -> Self {
        *text.0
    }
}

impl PartialEq<str> for ThinStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ThinStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<ThinStr> for str {
    fn eq(&self, other: &ThinStr) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<ThinStr> for &str {
    fn eq(&self, other: &ThinStr) -> bool {
        *self == other.as_str()
    }
}

impl fmt::Debug for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ThinStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ThinStr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ThinStr {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<str>::deserialize(deserializer).map(ThinStr::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thin_string_is_one_pointer_and_reads_as_its_text() {
        assert_eq!(std::mem::size_of::<ThinStr>(), 8);
        assert_eq!(std::mem::size_of::<Option<ThinStr>>(), 8);
        let thin = ThinStr::from("look.png");
        assert_eq!(thin, "look.png");
        assert_eq!(&*thin, "look.png");
        assert_eq!(thin.to_string(), "look.png");
        assert_eq!(format!("{thin:?}"), "\"look.png\"");
        assert_eq!(String::from(thin.clone()), "look.png");
        assert_eq!(ThinStr::default(), "");
    }
}
