//! Running the `vera` binary in tests (shared by the test files that `mod common;`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root, where the tests run vera.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs vera from the repository root; returns (exit code, stdout, stderr). A run ended
/// by a signal, or output that is not UTF-8, fails the test.
pub fn vera(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("vera runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}
