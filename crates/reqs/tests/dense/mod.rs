//! What the dense-time test files share: the audit of a spec written in Ultimate's
//! `.req` syntax, on z3.

use reqs::timed::dense::audit::{audit_dense, DenseOptions, DenseReport};
use solver::{SolverConfig, SolverKind};

/// The dense audit of a `.req` text.
pub fn audit(text: &str) -> DenseReport {
    let imported = extract::req_to_spec("t.req", text, None).expect("imports");
    let spec = reqs::parse_spec(logic::SourceFile::new("t.req", imported.toml))
        .unwrap_or_else(|d| panic!("loads:\n{d}"));
    audit_dense(&spec, &DenseOptions::new(SolverConfig::new(SolverKind::Z3))).expect("audits")
}
