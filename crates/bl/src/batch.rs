//! Batch checking over a folder laid out like the fees dataset: one case per folder that
//! holds a BL program (or a `bl.smt2`) and a formalization of the documentation.

use crate::check::{
    check_consistency, Assumption, Bounds, CheckInput, CheckOptions, Report, Side, SideLabel,
    SideSource, Verdict,
};
use logic::{Op, SourceFile, Term};
use serde::{Deserialize, Serialize};
use solver::SolverConfig;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One pair to check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The entry.
    pub path: PathBuf,
    /// Why it was skipped.
    pub reason: String,
}

/// A folder that holds case files but cannot be checked as it is (two candidate
/// programs or formalizations, or one side missing): reported as a row, never skipped
/// silently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unresolved {
    /// The dataset (as for a case).
    pub dataset: String,
    /// The folder, relative to the root.
    pub name: String,
    /// What is wrong, naming the files.
    pub reason: String,
    /// How to name the files so that the folder is a case.
    pub hint: String,
}

/// What discovery found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discovery {
    /// The cases, sorted by name.
    pub cases: Vec<Case>,
    /// Folders with case files that are not a case as they are, sorted by name.
    pub unresolved: Vec<Unresolved>,
    /// Entries not looked into: links to folders (never followed, so a link cannot
    /// make the walk loop), folders that cannot be read, and folders beyond the
    /// depth or count limits.
    pub skipped: Vec<Skipped>,
}

/// Finds the cases under `root`: every folder with exactly one implementation file
/// (`*.bl`, else `bl.smt2`) and one documentation formalization (`nl.smt2`,
/// `<folder>.smt2`, `*-nl.smt2`, or the only other `.smt2` that is not `prog.smt2`).
/// A folder with two programs, two candidate formalizations, or one side only (a
/// program, or a file named like a formalization) is listed in
/// [`Discovery::unresolved`] with the reason and how to name the files.
///
/// Symbolic links to folders are not followed (they are listed in
/// [`Discovery::skipped`]); links to files are read like files. The walk goes at most
/// [`MAX_DEPTH`] folders deep and reads at most [`MAX_FOLDERS`] folders. Only an
/// unreadable `root` is an error.
pub fn discover(root: &Path) -> std::io::Result<Discovery> {
    let mut found = Discovery::default();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut folders = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        folders += 1;
        if folders > MAX_FOLDERS {
            found.skipped.push(Skipped {
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
                found.skipped.push(Skipped {
                    path: dir,
                    reason: format!("cannot read the folder: {e}"),
                });
                continue;
            }
        };
        let files = folder_files(entries, &dir, depth, &mut stack, &mut found.skipped);
        match Folder::new(root, &dir, files).case() {
            Some(Ok(case)) => found.cases.push(case),
            Some(Err(unresolved)) => found.unresolved.push(unresolved),
            None => {}
        }
    }
    found.cases.sort_by(|a, b| a.name.cmp(&b.name));
    found.unresolved.sort_by(|a, b| a.name.cmp(&b.name));
    found.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

/// The files of a folder, sorted (links to files included); its subfolders go on
/// `stack` (up to [`MAX_DEPTH`]), and every other entry on `skipped` with the reason.
fn folder_files(
    entries: std::fs::ReadDir,
    dir: &Path,
    depth: usize,
    stack: &mut Vec<(PathBuf, usize)>,
    skipped: &mut Vec<Skipped>,
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for e in entries {
        let e = match e {
            Ok(e) => e,
            Err(err) => {
                skipped.push(Skipped {
                    path: dir.to_path_buf(),
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
    files
}

/// A file's name, empty when it has none.
fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// The files' names, comma-separated.
fn names(ps: &[&PathBuf]) -> String {
    ps.iter().map(|p| name_of(p)).collect::<Vec<_>>().join(", ")
}

/// One folder of the walk, with its names as a case.
struct Folder {
    /// The folder's own name.
    folder: String,
    /// The folder relative to the root (its own name for the root itself).
    rel: PathBuf,
    /// The dataset the folder belongs to.
    dataset: String,
    /// Its files, sorted.
    files: Vec<PathBuf>,
}

impl Folder {
    /// The folder `dir` under `root` with its files.
    fn new(root: &Path, dir: &Path, files: Vec<PathBuf>) -> Folder {
        let folder = name_of(dir);
        let rel = dir.strip_prefix(root).unwrap_or(dir).to_path_buf();
        // A case at the root itself is named after its folder.
        let rel = if rel.as_os_str().is_empty() {
            PathBuf::from(&folder)
        } else {
            rel
        };
        // The dataset is the first folder under the root; for cases directly under the
        // root, the root itself.
        let dataset = {
            let root_name = root
                .canonicalize()
                .ok()
                .and_then(|r| r.file_name().map(|n| n.to_string_lossy().to_string()))
                .unwrap_or_else(|| folder.clone());
            if rel.components().count() >= 2 {
                rel.components()
                    .next()
                    .map(|c| c.as_os_str().to_string_lossy().to_string())
                    .unwrap_or(root_name)
            } else {
                root_name
            }
        };
        Folder {
            folder,
            rel,
            dataset,
            files,
        }
    }

    /// The folder as a case, as an unresolved row, or `None` when it is no case at all.
    fn case(self) -> Option<Result<Case, Unresolved>> {
        let implementation = match self.implementation() {
            Ok(Some(p)) => p,
            Ok(None) => return None,
            Err(u) => return Some(Err(u)),
        };
        let nl = match self.formalization(&implementation) {
            Ok(p) => p,
            Err(u) => return Some(Err(u)),
        };
        let bounds = self
            .files
            .iter()
            .find(|p| name_of(p) == "bounds.json")
            .cloned();
        Some(Ok(Case {
            dataset: self.dataset,
            name: self.rel.display().to_string(),
            nl,
            implementation,
            bounds,
        }))
    }

    /// The row of this folder as unresolved.
    fn unresolved(&self, reason: String, hint: &str) -> Unresolved {
        Unresolved {
            dataset: self.dataset.clone(),
            name: self.rel.display().to_string(),
            reason,
            hint: hint.to_string(),
        }
    }

    /// Whether `p` is named as a documentation formalization.
    fn preferred(&self, p: &Path) -> bool {
        name_of(p) == "nl.smt2"
            || name_of(p) == format!("{}.smt2", self.folder)
            || name_of(p).ends_with("-nl.smt2")
    }

    /// The implementation: the only `.bl` program, else `bl.smt2`; `None` when there
    /// is neither (unresolved when a formalization is named as in a case).
    fn implementation(&self) -> Result<Option<PathBuf>, Unresolved> {
        let bls: Vec<&PathBuf> = self
            .files
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "bl"))
            .collect();
        let implementation = match bls.as_slice() {
            [one] => Some((*one).clone()),
            [] => self.files.iter().find(|p| name_of(p) == "bl.smt2").cloned(),
            several => {
                return Err(self.unresolved(
                    format!(
                        "{} candidate programs ({})",
                        several.len(),
                        names(several)
                    ),
                    "keep one .bl program per folder (a second program goes in a folder of its own)",
                ));
            }
        };
        if implementation.is_none() {
            // Only a folder that names a formalization the way a case does is reported;
            // other folders are not cases at all.
            let docs: Vec<&PathBuf> = self.files.iter().filter(|p| self.preferred(p)).collect();
            if !docs.is_empty() {
                return Err(self.unresolved(
                    format!("a formalization ({}) but no program", names(&docs)),
                    "add the implementation as a .bl program (or bl.smt2) next to it",
                ));
            }
        }
        Ok(implementation)
    }

    /// The documentation formalization: the one `.smt2` named as such, else the only
    /// other `.smt2` that is not a program.
    fn formalization(&self, implementation: &Path) -> Result<PathBuf, Unresolved> {
        let smts: Vec<&PathBuf> = self
            .files
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "smt2"))
            .filter(|p| {
                p.as_path() != implementation
                    && name_of(p) != "prog.smt2"
                    && !name_of(p).ends_with("bl.smt2")
            })
            .collect();
        let named: Vec<&PathBuf> = smts.iter().copied().filter(|p| self.preferred(p)).collect();
        match (named.as_slice(), smts.as_slice()) {
            ([one], _) => Ok((*one).clone()),
            ([], [one]) => Ok((*one).clone()),
            ([], []) => Err(self.unresolved(
                format!(
                    "a program ({}) but no formalization",
                    name_of(implementation)
                ),
                "add the documentation's formalization as nl.smt2",
            )),
            ([], several) => Err(self.unresolved(
                format!(
                    "{} candidate formalizations ({}), none named as the documentation side",
                    several.len(),
                    names(several)
                ),
                "rename the documentation's formalization to nl.smt2 (or <folder>.smt2, or *-nl.smt2)",
            )),
            (several, _) => Err(self.unresolved(
                format!(
                    "{} files are named as the documentation side ({})",
                    several.len(),
                    names(several)
                ),
                "keep one of nl.smt2, <folder>.smt2 and *-nl.smt2 per folder",
            )),
        }
    }
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
    /// Bounds given for the whole batch (`--bounds`). When given they are used for
    /// every case, and a folder's own `bounds.json` is not read (the row says so);
    /// without them a folder's `bounds.json` is used.
    pub bounds: Option<Bounds>,
    /// The documentation side's output, for cases whose bounds do not name it.
    pub nl_output: Option<String>,
    /// The implementation side's output, likewise.
    pub impl_output: Option<String>,
    /// The batch root, when accepted exceptions on file apply: every
    /// `exceptions.toml` from here down to a case's folder is read for that case
    /// (see [`crate::exceptions::for_case`]).
    pub exceptions_root: Option<PathBuf>,
    /// Exceptions from a file given for the whole batch (`--exceptions`), applied to
    /// the cases their pattern matches (by path under the root, or folder name).
    pub exceptions: Vec<crate::exceptions::Exception>,
}

/// Where a case's bounds came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundsSource {
    /// The bounds given for the whole batch (`--bounds`).
    Option,
    /// The folder's own `bounds.json`.
    Folder,
    /// No bounds.
    None,
}

/// The outcome of one case.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case.
    #[serde(flatten)]
    pub case: Case,
    /// The verdict, when the check ran.
    pub verdict: Option<Verdict>,
    /// Why the verdict is unknown (the queries without an answer), or why the
    /// formalization was rejected (its blocking findings).
    pub reason: Option<String>,
    /// For an unknown verdict, the kind of its reason (the report's `reason_kind`);
    /// absent from JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_kind: Option<solver::ReasonKind>,
    /// Why it could not run.
    pub error: Option<String>,
    /// Which bounds were used.
    pub bounds_source: BoundsSource,
    /// The bounds file used (the batch's or the folder's), if any.
    pub bounds_used: Option<String>,
    /// True when the folder has a `bounds.json` that was not used because bounds were
    /// given for the whole batch.
    pub folder_bounds_ignored: bool,
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
    // An input of the command: no output may replace it.
    safefile::register_input(p);
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

/// Which bounds a case uses: the batch's when given, else the folder's.
fn bounds_for(case: &Case, options: &BatchOptions) -> (BoundsSource, Option<String>) {
    match (&options.bounds, &case.bounds) {
        (Some(b), _) => (BoundsSource::Option, Some(b.file.clone())),
        (None, Some(f)) => (BoundsSource::Folder, Some(f.display().to_string())),
        (None, None) => (BoundsSource::None, None),
    }
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
    if let (Some(root), Some(dir)) = (&options.exceptions_root, case.implementation.parent()) {
        input.exceptions = crate::exceptions::for_case(root, dir).map_err(|e| e.to_string())?;
    }
    for e in &options.exceptions {
        if e.applies_to(&case.name) {
            if input.exceptions.iter().any(|x| x.id == e.id) {
                return Err(format!(
                    "exception `{}` of {} is also in an exceptions.toml of the dataset",
                    crate::diag::quote(&e.id),
                    e.file
                ));
            }
            input.exceptions.push(e.clone());
        }
    }
    input.bounds = match (&options.bounds, &case.bounds) {
        (Some(b), _) => Some(b.clone()),
        (None, Some(f)) => Some(
            Bounds::from_json(&f.display().to_string(), &read(f)?).map_err(|e| e.to_string())?,
        ),
        (None, None) => None,
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
        Verdict::Rejected => {
            let blocking: Vec<String> = report
                .findings
                .iter()
                .filter(|f| f.blocking)
                .map(|f| format!("{}: {}", f.side.upper(), f.message))
                .collect();
            Some(if blocking.is_empty() {
                "the formalization diagnostics rejected the pair".to_string()
            } else {
                blocking.join("; ")
            })
        }
        Verdict::Consistent | Verdict::Inconsistent => None,
    }
}

/// Checks every case, in parallel; results in case order.
pub fn run(cases: &[Case], options: &BatchOptions, config: &SolverConfig) -> Vec<CaseResult> {
    let jobs = solver::job_count(options.jobs);
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
                let (bounds_source, bounds_used) = bounds_for(case, options);
                let folder_bounds_ignored =
                    bounds_source == BoundsSource::Option && case.bounds.is_some();
                let result = match r {
                    Ok(report) => CaseResult {
                        case: case.clone(),
                        verdict: Some(report.verdict),
                        reason: case_reason(&report),
                        reason_kind: match report.verdict {
                            Verdict::Unknown => {
                                Some(report.reason_kind.unwrap_or(solver::ReasonKind::Other))
                            }
                            _ => None,
                        },
                        error: None,
                        bounds_source,
                        bounds_used,
                        folder_bounds_ignored,
                        report: Some(report),
                        seconds,
                    },
                    Err(e) => CaseResult {
                        case: case.clone(),
                        verdict: None,
                        reason: None,
                        reason_kind: None,
                        error: Some(e),
                        bounds_source,
                        bounds_used,
                        folder_bounds_ignored,
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The dataset (`total` for the totals row).
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
    /// Folders that are not a case as they are ([`Unresolved`]), not counted in `cases`.
    #[serde(default)]
    pub not_checked: usize,
}

impl Summary {
    fn add(&mut self, o: &Summary) {
        self.cases += o.cases;
        self.consistent += o.consistent;
        self.inconsistent += o.inconsistent;
        self.unknown += o.unknown;
        self.rejected += o.rejected;
        self.errors += o.errors;
        self.not_checked += o.not_checked;
    }
}

/// One summary row per dataset, in order of first appearance.
pub fn summarize(results: &[CaseResult]) -> Vec<Summary> {
    summarize_all(results, &[])
}

/// One summary row per dataset (cases, then unresolved folders), in order of first
/// appearance.
pub fn summarize_all(results: &[CaseResult], unresolved: &[Unresolved]) -> Vec<Summary> {
    let mut rows: Vec<Summary> = Vec::new();
    let mut row_of = |dataset: &str| -> usize {
        match rows.iter().position(|s| s.dataset == dataset) {
            Some(i) => i,
            None => {
                rows.push(Summary {
                    dataset: dataset.to_string(),
                    ..Summary::default()
                });
                rows.len() - 1
            }
        }
    };
    let mut counts: Vec<(usize, Option<Verdict>)> = Vec::new();
    for r in results {
        counts.push((row_of(&r.case.dataset), r.verdict));
    }
    let unresolved_rows: Vec<usize> = unresolved.iter().map(|u| row_of(&u.dataset)).collect();
    for (i, verdict) in counts {
        let row = &mut rows[i];
        row.cases += 1;
        match verdict {
            Some(Verdict::Consistent) => row.consistent += 1,
            Some(Verdict::Inconsistent) => row.inconsistent += 1,
            Some(Verdict::Unknown) => row.unknown += 1,
            Some(Verdict::Rejected) => row.rejected += 1,
            None => row.errors += 1,
        }
    }
    for i in unresolved_rows {
        rows[i].not_checked += 1;
    }
    rows
}

/// The sum of the rows (`dataset` is `total`).
pub fn totals(rows: &[Summary]) -> Summary {
    let mut t = Summary {
        dataset: "total".into(),
        ..Summary::default()
    };
    for r in rows {
        t.add(r);
    }
    t
}

// ------------------------------------------------------------------ shards

/// Shard `index` of `count` (`--shard K/N`, 1-based): the cases at positions
/// `index - 1`, `index - 1 + count`, ... of the sorted list of case and unresolved
/// folder names. Every name is in exactly one shard, and the split depends only on
/// the names, so machines that see the same dataset agree on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// K, from 1.
    pub index: usize,
    /// N, at least 1.
    pub count: usize,
}

/// A `--shard` value that is not `K/N` with `1 <= K <= N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{}` is not a shard: write K/N with 1 <= K <= N (e.g. 2/4)", crate::diag::quote(.0))]
pub struct ShardError(pub String);

impl std::str::FromStr for Shard {
    type Err = ShardError;
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let err = || ShardError(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(err)?;
        let index: usize = k.trim().parse().map_err(|_| err())?;
        let count: usize = n.trim().parse().map_err(|_| err())?;
        if index == 0 || count == 0 || index > count {
            return Err(err());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Discovery {
    /// The number of rows (cases and unresolved folders).
    pub fn rows(&self) -> usize {
        self.cases.len() + self.unresolved.len()
    }

    /// Keeps the cases and unresolved folders of one shard (see [`Shard`]); skipped
    /// entries are kept by shard 1 only.
    pub fn shard(self, shard: Shard) -> Discovery {
        let mut names: Vec<&str> = self
            .cases
            .iter()
            .map(|c| c.name.as_str())
            .chain(self.unresolved.iter().map(|u| u.name.as_str()))
            .collect();
        names.sort_unstable();
        let mine: BTreeSet<String> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| i % shard.count == shard.index - 1)
            .map(|(_, n)| n.to_string())
            .collect();
        Discovery {
            cases: self
                .cases
                .into_iter()
                .filter(|c| mine.contains(&c.name))
                .collect(),
            unresolved: self
                .unresolved
                .into_iter()
                .filter(|u| mine.contains(&u.name))
                .collect(),
            skipped: if shard.index == 1 {
                self.skipped
            } else {
                Vec::new()
            },
        }
    }
}

// ------------------------------------------------------------------ reports

/// The schema tag of a batch report.
pub const BATCH_SCHEMA: &str = "vera.consistency-batch.v1";

/// A whole batch: what `--batch` writes as JSON and what `merge` reads.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BatchReport {
    /// [`BATCH_SCHEMA`].
    pub schema: String,
    /// The folder (for a merged report, the folders of its parts, if they differ).
    pub root: String,
    /// Wall time (for a merged report, the sum of its parts').
    pub seconds: f64,
    /// The shard this report covers, if the batch was split.
    #[serde(default)]
    pub shard: Option<Shard>,
    /// Rows (cases and unresolved folders) of the whole batch before the split.
    #[serde(default)]
    pub total_rows: usize,
    /// The JSON reports a merged report was made from.
    #[serde(default)]
    pub merged_from: Vec<String>,
    /// One row per dataset.
    pub summary: Vec<Summary>,
    /// The sum of the rows.
    #[serde(default)]
    pub totals: Summary,
    /// Every case, by name.
    pub cases: Vec<CaseResult>,
    /// Folders that are not a case as they are, by name.
    #[serde(default)]
    pub unresolved: Vec<Unresolved>,
    /// Entries the walk did not look into.
    pub skipped: Vec<Skipped>,
}

impl BatchReport {
    /// The report of a run: summary and totals computed from the rows.
    pub fn new(
        root: String,
        seconds: f64,
        shard: Option<Shard>,
        total_rows: usize,
        cases: Vec<CaseResult>,
        unresolved: Vec<Unresolved>,
        skipped: Vec<Skipped>,
    ) -> BatchReport {
        let summary = summarize_all(&cases, &unresolved);
        let totals = totals(&summary);
        BatchReport {
            schema: BATCH_SCHEMA.to_string(),
            root,
            seconds,
            shard,
            total_rows,
            merged_from: Vec::new(),
            summary,
            totals,
            cases,
            unresolved,
            skipped,
        }
    }
}

/// Why batch reports cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no reports to merge")]
    Empty,
    /// A report is not a batch report.
    #[error("{file}: not a consistency batch report (schema `{}`, expected `{BATCH_SCHEMA}`)", crate::diag::quote(.schema))]
    Schema {
        /// The report.
        file: String,
        /// Its schema tag.
        schema: String,
    },
    /// Some reports are shards and others are not, or shards of different splits.
    #[error("{file}: {message}")]
    Shards {
        /// The report.
        file: String,
        /// What does not fit.
        message: String,
    },
    /// Shards of the split are missing.
    #[error("shard{} {} of {count} missing: merge every shard of the split", if .missing.len() == 1 { "" } else { "s" }, .missing.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(", "))]
    MissingShards {
        /// N.
        count: usize,
        /// The missing K.
        missing: Vec<usize>,
    },
    /// A case is in two reports.
    #[error("case `{}` is in {first} and in {second}", crate::diag::quote(.name))]
    Duplicate {
        /// The case.
        name: String,
        /// The first report that has it.
        first: String,
        /// The second.
        second: String,
    },
}

/// Merges batch reports (the shards of one split, or reports of disjoint case sets)
/// into one: cases by name, summary and totals recomputed. Shards must all come from
/// one split (same N and row count) and cover it: every K once. A case in two reports
/// is an error.
pub fn merge(parts: Vec<(String, BatchReport)>) -> Result<BatchReport, MergeError> {
    if parts.is_empty() {
        return Err(MergeError::Empty);
    }
    for (file, r) in &parts {
        if r.schema != BATCH_SCHEMA {
            return Err(MergeError::Schema {
                file: file.clone(),
                schema: r.schema.clone(),
            });
        }
    }
    let sharded = parts.iter().filter(|(_, r)| r.shard.is_some()).count();
    let mut total_rows = 0;
    if sharded > 0 {
        let (f0, r0) = parts
            .iter()
            .find(|(_, r)| r.shard.is_some())
            .ok_or(MergeError::Empty)?;
        let n = r0.shard.map_or(1, |s| s.count);
        let mut seen: BTreeMap<usize, &str> = BTreeMap::new();
        for (file, r) in &parts {
            let Some(s) = r.shard else {
                return Err(MergeError::Shards {
                    file: file.clone(),
                    message: format!(
                        "not a shard, but {f0} is (shard {})",
                        r0.shard.map(|s| s.to_string()).unwrap_or_default()
                    ),
                });
            };
            if s.count != n || r.total_rows != r0.total_rows {
                return Err(MergeError::Shards {
                    file: file.clone(),
                    message: format!(
                        "shard {s} of {} rows does not belong to the split of {f0} (shard {}/{n} of {} rows)",
                        r.total_rows,
                        r0.shard.map_or(1, |s| s.index),
                        r0.total_rows
                    ),
                });
            }
            if let Some(prev) = seen.insert(s.index, file) {
                return Err(MergeError::Shards {
                    file: file.clone(),
                    message: format!("shard {s} is also {prev}"),
                });
            }
        }
        let missing: Vec<usize> = (1..=n).filter(|k| !seen.contains_key(k)).collect();
        if !missing.is_empty() {
            return Err(MergeError::MissingShards { count: n, missing });
        }
        total_rows = r0.total_rows;
    }
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let mut cases = Vec::new();
    let mut unresolved = Vec::new();
    let mut skipped = Vec::new();
    let mut roots: Vec<String> = Vec::new();
    let mut seconds = 0.0;
    let mut files = Vec::new();
    for (file, r) in parts {
        for name in r
            .cases
            .iter()
            .map(|c| &c.case.name)
            .chain(r.unresolved.iter().map(|u| &u.name))
        {
            if let Some(first) = owner.insert(name.clone(), file.clone()) {
                return Err(MergeError::Duplicate {
                    name: name.clone(),
                    first,
                    second: file,
                });
            }
        }
        if !roots.contains(&r.root) {
            roots.push(r.root.clone());
        }
        if sharded == 0 {
            total_rows += r.cases.len() + r.unresolved.len();
        }
        seconds += r.seconds;
        cases.extend(r.cases);
        unresolved.extend(r.unresolved);
        skipped.extend(r.skipped);
        files.push(file);
    }
    cases.sort_by(|a: &CaseResult, b| a.case.name.cmp(&b.case.name));
    unresolved.sort_by(|a: &Unresolved, b| a.name.cmp(&b.name));
    skipped.sort_by(|a: &Skipped, b| a.path.cmp(&b.path));
    skipped.dedup();
    let mut merged = BatchReport::new(
        roots.join(", "),
        seconds,
        None,
        total_rows,
        cases,
        unresolved,
        skipped,
    );
    merged.merged_from = files;
    Ok(merged)
}
