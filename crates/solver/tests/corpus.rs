//! The SMT-LIB corpus in testdata/smtlib: every benchmark's recorded status agrees with z3 and cvc5.

use logic::{parse_script, Command, Script, SourceFile};
use solver::{Outcome, Pool, SolverConfig, SolverError, SolverKind};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn corpus() -> Vec<(PathBuf, Script)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/smtlib");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the SMT-LIB corpus is present in testdata/smtlib")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "smt2"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let script = parse_script(&SourceFile::new(p.display().to_string(), text))
                .unwrap_or_else(|d| panic!("{}: {d}", p.display()));
            (p, script)
        })
        .collect()
}

/// Sends the script's commands, checking at each check-sat; the last answer counts.
fn run(s: &mut solver::Solver, script: &Script) -> Result<Option<Outcome>, SolverError> {
    let mut last = None;
    for c in &script.commands {
        match &c.command {
            Command::SetInfo(..) | Command::Exit => {}
            Command::CheckSat => last = Some(s.check()?),
            other => s.command(other)?,
        }
    }
    Ok(last)
}

fn check_corpus(kind: SolverKind) {
    let files = corpus();
    assert_eq!(files.len(), 150, "the corpus has 150 files");
    let mut config = SolverConfig::new(kind);
    config.timeout = Duration::from_secs(20);
    let pool = Pool::new(config, 0);
    let results = pool.map(&files, |s, (_, script)| run(s, script));
    let (mut passed, mut unknown) = (0, 0);
    let mut failures = Vec::new();
    for ((path, script), r) in files.iter().zip(results) {
        let name = path.file_name().unwrap().to_string_lossy();
        let expected = script.status().expect("every file records its status");
        match r {
            Ok(Some(Outcome::Unknown(reason))) => {
                unknown += 1;
                println!("{kind}: {name}: unknown ({reason})");
            }
            Ok(Some(o)) if o.status() == expected => passed += 1,
            Ok(Some(o)) => failures.push(format!("{name}: {} but status {expected}", o.status())),
            Ok(None) => failures.push(format!("{name}: no check-sat")),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    // One print, so the lines of the two solvers do not interleave.
    print!(
        "corpus with {kind}:\n{passed} passed, {} failed\n{unknown} unknown\n",
        failures.len()
    );
    assert!(failures.is_empty(), "{kind}:\n{}", failures.join("\n"));
}

#[test]
fn corpus_agrees_with_z3() {
    check_corpus(SolverKind::Z3);
}

#[test]
fn corpus_agrees_with_cvc5() {
    check_corpus(SolverKind::Cvc5);
}
