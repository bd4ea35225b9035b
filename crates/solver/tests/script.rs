//! `solver::script` on a pool shared by several files: each file starts from a clean
//! session, answers keep their lines, and a script that decides nothing is an error.

use solver::script::check_files;
use solver::{Pool, SolverConfig, SolverKind};
use std::path::PathBuf;

fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn files_on_one_process_do_not_see_each_other() {
    let dir = tempfile::tempdir().unwrap();
    // The same name declared in every file: a session kept between files would refuse
    // the second declaration, and an assertion kept would make the sat file unsat.
    let unsat = write(
        dir.path(),
        "a.smt2",
        "(set-logic QF_LIA)\n(declare-const x Int)\n(assert (> x 5))\n(assert (< x 3))\n(check-sat)\n",
    );
    let sat = write(
        dir.path(),
        "b.smt2",
        "(set-logic QF_LIA)\n(declare-const x Int)\n(assert (= x 1))\n(check-sat)\n",
    );
    let empty = write(
        dir.path(),
        "c.smt2",
        "(set-logic QF_LIA)\n(declare-const x Int)\n",
    );
    for kind in [SolverKind::Z3, SolverKind::Cvc5] {
        // One job: every file goes through the same process, one after the other.
        let pool = Pool::new(SolverConfig::new(kind), 1);
        let files = vec![unsat.clone(), sat.clone(), unsat.clone(), empty.clone()];
        let done = std::sync::atomic::AtomicUsize::new(0);
        let reports = check_files(&pool, &files, &|| {
            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(done.into_inner(), 4, "{kind}");
        let answers: Vec<Option<&str>> = reports.iter().map(|r| r.last_answer()).collect();
        assert_eq!(
            answers,
            [Some("unsat"), Some("sat"), Some("unsat"), None],
            "{kind}: {reports:#?}"
        );
        let core: Vec<usize> = reports[0].checks[0].core.iter().map(|e| e.line).collect();
        assert_eq!(core, [3, 4], "{kind}");
        assert_eq!(
            reports[1].checks[0].model,
            [("x".to_string(), "1".to_string())]
        );
        assert!(
            reports[3]
                .error
                .as_deref()
                .is_some_and(|e| e.contains("no check-sat")),
            "{kind}: {:?}",
            reports[3]
        );
    }
}
