//! Coercion of field values into Lua values, and the Lua table key rule (FORMAT.md §5–6).

use crate::model::{Field, FieldType};

/// A field value as Lua sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Coerced {
    /// A Lua boolean.
    Boolean(bool),
    /// A Lua number.
    Number(f64),
    /// A Lua string.
    String(String),
}

impl Field {
    /// This field's value as Lua sees it; see [`coerce`].
    pub fn lua_value(&self) -> Coerced {
        coerce(self.kind, &self.title, &self.value)
    }
}

/// Coerces a raw value of a field of type `kind` titled `title`.
///
/// - `Number`, `Actor`, `Item`, `Location` → a number ([`parse_number`]; unparsable → 0), except
///   that a `Number`-typed `Initial Value` of `True`/`False` (any case) is a boolean, a quirk of
///   real files;
/// - `Boolean` → `true` only for `True` in any case (surrounding whitespace ignored), else `false`;
/// - every other type → the string as written.
pub fn coerce(kind: FieldType, title: &str, value: &str) -> Coerced {
    match kind {
        FieldType::Number if title == "Initial Value" && as_boolean_word(value).is_some() => {
            Coerced::Boolean(as_boolean_word(value) == Some(true))
        }
        FieldType::Number | FieldType::Actor | FieldType::Item | FieldType::Location => {
            Coerced::Number(parse_number(value).unwrap_or(0.0))
        }
        FieldType::Boolean => Coerced::Boolean(as_boolean_word(value) == Some(true)),
        FieldType::Text | FieldType::Files | FieldType::Localization => Coerced::String(value.to_owned()),
    }
}

/// An input prompt's answer as the variable that stores it holds values (decision M32). The
/// variable's type is the type of its coerced Initial Value (`declared`): a number reads the
/// answer as a Number field does ([`parse_number`]; unparsable → 0), a boolean as a Boolean field
/// does (`true` only for `True` in any case); a string, or a variable the project does not
/// declare (`None`), keeps the answer as written.
pub fn coerce_answer(declared: Option<&Coerced>, answer: &str) -> Coerced {
    match declared {
        Some(Coerced::Number(_)) => Coerced::Number(parse_number(answer).unwrap_or(0.0)),
        Some(Coerced::Boolean(_)) => Coerced::Boolean(as_boolean_word(answer) == Some(true)),
        Some(Coerced::String(_)) | None => Coerced::String(answer.to_owned()),
    }
}

fn as_boolean_word(value: &str) -> Option<bool> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("true") {
        Some(true)
    } else if value.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// The type a JSON export's untyped value is read as.
///
/// Known fields keep their known type (`IsPlayer` boolean, `Age` number, `Actor`/`Conversant`
/// actor IDs, and FORMAT.md §5's standard text fields — `Name`, `Title`, `Description`, `Menu
/// Text`, `Dialogue Text`, `Parenthetical`, `Pictures`, `Audio Files`, `Video File` — text, as
/// the XML export types them: decision M36); a localised variant ([`is_localised_title`]) is
/// `Localization`, text, as the XML export types it (decision M39); otherwise `True`/`False` (any
/// case) is a boolean, a plain decimal number written without surrounding spaces is a number, and
/// anything else is text.
pub fn infer_type(title: &str, value: &str) -> FieldType {
    match title {
        "IsPlayer" => FieldType::Boolean,
        "Age" => FieldType::Number,
        "Actor" | "Conversant" => FieldType::Actor,
        _ if is_standard_text(title) => FieldType::Text,
        _ if is_localised_title(title) => FieldType::Localization,
        _ if as_boolean_word(value).is_some() && value.trim() == value => FieldType::Boolean,
        _ if is_decimal(value) => FieldType::Number,
        _ => FieldType::Text,
    }
}

/// FORMAT.md §5's standard fields that the XML export types as Text or Files (decision M36).
const STANDARD_TEXT: [&str; 9] = [
    "Name",
    "Title",
    "Description",
    "Menu Text",
    "Dialogue Text",
    "Parenthetical",
    "Pictures",
    "Audio Files",
    "Video File",
];

fn is_standard_text(title: &str) -> bool {
    STANDARD_TEXT.contains(&title)
}

/// Whether a field titled `title` is a localised variant (FORMAT.md §3, decision M39): a language
/// code (`fr`, `fr-FR`, `pt_BR`, `zh-Hans`, `es-419`), or a standard text field followed by a
/// space and a language code (`Dialogue Text fr`, `Menu Text fr-FR`).
pub fn is_localised_title(title: &str) -> bool {
    is_language_code(title)
        || STANDARD_TEXT.iter().any(|standard| {
            title.strip_prefix(standard).and_then(|rest| rest.strip_prefix(' ')).is_some_and(is_language_code)
        })
}

/// A language code: a primary subtag of two or three lower-case ASCII letters, then any number of
/// subtags of two to eight ASCII letters or digits, each after `-` or `_`.
fn is_language_code(text: &str) -> bool {
    let mut subtags = text.split(['-', '_']);
    let primary_ok = subtags
        .next()
        .is_some_and(|primary| (2..=3).contains(&primary.len()) && primary.bytes().all(|b| b.is_ascii_lowercase()));
    primary_ok
        && subtags.all(|subtag| (2..=8).contains(&subtag.len()) && subtag.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// An ID written as text: a whole number, also when written as a decimal (`3.0`, as tools that
/// keep IDs as floats write them). Fractions and numbers past 2^53 are not IDs.
pub(crate) fn whole_id(text: &str) -> Option<crate::model::Id> {
    text.trim().parse().ok().or_else(|| {
        // The range check keeps the cast exact.
        parse_number(text).filter(|n| n.fract() == 0.0 && n.abs() < 9.0e15).map(|n| n as crate::model::Id)
    })
}

/// Parses a number as Lua 5.1's `tonumber` does for a string: surrounding whitespace allowed,
/// decimal with optional sign, fraction and exponent, or hexadecimal `0x…`. `inf` and `nan` are
/// not numbers.
pub fn parse_number(text: &str) -> Option<f64> {
    let text = text.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}'));
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let value = hex.bytes().fold(0.0f64, |acc, b| acc * 16.0 + f64::from((b as char).to_digit(16).unwrap_or(0)));
        return Some(if negative { -value } else { value });
    }
    if is_decimal(text) {
        text.parse().ok()
    } else {
        None
    }
}

/// Whether `text` is exactly a decimal number: `[+-]digits[.digits][e[+-]digits]`, with at least
/// one digit before or after the point.
fn is_decimal(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let start = i;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let mut mantissa_digits = i - start;
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        let frac = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        mantissa_digits += i - frac;
    }
    if mantissa_digits == 0 {
        return false;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp {
            return false;
        }
    }
    i == bytes.len()
}

/// The key an asset or variable name has in the Lua tables: spaces become `_`, every other
/// character is kept (`"Kick Hart"` → `Kick_Hart`, `Talk_to_FET-1` and `Holztür` unchanged).
pub fn lua_key(name: &str) -> String {
    name.replace(' ', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(kind: FieldType, title: &str, value: &str) -> Coerced {
        Field { title: title.into(), value: value.into(), kind }.lua_value()
    }

    #[test]
    fn numbers_and_ids_become_numbers_and_unparsable_is_zero() {
        assert_eq!(field(FieldType::Number, "Age", "42"), Coerced::Number(42.0));
        assert_eq!(field(FieldType::Number, "Age", " -2.5e1 "), Coerced::Number(-25.0));
        assert_eq!(field(FieldType::Actor, "Actor", "3"), Coerced::Number(3.0));
        assert_eq!(field(FieldType::Item, "Item", ""), Coerced::Number(0.0));
        assert_eq!(field(FieldType::Location, "Where", "attic"), Coerced::Number(0.0));
        assert_eq!(field(FieldType::Number, "Gold", "0x1F"), Coerced::Number(31.0));
        assert_eq!(field(FieldType::Number, "Gold", "inf"), Coerced::Number(0.0));
        assert_eq!(field(FieldType::Number, "Gold", "nan"), Coerced::Number(0.0));
    }

    #[test]
    fn booleans_are_true_only_for_true_in_any_case() {
        assert_eq!(field(FieldType::Boolean, "IsPlayer", "True"), Coerced::Boolean(true));
        assert_eq!(field(FieldType::Boolean, "IsPlayer", "tRUE"), Coerced::Boolean(true));
        assert_eq!(field(FieldType::Boolean, "IsPlayer", "1"), Coerced::Boolean(false));
        assert_eq!(field(FieldType::Boolean, "IsPlayer", ""), Coerced::Boolean(false));
        assert_eq!(field(FieldType::Boolean, "IsPlayer", "yes"), Coerced::Boolean(false));
    }

    #[test]
    fn number_typed_initial_value_of_true_or_false_is_a_boolean() {
        assert_eq!(field(FieldType::Number, "Initial Value", "True"), Coerced::Boolean(true));
        assert_eq!(field(FieldType::Number, "Initial Value", "false"), Coerced::Boolean(false));
        assert_eq!(field(FieldType::Number, "Initial Value", "7"), Coerced::Number(7.0));
        assert_eq!(field(FieldType::Number, "Other", "True"), Coerced::Number(0.0));
    }

    #[test]
    fn other_types_are_strings() {
        assert_eq!(field(FieldType::Text, "Name", "5"), Coerced::String("5".into()));
        assert_eq!(field(FieldType::Files, "Pictures", "[a.png]"), Coerced::String("[a.png]".into()));
        assert_eq!(field(FieldType::Localization, "fr-FR", "Oui"), Coerced::String("Oui".into()));
    }

    #[test]
    fn answers_are_read_by_the_declared_type() {
        let (number, boolean, text) = (Coerced::Number(1.0), Coerced::Boolean(false), Coerced::String(String::new()));
        assert_eq!(coerce_answer(Some(&number), " 42 "), Coerced::Number(42.0));
        assert_eq!(coerce_answer(Some(&number), "forty"), Coerced::Number(0.0));
        assert_eq!(coerce_answer(Some(&boolean), "tRuE"), Coerced::Boolean(true));
        assert_eq!(coerce_answer(Some(&boolean), "1"), Coerced::Boolean(false));
        assert_eq!(coerce_answer(Some(&text), "42"), Coerced::String("42".into()));
        assert_eq!(coerce_answer(None, " 42"), Coerced::String(" 42".into()));
    }

    #[test]
    fn json_inference() {
        assert_eq!(infer_type("Flag", "True"), FieldType::Boolean);
        assert_eq!(infer_type("Flag", "false"), FieldType::Boolean);
        assert_eq!(infer_type("Gold", "12"), FieldType::Number);
        assert_eq!(infer_type("Gold", "-1.5"), FieldType::Number);
        assert_eq!(infer_type("Name", "Mara"), FieldType::Text);
        assert_eq!(infer_type("Name", ""), FieldType::Text);
        assert_eq!(infer_type("Name", " 12"), FieldType::Text);
        assert_eq!(infer_type("Name", "0x10"), FieldType::Text);
        assert_eq!(infer_type("IsPlayer", "yes"), FieldType::Boolean);
        assert_eq!(infer_type("Age", "old"), FieldType::Number);
        assert_eq!(infer_type("Actor", "1"), FieldType::Actor);
        assert_eq!(infer_type("Conversant", ""), FieldType::Actor);
    }

    #[test]
    fn the_standard_text_fields_stay_text_whatever_they_hold() {
        // FORMAT.md section 5's standard fields that the XML export types as Text (or Files): a
        // name, title or line that looks like a number or a boolean is still the words written.
        for title in [
            "Name",
            "Title",
            "Description",
            "Menu Text",
            "Dialogue Text",
            "Parenthetical",
            "Pictures",
            "Audio Files",
            "Video File",
        ] {
            assert_eq!(infer_type(title, "1984"), FieldType::Text, "{title}");
            assert_eq!(infer_type(title, "True"), FieldType::Text, "{title}");
        }
        assert_eq!(infer_type("Initial Value", "12"), FieldType::Number);
        assert_eq!(infer_type("Custom", "True"), FieldType::Boolean);
    }

    #[test]
    fn localised_fields_stay_text_whatever_they_hold() {
        // FORMAT.md section 3: localised variants are fields named by language code; the XML export
        // types them `Localization`, text, so a translation that reads as a number stays words.
        for title in [
            "fr-FR",
            "fr",
            "pt-BR",
            "pt_BR",
            "zh-Hans",
            "es-419",
            "Dialogue Text fr",
            "Menu Text fr-FR",
            "Description de",
            "Name es",
        ] {
            assert_eq!(infer_type(title, "42"), FieldType::Localization, "{title}");
            assert_eq!(infer_type(title, "True"), FieldType::Localization, "{title}");
            assert_eq!(infer_type(title, "Oui"), FieldType::Localization, "{title}");
        }
        // Custom fields that are not language codes are inferred as before.
        for title in ["Gold", "HP", "XP", "Age2", "Quest fr", "fr-", "f", "Dialogue Text"] {
            assert_ne!(infer_type(title, "42"), FieldType::Localization, "{title}");
        }
        assert_eq!(infer_type("HP", "42"), FieldType::Number);
    }

    #[test]
    fn parse_number_follows_lua_tonumber() {
        assert_eq!(parse_number("5"), Some(5.0));
        assert_eq!(parse_number(".5"), Some(0.5));
        assert_eq!(parse_number("5."), Some(5.0));
        assert_eq!(parse_number("\t1e3\n"), Some(1000.0));
        assert_eq!(parse_number("-0x10"), Some(-16.0));
        assert_eq!(parse_number(""), None);
        assert_eq!(parse_number("."), None);
        assert_eq!(parse_number("1e"), None);
        assert_eq!(parse_number("1 2"), None);
        assert_eq!(parse_number("infinity"), None);
        assert_eq!(parse_number("0x"), None);
    }

    #[test]
    fn lua_keys_replace_spaces_only() {
        assert_eq!(lua_key("Kick Hart"), "Kick_Hart");
        assert_eq!(lua_key("Talk_to_FET-1"), "Talk_to_FET-1");
        assert_eq!(lua_key("Holztür"), "Holztür");
        assert_eq!(lua_key("a  b"), "a__b");
    }
}
