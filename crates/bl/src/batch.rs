//! Batch checking over a folder laid out like the fees dataset: one case per folder that
//! holds a BL program (or a `bl.smt2`) and a formalization of the documentation.

use crate::check::{
    check_consistency, Assumption, Bounds, CheckInput, CheckOptions, Report, Side, SideLabel,
    SideSource, Verdict,
};
use logic::{Op, SourceFile, Term};
use serde::Serialize;
use solver::SolverConfig;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One pair to check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Case {
    /// The dataset (first folder under the root), e.g. `cra-25`.
    pub dataset: String,
    /// The case's folder, relative to the root.
    pub name: String,
    /// The documentation side (SMT-LIB).
    pub nl: PathBuf,
    /// The implementation side (`.bl`, or SMT-LIB for the compiled checker cases).
    pub implementation: PathBuf,
    /// A `bounds.json` next to them, if any.
    pub bounds: Option<PathBuf>,
}

/// Deepest folder under the root that discovery looks into.
pub const MAX_DEPTH: usize = 32;

/// Most folders discovery reads in one walk.
pub const MAX_FOLDERS: usize = 100_000;

/// Something under the root that discovery did not look into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The entry.
    pub path: PathBuf,
    /// Why it was skipped.
    pub reason: String,
}

/// What discovery found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Discovery {
    /// The cases, sorted by name.
    pub cases: Vec<Case>,
    /// Entries not looked into: links to folders (never followed, so a link cannot
    /// make the walk loop), folders that cannot be read, and folders beyond the
    /// depth or count limits.
    pub skipped: Vec<Skipped>,
}

/// Finds the cases under `root`: every folder with exactly one implementation file
/// (`*.bl`, else `bl.smt2`) and one documentation formalization (`nl.smt2`,
/// `<folder>.smt2`, `*-nl.smt2`, or the only other `.smt2` that is not `prog.smt2`).
///
/// Symbolic links to folders are not followed (they are listed in
/// [`Discovery::skipped`]); links to files are read like files. The walk goes at most
/// [`MAX_DEPTH`] folders deep and reads at most [`MAX_FOLDERS`] folders. Only an
/// unreadable `root` is an error.
pub fn discover(root: &Path) -> std::io::Result<Discovery> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut folders = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        folders += 1;
        if folders > MAX_FOLDERS {
            skipped.push(Skipped {
                path: dir,
                reason: format!(
                    "not read: the walk stops after {MAX_FOLDERS} folders ({} more pending)",
                    stack.len()
                ),
            });
            break;
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if depth == 0 => return Err(e),
            Err(e) => {
                skipped.push(Skipped {
                    path: dir,
                    reason: format!("cannot read the folder: {e}"),
                });
                continue;
            }
        };
        let mut files = Vec::new();
        for e in entries {
            let e = match e {
                Ok(e) => e,
                Err(err) => {
                    skipped.push(Skipped {
                        path: dir.clone(),
                        reason: format!("cannot list the folder: {err}"),
                    });
                    break;
                }
            };
            let p = e.path();
            // `file_type` does not follow links; `metadata` does.
            let Ok(kind) = e.file_type() else {
                skipped.push(Skipped {
                    path: p,
                    reason: "cannot read its type".into(),
                });
                continue;
            };
            if kind.is_dir() {
                if depth + 1 > MAX_DEPTH {
                    skipped.push(Skipped {
                        path: p,
                        reason: format!("not read: deeper than {MAX_DEPTH} folders"),
                    });
                } else {
                    stack.push((p, depth + 1));
                }
            } else if kind.is_symlink() {
                match std::fs::metadata(&p) {
                    Ok(m) if m.is_dir() => skipped.push(Skipped {
                        path: p,
                        reason: "symbolic link to a folder, not followed".into(),
                    }),
                    Ok(m) if m.is_file() => files.push(p),
                    Ok(_) => skipped.push(Skipped {
                        path: p,
                        reason: "symbolic link to something that is not a regular file".into(),
                    }),
                    Err(e) => skipped.push(Skipped {
                        path: p,
                        reason: format!("broken symbolic link: {e}"),
                    }),
                }
            } else if kind.is_file() {
                files.push(p);
            } else {
                // A fifo or device could block or never end when read.
                skipped.push(Skipped {
                    path: p,
                    reason: "not a regular file".into(),
                });
            }
        }
        files.sort();
        let name_of = |p: &PathBuf| {
            p.file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default()
        };
        let bls: Vec<&PathBuf> = files
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "bl"))
            .collect();
        let implementation = match bls.as_slice() {
            [one] => Some((*one).clone()),
            [] => files.iter().find(|p| name_of(p) == "bl.smt2").cloned(),
            _ => None,
        };
        let Some(implementation) = implementation else {
            continue;
        };
        let folder = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let smts: Vec<&PathBuf> = files
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "smt2"))
            .filter(|p| {
                **p != implementation
                    && name_of(p) != "prog.smt2"
                    && !name_of(p).ends_with("bl.smt2")
            })
            .collect();
        let pick = smts
            .iter()
            .find(|p| {
                name_of(p) == "nl.smt2"
                    || name_of(p) == format!("{folder}.smt2")
                    || name_of(p).ends_with("-nl.smt2")
            })
            .or(if smts.len() == 1 { smts.first() } else { None });
        let Some(nl) = pick else { continue };
        let rel = dir.strip_prefix(root).unwrap_or(&dir);
        // The dataset is the first folder under the root; for cases directly under the
        // root, the root itself.
        let root_name = root
            .canonicalize()
            .ok()
            .and_then(|r| r.file_name().map(|n| n.to_string_lossy().to_string()))
            .unwrap_or_else(|| folder.clone());
        let dataset = if rel.components().count() >= 2 {
            rel.components()
                .next()
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .unwrap_or(root_name)
        } else {
            root_name
        };
        let bounds = files.iter().find(|p| name_of(p) == "bounds.json").cloned();
        out.push(Case {
            dataset,
            name: rel.display().to_string(),
            nl: (*nl).clone(),
            implementation,
            bounds,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Discovery {
        cases: out,
        skipped,
    })
}

/// The output of an SMT-LIB formalization when it has exactly one: a defined constant
/// that no other definition or assertion uses.
pub fn infer_output(file: &SourceFile) -> Option<String> {
    let side = Side::from_smt(SideLabel::Nl, file).ok()?;
    let mut used: BTreeSet<String> = BTreeSet::new();
    for c in &side.commands {
        let logic::Command::Assert(t) = c else {
            continue;
        };
        match t {
            Term::App(Op::Eq, args)
                if args.len() == 2
                    && matches!(&args[0], Term::Var(n, _) if side.defined.contains(&**n)) =>
            {
                used.extend(args[1].free_vars().into_iter().map(|(n, _)| n.to_string()));
            }
            t => used.extend(t.free_vars().into_iter().map(|(n, _)| n.to_string())),
        }
    }
    let sinks: Vec<&String> = side.defined.iter().filter(|d| !used.contains(*d)).collect();
    match sinks.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// How every case of a batch is checked.
#[derive(Debug, Clone, Default)]
pub struct BatchOptions {
    /// Options of each check.
    pub check: CheckOptions,
    /// Named assumptions added to every case (a case without the names they use is an error).
    pub assumptions: Vec<Assumption>,
    /// Parallel checks (0: number of cores).
    pub jobs: usize,
    /// Bounds for cases without a `bounds.json` of their own.
    pub default_bounds: Option<Bounds>,
    /// The documentation side's output, for cases whose bounds do not name it.
    pub nl_output: Option<String>,
    /// The implementation side's output, likewise.
    pub impl_output: Option<String>,
}

/// The outcome of one case.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// The case.
    #[serde(flatten)]
    pub case: Case,
    /// The verdict, when the check ran.
    pub verdict: Option<Verdict>,
    /// Why the verdict is unknown (the queries without an answer), or why the
    /// formalization was rejected (its blocking findings).
    pub reason: Option<String>,
    /// Why it could not run.
    pub error: Option<String>,
    /// The full report.
    pub report: Option<Report>,
    /// Wall time of the check.
    pub seconds: f64,
}

/// Largest input file a batch reads.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Reads a case's file: at most [`MAX_FILE_BYTES`], invalid UTF-8 replaced.
fn read_case_file(p: &Path) -> Result<String, String> {
    use std::io::Read as _;
    let f = std::fs::File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "{} is larger than {} MiB",
            p.display(),
            MAX_FILE_BYTES >> 20
        ));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn run_case(case: &Case, options: &BatchOptions, config: &SolverConfig) -> Result<Report, String> {
    let read = read_case_file;
    let nl = SourceFile::new(case.nl.display().to_string(), read(&case.nl)?);
    let imp_text = read(&case.implementation)?;
    let imp = SourceFile::new(case.implementation.display().to_string(), imp_text);
    let is_bl = case.implementation.extension().is_some_and(|x| x == "bl");
    let mut input = CheckInput::new(
        SideSource::Smt(nl.clone()),
        if is_bl {
            SideSource::Bl(imp)
        } else {
            SideSource::Smt(imp)
        },
    );
    input.options = options.check.clone();
    input.assumptions = options.assumptions.clone();
    input.bounds = match &case.bounds {
        Some(b) => Some(
            Bounds::from_json(&b.display().to_string(), &read(b)?).map_err(|e| e.to_string())?,
        ),
        None => options.default_bounds.clone(),
    };
    if input.bounds.is_none() {
        input.nl_output = options.nl_output.clone().or_else(|| infer_output(&nl));
        input.bl_output = options.impl_output.clone();
    }
    let config = config.clone();
    check_consistency(&input, &config).map_err(|e| e.to_string())
}

/// The reason shown for an unknown or rejected case.
fn case_reason(report: &Report) -> Option<String> {
    match report.verdict {
        Verdict::Unknown => Some(
            report
                .reason
                .clone()
                .unwrap_or_else(|| "the solver gave no answer".into()),
        ),
        Verdict::Rejected => Some(
            report
                .findings
                .iter()
                .filter(|f| f.blocking)
                .map(|f| format!("{}: {}", f.side.upper(), f.message))
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Verdict::Consistent | Verdict::Inconsistent => None,
    }
}

/// Checks every case, in parallel; results in case order.
pub fn run(cases: &[Case], options: &BatchOptions, config: &SolverConfig) -> Vec<CaseResult> {
    let jobs = if options.jobs == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        options.jobs
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(cases.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let start = std::time::Instant::now();
                let r = run_case(case, options, config);
                let seconds = start.elapsed().as_secs_f64();
                let result = match r {
                    Ok(report) => CaseResult {
                        case: case.clone(),
                        verdict: Some(report.verdict),
                        reason: case_reason(&report),
                        error: None,
                        report: Some(report),
                        seconds,
                    },
                    Err(e) => CaseResult {
                        case: case.clone(),
                        verdict: None,
                        reason: None,
                        error: Some(e),
                        report: None,
                        seconds,
                    },
                };
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, result));
            });
        }
    });
    let mut r = results.into_inner().unwrap_or_else(|e| e.into_inner());
    r.sort_by_key(|(i, _)| *i);
    r.into_iter().map(|(_, c)| c).collect()
}

/// Verdict counts of one dataset (a row of the paper's Table II).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The dataset.
    pub dataset: String,
    /// Cases.
    pub cases: usize,
    /// Consistent verdicts.
    pub consistent: usize,
    /// Inconsistent verdicts.
    pub inconsistent: usize,
    /// Unknown verdicts.
    pub unknown: usize,
    /// Rejected by formalization diagnostics.
    pub rejected: usize,
    /// Cases that could not be checked.
    pub errors: usize,
}

/// One summary row per dataset, in order of first appearance.
pub fn summarize(results: &[CaseResult]) -> Vec<Summary> {
    let mut rows: Vec<Summary> = Vec::new();
    for r in results {
        let i = match rows.iter().position(|s| s.dataset == r.case.dataset) {
            Some(i) => i,
            None => {
                rows.push(Summary {
                    dataset: r.case.dataset.clone(),
                    ..Summary::default()
                });
                rows.len() - 1
            }
        };
        let row = &mut rows[i];
        row.cases += 1;
        match r.verdict {
            Some(Verdict::Consistent) => row.consistent += 1,
            Some(Verdict::Inconsistent) => row.inconsistent += 1,
            Some(Verdict::Unknown) => row.unknown += 1,
            Some(Verdict::Rejected) => row.rejected += 1,
            None => row.errors += 1,
        }
    }
    rows
}
