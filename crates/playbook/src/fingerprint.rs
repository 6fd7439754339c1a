//! The playbook fingerprint: which compiled script a save belongs to.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::document::Playbook;
use crate::writer::write_compact;

/// SHA-256 of a playbook's canonical form.
///
/// The canonical form is the writer's compact output ([`write_compact`]): keys in the documented
/// order, defaults left out, no insignificant whitespace. Two documents that read as equal
/// playbooks therefore share a fingerprint, whatever their formatting or unknown properties.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The fingerprint as 64 lowercase hexadecimal digits.
    pub fn to_hex(&self) -> String {
        self.to_string()
    }

    /// Reads a fingerprint from 64 hexadecimal digits.
    pub fn from_hex(hex: &str) -> Option<Fingerprint> {
        if hex.len() != 64 || !hex.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Fingerprint(bytes))
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// The fingerprint of a playbook.
pub fn fingerprint(playbook: &Playbook) -> Fingerprint {
    Fingerprint(Sha256::digest(write_compact(playbook).as_bytes()).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_differs_by_content() {
        let a = fingerprint(&Playbook::new("a.dialogue.md"));
        let b = fingerprint(&Playbook::new("b.dialogue.md"));
        assert_ne!(a, b);
        assert_eq!(Fingerprint::from_hex(&a.to_hex()), Some(a));
        assert_eq!(Fingerprint::from_hex("zz"), None);
    }
}
