//! The commands `vera bl check/fmt/encode/eval` and `vera consistency` as library
//! functions: a program read and parsed with its warnings, `NAME=VALUE` inputs
//! evaluated, and a consistency check decided from its options (one check, a batch of
//! cases under a folder, or batch reports merged), with the option combinations that
//! are refused. Files are read through `safefile` (bounded, as inputs); a table as the
//! documentation side is formalized by the caller (this crate does not know tables).

use crate::batch::{BatchReport, Shard, Skipped};
use crate::check::{check_consistency, Assumption, Bounds, CheckInput, SideSource};
use crate::diag::Diagnostics;
use logic::SourceFile;
use solver::SolverConfig;
use std::path::{Path, PathBuf};

/// Why a command cannot give its result. `E` is the error of a caller's part (the table
/// formalized as a documentation side); none for the commands without one.
#[derive(Debug, thiserror::Error)]
pub enum Error<E = std::convert::Infallible> {
    /// A file that cannot be read.
    #[error(transparent)]
    Read(#[from] safefile::SafeFileError),
    /// A program that does not parse: every problem, located (not shown yet).
    #[error("{0}")]
    Invalid(Diagnostics),
    /// A bounds file that cannot be used.
    #[error(transparent)]
    Bounds(#[from] crate::check::BoundsError),
    /// An input value that is not a number.
    #[error(transparent)]
    Number(#[from] crate::BadNumber),
    /// The program cannot be evaluated on the inputs.
    #[error(transparent)]
    Interp(#[from] crate::InterpError),
    /// An `--eval` input that is not `NAME=VALUE`.
    #[error("expected NAME=VALUE, found `{0}`")]
    Assignment(String),
    /// `--output` names no binding of the program.
    #[error("`{name}` is not a binding of {file}")]
    NoBinding {
        /// The name.
        name: String,
        /// The program.
        file: String,
    },
    /// An assumption that cannot be read, or a check that cannot start.
    #[error(transparent)]
    Check(#[from] crate::check::CheckError),
    /// Accepted exceptions on file that cannot be used.
    #[error(transparent)]
    Exceptions(#[from] crate::exceptions::ExceptionsError),
    /// A batch folder that cannot be read.
    #[error("cannot read {root}")]
    Discover {
        /// The folder.
        root: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A batch folder without a case.
    #[error(
        "no cases under {0} (a case is a folder with a .bl program and an .smt2 formalization)"
    )]
    NoCases(String),
    /// A file given to `--merge` that is not a batch report.
    #[error("{name}: not a consistency batch report (vera.consistency-batch.v1 JSON)")]
    NotABatchReport {
        /// The file.
        name: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// Batch reports that cannot be merged.
    #[error(transparent)]
    Merge(#[from] crate::batch::MergeError),
    /// An option refused, or a combination of options refused.
    #[error("{0}")]
    Refused(&'static str),
    /// The caller's part failed (its error, as it is).
    #[error("{0}")]
    Caller(E),
}

/// A source file read through `safefile`, named by its path.
pub fn read_source(path: &Path) -> Result<SourceFile, safefile::SafeFileError> {
    let text = safefile::read_text(path)?;
    Ok(SourceFile::new(path.display().to_string(), text))
}

/// Reads a bounds file (`--bounds`: mappings and ranges, JSON).
pub fn read_bounds(path: &Path) -> Result<Bounds, Error> {
    bounds(path)
}

fn bounds<E>(path: &Path) -> Result<Bounds, Error<E>> {
    let text = safefile::read_text(path)?;
    Ok(Bounds::from_json(&path.display().to_string(), &text)?)
}

/// A BL program read from a file, parsed.
pub struct Loaded {
    /// The program.
    pub program: crate::Program,
    /// Its source.
    pub file: SourceFile,
    /// Its warnings (bindings never used and the like), located; possibly none.
    pub warnings: Diagnostics,
}

/// Reads and parses the BL program at `path`.
pub fn program(path: &Path) -> Result<Loaded, Error> {
    let file = read_source(path)?;
    let program = crate::parse(&file).map_err(Error::Invalid)?;
    let warnings = crate::warnings(&program, &file);
    Ok(Loaded {
        program,
        file,
        warnings,
    })
}

/// `vera bl eval`: the values of `program` (read from `path`) on the `NAME=VALUE`
/// assignments; `output`, when given, must be one of its bindings.
pub fn eval(
    path: &Path,
    program: &crate::Program,
    assignments: &[String],
    output: Option<&str>,
) -> Result<crate::Values, Error> {
    let mut pairs = Vec::new();
    for a in assignments {
        let Some((n, v)) = a.split_once('=') else {
            return Err(Error::Assignment(a.clone()));
        };
        pairs.push((n.trim(), v.trim()));
    }
    let inputs = crate::inputs(&pairs)?;
    let values = crate::run(program, &inputs)?;
    if let Some(o) = output.filter(|o| !values.contains_key(*o)) {
        return Err(Error::NoBinding {
            name: o.to_string(),
            file: path.display().to_string(),
        });
    }
    Ok(values)
}

/// What `vera consistency` checks and how.
#[derive(Debug, Clone, Default)]
pub struct ConsistencyOptions {
    /// The documentation's formalization (SMT-LIB).
    pub nl: Option<PathBuf>,
    /// Its output.
    pub nl_output: Option<String>,
    /// A table as the documentation side (formalized by the caller).
    pub table: Option<PathBuf>,
    /// Whether options that describe a table were given (they need [`Self::table`]).
    pub table_options: bool,
    /// The implementation (BL, or SMT-LIB).
    pub implementation: Option<PathBuf>,
    /// Its output.
    pub impl_output: Option<String>,
    /// Mappings and input ranges (SIRNA's bounds JSON).
    pub bounds: Option<PathBuf>,
    /// `NAME=TERM` assumptions.
    pub assume: Vec<String>,
    /// The options of each check.
    pub check: crate::check::CheckOptions,
    /// Accepted exceptions on file, in addition to those found next to the cases.
    pub exceptions: Option<PathBuf>,
    /// Do not read the exceptions found next to the cases.
    pub no_exceptions: bool,
    /// Check every case under this folder.
    pub batch: Option<PathBuf>,
    /// With a batch: only this shard of the cases.
    pub shard: Option<Shard>,
    /// Merge these batch reports instead of checking.
    pub merge: Vec<PathBuf>,
    /// Parallel checks of a batch.
    pub jobs: usize,
}

/// A table formalized as the documentation side of a check.
#[derive(Debug, Clone)]
pub struct TableSide {
    /// The SMT-LIB text.
    pub text: String,
    /// Its output constant.
    pub output: String,
    /// The box around the table's rows: per input, its name and an SMT-LIB term.
    pub hull: Vec<(String, String)>,
}

/// What `vera consistency` gives.
pub enum Consistency {
    /// One check, decided.
    Checked {
        /// The documentation side's name.
        nl: String,
        /// The implementation's name.
        imp: String,
        /// The report.
        report: Box<crate::check::Report>,
    },
    /// One check that could not run (a side that does not parse, a solver that failed).
    NotChecked {
        /// The documentation side's name.
        nl: String,
        /// The implementation's name.
        imp: String,
        /// Why.
        error: crate::check::CheckError,
    },
    /// A batch of cases, or batch reports merged.
    Batch(Box<BatchReport>),
}

/// `vera consistency`: batch reports merged, a batch of cases under a folder, or one
/// check of a documentation side (SMT-LIB, or a table the caller formalizes with
/// `table`) against an implementation. `skipped` hears each folder entry a batch does
/// not look into, as it is found.
pub fn consistency<E>(
    o: &ConsistencyOptions,
    config: &SolverConfig,
    table: impl FnOnce(&Path) -> Result<TableSide, E>,
    skipped: impl FnMut(&Skipped),
) -> Result<Consistency, Error<E>> {
    let assumptions = o
        .assume
        .iter()
        .map(|a| Assumption::parse_arg(a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::Check)?;
    if !o.merge.is_empty() {
        return merge_reports(&o.merge).map(|r| Consistency::Batch(Box::new(r)));
    }
    if let Some(root) = &o.batch {
        if o.nl.is_some() || o.implementation.is_some() {
            return Err(Error::Refused(
                "--batch checks every case under a folder; it does not take --nl or --impl",
            ));
        }
        return batch(root, o, assumptions, config, skipped)
            .map(|r| Consistency::Batch(Box::new(r)));
    }
    if o.table_options && o.table.is_none() {
        return Err(Error::Refused("--group, --by, --name, --keys, --when, --then and --bare describe a table: give it with --table FILE.csv"));
    }
    let mut table_output = None;
    let mut table_hull = Vec::new();
    let (nl, nl_file) = match (&o.nl, &o.table) {
        (Some(nl), _) => (nl.clone(), read_source(nl).map_err(Error::Read)?),
        (None, Some(t)) => {
            let f = table(t).map_err(Error::Caller)?;
            let name = format!("{} (as SMT-LIB)", t.display());
            table_output = Some(f.output);
            // Compare only where the table has rows: the box around them, as named
            // assumptions the report lists (gaps inside the box still show).
            table_hull = f
                .hull
                .iter()
                .map(|(n, t)| Assumption {
                    name: format!("table_rows_{n}"),
                    term: t.clone(),
                })
                .collect();
            (PathBuf::from(&name), SourceFile::new(name, f.text))
        }
        (None, None) => {
            return Err(Error::Refused(
                "give --nl A.smt2 (or --table T.csv) and --impl B.bl (or --batch DIR)",
            ))
        }
    };
    let Some(imp) = &o.implementation else {
        return Err(Error::Refused(
            "give --impl B.bl (the implementation) to check against",
        ));
    };
    let imp_file = read_source(imp).map_err(Error::Read)?;
    let imp_side = SideSource::implementation(imp, imp_file);
    let mut input = CheckInput::new(SideSource::Smt(nl_file.clone()), imp_side);
    input.nl_output = o.nl_output.clone().or(table_output).or_else(|| {
        if o.bounds.is_none() {
            crate::batch::infer_output(&nl_file)
        } else {
            None
        }
    });
    input.bl_output = o.impl_output.clone();
    input.bounds = o.bounds.as_deref().map(bounds).transpose()?;
    input.assumptions = assumptions;
    input.assumptions.extend(table_hull);
    input.exceptions =
        crate::exceptions::for_single(imp, !o.no_exceptions, o.exceptions.as_deref())
            .map_err(Error::Exceptions)?;
    input.options = o.check.clone();
    let (nl, imp) = (nl.display().to_string(), imp.display().to_string());
    Ok(match check_consistency(&input, config) {
        Ok(report) => Consistency::Checked {
            nl,
            imp,
            report: Box::new(report),
        },
        Err(error) => Consistency::NotChecked { nl, imp, error },
    })
}

fn batch<E>(
    root: &Path,
    o: &ConsistencyOptions,
    assumptions: Vec<Assumption>,
    config: &SolverConfig,
    mut skipped: impl FnMut(&Skipped),
) -> Result<BatchReport, Error<E>> {
    let found = crate::batch::discover(root).map_err(|source| Error::Discover {
        root: root.display().to_string(),
        source,
    })?;
    let total_rows = found.rows();
    if total_rows == 0 {
        return Err(Error::NoCases(root.display().to_string()));
    }
    let found = match o.shard {
        Some(k) => found.shard(k),
        None => found,
    };
    found.skipped.iter().for_each(&mut skipped);
    let bounds = o.bounds.as_deref().map(bounds).transpose()?;
    let options = crate::batch::BatchOptions {
        check: o.check.clone(),
        assumptions,
        jobs: o.jobs,
        bounds,
        nl_output: o.nl_output.clone(),
        impl_output: o.impl_output.clone(),
        exceptions_root: (!o.no_exceptions).then(|| root.to_path_buf()),
        exceptions: match &o.exceptions {
            Some(f) => crate::exceptions::load(f).map_err(Error::Exceptions)?,
            None => Vec::new(),
        },
    };
    let start = std::time::Instant::now();
    let results = crate::batch::run(&found.cases, &options, config);
    let seconds = start.elapsed().as_secs_f64();
    Ok(BatchReport::new(
        root.display().to_string(),
        seconds,
        o.shard,
        total_rows,
        results,
        found.unresolved,
        found.skipped,
    ))
}

/// `vera consistency --merge A.json B.json ...`: one batch report from several (the
/// shards of one split, or batches over disjoint case sets).
fn merge_reports<E>(files: &[PathBuf]) -> Result<BatchReport, Error<E>> {
    let mut parts = Vec::new();
    for f in files {
        let text = safefile::read_text(f).map_err(Error::Read)?;
        let name = f.display().to_string();
        let rep: BatchReport = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(source) => return Err(Error::NotABatchReport { name, source }),
        };
        parts.push((name, rep));
    }
    crate::batch::merge(parts).map_err(Error::Merge)
}
