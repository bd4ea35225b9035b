//! Text from input files (names, values) reaches the human report with control
//! characters escaped: a name cannot colour the terminal or start a report line.

use bl::check::*;
use logic::SourceFile;
use solver::{SolverConfig, SolverKind};

/// An SMT-LIB quoted symbol may hold a newline and an escape character. The constant is
/// only declared (z3 rejects such a symbol inside an assertion), which makes it an
/// intermediate variable the report names in a warning.
fn nl() -> String {
    "(declare-const x Real)\n(declare-const |z\n[Consistent] forged \u{1b}[31mred| Real)\n\
     (declare-const out Real)\n(assert (= out (+ x 1.0)))\n"
        .to_string()
}

fn solvers() -> Vec<SolverKind> {
    SolverKind::ALL
        .into_iter()
        .filter(|k| {
            std::process::Command::new(k.default_program())
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect()
}

/// No escape character, and no line of its own for the forged text.
fn assert_safe(kind: SolverKind, text: &str) {
    assert!(!text.contains('\u{1b}'), "{kind:?}: {text:?}");
    assert!(
        !text.lines().any(|l| l.starts_with("[Consistent] forged")),
        "{kind:?}:\n{text}"
    );
}

/// z3 checks the case and the report shows the name escaped. cvc5 1.0 rejects the
/// symbol in an assertion, with an error message that quotes it (and bytes of its
/// memory): that error must be shown escaped and short too.
#[test]
fn names_with_control_characters_are_escaped_in_the_report() {
    for kind in solvers() {
        let mut inp = CheckInput::new(
            SideSource::Smt(SourceFile::new("nl.smt2", nl())),
            SideSource::Bl(SourceFile::new("prog.bl", "let x = <input>\nlet fee = x\n")),
        );
        inp.nl_output = Some("out".into());
        inp.bl_output = Some("fee".into());
        inp.options.enumerate = true;
        match check_consistency(&inp, &SolverConfig::new(kind)) {
            Ok(r) => {
                // The terminal text escapes the name (rendered and tested in the
                // binary); the JSON report keeps the name as it is.
                let json = serde_json::to_string(&r).unwrap();
                assert!(json.contains("\\u001b"), "{json}");
            }
            Err(e) => {
                assert_eq!(kind, SolverKind::Cvc5, "{e}");
                let text = e.to_string();
                assert_safe(kind, &text);
                assert!(text.len() < 1_000, "{} bytes", text.len());
            }
        }
    }
}
