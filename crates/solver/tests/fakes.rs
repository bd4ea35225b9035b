//! The broken and lying solvers of tests/fixtures (see its README), each driven
//! through both drivers: the solver layer must answer with an error or unknown,
//! never with a validated sat or unsat that is false.

use logic::{Op, Sort, SourceFile, Term};
use solver::{Outcome, Reason, Solver, SolverConfig, SolverError, SolverKind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn config(kind: SolverKind, program: &Path) -> SolverConfig {
    let mut c = SolverConfig::new(kind);
    c.program = Some(program.to_path_buf());
    c.timeout = Duration::from_millis(500);
    c
}

/// For the Python wrappers around z3: starting Python and z3 on a loaded machine can
/// take longer than the short watchdog of `config`.
fn wrapper_config(kind: SolverKind, program: &Path) -> SolverConfig {
    let mut c = config(kind, program);
    c.timeout = Duration::from_secs(5);
    c
}

/// A script in `dir` that runs `fixture` with the environment variable set, for
/// fixtures configured through the environment.
fn with_env(dir: &Path, fixture_name: &str, var: &str, value: &str) -> PathBuf {
    use std::io::Write;
    let path = dir.join(format!("{fixture_name}-{value}.sh"));
    let text = format!(
        "#!/bin/sh\n{var}={value} exec {} \"$@\"\n",
        fixture(fixture_name).display()
    );
    // Written by a child process: a file this process held open for writing could be
    // inherited by another test thread's fork and make its exec fail ("text file busy").
    let mut sh = std::process::Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod +x \"$1\"", "sh"])
        .arg(&path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    sh.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    assert!(sh.wait().unwrap().success());
    path
}

fn f(s: &Solver, text: &str) -> Term {
    logic::parse_formula(&SourceFile::new("test", text), s.context())
        .unwrap_or_else(|d| panic!("{text}: {d}"))
}

macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod z3 {
            $( #[test] fn $name() { super::$name(solver::SolverKind::Z3) } )*
        }
        mod cvc5 {
            $( #[test] fn $name() { super::$name(solver::SolverKind::Cvc5) } )*
        }
    };
}

both!(
    exits_at_once_is_a_start_error,
    garbage_is_a_start_error,
    hang_is_a_start_error_within_the_watchdog,
    sat_to_everything_is_refused_at_start,
    unsat_to_everything_is_refused_at_start,
    wrong_version_is_refused,
    endless_answer_is_cut_off,
    empty_core_lie_is_refuted_by_evaluation,
    empty_core_lie_is_refuted_in_a_fresh_process,
    empty_core_lie_on_a_spec_with_guards_is_refuted,
    dropped_core_name_is_caught,
    core_naming_an_unasked_assumption_is_rejected,
    crash_after_n_commands_is_never_a_wrong_answer,
);

fn exits_at_once_is_a_start_error(kind: SolverKind) {
    match Solver::start(&config(kind, &fixture("exits-at-once.sh"))) {
        Err(SolverError::Died { detail, .. }) => assert!(detail.contains("status"), "{detail}"),
        Err(SolverError::Io(_)) => {}
        other => panic!("expected a start error, got {other:?}"),
    }
}

fn garbage_is_a_start_error(kind: SolverKind) {
    match Solver::start(&config(kind, &fixture("garbage.sh"))) {
        Err(SolverError::Protocol { got, .. }) => assert!(got.contains("Segmentation"), "{got}"),
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

fn hang_is_a_start_error_within_the_watchdog(kind: SolverKind) {
    let c = config(kind, &fixture("hang.sh"));
    let t = Instant::now();
    match Solver::start(&c) {
        Err(SolverError::Unresponsive { waited, .. }) => assert_eq!(waited, c.watchdog()),
        other => panic!("expected an unresponsive solver, got {other:?}"),
    }
    assert!(t.elapsed() < c.watchdog() + Duration::from_secs(1));
}

fn sat_to_everything_is_refused_at_start(kind: SolverKind) {
    match Solver::start(&config(kind, &fixture("sat-to-everything.sh"))) {
        Err(e @ SolverError::FailedProbe { .. }) => {
            let SolverError::FailedProbe {
                query,
                expected,
                got,
            } = &e
            else {
                unreachable!()
            };
            assert_eq!(query, "(check-sat-assuming (false))");
            assert_eq!((*expected, got.as_str()), ("unsat", "sat"));
            assert!(e.to_string().contains("trivially unsat"), "{e}");
        }
        other => panic!("expected a failed probe, got {other:?}"),
    }
}

fn unsat_to_everything_is_refused_at_start(kind: SolverKind) {
    match Solver::start(&config(kind, &fixture("unsat-to-everything.sh"))) {
        Err(SolverError::FailedProbe {
            query,
            expected,
            got,
        }) => {
            assert_eq!(query, "(check-sat)");
            assert_eq!((expected, got.as_str()), ("sat", "unsat"));
        }
        other => panic!("expected a failed probe, got {other:?}"),
    }
}

fn wrong_version_is_refused(kind: SolverKind) {
    match Solver::start(&config(kind, &fixture("wrong-version.sh"))) {
        Err(SolverError::Version { found, .. }) => assert_eq!(found, "0.1.0"),
        other => panic!("expected a version error, got {other:?}"),
    }
}

fn endless_answer_is_cut_off(kind: SolverKind) {
    let mut c = config(kind, &fixture("endless-answer.sh"));
    // Time enough to read 64 MiB on a loaded machine in a debug build.
    c.timeout = Duration::from_secs(10);
    let t = Instant::now();
    match Solver::start(&c) {
        Err(SolverError::Protocol { got, .. }) => assert!(got.contains("longer than"), "{got}"),
        other => panic!("expected a protocol error, got {other:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}

/// Starts the liar with a transcript in `dir`.
fn liar(kind: SolverKind, dir: &Path, name: &str) -> (Solver, PathBuf) {
    let mut c = wrapper_config(kind, &fixture(name));
    let t = dir.join("session.smt2");
    c.transcript = Some(t.clone());
    (Solver::start(&c).unwrap(), t)
}

fn expect_invalid_core(r: Result<Outcome, SolverError>, transcript: &Path) {
    match r {
        Err(SolverError::InvalidCore {
            core,
            transcript: t,
        }) => {
            assert!(core.is_empty(), "{core:?}");
            assert_eq!(t.as_deref(), Some(transcript));
        }
        other => panic!("expected an invalid core, got {other:?}"),
    }
}

fn empty_core_lie_is_refuted_by_evaluation(kind: SolverKind) {
    // The assertions hold with every constant at its default value, so vera's own
    // evaluator shows the empty core satisfiable without asking anyone.
    let dir = tempfile::tempdir().unwrap();
    let (mut s, t) = liar(kind, dir.path(), "lie-empty-core.py");
    s.declare_const("x", Sort::Int).unwrap();
    s.assert(&f(&s, "(< x 10)")).unwrap();
    expect_invalid_core(s.check_assuming(&[f(&s, "(> x 5)")]), &t);
    // Transcripts are renamed into place when the session ends.
    drop(s);
    let text = std::fs::read_to_string(&t).unwrap();
    assert!(text.contains("default values"), "{text}");
}

fn empty_core_lie_is_refuted_in_a_fresh_process(kind: SolverKind) {
    // No default value satisfies the assertions and there is no model yet: the
    // re-check in a second process (plain check-sat, which the liar answers
    // honestly) finds them satisfiable.
    let dir = tempfile::tempdir().unwrap();
    let (mut s, t) = liar(kind, dir.path(), "lie-empty-core.py");
    s.declare_const("x", Sort::Int).unwrap();
    s.assert(&f(&s, "(> x 5)")).unwrap();
    let e = s.check_assuming(&[f(&s, "(> x 7)")]).unwrap_err();
    assert!(e.to_string().contains("assertions alone"), "{e}");
    expect_invalid_core(Err(e), &t);
    // The session goes on; honest plain checks still work.
    assert!(s.check().unwrap().is_sat());
    // Transcripts (the re-check process's too) are renamed into place when they end.
    drop(s);
    assert!(dir.path().join("session.recheck.smt2").exists());
}

fn empty_core_lie_on_a_spec_with_guards_is_refuted(kind: SolverKind) {
    // The shape `vera ask` uses: every member behind an assumption literal, the
    // question asserted in a scope. The liar's empty core would claim the scenario
    // contradicts the assertions alone.
    let dir = tempfile::tempdir().unwrap();
    let (mut s, t) = liar(kind, dir.path(), "lie-empty-core.py");
    s.declare_const("flow", Sort::Int).unwrap();
    s.declare_const("alarm", Sort::Bool).unwrap();
    s.declare_const("g1", Sort::Bool).unwrap();
    let g1 = Term::var("g1", Sort::Bool);
    let member = f(&s, "(=> (> flow 500) alarm)");
    s.assert(&Term::app(Op::Implies, vec![g1.clone(), member]))
        .unwrap();
    s.push().unwrap();
    s.assert(&f(&s, "(and (> flow 600) (not alarm))")).unwrap();
    expect_invalid_core(s.check_assuming(&[g1]), &t);
}

fn dropped_core_name_is_caught(kind: SolverKind) {
    let dir = tempfile::tempdir().unwrap();
    let (mut s, t) = liar(kind, dir.path(), "wrong-core.py");
    s.declare_const("x", Sort::Int).unwrap();
    s.assert(&f(&s, "(> x 1)")).unwrap();
    let a = [f(&s, "(> x 5)"), f(&s, "(< x 3)")];
    // The true core is both; the fixture drops the first name. No default value
    // satisfies (> x 1), so it takes the re-check to find (< x 3) satisfiable.
    match s.check_assuming(&a) {
        Err(SolverError::InvalidCore { core, transcript }) => {
            assert_eq!(core, vec![a[1].clone()]);
            assert_eq!(transcript.as_deref(), Some(t.as_path()));
        }
        other => panic!("expected an invalid core, got {other:?}"),
    }
    // Evaluation catches it too once a model is known.
    assert!(s.check_assuming(&a[1..]).unwrap().is_sat());
    assert!(matches!(
        s.check_assuming(&a),
        Err(SolverError::InvalidCore { .. })
    ));
}

fn core_naming_an_unasked_assumption_is_rejected(kind: SolverKind) {
    let dir = tempfile::tempdir().unwrap();
    let program = with_env(dir.path(), "wrong-core.py", "VERA_FAKE_CORE", "replace");
    let mut s = Solver::start(&wrapper_config(kind, &program)).unwrap();
    s.declare_const("p", Sort::Bool).unwrap();
    s.declare_const("q", Sort::Bool).unwrap();
    s.declare_const("bogus", Sort::Bool).unwrap();
    s.assert(&f(&s, "(not (and p q))")).unwrap();
    let a = [f(&s, "p"), f(&s, "q")];
    match s.check_assuming(&a) {
        Err(SolverError::Protocol { expected, got }) => {
            assert!(expected.contains("assumptions"), "{expected}");
            assert_eq!(got, "bogus");
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

fn crash_after_n_commands_is_never_a_wrong_answer(kind: SolverKind) {
    // Crashes at every point of a short session: start, declarations, the check,
    // the model, the core and its re-check, and the restarts after them.
    let dir = tempfile::tempdir().unwrap();
    let mut crashed = 0;
    let mut errors = 0;
    for n in [8, 12, 16, 20] {
        let program = with_env(
            dir.path(),
            "crash-after-n.py",
            "VERA_FAKE_CRASH_AFTER",
            &n.to_string(),
        );
        let mut s = match Solver::start(&wrapper_config(kind, &program)) {
            Ok(s) => s,
            Err(SolverError::Died { .. }) => {
                errors += 1;
                continue;
            }
            Err(e) => panic!("n = {n}: unexpected start error {e}"),
        };
        let run = |s: &mut Solver| -> Result<Vec<Outcome>, SolverError> {
            s.declare_const("x", Sort::Int)?;
            s.assert(&f(s, "(> x 2)"))?;
            let sat = s.check()?;
            let unsat = s.check_assuming(&[f(s, "(< x 0)")])?;
            let again = s.check()?;
            Ok(vec![sat, unsat, again])
        };
        match run(&mut s) {
            Ok(outcomes) => {
                for (i, o) in outcomes.iter().enumerate() {
                    match (i, o) {
                        (_, Outcome::Unknown(Reason::Crashed(d))) => {
                            assert!(d.contains("simulated crash"), "{d}");
                            crashed += 1;
                        }
                        (0 | 2, Outcome::Sat(m)) => {
                            assert!(
                                matches!(m.get("x"), Some(logic::Value::Int(v)) if *v > 2.into())
                            )
                        }
                        (1, Outcome::Unsat(core)) => assert_eq!(core.len(), 1),
                        _ => panic!("n = {n}: wrong answer {i}: {o:?}"),
                    }
                }
            }
            Err(
                SolverError::Died { .. }
                | SolverError::UnconfirmedCore { .. }
                | SolverError::Protocol { .. },
            ) => errors += 1,
            Err(e) => panic!("n = {n}: unexpected error {e}"),
        }
    }
    assert!(
        crashed > 0 && errors > 0,
        "crashed {crashed}, errors {errors}"
    );
}
