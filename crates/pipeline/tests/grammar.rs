//! The formula grammar (GBNF) of a spec: its text, its structure, what it derives and
//! what it cannot derive, and how formalization, ambiguity screening and the round trip
//! send it.

mod common;

use llm::{Cache, Client, Request, Response, Scripted};
use logic::SourceFile;
use pipeline::formalize::{formalize, parse_answer, FormalizeOptions, DEFAULT_MAX_TOKENS};
use pipeline::grammar::{Expr, Grammar, DEFAULT_DEPTH, MAX_ARGS};
use reqs::Spec;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn hemodialysis_text() -> String {
    std::fs::read_to_string(root().join("examples/hemodialysis/hemodialysis.toml")).unwrap()
}

fn hemodialysis() -> Spec {
    reqs::parse_spec(SourceFile::new("hemodialysis.toml", hemodialysis_text()))
        .unwrap_or_else(|d| panic!("{d}"))
}

/// An integer-only spec in a linear logic, with a Bool and an enumeration.
const INT_SPEC: &str = r#"
[spec]
name = "counter"
logic = "QF_DTLIA"

[[enums]]
name = "Level"
values = ["Low", "High"]

[[enums]]
name = "Unused"
values = ["Nobody", "Uses", "This"]

[[variables]]
name = "count"
sort = "Int"
min = 0
max = 10

[[variables]]
name = "limit"
sort = "Int"

[[variables]]
name = "full"
sort = "Bool"

[[variables]]
name = "level"
sort = "Level"

[[requirements]]
id = "C1"
text = "When the count reaches the limit, the counter is full."
"#;

fn int_spec() -> Spec {
    reqs::parse_spec(SourceFile::new("counter.toml", INT_SPEC)).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn the_grammar_of_a_small_schema() {
    let g = Grammar::formula_with_depth(&common::spec(), 2);
    insta::assert_snapshot!("toy_depth_2", g.gbnf());
    let g = Grammar::formula_with_depth(&int_spec(), 2);
    insta::assert_snapshot!("counter_depth_2", g.gbnf());
}

/// The rule names an expression refers to.
fn refs(e: &Expr, out: &mut BTreeSet<String>) {
    match e {
        Expr::Ref(n) => {
            out.insert(n.clone());
        }
        Expr::Seq(v) | Expr::Alt(v) => v.iter().for_each(|x| refs(x, out)),
        Expr::Repeat(x, _, _) => refs(x, out),
        Expr::Lit(_) | Expr::Range(..) => {}
    }
}

/// The level of a term rule (`bool-3`, `num-0`, `enum-1-2`), if it is one.
fn level(name: &str) -> Option<usize> {
    let is_term =
        name.starts_with("bool-") || name.starts_with("num-") || name.starts_with("enum-");
    is_term
        .then(|| name.rsplit('-').next().and_then(|d| d.parse().ok()))
        .flatten()
}

#[test]
fn structure_every_rule_defined_reachable_and_one_level_down() {
    for spec in [hemodialysis(), int_spec(), common::spec()] {
        let g = Grammar::formula(&spec);
        let rules = g.rules();
        assert_eq!(rules[0].0, "root");
        assert_eq!(rules[0].1, Expr::Ref(format!("bool-{DEFAULT_DEPTH}")));
        let defined: HashMap<&str, &Expr> = rules.iter().map(|(n, e)| (n.as_str(), e)).collect();
        assert_eq!(defined.len(), rules.len(), "a rule defined twice");
        // Every reference is defined; every rule is reachable from root.
        let mut reached = BTreeSet::from(["root".to_string()]);
        let mut todo = vec!["root".to_string()];
        while let Some(n) = todo.pop() {
            let mut out = BTreeSet::new();
            refs(defined[n.as_str()], &mut out);
            for r in out {
                assert!(
                    defined.contains_key(r.as_str()),
                    "`{n}` refers to undefined `{r}`"
                );
                if reached.insert(r.clone()) {
                    todo.push(r);
                }
            }
        }
        assert_eq!(reached.len(), rules.len(), "unreachable rules");
        // Bounded nesting: a term rule of level d refers only to terms of level d - 1
        // (and to terminals, which refer to no term rule).
        for (n, e) in rules {
            let mut out = BTreeSet::new();
            refs(e, &mut out);
            for r in &out {
                match (level(n), level(r)) {
                    (Some(d), Some(k)) => assert_eq!(k + 1, d, "`{n}` refers to `{r}`"),
                    (None, Some(_)) => assert_eq!(n, "root", "terminal `{n}` refers to `{r}`"),
                    _ => {}
                }
            }
        }
        // Bounded repetition: every repetition has a finite maximum, and n-ary
        // operators take at most MAX_ARGS arguments.
        fn max_rep(e: &Expr) -> u32 {
            match e {
                Expr::Repeat(x, _, max) => (*max).max(max_rep(x)),
                Expr::Seq(v) | Expr::Alt(v) => v.iter().map(max_rep).max().unwrap_or(0),
                _ => 0,
            }
        }
        for (_, e) in rules {
            assert!(max_rep(e) <= 11, "{e:?}");
        }
        // The text has no unbounded GBNF operator (`*`, `+` after a symbol).
        let text = g.gbnf();
        for line in text.lines() {
            let outside: String = line
                .split('"')
                .enumerate()
                .filter(|(i, _)| i % 2 == 0)
                .map(|(_, s)| s)
                .collect();
            assert!(!outside.contains('*') && !outside.contains('+'), "{line}");
        }
    }
}

#[test]
fn the_example_formulas_are_derivable() {
    // Every formula written in the hemodialysis spec (domain constraints and
    // requirements), as written.
    let doc: toml::Table = toml::from_str(&hemodialysis_text()).unwrap();
    let mut formulas = Vec::new();
    for table in ["domain", "requirements"] {
        for item in doc[table].as_array().unwrap() {
            if let Some(f) = item.get("formula").and_then(|f| f.as_str()) {
                formulas.push(f.to_string());
            }
        }
    }
    assert!(formulas.len() >= 30, "{}", formulas.len());
    let g = Grammar::formula(&hemodialysis());
    let missed: Vec<&String> = formulas.iter().filter(|f| !g.matches(f)).collect();
    assert!(missed.is_empty(), "not derivable: {missed:#?}");
    // And as vera prints them (canonical form: decimals for Real literals).
    let spec = hemodialysis();
    for r in spec.formalized() {
        let printed = logic::print::term(r.formula.as_ref().unwrap());
        assert!(g.matches(&printed), "{printed}");
    }
    let g = Grammar::formula(&int_spec());
    for f in [
        "(=> (>= count limit) full)",
        "(=> (= level High) (<= (+ count (* 2 limit)) (- 10)))",
        "(ite full (= level Low) (distinct level High))",
        "(< (* (- 3) count) 4)",
    ] {
        assert!(g.matches(f), "{f}");
    }
}

#[test]
fn what_the_grammar_cannot_derive() {
    let g = Grammar::formula(&hemodialysis());
    for bad in [
        // prose, fences, infix, two terms, whitespace the grammar does not allow
        "The formula is (> dialysate_temp 41.0)",
        "```smt2\n(> dialysate_temp 41.0)\n```",
        "(dialysate_temp > 41.0)",
        "dialysate_temp > 41.0",
        "(> dialysate_temp 41.0) (< dialysate_temp 33.0)",
        "(assert (> dialysate_temp 41.0))",
        "(>  dialysate_temp 41.0)",
        "(> dialysate_temp 41.0)\n",
        // unknown symbols, sort errors, arity errors
        "(> temperature 41.0)",
        "(> dialysate_temp Therapy)",
        "(= phase 3)",
        "(and alarm_temp (> dialysate_temp))",
        "(and alarm_temp)",
        "(not alarm_temp bypass_valve_open)",
        "(=> alarm_temp)",
        "(+ alarm_temp 1)",
        "(= phase alarm_temp)",
        "dialysate_temp",
        "Therapy",
        // non-linear in a linear logic; constructs outside the grammar
        "(> (* dialysate_temp conductivity) 3.0)",
        "(let ((x dialysate_temp)) (> x 3.0))",
        "(forall ((x Real)) (> x 3.0))",
        "true",
        // numbers too long to be anything but a runaway
        "(> dialysate_temp 1234567890123)",
        "(> dialysate_temp 41.1234567)",
    ] {
        assert!(!g.matches(bad), "derivable: {bad:?}");
    }
    // Nesting deeper than the bound.
    let mut deep = "alarm_temp".to_string();
    for _ in 0..DEFAULT_DEPTH {
        deep = format!("(not {deep})");
    }
    assert!(g.matches(&deep), "{deep}");
    assert!(!g.matches(&format!("(not {deep})")));
    // Too many arguments.
    let args = |n: u32| vec!["alarm_temp"; n as usize].join(" ");
    assert!(g.matches(&format!("(and {})", args(MAX_ARGS))));
    assert!(!g.matches(&format!("(and {})", args(MAX_ARGS + 1))));
    // Decimals only with a Real variable; enumeration values only of used enumerations.
    let g = Grammar::formula(&int_spec());
    assert!(!g.matches("(> count 1.5)"));
    assert!(!g.matches("(=> full (= level Uses))"));
    assert!(!g.matches("(> (/ count 2) 1)"));
}

#[test]
fn every_derivable_answer_parses_and_is_well_sorted() {
    // Random derivations: each must be accepted by the same parser the answers go
    // through (no undeclared symbol, no sort or arity error, no non-linear product).
    for (name, spec) in [
        ("hemodialysis", hemodialysis()),
        ("counter", int_spec()),
        ("toy", common::spec()),
    ] {
        let g = Grammar::formula(&spec);
        let mut sizes = Vec::new();
        for seed in 0..400u64 {
            let text = g.sample(seed);
            assert!(
                g.matches(&text),
                "{name} seed {seed}: sampled but not matched: {text}"
            );
            if let Err(e) = parse_answer(&spec, &text) {
                panic!("{name} seed {seed}: {text}\n{e}");
            }
            sizes.push(text.len());
        }
        // Not all atoms: the samples exercise compound terms.
        assert!(
            sizes.iter().filter(|&&n| n > 40).count() > 100,
            "{name}: {sizes:?}"
        );
    }
}

/// A scripted provider that plays llama.cpp's server (accepts grammars) or not, and
/// keeps every request it receives.
fn scripted(
    accepts: bool,
    answer: impl Fn(&Request) -> String + Send + Sync + 'static,
) -> (Client, Arc<Mutex<Vec<Request>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let p = Scripted::from_fn(move |r, _| {
        s2.lock().unwrap().push(r.clone());
        Ok(Response::text(answer(r)))
    })
    .with_grammar(accepts);
    let c = Client::builder(p)
        .cache(Cache::in_memory().unwrap())
        .concurrency(1)
        .build();
    (c, seen)
}

#[test]
fn formalize_sends_the_grammar_and_a_token_cap_on_every_turn() {
    let spec = common::spec();
    let gbnf = Grammar::formula(&spec).gbnf();
    // First answer unusable (undeclared symbol), the repair is accepted.
    let (c, seen) = scripted(true, |r| {
        if r.messages.len() == 1 {
            "(> temperature 40)".into()
        } else {
            "(=> (> temp 45) alarm)".into()
        }
    });
    let mut reformalize = common::spec();
    for r in &mut reformalize.requirements {
        r.formula = None;
    }
    let options = FormalizeOptions {
        forms: false,
        only: Some(vec!["R1".into()]),
        ..FormalizeOptions::default()
    };
    let report = formalize(&reformalize, &c, &common::z3(), &options).unwrap();
    assert_eq!(report.requirements[0].attempts.len(), 2, "{report:#?}");
    assert!(report.failed.is_empty());
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    for r in &seen {
        assert_eq!(r.grammar.as_deref(), Some(gbnf.as_str()));
        assert_eq!(r.max_tokens, Some(DEFAULT_MAX_TOKENS));
    }
    // The grammar is part of the key where it is sent.
    let mut without = seen[0].clone();
    without.grammar = None;
    assert_ne!(c.key(&seen[0]), c.key(&without));

    // A provider without grammar support: same loop, no grammar, same cap; the keys
    // are those of requests that never had one.
    let (c, seen) = scripted(false, |r| {
        if r.messages.len() == 1 {
            "(> temperature 40)".into()
        } else {
            "(=> (> temp 45) alarm)".into()
        }
    });
    let report = formalize(&reformalize, &c, &common::z3(), &options).unwrap();
    assert!(report.failed.is_empty());
    for r in seen.lock().unwrap().iter() {
        assert_eq!(r.grammar, None);
        assert_eq!(r.max_tokens, Some(DEFAULT_MAX_TOKENS));
    }

    // Grammar turned off in the options, or batch mode (JSON answers): none sent.
    let (c, seen) = scripted(true, |_| "(=> (> temp 45) alarm)".into());
    let off = FormalizeOptions {
        forms: false,
        grammar: false,
        max_tokens: Some(100),
        ..options.clone()
    };
    formalize(&reformalize, &c, &common::z3(), &off).unwrap();
    let r = &seen.lock().unwrap()[0];
    assert_eq!((r.grammar.as_deref(), r.max_tokens), (None, Some(100)));
}

#[test]
fn ambiguity_and_round_trip_send_the_grammar() {
    let spec = common::spec();
    let gbnf = Grammar::formula(&spec).gbnf();
    let (c, seen) = scripted(true, |_| "(=> (> temp 40) alarm)".into());
    let options = pipeline::ambiguity::AmbiguityOptions {
        samples: 2,
        ..Default::default()
    };
    let items = vec![("R1".to_string(), spec.requirements[0].text.clone())];
    let universe = reqs::equiv::Universe::of_spec(&spec);
    let mut checker = reqs::equiv::Checker::new(&universe, &common::z3()).unwrap();
    pipeline::ambiguity::screen_texts(&spec, &c, &mut checker, &items, &[], &options).unwrap();
    let seen_now = seen.lock().unwrap().clone();
    assert_eq!(seen_now.len(), 2);
    assert!(seen_now
        .iter()
        .all(|r| r.grammar.as_deref() == Some(gbnf.as_str())));

    // Round trip: the description is prose (no grammar), the formalization gets it.
    let (c, seen) = scripted(true, |r| {
        if r.grammar.is_some() {
            "(=> (> temp 40) alarm)".into()
        } else {
            "If the temperature is above 40 degC, the alarm is raised.".into()
        }
    });
    let options = pipeline::roundtrip::RoundTripOptions {
        selection: pipeline::select::Selection {
            only: Some(vec!["R1".into()]),
            limit: None,
        },
        ..Default::default()
    };
    let report = pipeline::roundtrip::run(&spec, &c, &common::z3(), &options).unwrap();
    assert!(
        report.trips[0].reformalized.is_some(),
        "{:#?}",
        report.trips
    );
    let seen = seen.lock().unwrap().clone();
    assert!(seen.iter().any(|r| r.grammar.is_none()));
    assert!(seen
        .iter()
        .filter(|r| r.grammar.is_some())
        .all(|r| r.grammar.as_deref() == Some(gbnf.as_str())));
    assert!(seen.iter().any(|r| r.grammar.is_some()));
}
