//! Bad input, each with its message: golden files under tests/snapshots/.
//! Re-bless after an intended change with `INSTA_UPDATE=always cargo test -p logic`.

use logic::{parse_script, parse_untrusted, Limits, SourceFile};

/// Parses a script that must fail and returns the rendered diagnostics.
fn script_errors(text: &str) -> String {
    match parse_script(&SourceFile::new("input.smt2", text)) {
        Ok(_) => panic!("expected errors for:\n{text}"),
        Err(d) => d.to_string(),
    }
}

/// Reads untrusted text over a small schema; must fail.
fn untrusted_errors(text: &str) -> String {
    let schema = parse_script(&SourceFile::new(
        "schema.smt2",
        "(declare-const temp Real) (declare-const alarm Bool)",
    ))
    .expect("schema parses")
    .context;
    match parse_untrusted("llm-answer", text, &schema, Limits::default()) {
        Ok(u) => panic!("expected rejection, got {} assertions", u.assertions.len()),
        Err(d) => d.to_string(),
    }
}

#[test]
fn truncated_file() {
    insta::assert_snapshot!(script_errors("(declare-const x Int)\n(assert (> x\n"));
}

#[test]
fn undeclared_symbol_with_suggestion() {
    insta::assert_snapshot!(script_errors(
        "(declare-const speed Int)\n(assert (> sped 1))\n(assert (< unknown 2))\n"
    ));
}

#[test]
fn sort_errors() {
    insta::assert_snapshot!(script_errors(
        "(declare-const p Bool)\n(declare-const x Int)\n(assert (+ p 1))\n(assert x)\n(assert (= p x))\n"
    ));
}

#[test]
fn wrong_arity() {
    insta::assert_snapshot!(script_errors(
        "(define-fun f ((a Int)) Int (+ a 1))\n(assert (not true false))\n(assert (= (f 1 2) 3))\n(assert (ite true false))\n"
    ));
}

#[test]
fn nonlinear_in_linear_logic() {
    insta::assert_snapshot!(script_errors(
        "(set-logic QF_LIA)\n(declare-const x Int)\n(declare-const y Int)\n(assert (= (* x y) 2))\n(assert (= (* 3 x) (div y x)))\n"
    ));
}

#[test]
fn redeclaration_and_reserved_names() {
    insta::assert_snapshot!(script_errors(
        "(declare-const x Int)\n(declare-const x Real)\n(declare-const vera!lit Bool)\n(declare-const and Bool)\n"
    ));
}

#[test]
fn linear_products_with_constants_are_fine() {
    let text = "(set-logic QF_LIA)(declare-const x Int)(define-fun k () Int 3)\
                (assert (= (* 3 x) (* x k) (let ((c 2)) (* c x)) (div x 2)))";
    parse_script(&SourceFile::new("ok.smt2", text)).expect("linear");
}

#[test]
fn untrusted_rejects_injected_commands() {
    insta::assert_snapshot!(untrusted_errors(
        "(assert (> temp 40.0))\n(exit)\n(set-option :produce-models false)\n(echo \"sat\")\n(check-sat)\n(push 1)\n(get-model)\n(reset)\n"
    ));
}

#[test]
fn untrusted_rejects_prose_and_unbalanced_input() {
    insta::assert_snapshot!(untrusted_errors(
        "Here is the formula: (assert (> temp 40.0)"
    ));
}

#[test]
fn untrusted_rejects_schema_violations() {
    insta::assert_snapshot!(untrusted_errors(
        "(declare-const temp Int)\n(assert (> pressure 3))\n(assert (+ temp 1))\n"
    ));
}

#[test]
fn untrusted_rejects_oversized_and_deep_input() {
    let big = format!(
        "(assert {})",
        "(not ".repeat(300) + "alarm" + &")".repeat(300)
    );
    let msg = untrusted_errors(&big);
    assert!(msg.contains("nesting deeper than 200 levels"), "{msg}");
    let huge = "(assert alarm)\n".repeat(20_000);
    let msg = untrusted_errors(&huge);
    assert!(msg.contains("exceeds the limit of 262144 bytes"), "{msg}");
}

#[test]
fn untrusted_accepts_declarations_and_assertions() {
    let schema = parse_script(&SourceFile::new(
        "schema.smt2",
        "(declare-const temp Real) (declare-const alarm Bool)",
    ))
    .unwrap()
    .context;
    let u = parse_untrusted(
        "llm-answer",
        "; reading\n(define-fun hot () Bool (> temp 40))\n(declare-const t2 Real)\n(assert (=> hot alarm))\n(assert (< t2 temp))",
        &schema,
        Limits::default(),
    )
    .expect("acceptable");
    assert_eq!(u.assertions.len(), 2);
    assert_eq!(u.definitions.len(), 1);
    assert_eq!(u.constants.len(), 1);
    assert_eq!(logic::print::term(&u.assertions[0].0), "(=> hot alarm)");
    // The schema itself is not modified.
    assert!(!schema.is_declared("t2"));
    assert!(u.context.is_declared("t2"));
}
