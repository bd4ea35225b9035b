//! Trivial Compiler Equivalence: two C texts are taken as equivalent when
//! `gcc -O2` compiles them (from standard input, so no file name leaks into the
//! object) to stripped object files that are identical byte for byte. The whole
//! object is compared, not only `.text`: call targets and string literals live
//! elsewhere. "Identical" is trusted; "different" can miss an equivalence, so a
//! VDR computed with it is conservative.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::util::{self, RunError};

/// How to compile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TceConfig {
    /// The C compiler.
    pub gcc: PathBuf,
    /// `objcopy`.
    pub objcopy: PathBuf,
    /// Compiler flags (`-O2` by default).
    pub flags: Vec<String>,
    /// Directory for the compilation cache (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
}

impl Default for TceConfig {
    fn default() -> Self {
        TceConfig {
            gcc: "gcc".into(),
            objcopy: "objcopy".into(),
            flags: vec!["-O2".into()],
            cache_dir: None,
        }
    }
}

/// Why a compilation could not be done at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TceError {
    /// The compiler or objcopy could not be run.
    #[error("cannot run `{program}`: {reason}")]
    Tool {
        /// The program.
        program: String,
        /// Why.
        reason: String,
    },
    /// A file system error.
    #[error("{0}")]
    Io(String),
}

/// The outcome of compiling one text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Compiled {
    /// Compiled; the SHA-256 of the stripped object.
    Object {
        /// Hex SHA-256 of the stripped object file.
        hash: String,
    },
    /// The compiler rejected the text.
    Rejected {
        /// The compiler's first error line.
        message: String,
    },
}

/// Whether two texts are equivalent under TCE.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Equivalence {
    /// Identical stripped objects.
    Equivalent,
    /// Different objects (the texts may still be equivalent).
    Different,
    /// One of the texts does not compile.
    DoesNotCompile,
}

/// Counters of a sequence of compilations.
#[derive(Debug, Default)]
pub struct TceCounters {
    /// Compiler runs.
    pub compilations: AtomicUsize,
    /// Answers from the cache.
    pub cache_hits: AtomicUsize,
}

/// Compile `text` and hash the stripped object (cached by the hash of the text
/// and flags).
pub fn compile(text: &str, cfg: &TceConfig, counters: &TceCounters) -> Result<Compiled, TceError> {
    let key = util::content_hash(&[b"tce-1", cfg.flags.join(" ").as_bytes(), text.as_bytes()]);
    cached(&key, cfg, counters, |dir, obj| {
        let mut cmd = Command::new(&cfg.gcc);
        cmd.args(&cfg.flags)
            .args(["-c", "-x", "c", "-o"])
            .arg(obj)
            .arg("-")
            .current_dir(dir);
        object(cmd, Some(text), dir, obj, cfg)
    })
}

/// Compile the C file `source` in directory `dir` with the flags of `cfg` and
/// then `args` (a unit's preprocessor flags), and hash the stripped object.
/// `key` must name everything the object depends on besides `cfg`'s flags (the
/// unit, its flags and the texts of the files it includes): the cache is keyed
/// by it and those flags only, so paths that differ from run to run (a
/// temporary directory) may stay out of it.
pub fn compile_file(
    source: &Path,
    dir: &Path,
    args: &[String],
    key: &str,
    cfg: &TceConfig,
    counters: &TceCounters,
) -> Result<Compiled, TceError> {
    let key = util::content_hash(&[
        b"tce-file-1",
        cfg.flags.join(" ").as_bytes(),
        key.as_bytes(),
    ]);
    cached(&key, cfg, counters, |tmp, obj| {
        let mut cmd = Command::new(&cfg.gcc);
        // The unit's flags come last: its -D/-I are kept, an -O of the build is
        // not among them (only preprocessor flags are), so `cfg`'s -O2 holds.
        cmd.args(&cfg.flags)
            .args(args)
            .args(["-c", "-o"])
            .arg(obj)
            .arg(source)
            .current_dir(dir);
        object(cmd, None, tmp, obj, cfg)
    })
}

/// A compilation answered from the cache under `key`, or done by `run` in a
/// temporary directory (given the directory and the object's path) and cached.
fn cached(
    key: &str,
    cfg: &TceConfig,
    counters: &TceCounters,
    run: impl FnOnce(&Path, &Path) -> Result<Compiled, TceError>,
) -> Result<Compiled, TceError> {
    let cache = cfg.cache_dir.as_deref();
    if let Some(hit) = util::cache_get(cache, "tce", key) {
        if let Ok(c) = serde_json::from_str::<Compiled>(&hit) {
            counters.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(c);
        }
    }
    counters.compilations.fetch_add(1, Ordering::Relaxed);
    let dir = tempfile::tempdir().map_err(|e| TceError::Io(e.to_string()))?;
    let obj = dir.path().join("x.o");
    let result = run(dir.path(), &obj)?;
    if let Ok(j) = serde_json::to_string(&result) {
        util::cache_put(cache, "tce", key, &j);
    }
    Ok(result)
}

/// Run the compiler command `cmd` (which writes `obj`; its output is kept in
/// `dir`), strip the object and hash it.
fn object(
    cmd: Command,
    stdin: Option<&str>,
    dir: &Path,
    obj: &Path,
    cfg: &TceConfig,
) -> Result<Compiled, TceError> {
    let tool = |program: &PathBuf, e: RunError| TceError::Tool {
        program: program.display().to_string(),
        reason: match e {
            RunError::Spawn(e) | RunError::Io(e) => e.to_string(),
            RunError::Killed => "did not finish in time".into(),
        },
    };
    let out = util::run_limited(cmd, dir, stdin.map(str::as_bytes), Duration::from_secs(60))
        .map_err(|e| tool(&cfg.gcc, e))?;
    if !out.status.success() || !obj.is_file() {
        return Ok(Compiled::Rejected {
            message: out
                .stderr
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("compilation failed")
                .trim()
                .to_string(),
        });
    }
    let mut strip = Command::new(&cfg.objcopy);
    strip.arg("--strip-unneeded").arg(obj);
    let s = util::run_limited(strip, dir, None, Duration::from_secs(60))
        .map_err(|e| tool(&cfg.objcopy, e))?;
    if !s.status.success() {
        return Err(TceError::Tool {
            program: cfg.objcopy.display().to_string(),
            reason: s.stderr.trim().to_string(),
        });
    }
    let bytes = std::fs::read(obj).map_err(|e| TceError::Io(e.to_string()))?;
    Ok(Compiled::Object {
        hash: util::content_hash(&[&bytes]),
    })
}

/// Decide whether two C texts are equivalent under TCE.
pub fn equivalent(a: &str, b: &str, cfg: &TceConfig) -> Result<Equivalence, TceError> {
    let c = TceCounters::default();
    Ok(compare(&compile(a, cfg, &c)?, &compile(b, cfg, &c)?))
}

/// Compare two compilation outcomes.
pub fn compare(a: &Compiled, b: &Compiled) -> Equivalence {
    match (a, b) {
        (Compiled::Object { hash: x }, Compiled::Object { hash: y }) if x == y => {
            Equivalence::Equivalent
        }
        (Compiled::Object { .. }, Compiled::Object { .. }) => Equivalence::Different,
        _ => Equivalence::DoesNotCompile,
    }
}
