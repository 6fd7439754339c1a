//! Secrets: session tokens (random, shown once, stored only as a hash, compared in constant
//! time) and ids (decision S5).

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// `bytes` random bytes from the operating system, in hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    // The operating system's generator does not fail on the systems we serve on; if it ever
    // did, a fixed id would collide on a unique key and be refused, never reused silently.
    if getrandom::fill(&mut buffer).is_err() {
        buffer.fill(0);
    }
    hex(&buffer)
}

/// A new session token: 32 random bytes.
pub fn new_token() -> String {
    format!("sht_{}", random_hex(32))
}

/// The SHA-256 of `text`, in hex.
pub fn sha256_hex(text: &[u8]) -> String {
    hex(&Sha256::digest(text))
}

/// Whether `token` hashes to `stored` (compared in constant time).
pub fn token_matches(token: &str, stored: &str) -> bool {
    let hash = sha256_hex(token.as_bytes());
    hash.as_bytes().ct_eq(stored.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_match_only_their_hash() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), 4 + 64);
        let stored = sha256_hex(a.as_bytes());
        assert!(token_matches(&a, &stored));
        assert!(!token_matches(&b, &stored));
        assert!(!token_matches("", &stored));
    }

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }
}
