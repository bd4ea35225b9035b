//! Fault handling, with a shell script standing in for the solver binary
//! (tests/fixtures/fake-solver.sh, whose behaviour depends on the name it runs under).

use logic::{Sort, Term};
use solver::{Outcome, Pool, Reason, Solver, SolverConfig, SolverError, SolverKind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Copies the fake solver into a fresh directory under the given name.
fn fake(dir: &Path, name: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake-solver.sh");
    let dst = dir.join(name);
    std::fs::copy(src, &dst).unwrap();
    // Another test thread forking while the copy was open for writing can make the
    // first exec fail with "text file busy"; wait until the copy runs.
    for _ in 0..100 {
        match std::process::Command::new(&dst)
            .stdin(std::process::Stdio::null())
            .status()
        {
            Err(e) if e.raw_os_error() == Some(26) => std::thread::sleep(Duration::from_millis(10)),
            r => {
                r.unwrap();
                break;
            }
        }
    }
    std::fs::remove_file(dst.with_extension("sh.log")).ok();
    dst
}

fn config(program: &Path) -> SolverConfig {
    let mut c = SolverConfig::new(SolverKind::Z3);
    c.program = Some(program.to_path_buf());
    c.timeout = Duration::from_millis(500);
    c
}

fn log(program: &Path) -> String {
    std::fs::read_to_string(program.with_extension("sh.log")).unwrap_or_default()
}

/// Declares x, asserts `true`, checks.
fn session(s: &mut Solver) -> Result<Outcome, SolverError> {
    s.declare_const("x", Sort::Int)?;
    s.assert(&Term::Bool(true))?;
    s.check()
}

#[test]
fn crash_mid_query_is_unknown_and_the_solver_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let p = fake(dir.path(), "crash-solver.sh");
    let mut s = Solver::start(&config(&p)).unwrap();
    let t = Instant::now();
    match session(&mut s).unwrap() {
        Outcome::Unknown(Reason::Crashed(d)) => {
            assert!(d.contains("boom"), "{d}");
            assert!(d.contains('3'), "{d}");
        }
        o => panic!("expected a crash, got {o:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(3));
    assert_eq!(s.restarts(), 0);
    // The next query restarts the process and re-sends the state first.
    assert!(s.check().unwrap().is_sat());
    assert_eq!(s.restarts(), 1);
    let log = log(&p);
    assert_eq!(log.matches("(declare-const x Int)").count(), 2, "{log}");
    assert_eq!(log.matches("(assert true)").count(), 2, "{log}");
}

#[test]
fn hang_is_a_timeout_within_the_watchdog() {
    let dir = tempfile::tempdir().unwrap();
    let p = fake(dir.path(), "hang-solver.sh");
    let c = config(&p);
    let mut s = Solver::start(&c).unwrap();
    let t = Instant::now();
    assert_eq!(session(&mut s).unwrap(), Outcome::Unknown(Reason::Timeout));
    let took = t.elapsed();
    assert!(
        took >= c.watchdog() && took < c.watchdog() + Duration::from_secs(1),
        "{took:?}"
    );
    assert!(s.check().unwrap().is_sat());
    assert_eq!(s.restarts(), 1);
}

#[test]
fn garbage_is_a_protocol_error_and_the_solver_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let p = fake(dir.path(), "garbage-solver.sh");
    let mut s = Solver::start(&config(&p)).unwrap();
    match session(&mut s) {
        Err(SolverError::Protocol { got, .. }) => assert!(got.contains("Segmentation"), "{got}"),
        o => panic!("expected a protocol error, got {o:?}"),
    }
    assert!(s.check().unwrap().is_sat());
    assert_eq!(s.restarts(), 1);
}

#[test]
fn pool_keeps_serving_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let p = fake(dir.path(), "crash-solver.sh");
    let mut c = config(&p);
    c.transcript = Some(dir.path().join("pool.smt2"));
    let pool = Pool::new(c, 2);
    assert_eq!(pool.jobs(), 2);
    let items: Vec<usize> = (0..8).collect();
    let results = pool.map(&items, |s, _| session(s));
    let crashed = results
        .iter()
        .filter(|r| matches!(r, Ok(Outcome::Unknown(Reason::Crashed(_)))))
        .count();
    let sat = results
        .iter()
        .filter(|r| matches!(r, Ok(Outcome::Sat(_))))
        .count();
    assert_eq!((crashed, sat), (1, 7), "{results:?}");
    // The processes are kept for the next call.
    let again = pool.map(&items, |s, _| session(s).map(|o| (o, s.restarts())));
    assert!(again.iter().all(|r| matches!(r, Ok((Outcome::Sat(_), _)))));
    // Transcripts are renamed into place when their sessions end.
    assert!(!dir.path().join("pool.0.smt2").exists());
    drop(pool);
    assert!(dir.path().join("pool.0.smt2").exists());
}

#[test]
fn missing_binary_is_not_found_with_a_hint() {
    let c = config(Path::new("/nonexistent/z3"));
    match Solver::start(&c) {
        Err(SolverError::NotFound { program, hint }) => {
            assert_eq!(program, Path::new("/nonexistent/z3"));
            assert!(hint.contains("scripts/setup"), "{hint}");
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    let pool = Pool::new(c, 2);
    let results = pool.map(&[1, 2, 3], |s, _| session(s));
    assert!(results
        .iter()
        .all(|r| matches!(r, Err(SolverError::NotFound { .. }))));
}

#[test]
fn old_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = fake(dir.path(), "old-solver.sh");
    match Solver::start(&config(&p)) {
        Err(SolverError::Version { found, required }) => {
            assert_eq!(found, "4.4.0");
            assert_eq!(required, "z3 4.8");
        }
        other => panic!("expected a version error, got {other:?}"),
    }
}
