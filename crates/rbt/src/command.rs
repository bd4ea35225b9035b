//! The commands `vera tests`, `vera tests run` and `vera tests cover` as library
//! functions: which problem a spec path gives with the suite options (a plain spec, an
//! SMT-LIB documentation side, or a timed spec's sequences), the option combinations
//! that are refused, `--step` and `--fix`, the implementation a path names, and the
//! suite made, run or measured. Files are read through the caller's [`Inputs`] (this
//! crate reads none itself); the results are plain data for `printer::tests`.

use crate::problem::Problem;
use crate::run::Implementation;
use num_rational::BigRational;
use solver::SolverConfig;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a command's files are read: a text file, a spec (TOML, timed requirements
/// accepted) and a bounds file (SIRNA's JSON). The caller decides how (bounded, as
/// inputs no output may replace) and what its errors are.
pub trait Inputs {
    /// What reading can fail with.
    type Error;
    /// The text of a file.
    fn text(&self, path: &Path) -> std::result::Result<String, Self::Error>;
    /// A spec, loaded.
    fn spec(&self, path: &Path) -> std::result::Result<reqs::Spec, Self::Error>;
    /// A bounds file, read.
    fn bounds(&self, path: &Path) -> std::result::Result<bl::check::Bounds, Self::Error>;
}

/// How a suite is derived from a spec (`vera tests`' suite options).
#[derive(Debug, Clone, Default)]
pub struct SuiteOptions {
    /// The inputs a test sets (`--inputs`).
    pub inputs: Option<Vec<String>>,
    /// A roles file naming the inputs (`--roles`).
    pub roles: Option<PathBuf>,
    /// `[VAR=]STEP` items (`--step`).
    pub step: Vec<String>,
    /// No boundary cases.
    pub no_boundaries: bool,
    /// For an SMT-LIB documentation side: its bounds file.
    pub bounds: Option<PathBuf>,
}

/// The implementation `vera tests run` runs a suite against, and how.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// An executable, a BL program (`.bl`) or a C file (`.c`).
    pub implementation: PathBuf,
    /// Arguments of an executable.
    pub args: Vec<String>,
    /// The C function to call.
    pub function: Option<String>,
    /// `IMPL=SPEC` name mappings.
    pub map: Vec<String>,
    /// The outputs an executable prints, or a C function's result.
    pub outputs: Option<Vec<String>>,
    /// `NAME=VALUE` items for implementation inputs the spec does not have.
    pub fix: Vec<String>,
    /// Time limit per case, in seconds.
    pub case_timeout: f64,
    /// The tolerance for numeric outputs, as written.
    pub tolerance: Option<String>,
}

/// Why a command cannot give its result. `E` is the error of the caller's [`Inputs`].
#[derive(Debug, thiserror::Error)]
pub enum Error<E> {
    /// A file could not be read or loaded (the caller's error, as it is).
    #[error("{0}")]
    Input(E),
    /// A documentation side or a BL program that does not read: every problem, located
    /// (not shown yet).
    #[error("{0}")]
    Invalid(bl::diag::Diagnostics),
    /// A suite file that cannot be used: its problems (not shown yet).
    #[error("{name} cannot be used: {} error(s) above", problems.len())]
    Unusable {
        /// The file.
        name: String,
        /// Every problem.
        problems: Vec<String>,
    },
    /// An option refused for what SPEC is, or a combination of options refused.
    #[error("{0}")]
    Refused(&'static str),
    /// `--bounds` with a spec.
    #[error("--bounds is for an SMT-LIB documentation side (.smt2); {0} is a spec")]
    BoundsForSpec(String),
    /// A roles file that does not read.
    #[error("{0}")]
    Roles(String),
    /// A problem that cannot be built.
    #[error("{0}")]
    Problem(crate::ProblemError),
    /// A problem for a timed spec's sequences that cannot be built.
    #[error("{path}: {error}")]
    Sequences {
        /// The spec.
        path: String,
        /// Why.
        error: crate::ProblemError,
    },
    /// A `--step` value that is not a number.
    #[error("--step {step}: `{value}` is not a number")]
    StepNumber {
        /// The item.
        step: String,
        /// Its value.
        value: String,
    },
    /// A `--step` the problem refuses.
    #[error("--step {step}: {error}")]
    Step {
        /// The item.
        step: String,
        /// Why.
        error: crate::ProblemError,
    },
    /// A `--fix` item that is not `NAME=VALUE`.
    #[error("--fix {0}: write NAME=VALUE")]
    Fix(String),
    /// A `--tolerance` that is not a number of at least 0.
    #[error("--tolerance {0}: not a number of at least 0")]
    Tolerance(String),
    /// A `--map` that does not read.
    #[error("--map: {0}")]
    Map(crate::run::SetupError),
    /// An implementation that cannot be set up.
    #[error("{path}: {error}")]
    Setup {
        /// The implementation.
        path: String,
        /// Why.
        error: crate::run::SetupError,
    },
    /// An executable that cannot be set up.
    #[error("{0}")]
    Executable(crate::run::SetupError),
    /// The suite (or the coverage, or a timed run) could not be made.
    #[error("{0}")]
    Generate(crate::GenerateError),
    /// The run's solver session failed.
    #[error("{0}")]
    Session(crate::session::SessionError),
}

type Result<T, E> = std::result::Result<T, Error<E>>;

fn is_smt(spec: &Path) -> bool {
    spec.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("smt2"))
}

/// Reads the spec (TOML) or documentation side (SMT-LIB, `.smt2`) with the suite
/// options, `--step` included.
pub fn load_problem<I: Inputs>(
    spec: &Path,
    s: &SuiteOptions,
    files: &I,
) -> Result<Problem, I::Error> {
    let mut p = if is_smt(spec) {
        let text = files.text(spec).map_err(Error::Input)?;
        let file = logic::SourceFile::new(spec.display().to_string(), text);
        let bounds = match s.bounds.as_deref() {
            Some(b) => Some(files.bounds(b).map_err(Error::Input)?),
            None => None,
        };
        if s.inputs.is_some() || s.roles.is_some() {
            return Err(Error::Refused("--inputs and --roles are for specs; the inputs of a documentation side come from its definitions and --bounds"));
        }
        Problem::from_documentation(&file, bounds.as_ref()).map_err(|e| match e {
            crate::ProblemError::Invalid(d) => Error::Invalid(d),
            other => Error::Problem(other),
        })?
    } else {
        if s.bounds.is_some() {
            return Err(Error::BoundsForSpec(spec.display().to_string()));
        }
        let loaded = files.spec(spec).map_err(Error::Input)?;
        let inputs = match (&s.inputs, &s.roles) {
            (Some(i), _) => Some(i.clone()),
            (None, Some(r)) => {
                let text = files.text(r).map_err(Error::Input)?;
                Some(
                    crate::problem::read_roles(&r.display().to_string(), &text)
                        .map_err(Error::Roles)?,
                )
            }
            (None, None) => None,
        };
        Problem::from_spec(loaded, inputs.as_deref()).map_err(Error::Problem)?
    };
    for st in &s.step {
        let (name, value) = match st.split_once('=') {
            Some((n, v)) => (Some(n.trim()), v),
            None => (None, st.as_str()),
        };
        let v = crate::values::rational(value).ok_or_else(|| Error::StepNumber {
            step: st.clone(),
            value: value.to_string(),
        })?;
        p.set_step(name, v).map_err(|error| Error::Step {
            step: st.clone(),
            error,
        })?;
    }
    Ok(p)
}

/// The problem of a timed spec's sequences; the options of plain specs are refused.
fn sequences_problem<E>(path: &Path, s: &SuiteOptions, spec: reqs::Spec) -> Result<Problem, E> {
    if s.inputs.is_some() || s.roles.is_some() || s.bounds.is_some() {
        return Err(Error::Refused("--inputs, --roles and --bounds are for plain specs; a timed spec's sequences use its own roles (role = \"input\")"));
    }
    Problem::for_sequences(spec).map_err(|error| Error::Sequences {
        path: path.display().to_string(),
        error,
    })
}

/// A timed spec, read when SPEC has a `[time]` table.
fn timed_spec<I: Inputs>(spec: &Path, files: &I) -> Result<Option<reqs::Spec>, I::Error> {
    if is_smt(spec) {
        return Ok(None);
    }
    let loaded = files.spec(spec).map_err(Error::Input)?;
    Ok(loaded.time.is_some().then_some(loaded))
}

/// The suite of `vera tests`.
pub enum Generated {
    /// Test cases of a plain spec or a documentation side.
    Cases {
        /// The problem.
        problem: Box<Problem>,
        /// The suite.
        suite: crate::Suite,
        /// The traceability matrix (CSV).
        matrix: String,
        /// The time it took.
        seconds: f64,
    },
    /// Test sequences of a timed spec.
    Sequences {
        /// The spec.
        spec: Box<reqs::Spec>,
        /// The suite.
        suite: crate::timed::TimedSuite,
        /// The rows of the traceability matrix.
        matrix: Vec<Vec<String>>,
        /// The time it took.
        seconds: f64,
    },
}

/// `vera tests SPEC`: the suite of a spec, a documentation side or a timed spec.
pub fn generate<I: Inputs>(
    spec: &Path,
    s: &SuiteOptions,
    config: &SolverConfig,
    files: &I,
) -> Result<Generated, I::Error> {
    if let Some(timed) = timed_spec(spec, files)? {
        if s.inputs.is_some() || s.roles.is_some() || !s.step.is_empty() {
            return Err(Error::Refused("--inputs, --roles and --step are for plain specs; a timed spec's sequences use its own roles and tick"));
        }
        let start = Instant::now();
        let suite = crate::timed::generate_timed(&timed, config).map_err(Error::Generate)?;
        let seconds = start.elapsed().as_secs_f64();
        let matrix = crate::timed::matrix_rows(&timed, &suite);
        return Ok(Generated::Sequences {
            spec: Box::new(timed),
            suite,
            matrix,
            seconds,
        });
    }
    let problem = load_problem(spec, s, files)?;
    let mut options = crate::Options::new(config.clone());
    options.boundaries = !s.no_boundaries;
    let start = Instant::now();
    let suite = crate::generate(&problem, &options).map_err(Error::Generate)?;
    let seconds = start.elapsed().as_secs_f64();
    let matrix = crate::table::matrix_csv(&suite);
    Ok(Generated::Cases {
        problem: Box::new(problem),
        suite,
        matrix,
        seconds,
    })
}

/// `NAME=VALUE` pairs of `--fix`.
fn fixed_values<E>(items: &[String]) -> Result<Vec<(String, String)>, E> {
    items
        .iter()
        .map(|s| match s.split_once('=') {
            Some((n, v)) if !n.trim().is_empty() && !v.trim().is_empty() => {
                Ok((n.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(Error::Fix(s.clone())),
        })
        .collect()
}

/// An implementation set up, and the tolerance for its numeric outputs.
type SetUp = (Box<dyn Implementation>, Option<BigRational>);

/// The implementation `o` names (a BL program, a C function, or an executable), set
/// up over `p`'s names, and the `--tolerance` for numeric outputs.
fn implementation<I: Inputs>(
    p: &Problem,
    o: &RunOptions,
    bounds: Option<&Path>,
    files: &I,
) -> Result<SetUp, I::Error> {
    use crate::run::{BlProgram, Executable};
    let map = crate::run::parse_map(&o.map).map_err(Error::Map)?;
    let fixed = fixed_values(&o.fix)?;
    let timeout = Duration::from_secs_f64(o.case_timeout);
    let tolerance = match &o.tolerance {
        Some(t) => Some(
            crate::values::rational(t)
                .filter(|v| *v >= BigRational::from_integer(0.into()))
                .ok_or_else(|| Error::Tolerance(t.clone()))?,
        ),
        None => None,
    };
    let path = &o.implementation;
    let setup = |error| Error::Setup {
        path: path.display().to_string(),
        error,
    };
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if ext != "c" && o.function.is_some() {
        return Err(Error::Refused(
            "--function is for a C implementation (a .c file)",
        ));
    }
    let imp: Box<dyn Implementation> = match ext.as_str() {
        "bl" => {
            let text = files.text(path).map_err(Error::Input)?;
            let file = logic::SourceFile::new(path.display().to_string(), text);
            let program = bl::parse(&file).map_err(Error::Invalid)?;
            let bounds = match bounds {
                Some(b) => Some(files.bounds(b).map_err(Error::Input)?),
                None => None,
            };
            let name = path.display().to_string();
            Box::new(
                BlProgram::new(p, &name, program, &map, bounds.as_ref(), &fixed).map_err(setup)?,
            )
        }
        "c" => {
            let function = o
                .function
                .as_deref()
                .ok_or(Error::Refused("a C implementation needs --function NAME"))?;
            if !fixed.is_empty() {
                return Err(Error::Refused("--fix is for BL programs and executables; a C function takes only its parameters"));
            }
            let result = o.outputs.as_ref().map(|o| o.join(","));
            Box::new(
                crate::cfunc::CFunction::build(p, path, function, &map, result.as_deref(), timeout)
                    .map_err(setup)?,
            )
        }
        _ => Box::new(
            Executable::new(
                p,
                path.clone(),
                o.args.clone(),
                timeout,
                &map,
                o.outputs.as_deref(),
                fixed,
            )
            .map_err(Error::Executable)?,
        ),
    };
    Ok((imp, tolerance))
}

/// A suite run against an implementation (`vera tests run`).
pub enum Ran {
    /// The cases of a plain spec or a documentation side.
    Cases {
        /// The problem.
        problem: Problem,
        /// The suite.
        suite: crate::Suite,
        /// What each case did.
        report: crate::run::RunReport,
        /// The time it took.
        seconds: f64,
    },
    /// The sequences of a timed spec.
    Sequences {
        /// The problem (the timed spec's sequences).
        problem: Problem,
        /// The suite.
        suite: crate::timed::TimedSuite,
        /// What each sequence did.
        report: crate::timed_run::TimedRunReport,
        /// The time it took.
        seconds: f64,
    },
}

/// `vera tests run SPEC --impl X`: the suite made and run on the implementation.
pub fn run<I: Inputs>(
    spec: &Path,
    s: &SuiteOptions,
    o: &RunOptions,
    config: &SolverConfig,
    files: &I,
) -> Result<Ran, I::Error> {
    if let Some(timed) = timed_spec(spec, files)? {
        let problem = sequences_problem(spec, s, timed)?;
        let (mut imp, tolerance) = implementation(&problem, o, s.bounds.as_deref(), files)?;
        let start = Instant::now();
        let suite = crate::timed::generate_timed(&problem.spec, config).map_err(Error::Generate)?;
        let report = crate::timed_run::run_timed(
            &problem.spec,
            &suite,
            imp.as_mut(),
            config,
            tolerance.as_ref(),
        )
        .map_err(Error::Generate)?;
        if report.sequences.is_empty() {
            return Err(Error::Refused(
                "the suite has no sequence to run (every one is unreachable or undecided)",
            ));
        }
        let seconds = start.elapsed().as_secs_f64();
        return Ok(Ran::Sequences {
            problem,
            suite,
            report,
            seconds,
        });
    }
    let problem = load_problem(spec, s, files)?;
    let (mut imp, tolerance) = implementation(&problem, o, s.bounds.as_deref(), files)?;
    let start = Instant::now();
    let mut options = crate::Options::new(config.clone());
    options.boundaries = !s.no_boundaries;
    let suite = crate::generate(&problem, &options).map_err(Error::Generate)?;
    if suite.cases.is_empty() {
        return Err(Error::Refused(
            "the suite has no case to run (every obligation is unreachable or undecided)",
        ));
    }
    let report = crate::run::run_suite(&problem, &suite, imp.as_mut(), config, tolerance.as_ref())
        .map_err(Error::Session)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Ran::Cases {
        problem,
        suite,
        report,
        seconds,
    })
}

/// An existing suite measured against a spec (`vera tests cover`).
pub enum Covered {
    /// Vectors against the obligations of a plain spec or a documentation side.
    Vectors {
        /// The problem.
        problem: Problem,
        /// The coverage.
        report: crate::cover::CoverReport,
        /// The time it took.
        seconds: f64,
    },
    /// Sequences against the shapes of a timed spec.
    Sequences {
        /// The problem (the timed spec's sequences).
        problem: Problem,
        /// The coverage.
        report: crate::timed_cover::TimedCoverReport,
        /// The time it took.
        seconds: f64,
    },
}

/// `vera tests cover SPEC VECTORS`: the suite in `vectors` measured against SPEC.
pub fn cover<I: Inputs>(
    spec: &Path,
    vectors: &Path,
    s: &SuiteOptions,
    config: &SolverConfig,
    files: &I,
) -> Result<Covered, I::Error> {
    let name = vectors.display().to_string();
    let unusable = |e: crate::cover::ReadError| Error::Unusable {
        name: name.clone(),
        problems: e.0,
    };
    if let Some(timed) = timed_spec(spec, files)? {
        let problem = sequences_problem(spec, s, timed)?;
        let text = files.text(vectors).map_err(Error::Input)?;
        let suite = crate::timed_cover::read_sequences(&problem, &name, &text).map_err(unusable)?;
        let start = Instant::now();
        let report =
            crate::timed_cover::cover_timed(&problem, &suite, config).map_err(Error::Generate)?;
        let seconds = start.elapsed().as_secs_f64();
        return Ok(Covered::Sequences {
            problem,
            report,
            seconds,
        });
    }
    let problem = load_problem(spec, s, files)?;
    let text = files.text(vectors).map_err(Error::Input)?;
    let read = crate::cover::read_vectors(&problem, &name, &text).map_err(unusable)?;
    let start = Instant::now();
    let report =
        crate::cover::cover(&problem, &read, config, !s.no_boundaries).map_err(Error::Generate)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Covered::Vectors {
        problem,
        report,
        seconds,
    })
}
