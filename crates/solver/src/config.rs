//! Which solver to run and how.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The supported solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SolverKind {
    /// Z3 (4.8 or newer).
    Z3,
    /// cvc5 (1.0 or newer).
    Cvc5,
}

impl SolverKind {
    /// Both kinds, for tests and comparisons.
    pub const ALL: [SolverKind; 2] = [SolverKind::Z3, SolverKind::Cvc5];

    /// The program name looked up on `PATH` when nothing else is configured.
    pub fn default_program(self) -> &'static str {
        match self {
            SolverKind::Z3 => "z3",
            SolverKind::Cvc5 => "cvc5",
        }
    }

    /// The environment variable that may name the binary (`VERA_Z3`, `VERA_CVC5`).
    pub fn env_var(self) -> &'static str {
        match self {
            SolverKind::Z3 => "VERA_Z3",
            SolverKind::Cvc5 => "VERA_CVC5",
        }
    }

    /// Command-line arguments that make the solver read SMT-LIB2 commands from stdin
    /// incrementally and keep stdout for answers.
    pub fn args(self) -> &'static [&'static str] {
        match self {
            SolverKind::Z3 => &["-in", "-smt2"],
            SolverKind::Cvc5 => &["--lang", "smt2", "--incremental", "--quiet"],
        }
    }

    /// The oldest supported version, as (major, minor).
    pub fn min_version(self) -> (u64, u64) {
        match self {
            SolverKind::Z3 => (4, 8),
            SolverKind::Cvc5 => (1, 0),
        }
    }

    /// The option that sets the per-query time limit in milliseconds.
    pub fn timeout_option(self) -> &'static str {
        match self {
            SolverKind::Z3 => "timeout",
            SolverKind::Cvc5 => "tlimit-per",
        }
    }
}

impl fmt::Display for SolverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.default_program())
    }
}

/// An unknown solver name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown solver `{0}`; expected `z3` or `cvc5`")]
pub struct UnknownSolver(pub String);

impl FromStr for SolverKind {
    type Err = UnknownSolver;

    fn from_str(s: &str) -> Result<SolverKind, UnknownSolver> {
        match s.to_ascii_lowercase().as_str() {
            "z3" => Ok(SolverKind::Z3),
            "cvc5" => Ok(SolverKind::Cvc5),
            _ => Err(UnknownSolver(s.to_string())),
        }
    }
}

/// How to start and drive a solver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolverConfig {
    /// Which solver.
    pub kind: SolverKind,
    /// The binary. `None`: the environment variable [`SolverKind::env_var`], else the
    /// default program name on `PATH`.
    pub program: Option<PathBuf>,
    /// The time limit of each check, set in the solver and enforced by a wall-clock
    /// watchdog with some grace on top (see [`SolverConfig::watchdog`]).
    pub timeout: Duration,
    /// Where to write a replayable `.smt2` transcript of the session, if anywhere.
    pub transcript: Option<PathBuf>,
    /// Replace an existing transcript file (never an input of the run; see `safefile`).
    pub transcript_force: bool,
    /// Re-check models and unsat cores before reporting them.
    pub validate: bool,
}

impl SolverConfig {
    /// The defaults for a solver kind: found on `PATH`, 10 s per check, no transcript,
    /// validation on.
    pub fn new(kind: SolverKind) -> SolverConfig {
        SolverConfig {
            kind,
            program: None,
            timeout: Duration::from_secs(10),
            transcript: None,
            transcript_force: false,
            validate: true,
        }
    }

    /// The binary that will be run.
    pub fn resolved_program(&self) -> PathBuf {
        if let Some(p) = &self.program {
            return p.clone();
        }
        match std::env::var_os(self.kind.env_var()) {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => through_shims(self.kind.default_program()),
        }
    }

    /// How long vera waits for any answer before killing the process: the timeout plus
    /// the larger of one second and half the timeout.
    pub fn watchdog(&self) -> Duration {
        self.timeout + (self.timeout / 2).max(Duration::from_secs(1))
    }
}

/// Resolves a program name through version-manager shims.
///
/// `pip install z3-solver` under pyenv puts a shell-script shim first on `PATH`; every
/// start then costs a shell and a Python-version lookup (about 70 ms here, against 3 ms
/// for the binary). When the name found on `PATH` is such a shim, vera asks pyenv for
/// the real binary once and remembers it.
fn through_shims(name: &str) -> PathBuf {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(p) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(name) {
        return p.clone();
    }
    let found = find_on_path(name)
        .filter(|p| {
            p.components().any(|c| c.as_os_str() == "shims")
                && p.to_string_lossy().contains("pyenv")
        })
        .and_then(|_| {
            let out = std::process::Command::new("pyenv")
                .args(["which", name])
                .output()
                .ok()?;
            let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
            (out.status.success() && path.is_file()).then_some(path)
        })
        .unwrap_or_else(|| PathBuf::from(name));
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.to_string(), found.clone());
    found
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
