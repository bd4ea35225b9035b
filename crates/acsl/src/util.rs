//! Small helpers: content hashes, a directory cache, bounded parallel map, and
//! child processes with a wall-clock limit.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// Hex SHA-256 of the parts, separated so that ("ab","c") and ("a","bc") differ.
pub fn content_hash(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    let d = h.finalize();
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Read a cache entry.
pub fn cache_get(dir: Option<&Path>, kind: &str, key: &str) -> Option<String> {
    let dir = dir?;
    std::fs::read_to_string(dir.join(kind).join(format!("{key}.json"))).ok()
}

/// Write a cache entry atomically (write a temporary file, then rename).
pub fn cache_put(dir: Option<&Path>, kind: &str, key: &str, value: &str) {
    let Some(dir) = dir else { return };
    let d = dir.join(kind);
    if std::fs::create_dir_all(&d).is_err() {
        return;
    }
    // A cache entry replaces the one before it: written with force, atomically.
    let _ = safefile::write_atomic(&d.join(format!("{key}.json")), value.as_bytes(), true);
}

/// A number unique within this process.
pub fn unique() -> usize {
    static N: AtomicUsize = AtomicUsize::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Apply `f` to every item on at most `jobs` threads; results in input order.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let jobs = jobs.max(1).min(items.len().max(1));
    if jobs == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                if let Ok(mut g) = results.lock() {
                    g[i] = Some(r);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// The output of a finished child process.
#[derive(Debug)]
pub struct Finished {
    /// Exit status.
    pub status: ExitStatus,
    /// Standard output (lossy UTF-8).
    pub stdout: String,
    /// Standard error (lossy UTF-8).
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// How running a child process went wrong.
#[derive(Debug)]
pub enum RunError {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It ran longer than the limit and was killed.
    Killed,
    /// Reading its output failed.
    Io(std::io::Error),
}

/// Run `cmd` with stdout and stderr going to files in `dir`, stdin from `input`
/// (or nothing), and kill it after `limit`. The file names are unique within the
/// process only: `dir` must not be shared with other processes.
pub fn run_limited(
    mut cmd: Command,
    dir: &Path,
    input: Option<&[u8]>,
    limit: Duration,
) -> Result<Finished, RunError> {
    let n = unique();
    let out_path: PathBuf = dir.join(format!(".out{n}"));
    let err_path: PathBuf = dir.join(format!(".err{n}"));
    let out = std::fs::File::create(&out_path).map_err(RunError::Io)?; // scratch: the tool's output in the caller's temporary folder
    let err = std::fs::File::create(&err_path).map_err(RunError::Io)?; // scratch: the tool's errors, beside it
    cmd.stdout(out).stderr(err);
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        use std::io::Write;
        // A child that exits early closes the pipe; its status tells what happened.
        let _ = stdin.write_all(bytes);
    }
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {
                if start.elapsed() > limit {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(RunError::Killed);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(RunError::Io(e)),
        }
    };
    let elapsed = start.elapsed();
    let stdout =
        String::from_utf8_lossy(&std::fs::read(&out_path).unwrap_or_default()).into_owned();
    let stderr =
        String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned();
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&err_path);
    Ok(Finished {
        status,
        stdout,
        stderr,
        elapsed,
    })
}

/// The full path of a program found on `PATH`, if any.
pub fn which(program: &str) -> Option<PathBuf> {
    let p = Path::new(program);
    if p.components().count() > 1 {
        return p.is_file().then(|| p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|c| c.is_file())
}
