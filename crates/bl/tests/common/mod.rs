#![allow(dead_code)]
use std::path::{Path, PathBuf};

pub fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/fees-dataset")
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn file(p: &Path) -> logic::SourceFile {
    logic::SourceFile::new(p.display().to_string(), read(p))
}

/// Every `.bl` file under the dataset, sorted.
pub fn bl_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![data()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "bl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub fn short(p: &Path) -> String {
    p.strip_prefix(data()).unwrap().display().to_string()
}

pub fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A check's report as pretty JSON, for golden files (its terminal text is the
/// binary's business).
#[allow(dead_code)]
pub fn report_json(r: &bl::check::Report) -> String {
    serde_json::to_string_pretty(r).expect("a report serializes")
}
