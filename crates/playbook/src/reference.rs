//! References between the model's tables: `u32` where they are stored, `usize` where they index.

/// The model stores its node and speaker references as `u32` (PB7), and `usize` holds every
/// `u32` on the platforms Stagehand builds for; this stops a build where it would not.
const _: () = assert!(usize::BITS >= u32::BITS);

/// The position a stored reference names, to index a table with. Never loses anything: a `usize`
/// holds every `u32` (checked when this crate builds).
pub fn position(reference: u32) -> usize {
    // Lossless: usize is at least 32 bits wide (the assertion above).
    reference as usize
}

/// The stored reference for a position in a table, or `None` when the position is beyond the
/// `u32::MAX + 1` entries a playbook's tables may hold. Nothing is ever truncated.
pub fn reference(position: usize) -> Option<u32> {
    u32::try_from(position).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_round_trip_and_never_truncate() {
        assert_eq!(position(7), 7);
        assert_eq!(reference(7), Some(7));
        assert_eq!(position(u32::MAX), u32::MAX as usize);
        assert_eq!(reference(u32::MAX as usize), Some(u32::MAX));
        if usize::BITS > 32 {
            assert_eq!(reference(u32::MAX as usize + 1), None);
        }
    }
}
