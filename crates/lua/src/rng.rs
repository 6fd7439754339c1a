//! The deterministic generator behind `math.random`.

use crate::number::c_truncate;

/// SplitMix64 (Steele, Lea and Flood, 2014): the whole state is one `u64`, each draw adds the golden-ratio
/// increment `0x9E3779B97F4A7C15` to it and returns a bijective mix of the new state.
///
/// Mapping to Lua (every call consumes exactly one draw):
/// - `math.random()` → `(draw >> 11) * 2^-53`, a float in `[0, 1)` built from the draw's top 53 bits;
/// - `math.random(m)` → `floor(r * m) + 1`, an integer in `[1, m]`, where `r` is the float above;
/// - `math.random(m, n)` → `floor(r * (n - m + 1)) + m`, an integer in `[m, n]` (computed in `f64`);
/// - `math.randomseed(x)` sets the state to `x` as Lua 5.1's `luaL_checkint` reads it (truncated toward
///   zero and wrapped to a 32-bit `int`), sign-extended to 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    /// The generator's whole state.
    pub state: u64,
}

impl SplitMix64 {
    /// A generator whose state is `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// Advances the state and returns the next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next float in `[0, 1)`, from the top 53 bits of the next output.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// The next integer in `[low, high]` by Lua 5.1's formula `floor(r * (high - low + 1)) + low`.
    /// The caller guarantees `low <= high`.
    pub fn next_in_range(&mut self, low: i32, high: i32) -> f64 {
        let r = self.next_f64();
        (r * (f64::from(high) - f64::from(low) + 1.0)).floor() + f64::from(low)
    }
}

/// Converts a number as Lua 5.1's `luaL_checkint` does on x86-64: `(int)(ptrdiff_t)d`, truncated to 64 bits
/// by [`c_truncate`], then wrapped to 32 bits (so values that do not fit 64 bits, and NaN, give 0).
pub(crate) fn lua51_checkint(d: f64) -> i32 {
    c_truncate(d) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_outputs() {
        // The first outputs of SplitMix64 seeded with 1234567, as published with the reference implementation.
        let mut rng = SplitMix64::new(1234567);
        let expected = [
            6457827717110365317u64,
            3203168211198807973,
            9817491932198370423,
            4593380528125082431,
            16408922859458223821,
        ];
        for e in expected {
            assert_eq!(rng.next_u64(), e);
        }
    }

    #[test]
    fn ranges_hold() {
        let mut rng = SplitMix64::new(42);
        for _ in 0..10_000 {
            let f = rng.next_f64();
            assert!((0.0..1.0).contains(&f));
            let i = rng.next_in_range(1, 6);
            assert!((1.0..=6.0).contains(&i) && i.fract() == 0.0);
            let j = rng.next_in_range(i32::MIN, i32::MAX);
            assert!(j >= f64::from(i32::MIN) && j <= f64::from(i32::MAX));
        }
    }

    #[test]
    fn checkint_truncates_and_wraps() {
        assert_eq!(lua51_checkint(3.9), 3);
        assert_eq!(lua51_checkint(-3.9), -3);
        assert_eq!(lua51_checkint(4294967297.0), 1);
        assert_eq!(lua51_checkint(f64::NAN), 0);
        assert_eq!(lua51_checkint(1e300), 0);
    }
}
