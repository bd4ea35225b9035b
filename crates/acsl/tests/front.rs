//! Front end, segments, points of interest, insertion, harnesses, mutants and TCE
//! (no Frama-C needed; TCE needs gcc and objcopy).

use std::path::{Path, PathBuf};

use acsl::*;

fn c_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c")
}

fn corpus() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(c_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

fn load(name: &str) -> CFile {
    parse_c(&c_dir().join(name)).unwrap()
}

#[test]
fn corpus_parses_with_contracts() {
    let files = corpus();
    assert!(files.len() >= 15, "only {} C files", files.len());
    for p in files {
        let f = parse_c(&p).unwrap_or_else(|d| panic!("{}: {d}", p.display()));
        assert!(f.functions().count() >= 1, "{}", p.display());
        for func in f.functions() {
            assert!(
                func.contract.is_some(),
                "{}: {} has no contract",
                p.display(),
                func.name
            );
            for l in &func.loops {
                assert!(
                    l.annotation.is_some(),
                    "{}: loop without annotation",
                    p.display()
                );
            }
        }
    }
}

#[test]
fn calls_give_topological_order() {
    let f = load("min_of_three.c");
    let segs = segments(&f);
    let pos = |name: &str| {
        segs.iter()
            .position(|s| s.functions.iter().any(|x| x == name))
            .unwrap()
    };
    assert!(pos("min2") < pos("min3"));
    let s3 = &segs[pos("min3")];
    assert_eq!(s3.called, vec!["min2".to_string()]);
    assert!(s3.depends_on.contains(&segs[pos("min2")].index));
    assert!(!s3.recursive);
}

#[test]
fn mutual_recursion_is_one_segment() {
    let f = load("even_odd.c");
    let segs = function_segments(&f);
    assert_eq!(segs.len(), 1);
    assert_eq!(
        segs[0].functions,
        vec!["is_even".to_string(), "is_odd".to_string()]
    );
    assert!(segs[0].recursive);
    let f = load("factorial.c");
    let segs = function_segments(&f);
    assert_eq!(segs.len(), 1);
    assert!(segs[0].recursive, "a self-call is recursion");
}

#[test]
fn type_references_are_dependencies() {
    let f = load("point.c");
    let segs = segments(&f);
    let ty = segs
        .iter()
        .position(|s| s.others.iter().any(|o| o == "struct point"))
        .unwrap();
    let td = segs
        .iter()
        .position(|s| s.others.iter().any(|o| o == "point_t"))
        .unwrap();
    let tr = segs
        .iter()
        .position(|s| s.functions == vec!["translate".to_string()])
        .unwrap();
    assert!(ty < td && td < tr);
    assert!(segs[tr].depends_on.contains(&td));
    assert!(segs[td].depends_on.contains(&ty));
    // The global counter is a dependency too.
    let f = load("sum_upto.c");
    let segs = segments(&f);
    let g = segs
        .iter()
        .position(|s| s.others == vec!["calls".to_string()])
        .unwrap();
    let s = segs
        .iter()
        .position(|s| s.functions == vec!["sum_upto".to_string()])
        .unwrap();
    assert!(g < s && segs[s].depends_on.contains(&g));
}

#[test]
fn points_of_interest_in_post_order() {
    let f = load("has_duplicate.c");
    let seg = &function_segments(&f)[0];
    let pois = points_of_interest(&f, seg);
    assert_eq!(pois.len(), 3);
    let func = f.function("has_duplicate").unwrap();
    // Inner loop first, then the outer loop, then the contract.
    assert_eq!(pois[0].kind, PoiKind::Loop { index: 0 });
    assert_eq!(func.loops[0].depth, 1);
    assert_eq!(func.loops[0].parent, Some(1));
    assert_eq!(pois[1].kind, PoiKind::Loop { index: 1 });
    assert_eq!(func.loops[1].depth, 0);
    assert_eq!(pois[2].kind, PoiKind::Contract);
    assert!(pois[0].line > pois[1].line && pois[1].line > pois[2].line);
    assert!(pois.iter().all(|p| p.existing.is_some()));
}

#[test]
fn insertion_keeps_every_original_byte() {
    for p in corpus() {
        let f = parse_c(&p).unwrap();
        for seg in function_segments(&f) {
            for poi in points_of_interest(&f, &seg) {
                let clauses = match poi.kind {
                    PoiKind::Contract => {
                        vec!["requires \\true".to_string(), "ensures \\true;".to_string()]
                    }
                    PoiKind::Loop { .. } => vec!["loop invariant \\true".to_string()],
                };
                let a = annotate_poi(&f, &poi, &clauses).unwrap();
                assert_eq!(a.strip(), f.text, "{}", p.display());
                assert!(a.text.len() > f.text.len());
                // Still C, with the same functions.
                let g = parse_c(a.text.as_str()).unwrap();
                assert_eq!(g.functions().count(), f.functions().count());
            }
        }
    }
}

#[test]
fn insertion_without_existing_annotation() {
    let src = "int twice(int x) {\n  int s = 0;\n  for (int i = 0; i < 2; i++)\n    s += x;\n  return s;\n}\n";
    let f = parse_c(src).unwrap();
    let seg = &function_segments(&f)[0];
    let pois = points_of_interest(&f, seg);
    let a = annotate_poi(
        &f,
        &pois[0],
        &[
            "loop invariant 0 <= i <= 2".into(),
            "loop assigns i, s".into(),
        ],
    )
    .unwrap();
    assert!(a
        .text
        .contains("  /*@ loop invariant 0 <= i <= 2;\n      loop assigns i, s; */\n  for"));
    assert_eq!(a.strip(), src);
    let b = annotate_poi(&f, &pois[1], &["ensures \\result == 2 * x".into()]).unwrap();
    assert!(b
        .text
        .starts_with("/*@ ensures \\result == 2 * x; */\nint twice"));
    assert_eq!(b.strip(), src);
    // Several insertions at once.
    let mut ins =
        acsl::annotate::insertions_for(&f, &pois[0], &["loop invariant 0 <= i".into()]).unwrap();
    ins.extend(
        acsl::annotate::insertions_for(&f, &pois[1], &["requires x < 1000".into()]).unwrap(),
    );
    let c = insert(src, &ins).unwrap();
    assert_eq!(c.strip(), src);
    assert!(annotate_poi(&f, &pois[1], &["ensures x */ y".into()]).is_err());
}

#[test]
fn harness_keeps_lines_and_assumes_contracts() {
    let f = load("min_of_three.c");
    let segs = function_segments(&f);
    let s3 = segs
        .iter()
        .find(|s| s.functions == vec!["min3".to_string()])
        .unwrap();
    let h = harness(&f, s3);
    assert_eq!(h.assumed, vec!["min2".to_string()]);
    assert_eq!(h.text.lines().count(), f.text.lines().count());
    // min2 keeps its contract but loses its body; min3 is whole.
    assert!(h.text.contains("int min2(int a, int b) ;"));
    assert!(!h.text.contains("return a < b ? a : b;"));
    assert!(h.text.contains("ensures \\result <= a && \\result <= b;"));
    let orig: Vec<&str> = f.text.lines().collect();
    let min3 = f.function("min3").unwrap();
    let first = min3.full_span().line;
    for (i, l) in h.text.lines().enumerate().skip(first - 1) {
        assert_eq!(l, orig[i]);
    }
    let s2 = segs
        .iter()
        .find(|s| s.functions == vec!["min2".to_string()])
        .unwrap();
    let h2 = harness(&f, s2);
    // min3 is not a dependency of min2: its contract goes, its prototype stays.
    assert!(!h2.text.contains("\\result <= c"));
    assert!(h2.text.contains("int min3(int a, int b, int c) ;"));
}

#[test]
fn syntax_errors_are_diagnostics() {
    let d = parse_c(&c_dir().join("bad/not_parse.c")).unwrap_err();
    assert!(!d.items.is_empty());
    let shown = d.to_string();
    assert!(shown.contains("not_parse.c:"), "{shown}");
    assert!(
        d.items.iter().all(|i| i.line >= 2 && i.line <= 6),
        "{shown}"
    );
    assert!(parse_c(Path::new("/nonexistent/x.c")).is_err());
    assert!(parse_c("int f( {").is_err());
    // Arbitrary bytes do not panic.
    let _ = parse_c("\u{0}\u{1}}}}{{{ /*@ */ #define");
}

#[test]
fn mutants_cover_the_operators() {
    let f = load("linear_search.c");
    let ms = mutants(&f, None, &Operator::ALL);
    let ops: std::collections::BTreeSet<Operator> = ms.iter().map(|m| m.operator).collect();
    for op in [
        Operator::Relational,
        Operator::Assignment,
        Operator::ConstantPlusOne,
        Operator::ConstantMinusOne,
        Operator::ConditionNegation,
        Operator::ReturnValue,
        Operator::LoopBound,
    ] {
        assert!(ops.contains(&op), "{op:?} missing");
    }
    let f2 = load("divide.c");
    let ms2 = mutants(&f2, None, &Operator::ALL);
    assert!(ms2
        .iter()
        .any(|m| m.operator == Operator::StatementDeletion));
    assert!(ms2
        .iter()
        .any(|m| m.operator == Operator::Arithmetic || m.operator == Operator::Assignment));
    let f3 = load("has_duplicate.c");
    let _ = mutants(&f3, None, &Operator::ALL);
    let f4 = load("point.c");
    assert!(mutants(&f4, None, &[Operator::Logical])
        .iter()
        .any(|m| m.replacement == "||"));
    for m in &ms {
        let t = m.apply(&f.text);
        assert_eq!(&t[..m.start], &f.text[..m.start]);
        assert_eq!(&t[m.start + m.replacement.len()..], &f.text[m.end..]);
        assert!(m.diff(&f.text).contains('+'));
    }
    let only = mutants(&f2, Some(&["nonexistent".to_string()]), &Operator::ALL);
    assert!(only.is_empty());
}

#[test]
fn tce_decides_the_classic_pairs() {
    let cfg = TceConfig::default();
    let a = "int f(int x) { return x * 2; }\n";
    let b = "int f(int x) { return x + x; }\n";
    let c = "int f(int x) { return x + 1; }\n";
    assert_eq!(
        acsl::tce::equivalent(a, b, &cfg).unwrap(),
        Equivalence::Equivalent
    );
    assert_eq!(
        acsl::tce::equivalent(a, c, &cfg).unwrap(),
        Equivalence::Different
    );
    // Comments (ACSL included) do not change the object.
    let d = "/*@ ensures \\result == 2*x; */\nint f(int x) { return x * 2; }\n";
    assert_eq!(
        acsl::tce::equivalent(a, d, &cfg).unwrap(),
        Equivalence::Equivalent
    );
    // A different string literal is a different object even with the same code.
    let s1 = "const char *g(void) { return \"a\"; }\n";
    let s2 = "const char *g(void) { return \"b\"; }\n";
    assert_eq!(
        acsl::tce::equivalent(s1, s2, &cfg).unwrap(),
        Equivalence::Different
    );
    assert_eq!(
        acsl::tce::equivalent(a, "int f( {", &cfg).unwrap(),
        Equivalence::DoesNotCompile
    );
    // The compilation cache answers the second time.
    let dir = tempfile::tempdir().unwrap();
    let cached = TceConfig {
        cache_dir: Some(dir.path().into()),
        ..TceConfig::default()
    };
    let counters = acsl::tce::TceCounters::default();
    let x = acsl::tce::compile(a, &cached, &counters).unwrap();
    let y = acsl::tce::compile(a, &cached, &counters).unwrap();
    assert_eq!(x, y);
    assert_eq!(
        counters
            .cache_hits
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
}

#[test]
fn contracts_across_plain_comments_and_macro_invocations() {
    // A top-level macro invocation without a semicolon (the parser puts the next
    // comment inside it), a contract separated from its function by a plain
    // comment, a loop annotation followed by a comment.
    let text = "#define GETTER(n, v) int n(void) { return v; }\n\
GETTER(five, 5)\n\
\n\
/*@ ensures \\result == 1; */\n\
// one, always\n\
int one(void) {\n\
  int s = 0;\n\
  /*@ loop invariant 0 <= i <= 3;\n\
      loop assigns i, s; */\n\
  // three rounds\n\
  for (int i = 0; i < 3; i++) s = 1;\n\
  return 1;\n\
}\n";
    let f = parse_c(text).unwrap();
    let one = f.function("one").unwrap();
    let contract = one
        .contract
        .expect("the contract is attached across the comment");
    assert!(contract.text(&f.text).contains("ensures"));
    assert!(one.loops[0].annotation.is_some());
    // Nothing else became a function, and no stray logic item holds the contract.
    assert_eq!(f.functions().count(), 1);
    assert!(f.items.iter().all(|i| i.kind != ItemKind::Logic));
    // A real syntax error is still one.
    let bad = "GETTER(five, 5)\nint one(void) { return 1 }\n";
    let d = parse_c(bad).unwrap_err();
    assert_eq!(d.items[0].line, 2, "{d}");
}
