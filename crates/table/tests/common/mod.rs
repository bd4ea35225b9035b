#![allow(dead_code)]
use solver::{SolverConfig, SolverKind};
use std::path::{Path, PathBuf};
use table::{Options, Report, Table};

pub fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

pub fn usps(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/fees-dataset/usps")
        .join(name)
}

pub fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The solvers installed here (the tests run against each).
pub fn solvers() -> Vec<SolverKind> {
    SolverKind::ALL
        .into_iter()
        .filter(|k| have(k.default_program()))
        .collect()
}

pub fn read(path: &Path) -> Table {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    Table::read(&name, &bytes).unwrap_or_else(|e| panic!("{e}"))
}

pub fn check(t: &Table, o: &Options, kind: SolverKind) -> Report {
    table::check(t, o, &SolverConfig::new(kind)).unwrap_or_else(|e| panic!("{e}"))
}

/// A compact rendering of a report's data for golden files.
pub fn render(r: &Report) -> String {
    let mut o = String::new();
    let names: Vec<String> = r
        .inputs
        .iter()
        .map(|i| format!("{} [{}, {}]", i.name, i.smt, i.meaning))
        .collect();
    o.push_str(&format!(
        "{}: {} rows; keys {:?}; inputs {:?}; outcomes {:?}; ignored {:?}\n",
        r.file, r.rows, r.keys, names, r.outcomes, r.ignored
    ));
    for p in &r.problems {
        o.push_str(&format!(
            "  problem {:?} at {}:{}: {} {:?}\n",
            p.kind,
            p.line,
            p.column.map_or("-".into(), |c| c.to_string()),
            p.message,
            p.lines
        ));
    }
    for g in &r.groups {
        let ranges: Vec<String> = g
            .ranges
            .iter()
            .map(|x| format!("{} in {} ({})", x.input, x.text, x.from))
            .collect();
        o.push_str(&format!(
            "group {} [{}] line {}, {} rows, {}: {} gaps, {} conflicts, {} overlaps, exact {}{}\n",
            g.group,
            g.outcome,
            g.line,
            g.rows,
            ranges.join("; "),
            g.gaps,
            g.conflicts,
            g.overlaps,
            g.gaps_exact,
            if g.truncated { ", truncated" } else { "" }
        ));
        for f in r
            .findings
            .iter()
            .filter(|f| f.group == g.group && f.outcome == g.outcome)
        {
            let w: Vec<String> = f
                .witness
                .0
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let v: Vec<String> = f
                .values
                .iter()
                .map(|v| format!("{}:{}", v.row, v.value))
                .collect();
            o.push_str(&format!(
                "  {:?} {} | {} | at {} | rows {:?} {}\n",
                f.kind,
                f.region.text,
                f.region.smt,
                w.join(", "),
                f.rows,
                v.join(" ")
            ));
        }
    }
    for u in &r.undecided {
        o.push_str(&format!("  undecided {}: {}\n", u.question, u.reason));
    }
    o
}
