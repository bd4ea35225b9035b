//! What the dense-time test files share: the audit of a spec written in Ultimate's
//! `.req` syntax, on z3.

use reqs::timed::dense::audit::{audit_dense, DenseOptions, DenseReport};
use solver::{SolverConfig, SolverKind};

/// The dense audit of a `.req` text.
pub fn audit(text: &str) -> DenseReport {
    audit_with(text, &DenseOptions::new(SolverConfig::new(SolverKind::Z3)))
}

/// The dense audit of a `.req` text with `options`.
pub fn audit_with(text: &str, options: &DenseOptions) -> DenseReport {
    let imported = extract::req_to_spec("t.req", text, None).expect("imports");
    let spec = reqs::parse_spec(logic::SourceFile::new("t.req", imported.toml))
        .unwrap_or_else(|d| panic!("loads:\n{d}"));
    audit_dense(&spec, options).expect("audits")
}
