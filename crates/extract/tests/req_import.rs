//! The `.req` importer read in discrete time (`extract::req_to_spec_with`,
//! `ReqSemantics::Discrete`) on Ultimate's regression files (copied unchanged under
//! tests/data/ultimate-req, see its README) and on hand-written input: every file imports
//! or is refused with located errors, the TOML is valid and follows docs/timed.md, and no
//! input makes it panic. The dense-time import (the default) is tested in
//! tests/req_import_dense.rs.

use extract::{req_to_spec_with, ExpectedResult, ReqError, ReqImport, ReqOptions, ReqSemantics};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// The discrete-time import.
fn req_to_spec(file: &str, text: &str, tick: Option<&str>) -> Result<ReqImport, Vec<ReqError>> {
    req_to_spec_with(
        file,
        text,
        &ReqOptions {
            tick,
            semantics: ReqSemantics::Discrete,
        },
    )
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ultimate-req")
}

/// The `.req` files of `sub` (relative to the data folder), sorted.
fn req_files(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data_dir().join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "req"))
        .collect();
    v.sort();
    v
}

/// The file's name relative to the data folder (stable in messages and snapshots).
fn rel(p: &Path) -> String {
    p.strip_prefix(data_dir()).unwrap().display().to_string()
}

fn import(rel: &str) -> ReqImport {
    let text = std::fs::read_to_string(data_dir().join(rel)).unwrap();
    req_to_spec(rel, &text, None).unwrap_or_else(|e| panic!("{rel}: {e:?}"))
}

/// Lines that start with a requirement label (`req1:`), outside comments.
fn labelled_lines(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            let l = l.trim_start();
            !l.starts_with("//")
                && l.split_once(':').is_some_and(|(id, _)| {
                    !id.is_empty() && id.chars().all(|c| c.is_alphanumeric() || c == '_')
                })
        })
        .count()
}

/// The errors of `text` as displayed.
fn errors(text: &str) -> Vec<String> {
    errors_with(text, None)
}

fn errors_with(text: &str, tick: Option<&str>) -> Vec<String> {
    req_to_spec("t.req", text, tick)
        .map(|r| panic!("imported:\n{}", r.toml))
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn toml_of(text: &str) -> toml::Value {
    let r = req_to_spec("t.req", text, None).unwrap_or_else(|e| panic!("{e:?}"));
    toml::from_str(&r.toml).unwrap()
}

/// `[requirements.timed]` of requirement `i`.
fn timed(v: &toml::Value, i: usize) -> &toml::Value {
    &v["requirements"][i]["timed"]
}

const TIMED_KEYS: &[&str] = &[
    "scope_before",
    "scope_after",
    "scope_until",
    "initially",
    "if",
    "when",
    "held_for",
    "then",
    "within",
    "for",
    "until",
];

/// Checks an imported file against docs/timed.md's shape: the tables and keys it names.
fn check_shape(name: &str, r: &ReqImport, labels: usize) {
    let v: toml::Value = toml::from_str(&r.toml).unwrap_or_else(|e| panic!("{name}: {e}"));
    let stem = Path::new(name).file_stem().unwrap().to_str().unwrap();
    assert_eq!(v["spec"]["name"].as_str(), Some(stem), "{name}");
    assert_eq!(v["time"]["tick"].as_str(), Some("1 s"), "{name}");
    let reqs = v
        .get("requirements")
        .and_then(|r| r.as_array())
        .map_or(&[][..], |a| a.as_slice());
    assert_eq!(reqs.len(), labels, "{name}: requirements");
    assert_eq!(r.requirements, labels, "{name}");
    for q in reqs {
        assert!(q["id"].is_str() && q["text"].is_str(), "{name}: {q:?}");
        let t = q["timed"].as_table().unwrap();
        assert!(t["then"].is_str(), "{name}: {q:?}");
        for k in t.keys() {
            assert!(TIMED_KEYS.contains(&k.as_str()), "{name}: key {k}");
        }
        for k in ["within", "for", "held_for"] {
            if let Some(d) = t.get(k) {
                let d = d.as_str().unwrap();
                let named = v["time"]
                    .get("durations")
                    .and_then(|ds| ds.get(d))
                    .is_some();
                assert!(named || d.ends_with(" s"), "{name}: duration {d}");
            }
        }
    }
    for var in v
        .get("variables")
        .and_then(|r| r.as_array())
        .map_or(&[][..], |a| a.as_slice())
    {
        assert!(
            ["Bool", "Int", "Real"].contains(&var["sort"].as_str().unwrap()),
            "{name}"
        );
    }
}

#[test]
fn every_regression_file_imports_or_is_refused_with_located_errors() {
    let mut counts = Vec::new();
    for sub in ["", "parsing"] {
        let (mut imported, mut refused) = (0, Vec::new());
        for path in req_files(sub) {
            let name = rel(&path);
            let text = std::fs::read_to_string(&path).unwrap();
            match req_to_spec(&name, &text, None) {
                Ok(r) => {
                    check_shape(&name, &r, labelled_lines(&text));
                    assert!(r.expected.is_some(), "{name}: #TestSpec");
                    imported += 1;
                }
                Err(es) => {
                    assert!(!es.is_empty());
                    for e in &es {
                        assert!(e.line >= 1 && e.column >= 1, "{e}");
                        let shown = e.to_string();
                        assert!(
                            shown.starts_with(&format!("{name}:{}:{}: ", e.line, e.column)),
                            "{shown}"
                        );
                        // The position is inside the file, on a requirement line.
                        let line = text.lines().nth(e.line as usize - 1).unwrap();
                        assert!(line.chars().count() >= e.column as usize, "{shown}");
                    }
                    refused.push((name, es));
                }
            }
        }
        println!(
            "{}: {imported} imported, {} refused",
            if sub.is_empty() { "top level" } else { sub },
            refused.len()
        );
        for (name, es) in &refused {
            println!("  {name}: {}", es[0].message);
        }
        counts.push((imported, refused));
    }
    // Top level: every file but old-ACC_110302.req, which uses the precedence pattern.
    assert_eq!(counts[0].0, 25);
    let refused: Vec<&str> = counts[0].1.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(refused, ["old-ACC_110302.req"]);
    // parsing/: the supported patterns under every scope import; 'eventually',
    // precedence, chains, bounded existence and recurrence, the two-duration and
    // trigger-response patterns and prev(...) are refused.
    assert_eq!(counts[1].0, 42);
    assert_eq!(counts[1].1.len(), 48);
    for (name, es) in &counts[1].1 {
        for e in es {
            assert!(
                e.message
                    .starts_with("pattern not supported in discrete time: ")
                    || e.message.starts_with("function prev(...) is not supported"),
                "{name}: {e}"
            );
        }
    }
}

#[test]
fn snapshot_rt_inconsistent_01() {
    insta::assert_snapshot!(import("ex-rtinconsistent-01.req").toml);
}

#[test]
fn snapshot_rt_inconsistent_transitive() {
    insta::assert_snapshot!(import("ex-rtinconsistent-transitive.req").toml);
}

#[test]
fn snapshot_scopes() {
    // After, after-until and between scopes, a constant duration.
    let r = import("ex-mix-vacuous-rtinconsistent.req");
    insta::assert_snapshot!("scope_after", r.toml);
    let r = import("parsing/parsing_test101.req");
    insta::assert_snapshot!("scope_between", r.toml);
    assert_eq!(
        r.notes,
        [
            "req1: \"Between Q and R\" is read as \"After Q until R\" (scope_after + \
          scope_until), which also constrains a last segment that R never closes; \
          Ultimate's (Dwyer's) \"between\" does not"
        ]
    );
}

#[test]
fn snapshot_constants() {
    let r = import("consts_not_handled.req");
    insta::assert_snapshot!(r.toml);
    assert_eq!(
        r.notes,
        ["constants replaced by their values in formulas: K = 20.0, H = 30.0"]
    );
    let v: toml::Value = toml::from_str(&import("consts_negative.req").toml).unwrap();
    assert_eq!(timed(&v, 0)["then"].as_str(), Some("(= (- 1) (- 1))"));
    assert_eq!(timed(&v, 1)["then"].as_str(), Some("(= (- 1.0) (- 1.0))"));
    let v: toml::Value = toml::from_str(&import("bug-quantified-vs-global.req").toml).unwrap();
    assert_eq!(v["time"]["durations"]["T"].as_str(), Some("50 s"));
    assert_eq!(timed(&v, 1)["within"].as_str(), Some("T"));
}

/// Every supported pattern, once, with the mapping of the module docs.
#[test]
fn every_supported_pattern() {
    let text = r#"
Input A is bool
Input B is bool
Output C is bool
Internal D is bool
Hidden E is int
CONST DT is 4
p1: Globally, it is always the case that "A" holds
p2: Globally, it is never the case that "A" holds.
p3: Globally, it is always the case that initially "A" holds
p4: Globally, it is always the case that if "A" holds, then "B" holds as well
p5: Globally, it is always the case that if "A" holds, then it holds persistently
p6: Before "D", it is always the case that if "A" holds, then it holds persistently
p7: After "D" until "C", it is always the case that if "A" holds then it holds persistently
p8: Globally, it is always the case that if "A" holds, then "B" holds after at most "3" time units
p9: Globally, it is always the case that once "A" becomes satisfied, "B" holds after at most 3 time units
p10: Globally, it is always the case that if "A" holds, then "B" holds for at least DT time units
p11: Globally, it is always the case that once "A" becomes satisfied, "B" holds for at least "DT" time units
p12: Globally, it is always the case that once "A" becomes satisfied, it holds for at least "5" time units
p13: Globally, it is always the case that once "A" becomes satisfied, it holds for less than "5" time units
p14: Globally, it is always the case that if "A" holds for at least "2" time units, then "B" holds afterwards
p15: Globally, it is always the case that if "A" holds for at least "2" time units, then "B" holds afterwards for at least "3" time units
p16: Globally, it is always the case that if "A" holds for at least "2" time units, then "B" holds after at most "3" time units
p17: Globally, it is always the case that after "A" holds for at least "2" time units, then "B" holds
p18: After "C", it is never the case that "E > 2" holds
"#;
    let r = req_to_spec("all.req", text, None).unwrap();
    assert_eq!(r.requirements, 18);
    assert_eq!(r.variables, 5);
    assert_eq!(r.expected, None);
    insta::assert_snapshot!(r.toml);
    let v: toml::Value = toml::from_str(&r.toml).unwrap();
    let vars = v["variables"].as_array().unwrap();
    let roles: Vec<Option<&str>> = vars
        .iter()
        .map(|x| x.get("role").and_then(|r| r.as_str()))
        .collect();
    assert_eq!(
        roles,
        [Some("input"), Some("input"), Some("output"), None, None]
    );
    assert_eq!(v["time"]["durations"]["DT"].as_str(), Some("4 s"));
}

#[test]
fn located_errors() {
    let text = "\
// #TestSpec: rt-inconsistent:; vacuous:; inconsistent:; results: 1
Input A is bool
Input N is int

req1: Globally, it is always the case that \"A && Z\" holds
req2: Globally, it is always the case that if \"A\" holds, then \"A\" previously held
req3: Globally, it is always the case that if \"A\" holds, then \"A\" holds after at most \"-3\" time units
req4: Globally, it is always the case that if \"A\" holds, then \"A\" holds for at least \"abc\" time units
req5: ⌈true⌉;⌈A⌉;⌈!A⌉ ∧ ℓ ≥ 5;⌈true⌉
req6: Globally, it is sometimes the case that \"A\" holds
req7: Globally, it is always the case that \"N + 1\" holds
req8: Globally, it is always the case that \"A\" holds after at most 10 sec
req9: Globally, it is always the case that if \"A\" holds, then \"A\" holds for at least \"1.5\" time units
";
    assert_eq!(
        errors(text),
        [
            "t.req:5:50: undeclared name Z",
            "t.req:6:17: pattern not supported in discrete time: PrecedencePattern (it is always \
             the case that if \"R\" holds, then \"S\" previously held): vera's discrete keys have \
             no counterpart; import it in dense time",
            "t.req:7:88: bad duration \"-3\": a duration is a non-negative number of time units \
             or the name of a constant",
            "t.req:8:87: bad duration \"abc\": not a number nor a declared constant",
            "t.req:9:7: countertrace formulas are not imported: write the requirement as a \
             pattern sentence",
            "t.req:10:23: not a pattern of Ultimate's grammar: expected \"never\" or \"always\", \
             found \"sometimes\"",
            "t.req:11:45: not a condition: an Int term where a formula is expected",
            "t.req:12:17: pattern not supported in discrete time: UniversalityDelayPattern (it is \
             always the case that \"R\" holds after at most \"c1\" time units): vera's discrete \
             keys have no counterpart; import it in dense time",
            "t.req:13:87: the duration 1.5 time units (1.5 s) is not a whole number of ticks \
             (tick = 1 s); give a finer tick",
        ]
    );
}

#[test]
fn declaration_and_syntax_errors() {
    let text = "\
Input A is bool
Input A is int
Input B is float
CONST C is \"x\"
Input div is int
req1: it is always the case that \"A\" holds
Globally, it is always the case that \"A\" holds \"B\"
req2: Globally, it is always the case that \"A\" holds
this line is not a requirement
req3: Globally, it is always the case that if \"A holds
req4: Globally, it is always the case that if \"A\" holds, then \"A\" holds for at least 5 time unit
req5: Globally, it is always the case that \"A\" holds after at most 10 tim units
";
    assert_eq!(
        errors(text),
        [
            "t.req:2:7: A is declared twice (first on line 1)",
            "t.req:3:12: unsupported type \"float\": a variable is bool, int or real",
            "t.req:4:12: expected the constant's value (a number, true or false), found the \
             quoted \"x\"",
            "t.req:5:7: div is not usable as an SMT-LIB variable name (reserved, or characters \
             other than letters, digits and ~!@$%^&*_-+=<>.?/)",
            "t.req:6:7: expected a scope (Globally, Before \"R\", After \"Q\", After \"Q\" until \
             \"R\" or Between \"Q\" and \"R\"), found \"it\"",
            "t.req:7:48: unexpected text after the end of the statement: the quoted \"B\"",
            "t.req:9:1: expected a requirement (\"id: scope, pattern\"), a declaration (Input, \
             Output, Internal, CONST) or a comment, found \"this\"",
            "t.req:10:47: a quote that is not closed on its line",
            "t.req:11:93: not a pattern of Ultimate's grammar: expected \"units\", found \"unit\"",
            "t.req:12:71: not a pattern of Ultimate's grammar: expected \"time units\", found \
             \"tim\"",
        ]
    );
}

#[test]
fn formulas_in_smt_lib() {
    let decls = "Input b is bool\nInput c is bool\nInput i is int\nInput j is int\n\
                 Input x is real\nCONST K is 3\nCONST H is 2.5\nCONST NEG is -4\nCONST ON is true\n";
    let cases = [
        ("b && c && !b", "(and b c (not b))"),
        ("b || (c && b)", "(or b (and c b))"),
        ("b ==> c ==> b", "(=> b (=> c b))"),
        ("i == 5", "(= i 5)"),
        ("i != j", "(distinct i j)"),
        ("b == c", "(= b c)"),
        ("i <= -j + 2 * K", "(<= i (+ (- j) (* 2 3)))"),
        ("i - j - 1 > 0", "(> (- i j 1) 0)"),
        ("i / 2 >= i % 3", "(>= (div i 2) (mod i 3))"),
        ("x / 2 < 2.5", "(< (/ x 2.0) 2.5)"),
        ("x > K", "(> x 3.0)"),
        ("x >= H && i > NEG", "(and (>= x 2.5) (> i (- 4)))"),
        ("x > -1", "(> x (- 1.0))"),
        ("abs(i) > 10", "(> (abs i) 10)"),
        ("ON", "true"),
        ("TRUE || false", "(or true false)"),
        ("i ≤ 3 ∧ ¬b ∨ c", "x"), // replaced below: mixing is an error
        ("(((b)))", "b"),
        ("007 == i", "(= 7 i)"),
    ];
    for (f, want) in cases {
        let text = format!("{decls}r: Globally, it is always the case that \"{f}\" holds\n");
        if f.contains('∨') {
            let e = errors(&text);
            assert!(
                e[0].contains("&& and || mixed without parentheses"),
                "{e:?}"
            );
            continue;
        }
        let v = toml_of(&text);
        assert_eq!(timed(&v, 0)["then"].as_str(), Some(want), "{f}");
    }
    let bad = [
        (
            "b && c || b",
            "&& and || mixed without parentheses: write (a && b) || c",
        ),
        (
            "i < j < 3",
            "comparisons do not chain: use parentheses and && ",
        ),
        ("i + x > 0", "+ mixes an Int term with a Real one"),
        ("i = 3", "\"=\" is not an operator: write == for equality"),
        (
            "prev(i) > 0",
            "function prev(...) is not supported (only abs is)",
        ),
        ("abs(x) > 0", "abs is defined on Int only"),
        ("!i", "! needs a condition, not an Int term"),
        ("b == 1", "== compares a condition with a number"),
        ("b + 1 > 0", "+ needs a number, not a condition"),
        ("", "an empty formula"),
        ("(b", "expected \")\", found the end of the formula"),
        ("b c", "unexpected \"c\" in the formula"),
        ("b @ c", "unexpected character '@' in a formula"),
        ("2. > i", "a decimal point without digits after it"),
    ];
    for (f, want) in bad {
        let text = format!("{decls}r: Globally, it is always the case that \"{f}\" holds\n");
        let e = errors(&text);
        assert_eq!(e.len(), 1, "{f}: {e:?}");
        assert!(e[0].ends_with(want), "{f}: {e:?}");
        assert!(e[0].starts_with("t.req:10:"), "{f}: {e:?}");
    }
    // Nesting is bounded, not a stack overflow.
    let deep = format!("{}b{}", "(".repeat(5000), ")".repeat(5000));
    let e = errors(&format!(
        "{decls}r: Globally, it is always the case that \"{deep}\" holds\n"
    ));
    assert!(e[0].contains("nests more than"), "{e:?}");
    let long = vec!["i"; 20_000].join(" + ");
    let v = toml_of(&format!(
        "{decls}r: Globally, it is always the case that \"{long} > 0\" holds\n"
    ));
    assert!(timed(&v, 0)["then"]
        .as_str()
        .unwrap()
        .starts_with("(> (+ i i i"));
}

#[test]
fn lenient_layout() {
    // Lower-case keywords, no commas, a requirement over two lines with comments, a
    // trailing dot, Windows line ends, an unlabelled requirement and a repeated id.
    let text = "input a is bool\r\nOUTPUT b is bool /* the output */\r\n\
                r1: GLOBALLY it is always the case that if \"a\" holds then // the trigger\r\n\
                \u{20}  \"b\" holds as well.\r\n\
                Globally, it is never the case that \"a && b\" holds\r\n\
                r1: Globally, it is always the case that \"b\" holds\r\n";
    let r = req_to_spec("lenient.req", text, None).unwrap();
    assert_eq!(r.requirements, 3);
    let v: toml::Value = toml::from_str(&r.toml).unwrap();
    let reqs = v["requirements"].as_array().unwrap();
    let ids: Vec<&str> = reqs.iter().map(|q| q["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["r1", "line-5", "r1~2"]);
    assert_eq!(
        reqs[0]["text"].as_str(),
        Some("GLOBALLY it is always the case that if \"a\" holds then // the trigger \"b\" holds as well.")
    );
    assert_eq!(timed(&v, 0)["if"].as_str(), Some("a"));
    assert_eq!(timed(&v, 0)["then"].as_str(), Some("b"));
    assert_eq!(
        r.notes,
        [
            "the requirement on line 5 has no id; it is named line-5",
            "id r1 appears again on line 6; renamed r1~2"
        ]
    );
}

#[test]
fn scope_limits() {
    let e = errors(
        "Input a is bool\nInput b is bool\n\
         r: After \"b\", it is always the case that initially \"a\" holds\n",
    );
    assert_eq!(
        e,
        [
            "t.req:3:15: pattern not supported in discrete time with a scope other than Globally: \
          InitializationPattern (it is always the case that initially \"R\" holds)"
        ]
    );
}

#[test]
fn ticks() {
    let text = "Input a is bool\nCONST D is 2.5\n\
                r1: Globally, it is always the case that if \"a\" holds, then \"a\" holds for at least \"D\" time units\n\
                r2: Globally, it is always the case that if \"a\" holds, then \"!a\" holds after at most 0.5 time units\n";
    let r = req_to_spec("t.req", text, Some("500 ms")).unwrap();
    let v: toml::Value = toml::from_str(&r.toml).unwrap();
    assert_eq!(v["time"]["tick"].as_str(), Some("500 ms"));
    assert_eq!(v["time"]["durations"]["D"].as_str(), Some("2.5 s"));
    assert_eq!(timed(&v, 1)["within"].as_str(), Some("0.5 s"));
    assert_eq!(
        errors(text),
        [
            "t.req:3:85: the duration 2.5 time units (2.5 s) is not a whole number of ticks \
             (tick = 1 s); give a finer tick",
            "t.req:4:86: the duration 0.5 time units (0.5 s) is not a whole number of ticks \
             (tick = 1 s); give a finer tick",
        ]
    );
    let one = "Input a is bool\n\
               r1: Globally, it is always the case that if \"a\" holds, then \"a\" holds for at least 120 time units\n";
    assert!(req_to_spec("t.req", one, Some("1 min")).is_ok());
    assert_eq!(
        errors_with(one, Some("7 s")),
        [
            "t.req:2:84: the duration 120 time units (120 s) is not a whole number of ticks \
          (tick = 7 s); give a finer tick"
        ]
    );
    assert_eq!(
        errors_with(one, Some("1 ms")),
        ["t.req:2:84: the duration 120 time units is more than 100000 ticks (tick = 1 ms)"]
    );
    assert_eq!(
        errors_with(one, Some("fast")),
        [
            "t.req: the tick \"fast\" is not a duration: write a number and a unit (ms, s, min, \
          h), e.g. \"100 ms\""
        ]
    );
    assert_eq!(
        errors_with(one, Some("0 s")),
        ["t.req: the tick \"0 s\" is zero"]
    );
    assert!(req_to_spec("t.req", one, Some("99999999999999999999999 h")).is_err());
    assert!(req_to_spec("t.req", one, Some("0.000000000000000001 h")).is_err());
}

#[test]
fn expected_results() {
    let e = |rel: &str| import(rel).expected.unwrap();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        e("bug-524.req"),
        ExpectedResult {
            rt_inconsistent: vec![s(&["req2", "req1"])],
            vacuous: vec![],
            inconsistent: vec![],
            results: Some(4),
        }
    );
    assert_eq!(e("ex-530-ex01.req").vacuous, s(&["req1", "req2"]));
    assert_eq!(e("ex-inconsistent.req").inconsistent, s(&["req1", "req2"]));
    assert_eq!(e("old-Test.req").results, Some(46));
    assert_eq!(e("parsing/parsing_test0.req").results, None);
    let spec =
        |first: &str| req_to_spec("t.req", &format!("{first}\nInput a is bool\n"), None).unwrap();
    let r = spec(
        "// #TestSpec: rt-inconsistent: a+b, c + d ,; vacuous: x ,y; inconsistent:; results: -1",
    );
    assert_eq!(
        r.expected.unwrap(),
        ExpectedResult {
            rt_inconsistent: vec![s(&["a", "b"]), s(&["c", "d"])],
            vacuous: s(&["x", "y"]),
            inconsistent: vec![],
            results: None,
        }
    );
    let r = spec("// #TestSpec: rt-inconsistent:; flaky: yes; results: 1");
    assert_eq!(r.expected, None);
    assert!(r
        .notes
        .iter()
        .any(|n| n.contains("#TestSpec line (line 1) is malformed")));
    assert_eq!(spec("// no spec").expected, None);
}

#[test]
fn truncated_regression_files_never_panic() {
    for sub in ["", "parsing"] {
        for path in req_files(sub) {
            let text = std::fs::read_to_string(&path).unwrap();
            let cuts: Vec<usize> = (0..=text.len())
                .step_by(5)
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            for i in cuts {
                let _ = req_to_spec("cut.req", &text[..i], None);
                let _ = req_to_spec("cut.req", &text[i..], None);
            }
        }
    }
}

/// Pieces of `.req` files, glued at random.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("req1: ".to_string()),
        Just("Globally, ".to_string()),
        Just("After \"a\" until \"b\" ".to_string()),
        Just("Between \"a\" and ".to_string()),
        Just("it is always the case that ".to_string()),
        Just("it is never the case that ".to_string()),
        Just("if \"a && !b\" holds, then ".to_string()),
        Just("once \"x > 2\" becomes satisfied, ".to_string()),
        Just("\"b\" holds ".to_string()),
        Just("holds for at least \"D\" time units".to_string()),
        Just("after at most 10 time units".to_string()),
        Just("less than \"-3\" time units".to_string()),
        Just("Input a is bool\n".to_string()),
        Just("Input x is int\n".to_string()),
        Just("CONST D is 2.5\n".to_string()),
        Just("⌈true⌉;⌈a⌉".to_string()),
        Just("// #TestSpec: rt-inconsistent:a+b; results: 2\n".to_string()),
        Just("/*".to_string()),
        Just("\"".to_string()),
        Just(".".to_string()),
        Just(",".to_string()),
        Just("\n".to_string()),
        "[ -~]{0,12}",
        "\\PC{0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_input_makes_it_panic(pieces in proptest::collection::vec(piece(), 0..24)) {
        let text = pieces.concat();
        match req_to_spec("p.req", &text, None) {
            Ok(r) => {
                let v: toml::Value = toml::from_str(&r.toml).unwrap();
                let n = v.get("requirements").and_then(|r| r.as_array()).map_or(0, Vec::len);
                prop_assert_eq!(n, r.requirements);
            }
            Err(es) => {
                prop_assert!(!es.is_empty());
                for e in es {
                    prop_assert!(e.line >= 1 && e.column >= 1, "{}", e);
                }
            }
        }
    }

    #[test]
    fn any_text_is_safe(text in "\\PC{0,200}", tick in "\\PC{0,8}") {
        let _ = req_to_spec("p.req", &text, Some(&tick));
    }
}

/// What vera's spec loader refuses is refused at import, each at its place: a division
/// (or `%`) by zero, by a variable, and a product of two variables.
#[test]
fn what_the_loader_refuses_is_refused_at_import() {
    let text = "Input x is int\nInput y is int\nInput r is real\n\
                req1: Globally, it is always the case that \"x / 0 > 1\" holds.\n\
                req2: Globally, it is always the case that \"r / -0.0 > 1.0\" holds.\n\
                req3: Globally, it is always the case that \"x % y == 1\" holds.\n\
                req4: Globally, it is always the case that \"2 * x * y > 1\" holds.\n\
                req5: Globally, it is always the case that \"2 * x * 3 > 1\" holds.\n";
    let errs: Vec<String> = req_to_spec("z.req", text, None)
        .unwrap_err()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        errs,
        [
            "z.req:4:49: / by zero: SMT-LIB leaves its value unspecified, and vera's specs refuse it",
            "z.req:5:49: / by zero: SMT-LIB leaves its value unspecified, and vera's specs refuse it",
            "z.req:6:49: % by a variable term: vera's specs are linear",
            "z.req:7:45: a product of two variable terms: vera's specs are linear",
        ]
    );
}
