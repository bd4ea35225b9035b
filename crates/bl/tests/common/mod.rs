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

/// Checks, with queries of its own on a fresh solver, that a report's regions are a
/// partition of the divergence set: pairwise disjoint, each inside the divergence,
/// and together covering it. The sides are rebuilt from the files (SMT-LIB and BL),
/// Φ and Ψ are read back from the report, and each region from its `smt` term.
/// Returns the number of regions.
#[allow(dead_code)]
pub fn check_partition(
    nl: &logic::SourceFile,
    bl: &logic::SourceFile,
    rep: &bl::check::Report,
    kind: solver::SolverKind,
) -> usize {
    use bl::check::{side, Side, SideLabel};
    use logic::{Op, Term};
    use solver::{Solver, SolverConfig};
    let mut s = Solver::start(&SolverConfig::new(kind)).unwrap();
    let sides = [
        Side::from_smt(SideLabel::Nl, nl).unwrap(),
        Side::from_bl(SideLabel::Bl, bl::parse(bl).unwrap()),
    ];
    for side in &sides {
        let prefix = side.label.prefix();
        let f = |n: &str| std::sync::Arc::from(format!("{prefix}{n}").as_str());
        for c in &side.commands {
            s.command(&side::rename_command(c, &f)).unwrap();
        }
    }
    let term = |s: &Solver, text: &str| {
        logic::script::elaborate_term(text, s.context())
            .unwrap_or_else(|e| panic!("`{text}` does not elaborate: {e:?}"))
    };
    for t in rep.mappings.iter().chain(&rep.constraints) {
        let t = term(&s, t);
        s.assert(&t).unwrap();
    }
    let out_nl = term(&s, &format!("nl.{}", rep.nl_output));
    let out_bl = term(&s, &format!("bl.{}", rep.bl_output));
    let same = Term::app(Op::Eq, vec![out_nl.clone(), out_bl.clone()]);
    let regions: Vec<Term> = rep.regions.iter().map(|r| term(&s, &r.smt)).collect();
    for (i, a) in regions.iter().enumerate() {
        for (j, b) in regions.iter().enumerate().skip(i + 1) {
            let o = s.check_assuming(&[a.clone(), b.clone()]).unwrap();
            assert!(o.is_unsat(), "regions {i} and {j} overlap: {o:?}");
        }
        let o = s.check_assuming(&[a.clone(), same.clone()]).unwrap();
        assert!(
            o.is_unsat(),
            "the outputs agree somewhere in region {i}: {o:?}"
        );
    }
    let mut outside = vec![Term::not(same)];
    outside.extend(regions.iter().map(|r| Term::not(r.clone())));
    let o = s.check_assuming(&outside).unwrap();
    assert!(o.is_unsat(), "divergence outside every region: {o:?}");
    regions.len()
}

/// A region in one line: its conditions, the difference and its range
/// (`[`/`]` attained, `(`/`)` not, `inf` unbounded).
#[allow(dead_code)]
pub fn region_line(g: &bl::check::Region) -> String {
    let range = match &g.range {
        Some(r) => format!(
            " {}{}, {}{}",
            if r.min.attained { "[" } else { "(" },
            r.min.value.as_deref().unwrap_or("-inf"),
            r.max.value.as_deref().unwrap_or("inf"),
            if r.max.attained { "]" } else { ")" },
        ),
        None => " (range not computed)".into(),
    };
    let w: Vec<String> = g
        .witnesses
        .iter()
        .map(|w| {
            let at: Vec<String> = w.inputs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} -> {}", at.join(" "), w.difference)
        })
        .collect();
    format!(
        "{}: {}{range}; at {}",
        g.conditions.join(" and "),
        g.difference,
        w.join(", ")
    )
}
