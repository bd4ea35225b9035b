//! Frama-C/WP: setup detection, verify against a direct Frama-C run, insertion
//! then verification, bad inputs, the cache, and specification strength.
//! These tests need frama-c, why3, z3 and cvc5 (scripts/setup installs them).

use std::path::{Path, PathBuf};
use std::process::Command;

use acsl::*;

fn c_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c")
}

/// A configuration with a fresh result cache and a shared Why3 configuration.
fn config(cache: &Path) -> WpConfig {
    WpConfig {
        timeout: 5,
        par: 2,
        jobs: 2,
        cache_dir: Some(cache.to_path_buf()),
        why3_config: Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("acsl-why3.conf")),
        ..WpConfig::default()
    }
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

#[test]
fn setup_is_detected_and_explained() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let s = detect(&cfg).unwrap();
    assert!(s.frama_c_version.contains("25") || !s.frama_c_version.is_empty());
    assert!(s.provers.iter().any(|p| p.alias == "z3"));
    assert!(s.provers.iter().any(|p| p.alias == "cvc5"));
    let conf = std::fs::read_to_string(&s.why3_config).unwrap();
    assert!(
        !conf.contains("/shims/"),
        "provers must not run through a shim"
    );

    let missing = WpConfig {
        frama_c: "/nonexistent/frama-c".into(),
        ..cfg.clone()
    };
    let e = detect(&missing).unwrap_err();
    assert!(matches!(e, WpError::FramaCMissing { .. }), "{e}");
    assert!(e.to_string().contains("scripts/setup"));

    let no_prover = WpConfig {
        prover: "alt-ergo".into(),
        ..cfg.clone()
    };
    match detect(&no_prover).unwrap_err() {
        WpError::ProverMissing {
            prover, available, ..
        } => {
            assert_eq!(prover, "alt-ergo");
            assert!(available.contains(&"z3".to_string()));
        }
        e => panic!("{e}"),
    }
}

/// Goal lines of a direct `frama-c` run: (goal name, valid?).
fn direct_run(file: &Path, cfg: &WpConfig) -> Vec<(String, bool)> {
    let s = detect(cfg).unwrap();
    let out = Command::new("frama-c")
        .args([
            "-wp",
            "-wp-rte",
            "-wp-prover",
            &cfg.prover,
            "-wp-timeout",
            "5",
            "-wp-par",
            "2",
        ])
        .arg(file)
        .env("WHY3CONFIG", &s.why3_config)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v: Vec<(String, bool)> = text
        .lines()
        .filter_map(|l| {
            let g = l.strip_prefix("[wp] ")?.split("Goal ").nth(1)?;
            match g.split_once(" : ") {
                Some((name, status)) => {
                    Some((name.trim().to_string(), status.starts_with("Valid")))
                }
                None => Some((g.trim().to_string(), false)),
            }
        })
        .collect();
    v.sort();
    v
}

#[test]
fn verify_agrees_with_a_direct_frama_c_run() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    for name in ["linear_search.c", "min_of_three.c"] {
        let p = c_dir().join(name);
        let r = verify(&p, &cfg).unwrap();
        let mut ours: Vec<(String, bool)> = r
            .segments
            .iter()
            .flat_map(|s| {
                s.run
                    .goals
                    .iter()
                    .map(|g| (g.name.clone(), g.status == GoalStatus::Valid))
            })
            .collect();
        ours.sort();
        let direct = direct_run(&p, &cfg);
        assert_eq!(ours, direct, "{name}");
        assert!(r.verdict.is_proved(), "{name}: {:?}", r.verdict);
        assert_eq!(r.goals, direct.len());
        // Per-annotation results carry lines of the original file.
        let props: Vec<&Property> = r.segments.iter().flat_map(|s| &s.run.properties).collect();
        assert!(props
            .iter()
            .any(|p| p.kind == "postcondition" && p.status.is_valid()));
        assert!(props.iter().any(|p| p.kind == "loop invariant") || name == "min_of_three.c");
        if name == "linear_search.c" {
            let found = props.iter().find(|p| p.text.starts_with("found:")).unwrap();
            assert_eq!(found.line, 5);
            assert!(!found.goals.is_empty(), "labelled clauses name their goals");
            let g = r.segments[0]
                .run
                .goals
                .iter()
                .find(|g| g.name.contains("rte_mem_access"))
                .unwrap();
            assert!(g.prover.is_some());
        }
    }
}

#[test]
fn whole_corpus_verifies_then_comes_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let files = corpus();
    let mut calls = 0;
    for p in &files {
        let r = verify(p, &cfg).unwrap();
        assert!(r.verdict.is_proved(), "{}: {:?}", p.display(), r.verdict);
        assert!(r.functions_without_goals.is_empty());
        calls += r.stats.verifier_calls;
    }
    assert!(calls >= files.len());
    for p in &files {
        let r = verify(p, &cfg).unwrap();
        assert_eq!(r.stats.verifier_calls, 0, "{}", p.display());
        assert_eq!(r.stats.cache_hits, r.segments.len());
        assert!(r.verdict.is_proved());
    }
}

#[test]
fn inserted_annotations_are_verified() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let f = parse_c(&c_dir().join("abs_weak.c")).unwrap();
    let seg = &function_segments(&f)[0];
    let poi = &points_of_interest(&f, seg)[0];
    let good = annotate_poi(
        &f,
        poi,
        &["ensures extra: \\result == x || \\result == -x".into()],
    )
    .unwrap();
    assert_eq!(good.strip(), f.text);
    let g = parse_c(good.text.as_str()).unwrap();
    let r = verify_file(&g, &cfg).unwrap();
    assert!(r.verdict.is_proved(), "{:?}", r.verdict);
    let bad = annotate_poi(&f, poi, &["ensures wrong: \\result == x".into()]).unwrap();
    let b = parse_c(bad.text.as_str()).unwrap();
    let r = verify_file(&b, &cfg).unwrap();
    match r.verdict {
        Verdict::NotProved { unproved, .. } => assert_eq!(unproved, 1),
        v => panic!("{v:?}"),
    }
    let failing: Vec<&Goal> = r.segments[0]
        .run
        .goals
        .iter()
        .filter(|g| g.status != GoalStatus::Valid)
        .collect();
    assert_eq!(failing.len(), 1);
    assert!(
        failing[0].name.ends_with("ensures_wrong"),
        "{}",
        failing[0].name
    );
    let prop = r.segments[0]
        .run
        .properties
        .iter()
        .find(|p| p.text.starts_with("wrong:"))
        .unwrap();
    assert!(!prop.status.is_valid());
}

#[test]
fn bad_inputs_are_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let bad = c_dir().join("bad");
    match verify(&bad.join("not_parse.c"), &cfg).unwrap_err() {
        WpError::Parse(d) => assert!(!d.items.is_empty()),
        e => panic!("{e}"),
    }
    match verify(&bad.join("framac_rejects.c"), &cfg).unwrap_err() {
        WpError::FramaC { messages, .. } => {
            assert!(
                messages
                    .iter()
                    .any(|m| m.contains('y') && m.contains("framac_rejects.c")),
                "{messages:?}"
            )
        }
        e => panic!("{e}"),
    }
    let r = verify(&bad.join("no_goals.c"), &cfg).unwrap();
    assert_eq!(r.verdict, Verdict::NoGoals, "zero goals is not success");
    assert_eq!(r.functions_without_goals, vec!["nothing".to_string()]);

    let quick = WpConfig {
        timeout: 1,
        prover: "z3".into(),
        ..cfg.clone()
    };
    let r = verify(&bad.join("hard_goal.c"), &quick).unwrap();
    assert!(
        matches!(r.verdict, Verdict::NotProved { .. }),
        "{:?}",
        r.verdict
    );
    let g = r.segments[0]
        .run
        .goals
        .iter()
        .find(|g| g.name.ends_with("_ensures"))
        .unwrap();
    assert!(
        matches!(
            g.status,
            GoalStatus::Timeout | GoalStatus::Failed | GoalStatus::Unknown
        ),
        "{:?}",
        g.status
    );

    // Without smoke tests the vacuous contract looks proved; with them (the
    // default) it is not.
    let plain = WpConfig {
        smoke_tests: false,
        ..cfg.clone()
    };
    let plain = verify(&bad.join("inconsistent.c"), &plain).unwrap();
    assert!(plain.verdict.is_proved());
    let r = verify(&bad.join("inconsistent.c"), &cfg).unwrap();
    match &r.verdict {
        Verdict::Inconsistent {
            failed_smoke_tests, ..
        } => assert!(!failed_smoke_tests.is_empty()),
        v => panic!("{v:?}"),
    }
}

#[test]
fn strong_specification_kills_more_mutants_than_weak() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = WpConfig {
        timeout: 1,
        ..config(dir.path())
    };
    let opts = StrengthOptions::default();
    let strong = strength(&c_dir().join("abs_strong.c"), &cfg, &opts).unwrap();
    let weak = strength(&c_dir().join("abs_weak.c"), &cfg, &opts).unwrap();
    assert!(strong.baseline.is_proved() && weak.baseline.is_proved());
    assert_eq!(strong.generated, weak.generated, "same code, same mutants");
    assert!(strong.killed + strong.survived > 0);
    let (s, w) = (strong.vdr.unwrap(), weak.vdr.unwrap());
    assert!(s > w, "strong {s} <= weak {w}");
    assert!(weak
        .survivors()
        .all(|m| m.diff.contains("-") && m.diff.contains("+")));
    assert_eq!(
        strong.considered,
        strong.equivalent
            + strong.not_compiling
            + strong.rejected
            + strong.killed
            + strong.survived
    );
    // Again: everything from the caches.
    let again = strength(&c_dir().join("abs_strong.c"), &cfg, &opts).unwrap();
    assert_eq!(again.stats.verifier_calls, 0);
    assert_eq!(again.stats.compilations, 0);
    assert_eq!(again.vdr, strong.vdr);
}
