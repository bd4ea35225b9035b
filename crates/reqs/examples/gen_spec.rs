//! Writes a generated spec of N requirements to standard output (for profiling).
fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    print!("{}", reqs::generate::spec_text(n));
}
