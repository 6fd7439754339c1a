//! Lua 5.1 number formatting, and the C conversion Lua 5.1 makes from a number to an integer.

/// Converts a number as a C cast to a 64-bit integer does on x86-64 (Lua 5.1's `(ptrdiff_t)d` in
/// `luaL_checkint` and `luaL_optinteger`): truncating toward zero; values that do not fit 64 bits (and NaN)
/// give the hardware's "integer indefinite" `i64::MIN`.
pub(crate) fn c_truncate(d: f64) -> i64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if (-TWO_63..TWO_63).contains(&d) {
        d as i64
    } else {
        i64::MIN
    }
}

/// Formats a number exactly as Lua 5.1's `tostring` does on Linux: C's `%.14g` (up to 14 significant digits,
/// trailing zeros removed, exponent form below 1e-4 or from 1e14 up with at least two exponent digits), and
/// `inf`, `-inf`, `nan`, `-nan` as glibc prints them (the sign of a NaN is its sign bit; Lua's `0/0` on x86
/// is `-nan`).
///
/// ```
/// use stagehand_lua::format_number;
/// assert_eq!(format_number(5.0), "5");
/// assert_eq!(format_number(0.1), "0.1");
/// assert_eq!(format_number(1e15), "1e+15");
/// assert_eq!(format_number(-0.0), "-0");
/// assert_eq!(format_number(1.0 / 3.0), "0.33333333333333");
/// ```
pub fn format_number(n: f64) -> String {
    const PRECISION: i32 = 14;
    if n.is_nan() {
        return if n.is_sign_negative() { "-nan" } else { "nan" }.to_owned();
    }
    if n.is_infinite() {
        return if n < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    // Round to PRECISION significant digits first: the exponent of the rounded value picks the style.
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, n);
    let (mantissa, exponent) = match scientific.split_once('e') {
        Some(parts) => parts,
        None => return scientific,
    };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..PRECISION).contains(&exponent) {
        let mantissa = strip_fraction_zeros(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
    } else {
        let decimals = (PRECISION - 1 - exponent) as usize;
        strip_fraction_zeros(&format!("{n:.decimals$}")).to_owned()
    }
}

/// Removes trailing zeros after a decimal point, and the point itself if nothing follows it.
fn strip_fraction_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::format_number;

    #[test]
    fn formats_like_percent_14g() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "-0"),
            (5.0, "5"),
            (-5.0, "-5"),
            (0.1, "0.1"),
            (0.5, "0.5"),
            (1e14, "1e+14"),
            (99999999999999.0, "99999999999999"),
            (1e15, "1e+15"),
            (1e100, "1e+100"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (123456.789, "123456.789"),
            (2f64.powi(53), "9.007199254741e+15"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-f64::NAN, "-nan"),
            (f64::MAX, "1.7976931348623e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072e-308"),
            (5e-324, "4.9406564584125e-324"),
        ];
        for &(n, expected) in cases {
            assert_eq!(format_number(n), expected, "formatting {n:e}");
        }
    }
}
