//! Exact rational arithmetic that stays fast and shallow on very long numbers.
//!
//! `num-rational` reduces every result with the binary gcd of `num-bigint`, which is
//! quadratic with a large constant (and worse when one operand is tiny), and compares
//! and hashes rationals through their continued fractions, recursively: two close
//! rationals with a few thousand digits overflow the stack. vera's terms and values
//! hold reduced rationals with a positive denominator; the functions here keep them so
//! with Lehmer's gcd, and compare by cross-multiplication.
//!
//! Decimal literals have denominators `2^a * 5^b`; finding `a` and `b` shifts out the
//! twos at once and divides fives out in large chunks.

use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a
}

/// The greatest common divisor, by Lehmer's algorithm (Knuth, TAOCP 4.5.2, Algorithm
/// L): Euclid's quotients are computed on the leading 63 bits and applied to the full
/// numbers in one linear combination per word of progress.
pub(crate) fn gcd(a: &BigUint, b: &BigUint) -> BigUint {
    let (mut u, mut v) = if a >= b {
        (a.clone(), b.clone())
    } else {
        (b.clone(), a.clone())
    };
    loop {
        if v.is_zero() {
            return u;
        }
        if let (Some(x), Some(y)) = (u.to_u64(), v.to_u64()) {
            return BigUint::from(gcd_u64(x, y));
        }
        if v.bits() <= 64 {
            let r = &u % &v;
            u = v;
            v = r;
            continue;
        }
        let shift = u.bits() - 63;
        let (Some(x0), Some(y0)) = ((&u >> shift).to_u64(), (&v >> shift).to_u64()) else {
            // Unreachable: both fit in 63 bits after the shift. Fall back to a plain step.
            let r = &u % &v;
            u = v;
            v = r;
            continue;
        };
        let (mut x, mut y) = (i128::from(x0), i128::from(y0));
        let (mut ca, mut cb, mut cc, mut cd) = (1i128, 0i128, 0i128, 1i128);
        while y + cc != 0 && y + cd != 0 {
            let q = (x + ca) / (y + cc);
            if q != (x + cb) / (y + cd) {
                break;
            }
            (ca, cc) = (cc, ca - q * cc);
            (cb, cd) = (cd, cb - q * cd);
            (x, y) = (y, x - q * y);
        }
        if cb == 0 {
            let r = &u % &v;
            u = v;
            v = r;
        } else {
            let (bu, bv) = (BigInt::from(u), BigInt::from(v));
            let nu = &bu * BigInt::from(ca) + &bv * BigInt::from(cb);
            let nv = &bu * BigInt::from(cc) + &bv * BigInt::from(cd);
            u = nu.into_parts().1;
            v = nv.into_parts().1;
            if u < v {
                std::mem::swap(&mut u, &mut v);
            }
        }
    }
}

/// `n / d` reduced, with a positive denominator; `None` when `d` is zero.
pub(crate) fn ratio(n: BigInt, d: BigInt) -> Option<BigRational> {
    if d.is_zero() {
        return None;
    }
    if n.is_zero() {
        return Some(BigRational::zero());
    }
    let g = gcd(n.magnitude(), d.magnitude());
    let (mut n, mut d) = if g.is_one() {
        (n, d)
    } else {
        let g = BigInt::from(g);
        (n / &g, d / &g)
    };
    if d.sign() == Sign::Minus {
        n = -n;
        d = -d;
    }
    Some(BigRational::new_raw(n, d))
}

/// `a + b`.
pub(crate) fn add(a: &BigRational, b: &BigRational) -> BigRational {
    if a.denom() == b.denom() {
        return ratio(a.numer() + b.numer(), a.denom().clone()).unwrap_or_default();
    }
    let n = a.numer() * b.denom() + b.numer() * a.denom();
    ratio(n, a.denom() * b.denom()).unwrap_or_default()
}

/// `a - b`.
pub(crate) fn sub(a: &BigRational, b: &BigRational) -> BigRational {
    add(a, &-b.clone())
}

/// `a * b`.
pub(crate) fn mul(a: &BigRational, b: &BigRational) -> BigRational {
    ratio(a.numer() * b.numer(), a.denom() * b.denom()).unwrap_or_default()
}

/// `a / b`; `None` when `b` is zero.
pub(crate) fn div(a: &BigRational, b: &BigRational) -> Option<BigRational> {
    ratio(a.numer() * b.denom(), a.denom() * b.numer())
}

/// Numeric order, by cross-multiplication (denominators are positive).
pub(crate) fn cmp(a: &BigRational, b: &BigRational) -> Ordering {
    if a.denom() == b.denom() {
        return a.numer().cmp(b.numer());
    }
    let (sa, sb) = (a.numer().signum(), b.numer().signum());
    if sa != sb {
        return sa.cmp(&sb);
    }
    (a.numer() * b.denom()).cmp(&(b.numer() * a.denom()))
}

/// Numeric equality.
pub(crate) fn eq(a: &BigRational, b: &BigRational) -> bool {
    (a.numer() == b.numer() && a.denom() == b.denom()) || cmp(a, b) == Ordering::Equal
}

/// Hashes a reduced rational by its parts (consistent with [`eq`] on reduced values).
pub(crate) fn hash<H: Hasher>(r: &BigRational, state: &mut H) {
    r.numer().hash(state);
    r.denom().hash(state);
}

/// The number of bits of a rational's numerator and denominator together.
pub(crate) fn rat_bits(r: &BigRational) -> u64 {
    r.numer().bits() + r.denom().bits()
}

/// 5^27, the largest power of five in a u64.
const FIVE_CHUNK: u64 = 7_450_580_596_923_828_125;

/// `5^n`.
pub(crate) fn pow5(n: u64) -> BigUint {
    let mut out = BigUint::one();
    let mut rest = n;
    let chunk = BigUint::from(FIVE_CHUNK);
    while rest >= 27 {
        out *= &chunk;
        rest -= 27;
    }
    out * BigUint::from(5u64.pow(rest as u32))
}

/// Divides out factors of five, at most `cap` of them: the quotient and how many were
/// removed.
fn strip_fives(mut d: BigUint, cap: u64) -> (BigUint, u64) {
    let mut n = 0u64;
    if d.is_zero() {
        return (d, 0);
    }
    let chunk = BigUint::from(FIVE_CHUNK);
    while cap - n >= 27 {
        let (q, r) = d.div_rem(&chunk);
        if !r.is_zero() {
            break;
        }
        d = q;
        n += 27;
    }
    let five = BigUint::from(5u32);
    while n < cap {
        let (q, r) = d.div_rem(&five);
        if !r.is_zero() {
            break;
        }
        d = q;
        n += 1;
    }
    (d, n)
}

/// `(a, b)` with `d = 2^a * 5^b`, or `None` when `d` has another prime factor (or is 0).
pub(crate) fn two_five_exponents(d: &BigUint) -> Option<(u64, u64)> {
    let twos = d.trailing_zeros()?;
    let (rest, fives) = strip_fives(d >> twos, u64::MAX);
    rest.is_one().then_some((twos, fives))
}

/// The exact value of a decimal `digits[.digits]`, reduced; `None` for other text.
pub(crate) fn decimal_value(text: &str) -> Option<BigRational> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let ok = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    if int.is_empty() || !ok(int) || !ok(frac) {
        return None;
    }
    let mut all = String::with_capacity(int.len() + frac.len());
    all.push_str(int);
    all.push_str(frac);
    let n: BigUint = all.parse().ok()?;
    let k = frac.len() as u64;
    if n.is_zero() {
        return Some(BigRational::zero());
    }
    // gcd(n, 10^k) = 2^min(tz, k) * 5^min(v5, k); reducing by it directly avoids a
    // general gcd of two huge numbers.
    let twos = n.trailing_zeros().unwrap_or(0).min(k);
    let (n, fives) = strip_fives(n >> twos, k);
    let denom = pow5(k - fives) << (k - twos);
    Some(BigRational::new_raw(n.into(), denom.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(seed: &mut u64, words: usize) -> BigUint {
        let mut digits = Vec::with_capacity(words);
        for _ in 0..words {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            digits.push(*seed as u32);
        }
        BigUint::new(digits)
    }

    #[test]
    fn lehmer_gcd_agrees_with_the_binary_gcd() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..300 {
            let common = big(&mut seed, round % 7);
            let a = big(&mut seed, round % 13) * &common;
            let b = big(&mut seed, round % 11) * &common;
            assert_eq!(gcd(&a, &b), a.gcd(&b), "{a} {b}");
        }
        // Consecutive Fibonacci numbers: the longest Euclid sequence.
        let (mut a, mut b) = (BigUint::one(), BigUint::one());
        for _ in 0..3000 {
            let c = &a + &b;
            a = b;
            b = c;
        }
        assert!(gcd(&a, &b).is_one());
        assert_eq!(gcd(&(&a * 6u32), &(&b * 4u32)), BigUint::from(2u32));
        assert_eq!(gcd(&BigUint::zero(), &b), b);
    }

    #[test]
    fn ratios_are_reduced_with_a_positive_denominator() {
        let r = ratio(BigInt::from(6), BigInt::from(-4)).unwrap();
        assert_eq!(
            (r.numer().clone(), r.denom().clone()),
            (BigInt::from(-3), BigInt::from(2))
        );
        assert_eq!(
            ratio(BigInt::from(0), BigInt::from(-4)),
            Some(BigRational::zero())
        );
        assert_eq!(ratio(BigInt::from(1), BigInt::from(0)), None);
        let third = ratio(1.into(), 3.into()).unwrap();
        let half = ratio(1.into(), 2.into()).unwrap();
        assert_eq!(add(&third, &half), BigRational::new(5.into(), 6.into()));
        assert_eq!(sub(&third, &half), BigRational::new((-1).into(), 6.into()));
        assert_eq!(mul(&third, &half), BigRational::new(1.into(), 6.into()));
        assert_eq!(
            div(&third, &half),
            Some(BigRational::new(2.into(), 3.into()))
        );
        assert_eq!(cmp(&third, &half), Ordering::Less);
        assert_eq!(cmp(&-third.clone(), &half), Ordering::Less);
        assert!(eq(
            &add(&third, &third),
            &BigRational::new(2.into(), 3.into())
        ));
    }

    fn q(n: i64, d: i64) -> BigRational {
        BigRational::new(n.into(), d.into())
    }

    #[test]
    fn decimals_are_reduced() {
        assert_eq!(decimal_value("0.145"), Some(q(29, 200)));
        assert_eq!(decimal_value("5.0"), Some(q(5, 1)));
        assert_eq!(decimal_value("12"), Some(q(12, 1)));
        assert_eq!(decimal_value("0.000"), Some(q(0, 1)));
        assert_eq!(decimal_value("2.50"), Some(q(5, 2)));
        assert_eq!(decimal_value("1.2.3"), None);
        assert_eq!(decimal_value(".5"), None);
        assert_eq!(decimal_value(""), None);
        let long = format!("0.{}5", "0".repeat(100));
        let r = decimal_value(&long).unwrap();
        let want = BigUint::from(2u32) * BigUint::from(10u32).pow(100);
        assert_eq!(r, BigRational::new(1.into(), want.into()));
    }

    #[test]
    fn exponents_of_two_and_five() {
        assert_eq!(two_five_exponents(&BigUint::from(200u32)), Some((3, 2)));
        assert_eq!(two_five_exponents(&BigUint::from(1u32)), Some((0, 0)));
        assert_eq!(two_five_exponents(&BigUint::from(3u32)), None);
        assert_eq!(two_five_exponents(&BigUint::zero()), None);
        assert_eq!(two_five_exponents(&pow5(100)), Some((0, 100)));
        assert_eq!(pow5(30), BigUint::from(5u32).pow(30));
    }
}
