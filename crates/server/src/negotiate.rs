//! Proactive content negotiation (RFC 9110 §12.5.1): which of the media types a route answers
//! with the request's `Accept` field prefers, weighed by its quality values, or `406` when it
//! finds none acceptable (decision S36).
//!
//! Each media type offered takes the weight of the most specific range that matches it
//! (`text/plain` before `text/*` before `*/*`); `q=0` means "not acceptable". The offer with the
//! highest weight wins; on equal weights, the one named more specifically, then the one the
//! client listed first, then the route's own order (its default first). A request without
//! `Accept`, or whose `Accept` holds no range that can be read, takes the route's default.

use axum::http::{header, HeaderMap};

use crate::problem::{Kind, Problem};

/// One media range of an `Accept` field.
#[derive(Debug, Clone, PartialEq)]
struct Range {
    /// The type, lowercase (`*` for any).
    kind: String,
    /// The subtype, lowercase (`*` for any).
    sub: String,
    /// Its media type parameters (before `q`), names and values lowercase.
    params: Vec<(String, String)>,
    /// Its weight, in thousandths.
    q: u16,
}

impl Range {
    /// How specific the range is: `*/*` 0, `type/*` 1, `type/sub` 2, with parameters 3.
    fn specificity(&self) -> u8 {
        match (self.kind.as_str(), self.sub.as_str()) {
            ("*", _) => 0,
            (_, "*") => 1,
            _ if self.params.is_empty() => 2,
            _ => 3,
        }
    }

    /// Whether the range matches `offer` (`type/subtype`, answered as UTF-8 text). A range
    /// with parameters matches only where each says `charset=utf-8`, the one parameter the
    /// server's answers have.
    fn matches(&self, offer: &str) -> bool {
        let Some((kind, sub)) = offer.split_once('/') else { return false };
        let type_fits = self.kind == "*"
            || (self.kind.eq_ignore_ascii_case(kind) && (self.sub == "*" || self.sub.eq_ignore_ascii_case(sub)));
        type_fits && self.params.iter().all(|(name, value)| name == "charset" && value == "utf-8")
    }
}

/// The index in `offers` (media types `type/subtype`, the route's default first) of the one to
/// answer with, or the `406 not-acceptable` problem naming them.
pub fn choose(headers: &HeaderMap, offers: &[&str]) -> Result<usize, Problem> {
    let fields: Vec<&str> = headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).collect();
    let ranges: Vec<Range> = fields.iter().flat_map(|field| field.split(',')).filter_map(range).collect();
    if ranges.is_empty() {
        return Ok(0);
    }
    let best = offers
        .iter()
        .enumerate()
        .filter_map(|(index, offer)| {
            // The most specific matching range weighs the offer (the higher weight among equals).
            let (position, found) = ranges
                .iter()
                .enumerate()
                .filter(|(_, range)| range.matches(offer))
                .max_by_key(|(position, range)| (range.specificity(), range.q, std::cmp::Reverse(*position)))?;
            (found.q > 0).then_some((
                found.q,
                found.specificity(),
                std::cmp::Reverse(position),
                std::cmp::Reverse(index),
            ))
        })
        .max();
    match best {
        Some((_, _, _, std::cmp::Reverse(index))) => Ok(index),
        None => Err(Problem::new(
            Kind::NotAcceptable,
            format!("this route answers with {}; the Accept header allows none of them", offers.join(" or ")),
        )),
    }
}

/// One element of an `Accept` list, or `None` when it cannot be read (then it is left out).
fn range(element: &str) -> Option<Range> {
    let mut parts = element.split(';').map(str::trim);
    let (kind, sub) = parts.next()?.split_once('/')?;
    let token =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !token(kind) || !token(sub) || (kind == "*" && sub != "*") {
        return None;
    }
    let mut found =
        Range { kind: kind.to_ascii_lowercase(), sub: sub.to_ascii_lowercase(), params: Vec::new(), q: 1000 };
    for part in parts.filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=')?;
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().trim_matches('"').to_ascii_lowercase());
        if name == "q" {
            found.q = weight(&value)?;
            // What follows the weight are extensions, not the media type's parameters.
            break;
        }
        found.params.push((name, value));
    }
    Some(found)
}

/// A quality value, `0` to `1` with up to three decimals, in thousandths.
fn weight(value: &str) -> Option<u16> {
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{fraction:0<3}").parse().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn pick(accept: Option<&str>, offers: &[&str]) -> Option<usize> {
        let mut headers = HeaderMap::new();
        if let Some(accept) = accept {
            headers.insert(header::ACCEPT, HeaderValue::from_str(accept).expect("a header"));
        }
        choose(&headers, offers).ok()
    }

    const TRACE: [&str; 2] = ["application/x-ndjson", "text/event-stream"];

    #[test]
    fn weights_decide_and_zero_refuses() {
        assert_eq!(pick(None, &TRACE), Some(0));
        assert_eq!(pick(Some("*/*"), &TRACE), Some(0));
        assert_eq!(pick(Some("text/event-stream"), &TRACE), Some(1));
        assert_eq!(pick(Some("text/event-stream;q=0, */*"), &TRACE), Some(0));
        assert_eq!(pick(Some("application/x-ndjson;q=0.5, text/event-stream;q=0.9"), &TRACE), Some(1));
        assert_eq!(pick(Some("application/x-ndjson;q=0.9, text/event-stream;q=0.5"), &TRACE), Some(0));
        assert_eq!(pick(Some("*/*;q=0.1, text/event-stream"), &TRACE), Some(1));
        assert_eq!(pick(Some("*/*, text/event-stream"), &TRACE), Some(1), "the more specific range on a tie");
        assert_eq!(pick(Some("application/json"), &TRACE), None);
        assert_eq!(pick(Some("*/*;q=0"), &TRACE), None);
        assert_eq!(pick(Some("text/*;q=0, application/*"), &TRACE), Some(0));
        assert_eq!(pick(Some("application/json, text/plain, */*"), &["text/plain", "application/json"]), Some(1));
        assert_eq!(pick(Some("text/plain, application/json"), &["text/plain", "application/json"]), Some(0));
        assert_eq!(pick(Some("TEXT/Plain;Charset=UTF-8"), &["application/json", "text/plain"]), Some(1));
        assert_eq!(pick(Some("text/plain;level=1"), &["text/plain"]), None);
    }

    #[test]
    fn what_cannot_be_read_is_left_out() {
        assert_eq!(pick(Some(""), &TRACE), Some(0));
        assert_eq!(pick(Some("nonsense, , */x"), &TRACE), Some(0), "nothing readable: the default");
        assert_eq!(pick(Some("text/event-stream;q=2, application/json"), &TRACE), None);
        assert_eq!(pick(Some("text/event-stream;q=1.5"), &TRACE), Some(0));
        assert_eq!(weight("0.125"), Some(125));
        assert_eq!(weight("1.000"), Some(1000));
        assert_eq!(weight("1.001"), None);
        assert_eq!(weight("0.1234"), None);
        assert_eq!(weight("-0"), None);
    }
}
