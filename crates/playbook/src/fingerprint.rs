//! The playbook fingerprint: which compiled script a save belongs to.

use std::fmt;
use std::io;

use sha2::{Digest, Sha256};

use crate::document::Playbook;
use crate::writer::write_to;

/// SHA-256 of a playbook's canonical form.
///
/// The canonical form is the writer's compact output ([`write_compact`](crate::write_compact)): keys in the documented
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

/// The fingerprint of a playbook. The canonical form is hashed as it is written, never held:
/// this costs no more memory than the playbook itself.
pub fn fingerprint(playbook: &Playbook) -> Fingerprint {
    let mut hasher = Hashing(Sha256::new());
    // Writing into a hasher cannot fail: the only errors `write_to` reports are the writer's.
    let _ = write_to(playbook, &mut hasher, false);
    Fingerprint(hasher.0.finalize().into())
}

/// An [`io::Write`] that hashes what it is given.
struct Hashing(Sha256);

impl io::Write for Hashing {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
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
