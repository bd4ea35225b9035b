//! A session transcript replays with the real z3 to the same answers.

mod common;

use common::{f, script};
use solver::{Outcome, Solver, SolverConfig, SolverKind};
use std::process::Command;

/// The answers recorded in a transcript: one `; ` comment line each.
fn recorded(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(";;"))
        .filter_map(|l| l.strip_prefix("; "))
        .map(str::to_string)
        .collect()
}

/// The solver's output as answers printed on one line each.
fn answers(out: &str) -> Vec<String> {
    let read = logic::sexp::read(out, Default::default());
    assert!(read.errors.is_empty(), "{:?}", read.errors);
    read.items.iter().map(|e| e.to_string()).collect()
}

#[test]
fn z3_replays_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.smt2");
    let mut config = SolverConfig::new(SolverKind::Z3);
    config.transcript = Some(path.clone());
    {
        let mut s = Solver::start(&config).unwrap();
        assert_eq!(s.transcript_path(), Some(path.as_path()));
        script(
            &mut s,
            "(declare-const x Int) (declare-const y Real) (declare-const p Bool)
             (assert (> x 2)) (assert (= (* 3 y) 1))",
        );
        assert!(s.check().unwrap().is_sat());
        s.push().unwrap();
        let a = [f(&s, "(< x 1)"), f(&s, "p")];
        assert!(matches!(s.check_assuming(&a).unwrap(), Outcome::Unsat(c) if c == a[..1]));
        s.pop().unwrap();
        assert!(s.pop().is_err());
        assert!(s.check_assuming(&[f(&s, "p")]).unwrap().is_sat());
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("(set-option :print-success true)\n"),
        "{text}"
    );
    let program = SolverConfig::new(SolverKind::Z3).resolved_program();
    let out = Command::new(program).arg(&path).output().unwrap();
    let got = answers(&String::from_utf8_lossy(&out.stdout));
    let want = recorded(&text);
    assert!(want.len() > 20, "{want:?}");
    // Error messages name positions in the input, which differ between the pipe and the
    // file; compare them by kind only.
    let norm = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .map(|a| {
                if a.starts_with("(error") {
                    "(error)".into()
                } else {
                    a
                }
            })
            .collect()
    };
    assert_eq!(norm(got), norm(want), "transcript:\n{text}");
}
