//! The printer: terms and commands back to SMT-LIB text.
//!
//! Output re-parses to the same term (see the round-trip property test). This
//! printer is the only writer of text that vera sends to a solver.

use crate::script::Command;
use crate::sexp::{write_flat, write_pretty, Sexp, SexpKind};
use crate::term::{Op, Sort, Term};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Signed;

/// The exact decimal spelling of a rational, if it has one (`0.145`, `5.0`).
/// Negative values have a leading `-` (a human form, not SMT-LIB).
///
/// Runs in time about linear in the size of the rational per digit of the
/// denominator's exponent (no repeated bignum division by 2, no width formatting), so
/// literals of any length print.
pub fn decimal(r: &BigRational) -> Option<String> {
    let (twos, fives) = crate::num::two_five_exponents(r.denom().magnitude())?;
    let digits = twos.max(fives);
    // numer * 10^digits / denom, exactly: denom = 2^twos * 5^fives.
    let scaled = crate::num::pow5(digits - fives) * r.numer().magnitude().clone();
    let scaled = scaled << (digits - twos);
    let neg = r.numer().is_negative();
    let s = scaled.to_string();
    let digits = usize::try_from(digits).ok()?;
    let (int, frac) = if digits == 0 {
        (s, "0".to_string())
    } else {
        let mut s = s;
        if s.len() <= digits {
            let mut padded = "0".repeat(digits + 1 - s.len());
            padded.push_str(&s);
            s = padded;
        }
        let (a, b) = s.split_at(s.len() - digits);
        (a.to_string(), b.to_string())
    };
    let mut out = String::with_capacity(int.len() + frac.len() + 2);
    if neg {
        out.push('-');
    }
    out.push_str(&int);
    out.push('.');
    out.push_str(&frac);
    Some(out)
}

fn num(n: BigInt) -> Sexp {
    Sexp::new(SexpKind::Numeral(n.magnitude().clone()))
}

fn neg(e: Sexp) -> Sexp {
    Sexp::list(vec![Sexp::sym("-"), e])
}

/// A sort as an s-expression.
pub fn sort_sexp(s: &Sort) -> Sexp {
    Sexp::sym(s.to_string())
}

/// A real literal as SMT-LIB: `2.5`, `(- 2.5)`, `(/ 1.0 3.0)`.
fn real_sexp(r: &BigRational) -> Sexp {
    let abs = r.abs();
    let body = match decimal(&abs) {
        Some(d) => Sexp::new(SexpKind::Decimal(d)),
        None => Sexp::list(vec![
            Sexp::sym("/"),
            Sexp::new(SexpKind::Decimal(format!("{}.0", abs.numer()))),
            Sexp::new(SexpKind::Decimal(format!("{}.0", abs.denom()))),
        ]),
    };
    if r.is_negative() {
        neg(body)
    } else {
        body
    }
}

/// A term as an s-expression.
pub fn term_sexp(t: &Term) -> Sexp {
    crate::deep(|| term_sexp_inner(t))
}

fn term_sexp_inner(t: &Term) -> Sexp {
    match t {
        Term::Bool(b) => Sexp::sym(if *b { "true" } else { "false" }),
        Term::Int(i) => {
            if i.is_negative() {
                neg(num(i.clone()))
            } else {
                num(i.clone())
            }
        }
        Term::Real(r) => real_sexp(r),
        Term::Var(n, _) => Sexp::sym(n.to_string()),
        Term::EnumVal { ctor, .. } => Sexp::sym(ctor.to_string()),
        Term::App(op, args) => {
            let mut items = Vec::with_capacity(args.len() + 1);
            items.push(Sexp::sym(op.name()));
            items.extend(args.iter().map(term_sexp));
            Sexp::list(items)
        }
        Term::Call(f, args, _) => {
            let mut items = Vec::with_capacity(args.len() + 1);
            items.push(Sexp::sym(f.to_string()));
            items.extend(args.iter().map(term_sexp));
            Sexp::list(items)
        }
        Term::Let(binds, body) => Sexp::list(vec![
            Sexp::sym("let"),
            Sexp::list(
                binds
                    .iter()
                    .map(|(n, v)| Sexp::list(vec![Sexp::sym(n.to_string()), term_sexp(v)]))
                    .collect(),
            ),
            term_sexp(body),
        ]),
        Term::Named(body, n) => Sexp::list(vec![
            Sexp::sym("!"),
            term_sexp(body),
            Sexp::new(SexpKind::Keyword("named".into())),
            Sexp::sym(n.to_string()),
        ]),
    }
}

/// A term on one line.
pub fn term(t: &Term) -> String {
    let mut s = String::new();
    write_flat(&mut s, &term_sexp(t));
    s
}

/// A term over several lines, at most `width` columns where possible.
pub fn term_pretty(t: &Term, width: usize) -> String {
    let mut s = String::new();
    write_pretty(&mut s, &term_sexp(t), 0, width);
    s
}

fn kw(k: &str) -> Sexp {
    Sexp::new(SexpKind::Keyword(k.into()))
}

/// A command as an s-expression.
pub fn command_sexp(c: &Command) -> Sexp {
    let l = Sexp::list;
    let s = |x: &str| Sexp::sym(x);
    match c {
        Command::SetLogic(n) => l(vec![s("set-logic"), s(n)]),
        Command::SetInfo(k, v) | Command::SetOption(k, v) => {
            let head = if matches!(c, Command::SetInfo(..)) {
                "set-info"
            } else {
                "set-option"
            };
            let mut items = vec![s(head), kw(k)];
            items.extend(v.iter().cloned());
            l(items)
        }
        Command::DeclareConst(n, sort) => l(vec![s("declare-const"), s(n), sort_sexp(sort)]),
        Command::DeclareEnum(n, ctors) => l(vec![
            s("declare-datatype"),
            s(n),
            l(ctors.iter().map(|c| l(vec![s(c)])).collect()),
        ]),
        Command::DefineFun(f) => l(vec![
            s("define-fun"),
            s(&f.name),
            l(f.params
                .iter()
                .map(|(p, ps)| l(vec![s(p), sort_sexp(ps)]))
                .collect()),
            sort_sexp(&f.sort),
            term_sexp(&f.body),
        ]),
        Command::Assert(t) => l(vec![s("assert"), term_sexp(t)]),
        Command::CheckSat => l(vec![s("check-sat")]),
        Command::CheckSatAssuming(ts) => l(vec![
            s("check-sat-assuming"),
            l(ts.iter().map(term_sexp).collect()),
        ]),
        Command::Push(n) => l(vec![s("push"), num(BigInt::from(*n))]),
        Command::Pop(n) => l(vec![s("pop"), num(BigInt::from(*n))]),
        Command::GetModel => l(vec![s("get-model")]),
        Command::GetValue(ts) => l(vec![s("get-value"), l(ts.iter().map(term_sexp).collect())]),
        Command::GetUnsatCore => l(vec![s("get-unsat-core")]),
        Command::GetUnsatAssumptions => l(vec![s("get-unsat-assumptions")]),
        Command::GetInfo(k) => l(vec![s("get-info"), kw(k)]),
        Command::GetOption(k) => l(vec![s("get-option"), kw(k)]),
        Command::GetAssertions => l(vec![s("get-assertions")]),
        Command::Echo(text) => l(vec![s("echo"), Sexp::new(SexpKind::Str(text.clone()))]),
        Command::Reset => l(vec![s("reset")]),
        Command::ResetAssertions => l(vec![s("reset-assertions")]),
        Command::Exit => l(vec![s("exit")]),
    }
}

/// A command on one line.
pub fn command(c: &Command) -> String {
    let mut s = String::new();
    write_flat(&mut s, &command_sexp(c));
    s
}

/// A command laid out for reading.
pub fn command_pretty(c: &Command, width: usize) -> String {
    let mut s = String::new();
    write_pretty(&mut s, &command_sexp(c), 0, width);
    s
}

/// True when `op` prints with the same head as another op (`-` is both Sub and Neg).
pub fn shares_name(op: Op) -> bool {
    matches!(op, Op::Sub | Op::Neg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> BigRational {
        BigRational::new(n.into(), d.into())
    }

    #[test]
    fn decimals() {
        assert_eq!(decimal(&q(29, 200)).as_deref(), Some("0.145"));
        assert_eq!(decimal(&q(5, 1)).as_deref(), Some("5.0"));
        assert_eq!(decimal(&q(-1, 4)).as_deref(), Some("-0.25"));
        assert_eq!(decimal(&q(1, 3)), None);
    }

    #[test]
    fn literals() {
        assert_eq!(term(&Term::int(-3)), "(- 3)");
        assert_eq!(term(&Term::Real(q(-1, 3))), "(- (/ 1.0 3.0))");
        assert_eq!(term(&Term::Real(q(7, 2))), "3.5");
    }
}
