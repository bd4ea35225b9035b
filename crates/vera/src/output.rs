//! Exit codes and small output helpers shared by the subcommands.

/// No findings: every check came out as hoped (for `smt check`: sat).
pub const EXIT_OK: u8 = 0;
/// Findings: a definite negative answer (for `smt check`: unsat).
pub const EXIT_FINDINGS: u8 = 1;
/// Bad input, a solver failure, or an answer that is not definite (unknown).
pub const EXIT_ERROR: u8 = 2;

/// Shortens text for one-line display.
pub fn excerpt(s: &str, max: usize) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        format!(
            "{}...",
            one_line
                .chars()
                .take(max.saturating_sub(3))
                .collect::<String>()
        )
    }
}
