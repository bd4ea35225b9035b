//! The FRETish import (`extract::fret_to_spec`): each construct's mapping to vera's
//! timed keys, located errors, and no panic on any input.

use extract::{fret_to_spec, FretError, FretOptions};
use proptest::prelude::*;

/// A one-requirement export (a plain array, no variable list).
fn one(fulltext: &str) -> String {
    format!(
        "[{{\"reqid\": \"R1\", \"fulltext\": {}}}]",
        serde_json_string(fulltext)
    )
}

fn serde_json_string(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The `[requirements.timed]` table of the single requirement, as TOML lines.
fn timed(fulltext: &str) -> String {
    let imp = fret_to_spec("t.json", &one(fulltext), &FretOptions::default())
        .unwrap_or_else(|e| panic!("{fulltext}: {e:?}"));
    let t = imp
        .toml
        .split("[requirements.timed]\n")
        .nth(1)
        .expect("a timed table");
    t.trim().replace('\n', "; ")
}

fn errors(text: &str) -> Vec<FretError> {
    fret_to_spec("t.json", text, &FretOptions::default()).expect_err("an error")
}

#[test]
fn scopes_conditions_and_timings() {
    let cases = [
        ("the sw shall always satisfy s", "then = \"s\""),
        ("the sw shall never satisfy s", "then = \"(not s)\""),
        (
            "the sw shall immediately satisfy s",
            "initially = true; then = \"s\"",
        ),
        (
            "the sw shall at the first timepoint satisfy s",
            "initially = true; then = \"s\"",
        ),
        (
            "the sw shall at the next timepoint satisfy s",
            "initially = true; then = \"s\"; next = true",
        ),
        (
            "the sw shall within 5 ticks satisfy s",
            "initially = true; then = \"s\"; within = \"5 ticks\"",
        ),
        (
            "the sw shall for 3 seconds satisfy s",
            "initially = true; then = \"s\"; for = \"3 ticks\"",
        ),
        (
            "upon p the sw shall until c satisfy s",
            "when = \"p\"; then = \"s\"; until = \"c\"",
        ),
        (
            "when p the sw shall before c satisfy s",
            "when = \"p\"; then = \"s\"; before = \"c\"",
        ),
        (
            "whenever p the sw shall at the next timepoint satisfy s",
            "if = \"p\"; then = \"s\"; next = true",
        ),
        (
            "if p the sw shall always satisfy s",
            "when = \"p\"; then = \"s\"; until = \"false\"",
        ),
        (
            "in m mode the sw shall always satisfy s",
            "scope_while = \"m\"; then = \"s\"",
        ),
        (
            "in m the sw shall immediately satisfy s",
            "when = \"m\"; then = \"s\"",
        ),
        (
            "when in m, upon p the sw shall within 2 ticks satisfy s",
            "when = \"(and m p)\"; then = \"(or s (not m))\"; within = \"2 ticks\"",
        ),
        (
            "when not in m, whenever p the sw shall always satisfy s",
            "if = \"(and (not m) p)\"; then = \"s\"; until = \"m\"",
        ),
        (
            "unless in m the sw shall never satisfy s",
            "scope_while = \"(not m)\"; then = \"(not s)\"",
        ),
        (
            "while x > 3 the sw shall always satisfy s",
            "scope_while = \"(> x 3)\"; then = \"s\"",
        ),
        (
            "when not in m the sw shall until c satisfy s",
            "when = \"(not m)\"; then = \"s\"; until = \"(or c m)\"",
        ),
        (
            "before m, whenever p the sw shall at the next timepoint satisfy s",
            "scope_before = \"m\"; if = \"p\"; then = \"(or s m)\"; next = true",
        ),
        (
            "in m the sw shall for 2 ticks satisfy s",
            "when = \"m\"; then = \"s\"; for = \"2 ticks\"",
        ),
        (
            "before m the sw shall always satisfy s",
            "scope_before = \"m\"; then = \"s\"",
        ),
        (
            "before m, upon p the sw shall always satisfy s",
            "scope_before = \"m\"; when = \"p\"; then = \"s\"; until = \"m\"",
        ),
        (
            "whenever persisted(3, p) the sw shall immediately satisfy s",
            "if = \"p\"; held_for = \"3 ticks\"; then = \"s\"",
        ),
        (
            "whenever occurred(2, p) the sw shall immediately satisfy s",
            "if = \"p\"; within_last = \"2 ticks\"; then = \"s\"",
        ),
        (
            "the sw shall never satisfy persisted(100, p)",
            "if = \"p\"; held_for = \"100 ticks\"; then = \"false\"",
        ),
        (
            "upon p, unless q, the sw shall immediately satisfy s",
            "when = \"(and p (not q))\"; then = \"s\"",
        ),
        (
            "upon p or when q is false the sw shall immediately satisfy s",
            "when = \"(or p (not q))\"; then = \"s\"",
        ),
        ("shall the sw always satisfy s.", "then = \"s\""),
    ];
    for (text, want) in cases {
        assert_eq!(timed(text), want, "{text}");
    }
}

#[test]
fn expressions() {
    let cases = [
        ("!a & b | c", "(or (and (not a) b) c)"),
        ("a -> b", "(=> a b)"),
        ("a <=> b", "(= a b)"),
        ("a xor b", "(xor a b)"),
        ("if a then b", "(=> a b)"),
        ("!x > 3", "(not (> x 3))"),
        ("x + 2 * y <= 10", "(<= (+ x (* 2 y)) 10)"),
        ("x - 1.5 >= y", "(>= (- x 1.5) y)"),
        ("x != 3", "(distinct x 3)"),
        (
            "x / 2 = 1 & y mod 3 = 0",
            "(and (= (div x 2) 1) (= (mod y 3) 0))",
        ),
        ("absInt(x) < 4", "(< (abs x) 4)"),
        ("absReal(z) < 0.5", "(< (ite (>= z 0.0) z (- z)) 0.5)"),
        ("maxInt(x, y) > 0", "(> (ite (>= x y) x y) 0)"),
        ("(a)", "a"),
        ("true & !false", "(and true (not false))"),
        ("-x < 3", "(< (- x) 3)"),
        // A chain of one operator is one n-ary term, whichever way it nests.
        ("a | b | c | d", "(or a b c d)"),
        ("a & (b & c) & d", "(and a b c d)"),
        ("x + y + 1 + z > 0", "(> (+ x y 1 z) 0)"),
        ("2 * x * 3 > 0", "(> (* 2 x 3) 0)"),
    ];
    for (e, want) in cases {
        let t = timed(&format!("the sw shall always satisfy {e}"));
        assert_eq!(t, format!("then = \"{want}\""), "{e}");
    }
}

#[test]
fn sorts_from_the_variable_list_and_inferred() {
    let export = r#"{"requirements": [
      {"reqid": "A", "fulltext": "upon go the ctl shall within 2 ticks satisfy speed < LIMIT & gear = CRUISE"}
    ], "variables": [
      {"variable_name": "go", "dataType": "boolean", "idType": "Input"},
      {"variable_name": "speed", "dataType": "double", "idType": "Output"},
      {"variable_name": "LIMIT", "dataType": "integer", "idType": "Internal", "assignment": "100"},
      {"variable_name": "gear", "dataType": "integer", "idType": "Output"},
      {"variable_name": "CRUISE", "dataType": "integer", "idType": "Internal", "assignment": "2"}
    ]}"#;
    let imp = fret_to_spec("p.json", export, &FretOptions::default()).unwrap();
    assert!(
        imp.toml
            .contains("then = \"(and (< speed 100.0) (= gear 2))\""),
        "{}",
        imp.toml
    );
    assert!(imp
        .toml
        .contains("name = \"go\"\nsort = \"Bool\"\nrole = \"input\""));
    assert!(imp
        .toml
        .contains("name = \"speed\"\nsort = \"Real\"\nrole = \"output\""));
    assert!(
        !imp.toml.contains("name = \"LIMIT\""),
        "constants are replaced"
    );
    assert!(
        imp.notes.iter().any(|n| n.contains("LIMIT = 100")),
        "{:?}",
        imp.notes
    );

    // Without a variable list: inferred, with a note; a decimal makes a cluster Real.
    let imp = fret_to_spec(
        "q.json",
        &one("whenever a & x > y the sw shall immediately satisfy z = 1.5"),
        &FretOptions::default(),
    )
    .unwrap();
    assert!(imp.toml.contains("name = \"a\"\nsort = \"Bool\""));
    assert!(imp.toml.contains("name = \"x\"\nsort = \"Int\""));
    assert!(imp.toml.contains("name = \"z\"\nsort = \"Real\""));
    assert!(
        imp.notes.iter().any(|n| n.contains("inferred")),
        "{:?}",
        imp.notes
    );
}

#[test]
fn refused_by_name_with_their_place() {
    let cases = [
        ("the sw shall eventually satisfy s", 14, "eventually"),
        ("the sw shall satisfy s", 14, "no timing"),
        ("the sw shall finally satisfy s", 14, "\"finally\""),
        (
            "the sw shall at the last timepoint satisfy s",
            14,
            "last timepoint",
        ),
        (
            "the sw shall after 3 ticks satisfy s",
            14,
            "\"after 3 ticks\"",
        ),
        (
            "after m the sw shall always satisfy s",
            1,
            "scope not supported: \"after m\"",
        ),
        ("only in m the sw shall always satisfy s", 1, "only-scope"),
        (
            "the sw shall always satisfy preBool(false, s)",
            29,
            "preBool",
        ),
        ("the sw shall always satisfy FTP | s", 29, "FTP"),
        ("the sw shall always satisfy sin(x) > 0", 29, "function sin"),
        ("the sw shall always satisfy x * y > 0", 29, "linear"),
        (
            "upon persisted(2, p) the sw shall immediately satisfy s",
            6,
            "persisted",
        ),
        (
            "the sw shall, with probability > 0.9, always satisfy s",
            15,
            "probability",
        ),
    ];
    for (text, col, what) in cases {
        let es = errors(&one(text));
        // The fulltext starts at column 31 of the line (after `[{"reqid": "R1", "fulltext": "`);
        // `col` counts from 1 in the sentence.
        let e = &es[0];
        assert_eq!((e.line, e.column), (1, 30 + col), "{text}: {es:?}");
        assert!(e.message.contains(what), "{text}: {}", e.message);
        assert_eq!(e.requirement.as_deref(), Some("R1"));
        assert!(e
            .to_string()
            .starts_with(&format!("t.json:1:{}: R1: ", 30 + col)));
    }
}

#[test]
fn bad_fretish_is_located() {
    // An unknown timing.
    let es = errors(&one("the sw shall sometimes satisfy s"));
    assert_eq!(es[0].column, 30 + 14);
    assert!(
        es[0].message.contains("expected a timing"),
        "{}",
        es[0].message
    );
    // Unbalanced parentheses.
    let es = errors(&one("the sw shall always satisfy (a & b"));
    assert!(es[0].message.contains("\")\""), "{}", es[0].message);
    let es = errors(&one("the sw shall always satisfy a & b)"));
    assert!(
        es[0].message.contains("closes nothing"),
        "{}",
        es[0].message
    );
    assert_eq!(es[0].column, 30 + 34);
    // No `shall`.
    let es = errors(&one("the sw will always satisfy s"));
    assert!(es[0].message.contains("no \"shall\""));
    // An undeclared variable, with a variable list.
    let export = "{\"requirements\": [\n  {\"reqid\": \"A\",\n   \"fulltext\": \"the sw shall always satisfy go & stop\"}],\n \"variables\": [{\"variable_name\": \"go\", \"dataType\": \"boolean\"}]}";
    let es = errors(export);
    assert_eq!(es.len(), 1, "{es:?}");
    assert_eq!((es[0].line, es[0].column), (3, 50), "{es:?}");
    assert!(es[0].message.contains("undeclared variable stop"));
    // A name used both ways.
    let es = errors(&one("the sw shall always satisfy a & a > 2"));
    assert!(
        es[0]
            .message
            .contains("both as a condition and as a number"),
        "{es:?}"
    );
    // A keyword where a name is expected.
    let es = errors(&one("the sw shall always satisfy mode = 2"));
    assert!(es[0].message.contains("keyword"), "{es:?}");
    // Chained implications.
    let es = errors(&one("the sw shall always satisfy a => b => c"));
    assert!(es[0].message.contains("chained"), "{es:?}");
}

#[test]
fn escapes_in_the_json_keep_columns_right() {
    // `\u0026` is `&`: six characters in the file for one in the sentence.
    let text = r#"[{"reqid": "R1", "fulltext": "the sw shall always satisfy a \u0026 (b"}]"#;
    let es = errors(text);
    // At the end of the sentence: the closing quote, column 70.
    assert_eq!(es[0].column, 70, "{es:?}");
    let text = r#"[{"reqid": "R1", "fulltext": "the sw shall always satisfy a \u0026 FTP"}]"#;
    let es = errors(text);
    assert_eq!(es[0].column, 68, "{es:?}");
}

#[test]
fn every_problem_of_a_file_at_once_and_skipping() {
    let export = r#"[
      {"reqid": "A", "fulltext": "the sw shall always satisfy s"},
      {"reqid": "B", "fulltext": "the sw shall eventually satisfy s"},
      {"reqid": "C", "fulltext": "after m the sw shall always satisfy s"},
      {"reqid": "A", "fulltext": "the sw shall never satisfy t"}
    ]"#;
    let es = errors(export);
    let ids: Vec<_> = es.iter().map(|e| e.requirement.clone().unwrap()).collect();
    assert_eq!(ids, ["B", "C"]);
    assert_eq!((es[0].line, es[1].line), (3, 4));
    let imp = fret_to_spec(
        "t.json",
        export,
        &FretOptions {
            tick: Some("100 ms"),
            skip_refused: true,
        },
    )
    .unwrap();
    assert_eq!(imp.requirements, 2);
    assert_eq!(imp.refused.len(), 2);
    assert!(imp.toml.contains("tick = \"100 ms\""));
    assert!(imp.toml.contains("id = \"A~2\""));
    assert!(imp.notes.iter().any(|n| n.contains("renamed A~2")));
    let bad = fret_to_spec(
        "t.json",
        export,
        &FretOptions {
            tick: Some("fast"),
            skip_refused: true,
        },
    )
    .unwrap_err();
    assert!(bad[0].message.contains("tick"));
}

#[test]
fn bad_json_and_shapes() {
    let es = errors("[{\"reqid\": \"A\", }]");
    assert_eq!(es[0].line, 1);
    assert!(es[0].message.contains("not valid JSON"));
    let es = errors("{\"x\": 1}");
    assert!(es[0].message.contains("array of requirements"));
    let es = errors("[{\"fulltext\": \"the sw shall always satisfy s\"}]");
    assert!(es[0].message.contains("reqid"));
    let es = errors("[{\"reqid\": \"A\"}]");
    assert!(es[0].message.contains("no \"fulltext\""));
    // Present with another type: said so, not "missing".
    let es = errors("[{\"reqid\": \"A\", \"fulltext\": 42}]");
    assert!(
        es[0].message.contains("\"fulltext\" is 42, not a string"),
        "{es:?}"
    );
    let es = errors("[{\"reqid\": [\"A\"], \"fulltext\": \"x\"}]");
    assert!(
        es[0].message.contains("\"reqid\" is [\"A\"], not a string"),
        "{es:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random sentences never panic: they import or give located errors.
    #[test]
    fn random_text_never_panics(s in "\\PC{0,80}") {
        let _ = fret_to_spec("r.json", &one(&s), &FretOptions::default());
    }

    /// Random FRETish-like word salad never panics either.
    #[test]
    fn random_fretish_never_panics(words in proptest::collection::vec(prop_oneof![
        Just("the"), Just("sw"), Just("shall"), Just("satisfy"), Just("within"), Just("3"),
        Just("ticks"), Just("upon"), Just("whenever"), Just("in"), Just("m"), Just("mode"),
        Just("("), Just(")"), Just("&"), Just("|"), Just("!"), Just("x"), Just(">"),
        Just("2.5"), Just("persisted(2, p)"), Just("at"), Just("next"), Just("timepoint"),
        Just(","), Just("only"), Just("before"), Just("after"), Just("until"), Just("=>"),
        Just("if"), Just("then"), Just("not"), Just("is"), Just("false"), Just("-"),
    ], 0..25)) {
        let _ = fret_to_spec("r.json", &one(&words.join(" ")), &FretOptions::default());
    }

    /// Random JSON-ish text never panics.
    #[test]
    fn random_json_never_panics(s in "[\\[\\]{}\":, a-z0-9\\\\]{0,60}") {
        let _ = fret_to_spec("r.json", &s, &FretOptions::default());
    }
}

/// Every prefix of every sentence of FRET's case studies imports or gives located
/// errors, never a panic.
#[test]
fn prefixes_of_the_case_study_sentences_never_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fret-case-studies");
    let mut n = 0;
    for f in [
        "fsm_reqts_and_vars.json",
        "LPC_full_reqts_and_vars.json",
        "LM_reqts_and_vars.json",
        "LM_requirements.json",
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap();
        for r in v["requirements"].as_array().unwrap() {
            let full = r["fulltext"].as_str().unwrap_or("");
            for (i, _) in full.char_indices().step_by(3) {
                let r = fret_to_spec("p.json", &one(&full[..i]), &FretOptions::default());
                if let Err(es) = r {
                    assert!(es.iter().all(|e| e.line == 1 && e.column >= 1), "{es:?}");
                }
                n += 1;
            }
        }
    }
    assert!(n > 1000, "{n}");
}

/// What vera's spec loader refuses is refused at import, at its place: a division by
/// zero, and a condition nested deeper than the loader reads.
#[test]
fn what_the_loader_refuses_is_refused_at_import() {
    let e = errors(&one(
        "the sw shall always satisfy x / 0 > 1 & y mod 0.0 = 1",
    ));
    let shown: Vec<String> = e.iter().map(|e| e.to_string()).collect();
    assert!(
        shown[0].starts_with("t.json:1:63: R1: / by zero"),
        "{shown:?}"
    );
    // A chain of 1,100 operators is a tree 1,100 deep: read on a stack as large as the
    // one vera runs its commands on (`logic::with_big_stack`).
    let deep = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let alternating: String = (0..1100)
                .map(|i| if i % 2 == 1 { " + x" } else { " - x" })
                .collect();
            errors(&one(&format!(
                "the sw shall always satisfy x{alternating} > 1"
            )))
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(
        deep[0]
            .message
            .starts_with("the condition nests 1101 levels deep once written in SMT-LIB"),
        "{deep:?}"
    );
}
