//! Regression tests for hostile sizes: very long atoms, exponential definition chains
//! and huge scope counts. Each must end quickly with a result or a clean error.

use logic::context::MAX_SCOPES;
use logic::eval::parse_model;
use logic::script::format_script;
use logic::sexp::{read_one, ReadLimits};
use logic::{eval, eval_bool, parse_script, parse_untrusted, print, Context, Model, SourceFile};
use logic::{Limits, Sort, Value};

use std::time::{Duration, Instant};

const LONG: usize = 70_000;

fn script(text: &str) -> logic::Script {
    parse_script(&SourceFile::new("t.smt2", text)).unwrap_or_else(|d| panic!("{d}"))
}

/// Parses, prints (flat, pretty and as a whole script) and re-parses.
fn round_trip(text: &str) {
    let s = script(text);
    for c in &s.commands {
        let flat = print::command(&c.command);
        let pretty = print::command_pretty(&c.command, 80);
        assert!(flat.len() >= LONG || !matches!(c.command, logic::Command::Assert(_)));
        assert_eq!(
            pretty.replace(['\n', ' '], ""),
            flat.replace(['\n', ' '], "")
        );
    }
    let printed = format_script(&s, 80);
    let back = script(&printed);
    assert_eq!(
        back.commands.iter().map(|c| &c.command).collect::<Vec<_>>(),
        s.commands.iter().map(|c| &c.command).collect::<Vec<_>>()
    );
}

#[test]
fn symbol_of_70000_characters_round_trips() {
    let name = "v".repeat(LONG);
    round_trip(&format!(
        "(declare-const {name} Int) (assert (> {name} 0)) (assert (= {name} {name}))"
    ));
    let quoted = format!("|{} {}|", "a".repeat(LONG / 2), "b".repeat(LONG / 2));
    round_trip(&format!("(declare-const {quoted} Bool) (assert {quoted})"));
}

#[test]
fn numeral_of_70000_digits_round_trips() {
    let n = "7".repeat(LONG);
    round_trip(&format!("(declare-const x Int) (assert (> x {n}))"));
    round_trip(&format!("(declare-const x Int) (assert (> x (- {n})))"));
}

#[test]
fn decimal_of_70000_digits_round_trips() {
    let small = format!("0.{}1", "0".repeat(LONG));
    let long = format!("{}.{}", "3".repeat(LONG / 2), "5".repeat(LONG / 2));
    for d in [small, long] {
        round_trip(&format!("(declare-const x Real) (assert (> x {d}))"));
        round_trip(&format!("(declare-const x Real) (assert (< x (- {d})))"));
    }
    // A rational with a huge denominator and no decimal spelling.
    round_trip(&format!(
        "(declare-const x Real) (assert (= x (/ 1.0 {}3.0)))",
        "1".repeat(LONG)
    ));
}

#[test]
fn model_with_70000_character_values_is_read_and_printed() {
    let s = script("(declare-const r Real) (declare-const n Int) (declare-const s Real)");
    let tiny = format!("0.{}1", "0".repeat(LONG));
    let big = "9".repeat(LONG);
    let answer = format!(
        "((define-fun r () Real {tiny}) (define-fun n () Int (- {big})) \
         (define-fun s () Real (/ 1.0 {big}.0)))"
    );
    let e = read_one(&answer).unwrap();
    let m = parse_model(&e, &s.context).unwrap();
    let shown = m.to_string();
    assert!(shown.len() > 3 * LONG, "{}", shown.len());
    for v in m.values.values() {
        let lit = print::term(&v.to_term());
        let back = logic::parse_term(&SourceFile::new("v", lit), &s.context).unwrap();
        assert_eq!(&eval(&back, &Model::new(), &s.context).unwrap(), v);
    }
}

/// `(define-fun f1 () Int (+ x x)) (define-fun f2 () Int (+ f1 f1)) ... f60`.
fn chain(n: usize, op: &str) -> String {
    let mut s = String::from("(declare-const x Int)\n(define-fun f1 () Int (+ x x))\n");
    for i in 2..=n {
        s.push_str(&format!(
            "(define-fun f{i} () Int ({op} f{} f{}))\n",
            i - 1,
            i - 1
        ));
    }
    s.push_str(&format!("(assert (> f{n} 0))\n"));
    s
}

#[test]
fn doubling_chain_of_definitions_evaluates_in_linear_time() {
    let s = script(&chain(60, "+"));
    let a = s.assertions().next().unwrap();
    let mut m = Model::new();
    m.insert("x".into(), Value::Int(3.into()));
    let t = Instant::now();
    assert!(eval_bool(a, &m, &s.context).unwrap());
    let f60 = logic::Term::var("f60", Sort::Int);
    let v = eval(&f60, &m, &s.context).unwrap();
    assert_eq!(v, Value::Int(num_bigint::BigInt::from(3) << 60));
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn doubling_chain_of_functions_evaluates_in_linear_time() {
    let mut text = String::from("(declare-const x Int)\n(define-fun g1 ((a Int)) Int (+ a a))\n");
    for i in 2..=60 {
        text.push_str(&format!(
            "(define-fun g{i} ((a Int)) Int (+ (g{} a) (g{} a)))\n",
            i - 1,
            i - 1
        ));
    }
    text.push_str("(assert (> (g60 x) 0))\n");
    let s = script(&text);
    let a = s.assertions().next().unwrap();
    let mut m = Model::new();
    m.insert("x".into(), Value::Int(1.into()));
    let t = Instant::now();
    assert!(eval_bool(a, &m, &s.context).unwrap());
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn evaluation_that_cannot_be_shared_hits_a_budget() {
    // g_k(a) = g_{k-1}(2a) + g_{k-1}(2a+1): 2^k distinct calls, nothing to share.
    let mut text = String::from("(declare-const x Int)\n(define-fun g1 ((a Int)) Int (+ a 1))\n");
    for i in 2..=60 {
        text.push_str(&format!(
            "(define-fun g{i} ((a Int)) Int (+ (g{j} (* 2 a)) (g{j} (+ (* 2 a) 1))))\n",
            j = i - 1
        ));
    }
    text.push_str("(assert (> (g60 x) 0))\n");
    let s = script(&text);
    let a = s.assertions().next().unwrap();
    let mut m = Model::new();
    m.insert("x".into(), Value::Int(1.into()));
    let t = Instant::now();
    let r = eval_bool(a, &m, &s.context);
    assert!(
        matches!(&r, Err(e) if e.to_string().contains("budget")),
        "{r:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

#[test]
fn squaring_chain_hits_the_size_limit() {
    let s = script(&chain(60, "*"));
    let a = s.assertions().next().unwrap();
    let mut m = Model::new();
    m.insert("x".into(), Value::Int(3.into()));
    let t = Instant::now();
    let r = eval_bool(a, &m, &s.context);
    assert!(
        matches!(&r, Err(e) if e.to_string().contains("too large")),
        "{r:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

#[test]
fn huge_push_count_is_a_located_error() {
    for text in [
        "(push 1000000000)",
        "(push 4294967295)",
        "(push 99999999999999999999)",
    ] {
        let t = Instant::now();
        let err = parse_script(&SourceFile::new("p.smt2", text))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("p.smt2:1:7: error:"), "{err}");
        assert!(err.contains(&MAX_SCOPES.to_string()), "{err}");
        assert!(t.elapsed() < Duration::from_secs(1));
    }
    // Many small pushes add up to the same limit.
    let many = "(push 1000)\n".repeat(MAX_SCOPES / 1000 + 1);
    let err = parse_script(&SourceFile::new("p.smt2", many))
        .unwrap_err()
        .to_string();
    assert!(err.contains("scopes"), "{err}");
    // Up to the limit is fine.
    let ok = format!("(push {MAX_SCOPES})");
    let s = parse_script(&SourceFile::new("p.smt2", ok)).unwrap();
    assert_eq!(s.context.depth(), MAX_SCOPES);
}

#[test]
fn untrusted_text_cannot_push() {
    let err = parse_untrusted(
        "llm",
        "(push 1000000000)",
        &Context::new(),
        Limits::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("not allowed"), "{err}");
}

/// Consecutive Fibonacci numbers with about `digits` digits.
fn fibonacci(digits: usize) -> (String, String, String) {
    let (mut a, mut b) = (
        num_bigint::BigUint::from(1u32),
        num_bigint::BigUint::from(1u32),
    );
    while (b.bits() as f64) * std::f64::consts::LOG10_2 < digits as f64 {
        let c = &a + &b;
        a = b;
        b = c;
    }
    let c = &a + &b;
    (a.to_string(), b.to_string(), c.to_string())
}

#[test]
fn close_long_rationals_compare_and_hash_without_deep_recursion() {
    // F(n+1)/F(n) and F(n+2)/F(n+1) share all but the last term of their continued
    // fractions; comparing or hashing them that way recurses once per term.
    let (a, b, c) = fibonacci(5_000);
    let text = format!(
        "(declare-const x Real) (assert (< (/ {b}.0 {a}.0) x (/ {c}.0 {b}.0))) \
         (assert (distinct (/ {b}.0 {a}.0) (/ {c}.0 {b}.0)))"
    );
    let t = Instant::now();
    let s = script(&text);
    let terms: std::collections::HashSet<&logic::Term> = s.assertions().collect();
    assert_eq!(terms.len(), 2);
    // x between them: their mediant.
    let num: num_bigint::BigInt =
        (b.parse::<num_bigint::BigInt>().unwrap()) + c.parse::<num_bigint::BigInt>().unwrap();
    let den: num_bigint::BigInt =
        a.parse::<num_bigint::BigInt>().unwrap() + b.parse::<num_bigint::BigInt>().unwrap();
    let mut m = Model::new();
    m.insert(
        "x".into(),
        Value::Real(num_rational::BigRational::new(num, den)),
    );
    let first = s.assertions().next().unwrap();
    let r = eval_bool(first, &m, &s.context);
    // The mediant of b/a and c/b lies between them whichever is larger, so exactly one
    // order holds: the chained `<` is false or true, but the evaluation terminates.
    assert!(r.is_ok(), "{r:?}");
    let second = s.assertions().nth(1).unwrap();
    assert!(eval_bool(second, &m, &s.context).unwrap());
    let v = Value::Real(num_rational::BigRational::new(
        b.parse().unwrap(),
        a.parse().unwrap(),
    ));
    let w = Value::Real(num_rational::BigRational::new(
        c.parse().unwrap(),
        b.parse().unwrap(),
    ));
    assert_ne!(v, w);
    assert!(v.cmp(&w) != std::cmp::Ordering::Equal);
    let set: std::collections::HashSet<Value> = [v, w].into_iter().collect();
    assert_eq!(set.len(), 2);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn one_evaluator_shares_definitions_across_terms() {
    let s = script(&chain(60, "+"));
    let mut m = Model::new();
    m.insert("x".into(), Value::Int(1.into()));
    let mut ev = logic::eval::Evaluator::new(&m, &s.context).with_budget(1_000);
    let a = s.assertions().next().unwrap();
    for _ in 0..1000 {
        assert!(ev.eval_bool(a).unwrap());
    }
    // Without sharing, 2^60 steps; with it, about 200 for the first term.
    let mut small = logic::eval::Evaluator::new(&m, &s.context).with_budget(50);
    assert_eq!(
        small.eval_bool(a),
        Err(logic::EvalError::TooExpensive { budget: 50 })
    );
}

#[test]
fn numbers_beyond_the_digit_limit_are_errors() {
    let max = logic::sexp::MAX_NUMBER_DIGITS;
    for text in [
        format!("(assert (> x {}))", "1".repeat(max + 1)),
        format!("(assert (> x 0.{}))", "1".repeat(max)),
    ] {
        let out = logic::sexp::read(&text, ReadLimits::default());
        assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
        assert!(out.errors[0].message.contains("exceeds the limit"));
    }
    let ok = format!("(assert (> x {}))", "1".repeat(max));
    assert!(logic::sexp::read(&ok, ReadLimits::default())
        .errors
        .is_empty());
}

#[test]
fn context_push_is_bounded() {
    let mut c = Context::new();
    assert!(c.push(MAX_SCOPES).is_ok());
    assert!(c.push(1).is_err());
    assert_eq!(c.depth(), MAX_SCOPES);
    assert!(Context::new().push(usize::MAX).is_err());
    assert!(c.pop(MAX_SCOPES));
    assert!(!c.pop(1));
}

#[test]
fn reset_assertions_forgets_declarations_unless_global() {
    // SMT-LIB: reset-assertions empties the assertion stack; declarations go with it
    // unless :global-declarations is set. The logic stays.
    let s = script(
        "(set-logic QF_LIA) (declare-const x Int) (push 1) (declare-const y Int) \
         (reset-assertions) (declare-const x Int) (declare-const y Int) (assert (> x y))",
    );
    assert_eq!(s.context.depth(), 0);
    assert_eq!(s.context.logic(), Some("QF_LIA"));
    let err = parse_script(&SourceFile::new(
        "r.smt2",
        "(declare-const x Int)\n(reset-assertions)\n(assert (> x 0))",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("r.smt2:3:12: error: undeclared symbol `x`"),
        "{err}"
    );
    let s = script(
        "(set-option :global-declarations true) (declare-const x Int) (push 1) \
         (declare-const y Int) (pop 1) (reset-assertions) (assert (> x y))",
    );
    assert!(s.context.global_declarations());
    let s = script("(declare-const x Int) (reset) (declare-const x Real)");
    assert_eq!(s.context.consts().count(), 1);
}
