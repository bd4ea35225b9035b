//! Cases where a harness, a default or a cache could report "proved" without
//! Frama-C/WP proving it. Every test runs the real Frama-C (scripts/setup).

use std::path::{Path, PathBuf};
use std::process::Command;

use acsl::*;

fn c_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c/soundness")
        .join(name)
}

/// A fresh result cache and a shared Why3 configuration.
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

/// Goals of a direct whole-file `frama-c -wp -wp-rte` run: (name, valid?).
fn whole_file(file: &Path, cfg: &WpConfig) -> Vec<(String, bool)> {
    let s = detect(cfg).unwrap();
    let out = Command::new("frama-c")
        .args(["-wp", "-wp-rte", "-wp-prover", &cfg.prover, "-wp-timeout"])
        .arg(cfg.timeout.to_string())
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
            Some(match g.split_once(" : ") {
                Some((name, status)) => (name.trim().to_string(), status.starts_with("Valid")),
                None => (g.trim().to_string(), false),
            })
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

fn segment_of<'a>(r: &'a VerifyReport, function: &str) -> &'a SegmentReport {
    r.segments
        .iter()
        .find(|s| s.functions == vec![function.to_string()])
        .unwrap_or_else(|| panic!("no segment for {function}"))
}

fn goal_valid(s: &SegmentReport, name: &str) -> bool {
    let g = s
        .run
        .goals
        .iter()
        .find(|g| g.name == name)
        .unwrap_or_else(|| panic!("no goal {name} in {:?}", s.run.goals));
    g.status == GoalStatus::Valid
}

#[test]
fn callee_without_contract_does_not_prove_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let p = c_file("callee_no_contract.c");
    let direct = whole_file(&p, &cfg);
    assert_eq!(direct, vec![("typed_f_ensures".to_string(), false)]);
    let r = verify(&p, &cfg).unwrap();
    assert!(!r.verdict.is_proved(), "{:?}", r.verdict);
    let f = segment_of(&r, "f");
    assert!(!f.run.verdict.is_proved(), "{:?}", f.run.verdict);
    assert!(!goal_valid(f, "typed_f_ensures"));
    // The report says how the callee was used.
    assert_eq!(f.with_body, vec!["set".to_string()]);
    assert!(f.assumed.is_empty());
    // Only f is verified in its harness, although set's body is in it.
    assert!(f
        .run
        .goals
        .iter()
        .all(|g| g.function.as_deref() == Some("f")));
}

#[test]
fn callees_without_assigns_keep_their_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let p = c_file("callee_kinds.c");
    let direct = whole_file(&p, &cfg);
    let r = verify(&p, &cfg).unwrap();
    // Per function, the segments agree with the whole file on every goal.
    for f in ["f", "f2", "f3"] {
        let s = segment_of(&r, f);
        let mut ours: Vec<(String, bool)> = s
            .run
            .goals
            .iter()
            .map(|g| (g.name.clone(), g.status == GoalStatus::Valid))
            .collect();
        ours.sort();
        let theirs: Vec<(String, bool)> = direct
            .iter()
            .filter(|(n, _)| n.starts_with(&format!("typed_{f}_")))
            .cloned()
            .collect();
        assert_eq!(ours, theirs, "{f}");
    }
    assert!(!goal_valid(segment_of(&r, "f"), "typed_f_ensures"));
    assert!(!goal_valid(segment_of(&r, "f2"), "typed_f2_ensures"));
    assert!(goal_valid(segment_of(&r, "f3"), "typed_f3_ensures"));
    assert_eq!(segment_of(&r, "f").with_body, vec!["set".to_string()]);
    assert_eq!(segment_of(&r, "f2").with_body, vec!["set_spec".to_string()]);
    assert!(segment_of(&r, "f2").assumed.is_empty());
    assert!(segment_of(&r, "f3").with_body.is_empty());
    assert_eq!(segment_of(&r, "f3").assumed, vec!["reset".to_string()]);
    // The harness keeps set_spec whole and reduces reset to its contract.
    let file = parse_c(&p).unwrap();
    let segs = function_segments(&file);
    let s2 = segs.iter().find(|s| s.functions == ["f2"]).unwrap();
    let h = harness(&file, s2);
    assert!(h.text.contains("void set_spec(void) {\n  g = 1;\n}"));
    assert!(h.text.contains("void reset(void) ;"));
    assert_eq!(h.text.lines().count(), file.text.lines().count());
}

#[test]
fn contradictory_preconditions_are_not_proved_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let p = c_file("vacuous.c");
    let r = verify(&p, &cfg).unwrap();
    match &r.verdict {
        Verdict::Inconsistent {
            failed_smoke_tests, ..
        } => assert!(
            failed_smoke_tests
                .iter()
                .any(|t| t == "typed_f_wp_smoke_default_requires"),
            "{failed_smoke_tests:?}"
        ),
        v => panic!("{v:?}"),
    }
    // Without smoke tests WP proves the false postcondition: the opt-out is
    // explicit.
    let plain = WpConfig {
        smoke_tests: false,
        ..cfg
    };
    assert!(verify(&p, &plain).unwrap().verdict.is_proved());
}

#[test]
fn a_longer_timeout_does_not_reuse_answers_of_a_shorter_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/bad/hard_goal.c");
    let short = WpConfig {
        timeout: 1,
        ..config(dir.path())
    };
    let first = verify(&p, &short).unwrap();
    assert!(!first.verdict.is_proved(), "{:?}", first.verdict);
    assert_eq!(first.stats.verifier_calls, 1);
    let open: Vec<&Goal> = first.segments[0]
        .run
        .goals
        .iter()
        .filter(|g| g.status != GoalStatus::Valid)
        .collect();
    assert!(!open.is_empty());
    // The same run again is answered from the cache.
    let again = verify(&p, &short).unwrap();
    assert_eq!((again.stats.verifier_calls, again.stats.cache_hits), (0, 1));
    // A longer timeout: a new run, and no open goal answered from the answers
    // given under the shorter timeout.
    let long = WpConfig {
        timeout: 2,
        ..short.clone()
    };
    let second = verify(&p, &long).unwrap();
    assert_eq!(second.stats.cache_hits, 0);
    assert_eq!(second.stats.verifier_calls, 1);
    for g in second.segments[0]
        .run
        .goals
        .iter()
        .filter(|g| g.status != GoalStatus::Valid)
    {
        assert!(
            !g.cached,
            "{} reused an answer of the 1 s run: {g:?}",
            g.name
        );
    }
}

#[test]
fn renumbered_unprovable_guards_do_not_kill_mutants() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = WpConfig {
        timeout: 1,
        ..config(dir.path())
    };
    let opts = StrengthOptions {
        operators: vec![Operator::StatementDeletion],
        ..StrengthOptions::default()
    };
    let r = strength(&c_file("renumbered_rte.c"), &cfg, &opts).unwrap();
    assert!(
        matches!(r.baseline, Verdict::NotProved { unproved: 1, .. }),
        "{:?}",
        r.baseline
    );
    let deleted = r
        .mutants
        .iter()
        .find(|m| m.mutant.original == "a = n + 1;")
        .unwrap();
    assert_eq!(deleted.fate, Fate::Survived, "{deleted:?}");
    // The report says what the original leaves open, by property and by goal.
    assert_eq!(r.baseline_open.len(), 1, "{:?}", r.baseline_open);
    let open = &r.baseline_open[0];
    assert_eq!(
        (open.function.as_str(), open.kind.as_str(), open.line),
        ("f", "signed_overflow", 11)
    );
    assert!(open.text.starts_with("k + 1"), "{}", open.text);
    assert_eq!(
        r.baseline_unproved_goals,
        vec!["typed_f_assert_rte_signed_overflow_2".to_string()]
    );
}
