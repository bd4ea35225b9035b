//! Fuzz-style robustness of the three readers of text vera did not write: the SMT-LIB
//! script reader, `parse_untrusted`, and the reader of models and values printed by a
//! solver. Hostile shapes of about 1 MB each, then random bytes (made text with
//! `from_utf8_lossy`) and random token soups through proptest. Every input must end
//! in a result or an error, without panicking, within a time bound.

use logic::eval::{parse_model, parse_values};
use logic::sexp::read_one;
use logic::{parse_script, parse_untrusted, Context, Limits, Sort, SourceFile, Term};
use proptest::prelude::*;
use std::time::{Duration, Instant};

const MB: usize = 1 << 20;

/// Limits that let 1 MB through to the parser (the defaults stop it at 256 KB).
fn roomy() -> Limits {
    Limits {
        max_bytes: 2 * MB,
        max_commands: 1_000_000,
        ..Limits::default()
    }
}

fn schema() -> Context {
    logic::testgen::schema()
}

/// Runs every reader on `text` and returns how long it took. Results are ignored:
/// an error is a fine answer; a panic fails the test.
fn all_readers(text: &str) -> Duration {
    let t = Instant::now();
    let file = SourceFile::new("hostile.smt2", text);
    if let Err(d) = parse_script(&file) {
        // Rendering the diagnostics must be cheap too.
        let shown = d.to_string();
        assert!(
            shown.len() < 200_000,
            "{} bytes of diagnostics",
            shown.len()
        );
    }
    let _ = parse_untrusted("llm", text, &schema(), Limits::default());
    if let Err(d) = parse_untrusted("llm", text, &schema(), roomy()) {
        let _ = d.to_string();
    }
    let ctx = schema();
    if let Ok(e) = read_one(text) {
        let _ = parse_model(&e, &ctx);
        let terms = [
            Term::var("x", Sort::Int),
            Term::var("a", Sort::Real),
            Term::var("p", Sort::Bool),
        ];
        let _ = parse_values(&e, &terms, &ctx);
    }
    t.elapsed()
}

fn check(name: &str, text: &str, limit: Duration) {
    let took = all_readers(text);
    assert!(took < limit, "{name}: {took:?}");
}

const LIMIT: Duration = Duration::from_secs(5);

#[test]
fn unbalanced_brackets() {
    check("open", &"(".repeat(MB), LIMIT);
    check("close", &")".repeat(MB), LIMIT);
    check("alternating", &")(".repeat(MB / 2), LIMIT);
}

#[test]
fn nesting_at_and_beyond_the_limit() {
    let at = |d: usize| format!("(assert {}p{})", "(not ".repeat(d), ")".repeat(d));
    check("999 deep", &at(998).repeat(MB / 6000), LIMIT);
    check("2000 deep", &at(2000), LIMIT);
    let model = format!(
        "((define-fun x () Int {}5{}))",
        "(- ".repeat(997),
        ")".repeat(997)
    );
    check("deep value", &model, LIMIT);
    let model = format!(
        "((define-fun a () Real {}5.0{}))",
        "(/ 1.0 ".repeat(997),
        ")".repeat(997)
    );
    check("deep quotient", &model, LIMIT);
}

#[test]
fn huge_atoms() {
    let n = "7".repeat(MB);
    check("numeral", &format!("(assert (> x {n}))"), LIMIT);
    check(
        "model numeral",
        &format!("((define-fun x () Int {n}))"),
        LIMIT,
    );
    let d = format!("{}.{}", "3".repeat(MB / 2), "1".repeat(MB / 2));
    check("decimal", &format!("(assert (> a {d}))"), LIMIT);
    let s = "s".repeat(MB);
    check(
        "symbol",
        &format!("(declare-const {s} Int) (assert (> {s} {s}))"),
        LIMIT,
    );
    check("undeclared symbol", &format!("(assert (> {s} x))"), LIMIT);
    check("keyword", &format!("(set-info :{s} 1)"), LIMIT);
    check(
        "bits",
        &format!("(assert (= x #x{}))", "f".repeat(MB)),
        LIMIT,
    );
    check("quoted", &format!("|{s}"), LIMIT);
    check("string", &format!("(echo \"{s}"), LIMIT);
    check(
        "string with quotes",
        &format!("(echo \"{}\")", "\"\"".repeat(MB / 2)),
        LIMIT,
    );
}

#[test]
fn largest_numbers_allowed_are_still_fast() {
    // Two numbers just under the digit limit in one quotient: a gcd of
    // 330,000-bit numbers.
    let max = logic::sexp::MAX_NUMBER_DIGITS;
    let a = "7".repeat(max - 1);
    let b = "3".repeat(max - 2) + "1";
    check(
        "quotient",
        &format!("((define-fun a () Real (/ {a}.0 {b}.0)))"),
        Duration::from_secs(10),
    );
    check(
        "assertion",
        &format!("(assert (= a (/ {a}.0 {b}.0)))"),
        Duration::from_secs(10),
    );
}

#[test]
fn many_errors() {
    let undeclared: String = (0..100_000).map(|i| format!(" y{i}")).collect();
    check("undeclared", &format!("(assert (and{undeclared}))"), LIMIT);
    let stray: String = (0..200_000).map(|i| format!("w{i} ")).collect();
    check("prose", &stray, LIMIT);
    check("bad commands", &"(frobnicate 1 2)".repeat(MB / 16), LIMIT);
    check("bad numbers", &"01a ".repeat(MB / 4), LIMIT);
    check("bad characters", &"\u{7f}é ".repeat(MB / 4), LIMIT);
}

#[test]
fn many_bindings_and_parameters() {
    let n = 50_000;
    let binds: String = (0..n).map(|i| format!("(b{i} x)")).collect();
    let uses: String = (0..n).map(|i| format!(" (> b{i} 0)")).collect();
    check(
        "let",
        &format!("(assert (let ({binds}) (and{uses})))"),
        LIMIT,
    );
    let dup = "(b x)".repeat(n);
    check(
        "duplicate let",
        &format!("(assert (let ({dup}) true))"),
        LIMIT,
    );
    let params: String = (0..n).map(|i| format!("(q{i} Int)")).collect();
    let body: String = (0..n).map(|i| format!(" q{i}")).collect();
    check(
        "parameters",
        &format!("(define-fun f ({params}) Int (+{body}))"),
        LIMIT,
    );
    let decls: String = (0..n)
        .map(|i| format!("(declare-const c{i} Int)"))
        .collect();
    let typos: String = (0..n).map(|i| format!(" (> d{i} 0)")).collect();
    check(
        "typos",
        &format!("{decls} (assert (and{typos}))"),
        Duration::from_secs(10),
    );
}

#[test]
fn many_commands_and_scopes() {
    check("asserts", &"(assert (> x 1))".repeat(MB / 16), LIMIT);
    check("pushes", &"(push 1)".repeat(MB / 8), LIMIT);
    check("push pop", &"(push 1)(pop 1)".repeat(MB / 14), LIMIT);
    check(
        "declarations",
        &(0..MB / 30)
            .map(|i| format!("(declare-const v{i} Int)"))
            .collect::<String>(),
        LIMIT,
    );
}

#[test]
fn invalid_utf8_through_lossy_conversion() {
    let mut bytes = Vec::with_capacity(MB);
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    while bytes.len() < MB {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes.push(x as u8);
    }
    check("random bytes", &String::from_utf8_lossy(&bytes), LIMIT);
    let mut mixed = b"(assert (> x ".to_vec();
    mixed.extend(std::iter::repeat_n([0xff, 0xfe, b'('], MB / 3).flatten());
    check("mixed", &String::from_utf8_lossy(&mixed), LIMIT);
}

/// Pieces of SMT-LIB, valid and not, for token soups.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("(".to_string()),
        Just(")".to_string()),
        Just(" ".to_string()),
        Just("assert".to_string()),
        Just("declare-const".to_string()),
        Just("define-fun".to_string()),
        Just("let".to_string()),
        Just("push".to_string()),
        Just("check-sat".to_string()),
        Just("Int".to_string()),
        Just("Real".to_string()),
        Just("x".to_string()),
        Just("a".to_string()),
        Just("p".to_string()),
        Just("+".to_string()),
        Just("/".to_string()),
        Just("-".to_string()),
        Just("ite".to_string()),
        Just("model".to_string()),
        Just(":named".to_string()),
        Just("|q|".to_string()),
        Just("\"s\"".to_string()),
        "[0-9]{1,40}",
        "[0-9]{1,20}\\.[0-9]{1,20}",
        "[a-z]{1,8}",
        any::<char>().prop_map(String::from),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let took = all_readers(&String::from_utf8_lossy(&bytes));
        prop_assert!(took < Duration::from_secs(2));
    }

    #[test]
    fn token_soups_never_panic(tokens in proptest::collection::vec(token(), 0..200)) {
        let text: String = tokens.join(" ");
        let took = all_readers(&text);
        prop_assert!(took < Duration::from_secs(2));
        let model = format!("((define-fun x () Int {text}))");
        let took = all_readers(&model);
        prop_assert!(took < Duration::from_secs(2));
    }
}
