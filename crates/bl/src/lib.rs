//! BL, the small business-rule language of the SIRNA paper, and the checker that
//! decides whether a documented rule and its BL implementation compute the same
//! function.
//!
//! * [`parse()`] reads a program (Fig. 5 of the paper) and reports syntax errors, unknown
//!   identifiers, use before definition, rebinding and division by a literal zero, with
//!   `file:line:col` and a caret, several per run.
//! * [`interpret`] runs it with exact rationals.
//! * [`encode()`] turns it into SMT-LIB commands (Algorithm 1), printable with
//!   [`logic::print`].
//! * [`check`] is the consistency checker of Eq. (2) / Theorem 1.
//!
//! ```
//! use logic::SourceFile;
//! let f = SourceFile::new("fee.bl", "let w = <input>\nlet fee = if w <= 1 then 4.47 else 5.22\n");
//! let p = bl::parse(&f).unwrap();
//! let inputs = bl::inputs(&[("w", "1.5")]).unwrap();
//! assert_eq!(bl::interpret(&p, &inputs, "fee").unwrap().to_string(), "261/50");
//! let smt: Vec<String> = bl::encode(&p).iter().map(logic::print::command).collect();
//! assert_eq!(smt[2], "(assert (= fee (ite (<= w 1.0) 4.47 5.22)))");
//! ```

#![warn(missing_docs)]

pub mod ast;
pub mod batch;
pub mod check;
pub mod command;
pub mod diag;
pub mod encode;
pub mod exceptions;
pub mod format;
pub mod interp;
pub mod parse;

pub use ast::{BinOp, Binding, CmpOp, Expr, ExprKind, Let, Program};
pub use encode::{encode, encode_text, encode_with};
pub use interp::{interpret, run, InterpError, Values};
pub use parse::{parse, warnings};

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::BTreeMap;

/// An input value that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{}` is not a number for input `{}` (write e.g. 12, -3.5 or 1/3)", diag::quote(.text), diag::quote(.name))]
pub struct BadNumber {
    /// The input's name.
    pub name: String,
    /// What was given.
    pub text: String,
}

/// Reads a rational written as an integer, a decimal or `n/d`, optionally negative.
/// At most [`parse::MAX_NUMBER_DIGITS`] digits on each side of `/`.
pub fn parse_rational(text: &str) -> Option<BigRational> {
    let t = text.trim();
    if t.len() > 2 * parse::MAX_NUMBER_DIGITS + 3 {
        return None;
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let v = if let Some((n, d)) = body.split_once('/') {
        let n: num_bigint::BigInt = n.trim().parse().ok()?;
        let d: num_bigint::BigInt = d.trim().parse().ok()?;
        if d == 0.into() {
            return None;
        }
        BigRational::new(n, d)
    } else {
        let ok = !body.is_empty()
            && body.chars().all(|c| c.is_ascii_digit() || c == '.')
            && body.matches('.').count() <= 1
            && !body.starts_with('.')
            && !body.ends_with('.');
        if !ok {
            return None;
        }
        parse::parse_number(body)
    };
    Some(if neg { -v } else { v })
}

/// Builds an input map from `(name, number)` pairs, e.g. for `vera bl eval x=3`.
pub fn inputs(pairs: &[(&str, &str)]) -> Result<BTreeMap<String, BigRational>, BadNumber> {
    pairs
        .iter()
        .map(|(n, v)| {
            parse_rational(v)
                .map(|r| (n.to_string(), r))
                .ok_or_else(|| BadNumber {
                    name: n.to_string(),
                    text: v.to_string(),
                })
        })
        .collect()
}

/// Multiplicity of the prime `p` in `n` (0 for n = 0), at most `cap`.
fn multiplicity(n: &BigInt, p: u32, cap: u32) -> u32 {
    let mut n = n.clone();
    let mut k = 0;
    while k < cap && !n.is_zero() && (&n % p).is_zero() {
        n /= p;
        k += 1;
    }
    k
}

/// `m · 10^e` exactly, for decimal literals and exponents. It is reduced without a
/// general gcd: only the factors 2 and 5 of 10^e can be shared with the (already
/// coprime) numerator and denominator of `m`, and a general gcd with a power of ten of
/// a few hundred digits costs far more than this. The result has about |e| more
/// digits than `m`: callers bound `e` (literals have at most
/// [`parse::MAX_NUMBER_DIGITS`] digits, bounds exponents at most
/// [`check::bounds::MAX_EXPONENT`]).
pub fn times_pow10(m: BigRational, e: i32) -> BigRational {
    let k = e.unsigned_abs();
    if k == 0 || m.is_zero() {
        return m;
    }
    let (n, d) = m.into_raw();
    // The part of n (for e < 0) or d (for e > 0) that cancels against 10^k.
    let other = if e > 0 { &d } else { &n };
    let (twos, fives) = (multiplicity(other, 2, k), multiplicity(other, 5, k));
    let cancel = BigInt::from(2).pow(twos) * BigInt::from(5).pow(fives);
    let rest = BigInt::from(2).pow(k - twos) * BigInt::from(5).pow(k - fives);
    if e > 0 {
        BigRational::new_raw(n * rest, d / cancel)
    } else {
        BigRational::new_raw(n / cancel, d * rest)
    }
}
