//! Trivial Compiler Equivalence: two C texts are taken as equivalent when
//! `gcc -O2` compiles them (from standard input, so no file name leaks into the
//! object) to stripped object files that are identical byte for byte. The whole
//! object is compared, not only `.text`: call targets and string literals live
//! elsewhere. "Identical" is trusted; "different" can miss an equivalence, so a
//! VDR computed with it is conservative.

use std::path::PathBuf;
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
    let cache = cfg.cache_dir.as_deref();
    if let Some(hit) = util::cache_get(cache, "tce", &key) {
        if let Ok(c) = serde_json::from_str::<Compiled>(&hit) {
            counters.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(c);
        }
    }
    counters.compilations.fetch_add(1, Ordering::Relaxed);
    let dir = tempfile::tempdir().map_err(|e| TceError::Io(e.to_string()))?;
    let obj = dir.path().join("x.o");
    let mut cmd = Command::new(&cfg.gcc);
    cmd.args(&cfg.flags)
        .args(["-c", "-x", "c", "-o"])
        .arg(&obj)
        .arg("-")
        .current_dir(dir.path());
    let tool = |program: &PathBuf, e: RunError| TceError::Tool {
        program: program.display().to_string(),
        reason: match e {
            RunError::Spawn(e) | RunError::Io(e) => e.to_string(),
            RunError::Killed => "did not finish in time".into(),
        },
    };
    let out = util::run_limited(
        cmd,
        dir.path(),
        Some(text.as_bytes()),
        Duration::from_secs(60),
    )
    .map_err(|e| tool(&cfg.gcc, e))?;
    let result = if !out.status.success() || !obj.is_file() {
        Compiled::Rejected {
            message: out
                .stderr
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("compilation failed")
                .trim()
                .to_string(),
        }
    } else {
        let mut strip = Command::new(&cfg.objcopy);
        strip.arg("--strip-unneeded").arg(&obj);
        let s = util::run_limited(strip, dir.path(), None, Duration::from_secs(60))
            .map_err(|e| tool(&cfg.objcopy, e))?;
        if !s.status.success() {
            return Err(TceError::Tool {
                program: cfg.objcopy.display().to_string(),
                reason: s.stderr.trim().to_string(),
            });
        }
        let bytes = std::fs::read(&obj).map_err(|e| TceError::Io(e.to_string()))?;
        Compiled::Object {
            hash: util::content_hash(&[&bytes]),
        }
    };
    if let Ok(j) = serde_json::to_string(&result) {
        util::cache_put(cache, "tce", &key, &j);
    }
    Ok(result)
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
