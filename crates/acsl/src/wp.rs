//! The Frama-C/WP driver: setup detection, one run of `frama-c -wp` on a text,
//! parsing of its per-goal console lines and its per-property CSV report, the
//! verdict, and a content-hash cache of runs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::util::{self, RunError};

/// How Frama-C/WP is run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WpConfig {
    /// The `frama-c` program.
    pub frama_c: PathBuf,
    /// The `why3` program (used once, to write the Why3 configuration).
    pub why3: PathBuf,
    /// The provers WP uses (`-wp-prover`), comma-separated and tried in order:
    /// `z3`, `cvc5`, `cvc4`, ... Alt-Ergo, WP's default, is not assumed.
    pub prover: String,
    /// Per-goal prover timeout in seconds (`-wp-timeout`).
    pub timeout: u32,
    /// Provers run in parallel by one Frama-C process (`-wp-par`).
    pub par: u32,
    /// Frama-C processes run in parallel (independent segments, mutants).
    pub jobs: usize,
    /// Generate and prove run-time error guards (`-wp-rte`).
    pub rte: bool,
    /// Run smoke tests for dead code and inconsistent preconditions
    /// (`-wp-smoke-tests`). On by default: without them contradictory
    /// preconditions make every goal provable and the verdict says "proved".
    pub smoke_tests: bool,
    /// Directory for the result cache, the WP goal cache and the Why3 configuration;
    /// `None` caches nothing.
    pub cache_dir: Option<PathBuf>,
    /// The Why3 configuration file; `None` means `why3.conf` in the cache directory
    /// (or in the system's temporary directory). It is written by `why3 config
    /// detect` when missing.
    pub why3_config: Option<PathBuf>,
    /// Extra arguments passed to `frama-c` before the file.
    pub extra_args: Vec<String>,
    /// Wall-clock limit for one Frama-C process, in seconds.
    pub process_limit: u64,
}

impl Default for WpConfig {
    fn default() -> Self {
        let cache_dir = std::env::var_os("VERA_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("vera")))
            .or_else(|| {
                std::env::var_os("HOME").map(|d| PathBuf::from(d).join(".cache").join("vera"))
            })
            .map(|d| d.join("acsl"));
        WpConfig {
            frama_c: "frama-c".into(),
            why3: "why3".into(),
            prover: "z3,cvc5".into(),
            timeout: 2,
            par: 2,
            jobs: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
                .min(4),
            rte: true,
            smoke_tests: true,
            cache_dir,
            why3_config: None,
            extra_args: Vec::new(),
            process_limit: 300,
        }
    }
}

impl WpConfig {
    /// The Why3 configuration path in force.
    pub fn why3_config_path(&self) -> PathBuf {
        if let Some(p) = &self.why3_config {
            return p.clone();
        }
        match &self.cache_dir {
            Some(d) => d.join("why3.conf"),
            None => std::env::temp_dir().join("vera-acsl-why3.conf"),
        }
    }

    /// The arguments for one run on `file` (without the program). When
    /// `functions` is not empty, WP verifies only those (`-wp-fct`); the file may
    /// define others (callees kept whole in a harness). `goal_cache` is WP's goal
    /// cache directory ([`goal_cache_dir`]), if any.
    pub fn arguments(
        &self,
        file: &str,
        csv: &str,
        functions: &[String],
        goal_cache: Option<&Path>,
    ) -> Vec<String> {
        self.arguments_for(
            &[file.to_string()],
            csv,
            Select::Functions(functions),
            goal_cache,
        )
    }

    /// The arguments for one run on `inputs` (preprocessor options and files, in
    /// that order), proving what `select` asks for.
    pub fn arguments_for(
        &self,
        inputs: &[String],
        csv: &str,
        select: Select<'_>,
        goal_cache: Option<&Path>,
    ) -> Vec<String> {
        let mut a: Vec<String> = vec!["-wp".into()];
        match select {
            Select::Functions(functions) if !functions.is_empty() => {
                a.extend(["-wp-fct".into(), functions.join(",")]);
            }
            Select::Functions(_) => {}
            Select::Lemmas => a.push("-wp-prop=@lemma".into()),
        }
        if self.rte {
            a.push("-wp-rte".into());
        }
        a.extend([
            "-wp-prover".into(),
            self.prover.clone(),
            "-wp-timeout".into(),
            self.timeout.to_string(),
            "-wp-par".into(),
            self.par.max(1).to_string(),
        ]);
        if self.smoke_tests {
            a.push("-wp-smoke-tests".into());
        }
        if let Some(d) = goal_cache {
            a.extend([
                "-wp-cache".into(),
                "update".into(),
                "-wp-cache-dir".into(),
                d.display().to_string(),
            ]);
        }
        a.extend(self.extra_args.iter().cloned());
        a.extend(inputs.iter().cloned());
        a.extend(["-then".into(), "-report-csv".into(), csv.into()]);
        a
    }
}

/// What one WP run proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select<'a> {
    /// The goals of these functions (`-wp-fct`); all functions when empty. WP
    /// generates no lemma goals for a run restricted to functions.
    Functions(&'a [String]),
    /// The lemmas only (`-wp-prop=@lemma`), proved once per program.
    Lemmas,
}

/// The oldest Frama-C release whose output vera reads.
pub const OLDEST_FRAMA_C: u32 = 25;

/// The newest Frama-C release vera has been tested with.
pub const NEWEST_TESTED_FRAMA_C: u32 = 25;

/// The major release number of a `frama-c -version` line (`25.0-beta
/// (Manganese)` is 25); older releases printed `Frama-C 25.0 ...`.
pub fn major_version(version: &str) -> Option<u32> {
    version
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .and_then(|w| w.split(['.', '-', '+', '~']).next())
        .and_then(|n| n.parse().ok())
}

/// What is wrong with the setup or with one run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WpError {
    /// `frama-c` is not installed or not on `PATH`.
    #[error("cannot run `{program}`: {reason}. Frama-C with the WP plug-in is needed: run scripts/setup, or `apt-get install -y frama-c-base why3`")]
    FramaCMissing {
        /// The program tried.
        program: String,
        /// Why it could not be run.
        reason: String,
    },
    /// `frama-c` runs but has no WP plug-in.
    #[error("`{program}` has no WP plug-in (`frama-c -wp-detect` printed nothing from WP); install the frama-c-base package")]
    WpMissing {
        /// The program tried.
        program: String,
    },
    /// The Why3 configuration could not be written.
    #[error("cannot write the Why3 configuration {path}: {reason}. `why3 config detect` must work (install the why3 package)")]
    Why3Config {
        /// The configuration file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The requested prover is not in the Why3 configuration.
    #[error("prover `{prover}` is not configured for WP (Why3 configuration {config}); available: {}. Install it (z3: scripts/setup) and delete the configuration file so that it is detected again", if available.is_empty() { "none".to_string() } else { available.join(", ") })]
    ProverMissing {
        /// The prover asked for.
        prover: String,
        /// Aliases WP knows.
        available: Vec<String>,
        /// The Why3 configuration in use.
        config: PathBuf,
    },
    /// Frama-C rejected the input (syntax or typing errors in C or ACSL) or aborted.
    #[error("Frama-C failed on {file} (exit status {status}):\n{}", messages.join("\n"))]
    FramaC {
        /// The file Frama-C was run on.
        file: String,
        /// The exit status (-1 when killed by a signal).
        status: i32,
        /// Frama-C's error and warning lines.
        messages: Vec<String>,
    },
    /// One Frama-C process ran longer than the limit and was killed.
    #[error("Frama-C ran longer than {seconds} s on {file} and was stopped")]
    ProcessLimit {
        /// The file.
        file: String,
        /// The limit.
        seconds: u64,
    },
    /// The Frama-C release is older than vera can read.
    #[error("Frama-C {version} is not supported: vera reads the output of Frama-C {oldest} (Manganese) and later; install a newer Frama-C (Debian's frama-c-base, or opam)")]
    UnsupportedVersion {
        /// What `frama-c -version` printed.
        version: String,
        /// The oldest supported major release.
        oldest: u32,
    },
    /// Preprocessor flags or a compile-commands file are wrong.
    #[error("{0}")]
    Flags(#[from] crate::project::FlagError),
    /// The C file does not parse.
    #[error("{0}")]
    Parse(crate::front::Diagnostics),
    /// A file system error.
    #[error("{0}")]
    Io(String),
}

impl WpError {
    /// What went wrong in one word, as an error report names it: `frama_c` (Frama-C
    /// failed on the input), `syntax`, `flags`, `frama_c_version`, `limit`, or `setup`
    /// (the tools themselves).
    pub fn kind(&self) -> &'static str {
        match self {
            WpError::FramaC { .. } => "frama_c",
            WpError::Parse(_) => "syntax",
            WpError::Flags(_) => "flags",
            WpError::UnsupportedVersion { .. } => "frama_c_version",
            WpError::ProcessLimit { .. } => "limit",
            _ => "setup",
        }
    }
}

/// A prover WP knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProverInfo {
    /// Display name, e.g. `Z3`.
    pub name: String,
    /// Version.
    pub version: String,
    /// The alias for `-wp-prover`, e.g. `z3`.
    pub alias: String,
}

/// The setup found at start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// `frama-c -version`.
    pub frama_c_version: String,
    /// The Why3 configuration in use.
    pub why3_config: PathBuf,
    /// Provers WP can use, with their versions.
    pub provers: Vec<ProverInfo>,
    /// `why3 --version` (empty when it cannot be run).
    pub why3_version: String,
    /// SHA-256 of the Why3 configuration's text (prover paths, commands, limits).
    pub why3_config_hash: String,
}

fn spawn_error(program: &Path, e: &std::io::Error) -> WpError {
    WpError::FramaCMissing {
        program: program.display().to_string(),
        reason: e.to_string(),
    }
}

fn quick(cmd: Command, limit: u64) -> Result<util::Finished, RunError> {
    // A directory of its own: several vera processes run these at once, and
    // output files in a shared directory would be read by the wrong process.
    let dir = tempfile::tempdir().map_err(RunError::Io)?;
    util::run_limited(cmd, dir.path(), None, Duration::from_secs(limit))
}

static WHY3_LOCK: Mutex<()> = Mutex::new(());

/// Write the Why3 configuration when it is missing: `why3 config detect`, plus a
/// `cvc5` entry (driver `cvc4_16`) when cvc5 is on `PATH`, since Why3 1.5 does not
/// know cvc5.
pub fn ensure_why3_config(cfg: &WpConfig) -> Result<PathBuf, WpError> {
    let path = cfg.why3_config_path();
    let _g = WHY3_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if path.is_file() {
        return Ok(path);
    }
    let err = |reason: String| WpError::Why3Config {
        path: path.clone(),
        reason,
    };
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| err(e.to_string()))?;
    }
    let tmp = path.with_extension(format!("tmp{}-{}", std::process::id(), util::unique()));
    let mut cmd = Command::new(&cfg.why3);
    cmd.args(["config", "detect"]).env("WHY3CONFIG", &tmp);
    let out = quick(cmd, 60).map_err(|e| match e {
        RunError::Spawn(e) => err(format!("cannot run `{}`: {e}", cfg.why3.display())),
        RunError::Killed => err("`why3 config detect` did not finish".into()),
        RunError::Io(e) => err(e.to_string()),
    })?;
    if !out.status.success() || !tmp.is_file() {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(format!(
            "`why3 config detect` failed: {}",
            out.stderr.lines().last().unwrap_or("")
        )));
    }
    let mut conf = std::fs::read_to_string(&tmp).map_err(|e| err(e.to_string()))?;
    conf = resolve_shims(&conf);
    if !conf.contains("shortcut = \"cvc5\"") {
        if let Some(cvc5) = util::which("cvc5") {
            let mut v = Command::new(&cvc5);
            v.arg("--version");
            let version = quick(v, 10)
                .ok()
                .and_then(|o| {
                    o.stdout
                        .lines()
                        .next()
                        .and_then(|l| {
                            l.split_whitespace()
                                .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
                        })
                        .map(str::to_string)
                })
                .unwrap_or_else(|| "1.0".into());
            conf.push_str(&format!(
                "\n[prover]\ncommand = \"{} --tlimit-per=%t000 --lang=smt2 %f\"\ndriver = \"cvc4_16\"\nname = \"CVC5\"\nshortcut = \"cvc5\"\nversion = \"{}\"\n",
                cvc5.display(),
                version
            ));
        }
    }
    let _ = std::fs::remove_file(&tmp);
    safefile::write_atomic(&path, conf.as_bytes(), true).map_err(|e| err(e.to_string()))?;
    Ok(path)
}

/// Replace version-manager shims (pyenv's `.../shims/z3`) by the programs they
/// stand for: Why3 kills provers by process, and a shim in between turns time and
/// memory limits into prover failures.
fn resolve_shims(conf: &str) -> String {
    let mut out = conf.to_string();
    for line in conf.lines() {
        let Some(p) = line
            .trim()
            .strip_prefix("path = \"")
            .and_then(|r| r.strip_suffix('"'))
        else {
            continue;
        };
        if !p.contains("/shims/") {
            continue;
        }
        let Some(name) = Path::new(p).file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let mut cmd = Command::new("pyenv");
        cmd.args(["which", name]);
        if let Ok(o) = quick(cmd, 20) {
            let real = o.stdout.trim();
            if o.status.success() && Path::new(real).is_file() {
                out = out.replace(&format!("\"{p}\""), &format!("\"{real}\""));
            }
        }
    }
    out
}

fn setup_cache() -> &'static Mutex<HashMap<String, Setup>> {
    static C: OnceLock<Mutex<HashMap<String, Setup>>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Check that Frama-C, WP and the configured prover work, and say what is wrong
/// otherwise. The answer is remembered for the rest of the process.
pub fn detect(cfg: &WpConfig) -> Result<Setup, WpError> {
    let key = format!(
        "{}\0{}\0{}",
        cfg.frama_c.display(),
        cfg.why3_config_path().display(),
        cfg.prover
    );
    if let Some(s) = setup_cache().lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(s);
    }
    let mut v = Command::new(&cfg.frama_c);
    v.arg("-version");
    let out = quick(v, 60).map_err(|e| match e {
        RunError::Spawn(e) => spawn_error(&cfg.frama_c, &e),
        RunError::Killed => WpError::FramaCMissing {
            program: cfg.frama_c.display().to_string(),
            reason: "`frama-c -version` did not finish".into(),
        },
        RunError::Io(e) => WpError::Io(e.to_string()),
    })?;
    if !out.status.success() {
        return Err(WpError::FramaCMissing {
            program: cfg.frama_c.display().to_string(),
            reason: format!("`frama-c -version` failed: {}", out.stderr.trim()),
        });
    }
    let frama_c_version = out.stdout.trim().to_string();
    match major_version(&frama_c_version) {
        Some(m) if m >= OLDEST_FRAMA_C => {}
        _ => {
            return Err(WpError::UnsupportedVersion {
                version: frama_c_version,
                oldest: OLDEST_FRAMA_C,
            })
        }
    }
    let conf = ensure_why3_config(cfg)?;
    let mut d = Command::new(&cfg.frama_c);
    d.arg("-wp-detect").env("WHY3CONFIG", &conf);
    let out = quick(d, 60).map_err(|e| match e {
        RunError::Spawn(e) => spawn_error(&cfg.frama_c, &e),
        _ => WpError::WpMissing {
            program: cfg.frama_c.display().to_string(),
        },
    })?;
    let all = format!("{}{}", out.stdout, out.stderr);
    if !all.contains("[wp]") {
        return Err(WpError::WpMissing {
            program: cfg.frama_c.display().to_string(),
        });
    }
    let provers = parse_detect(&all);
    for wanted in cfg.prover.split(',').map(|p| p.trim().to_ascii_lowercase()) {
        let known = provers.iter().any(|p| {
            p.alias.eq_ignore_ascii_case(&wanted)
                || format!("{}:{}", p.name, p.version).eq_ignore_ascii_case(&wanted)
        }) || wanted == "qed"
            || wanted == "none";
        if !known {
            return Err(WpError::ProverMissing {
                prover: wanted,
                available: provers.iter().map(|p| p.alias.clone()).collect(),
                config: conf,
            });
        }
    }
    let why3_config_hash = std::fs::read(&conf)
        .map(|t| util::content_hash(&[&t]))
        .map_err(|e| WpError::Why3Config {
            path: conf.clone(),
            reason: e.to_string(),
        })?;
    let mut w = Command::new(&cfg.why3);
    w.arg("--version");
    let why3_version = quick(w, 60)
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout.trim().to_string())
        .unwrap_or_default();
    let setup = Setup {
        frama_c_version,
        why3_config: conf,
        provers,
        why3_version,
        why3_config_hash,
    };
    if let Ok(mut m) = setup_cache().lock() {
        m.insert(key, setup.clone());
    }
    Ok(setup)
}

/// Parse `frama-c -wp-detect` lines such as `[wp] Prover  Z3 4.8.12  [z3|Z3:4.8.12]`.
fn parse_detect(out: &str) -> Vec<ProverInfo> {
    let mut v = Vec::new();
    for line in out.lines() {
        let Some(rest) = line.trim().strip_prefix("[wp] Prover") else {
            continue;
        };
        let (head, bracket) = match rest.find('[') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => continue,
        };
        let alias = bracket.split(['|', ']']).next().unwrap_or("").to_string();
        let words: Vec<&str> = head.split_whitespace().collect();
        let (name, version) = match words.as_slice() {
            [n, ver, ..] => (n.to_string(), ver.to_string()),
            [n] => (n.to_string(), String::new()),
            [] => continue,
        };
        v.push(ProverInfo {
            name,
            version,
            alias,
        });
    }
    v
}

/// The status of one proof goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalStatus {
    /// Proved (by Qed or a prover).
    Valid,
    /// The prover answered without a proof.
    Unknown,
    /// The prover ran out of time (or steps).
    Timeout,
    /// The prover failed or crashed; a false goal often ends here.
    Failed,
    /// The goal was not sent to a prover.
    NotTried,
    /// A counter-example was found (WP rarely says this).
    Invalid,
}

impl GoalStatus {
    fn parse(s: &str) -> GoalStatus {
        let s = s.trim().to_ascii_lowercase();
        if s.starts_with("valid") {
            GoalStatus::Valid
        } else if s.starts_with("timeout") || s.starts_with("step") {
            GoalStatus::Timeout
        } else if s.starts_with("failed") || s.contains("failure") {
            GoalStatus::Failed
        } else if s.starts_with("not tried") {
            GoalStatus::NotTried
        } else if s.starts_with("invalid") {
            GoalStatus::Invalid
        } else {
            GoalStatus::Unknown
        }
    }
}

/// One proof goal and how it went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Goal {
    /// WP's goal name, e.g. `typed_find_loop_invariant_preserved`.
    pub name: String,
    /// The function the goal belongs to, when it could be told from the name.
    pub function: Option<String>,
    /// The result.
    pub status: GoalStatus,
    /// Who decided: `Qed` or a prover such as `Z3 4.8.12`.
    pub prover: Option<String>,
    /// Prover time in milliseconds, when reported.
    pub time_ms: Option<f64>,
    /// True when WP took the prover's answer from its goal cache (`(cached)`).
    #[serde(default)]
    pub cached: bool,
    /// The original file of the clause this goal proves, when the goal could be
    /// matched to a property of Frama-C's report.
    #[serde(default)]
    pub file: Option<String>,
    /// The 1-based line of that clause.
    #[serde(default)]
    pub line: Option<usize>,
    /// What the goal proves, independent of WP's numbering and of harness file
    /// names: [`Property::key`] of its clause plus the part of it (`established`,
    /// `part2`, ...). `None` when it could not be matched.
    #[serde(default)]
    pub key: Option<String>,
}

/// Consolidated status of one property (annotation clause or RTE guard).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PropertyStatus {
    /// Proved.
    Valid,
    /// Proved, assuming other properties that are not all proved (Frama-C's
    /// report says "Partially proven").
    ValidUnderHypotheses,
    /// Not proved.
    Unknown,
    /// Refuted, or unreachable (a failed smoke test).
    InvalidOrUnreachable,
    /// Assumed without proof (e.g. preconditions of functions nobody calls).
    ConsideredValid,
    /// Another status string from Frama-C.
    Other(String),
}

impl PropertyStatus {
    fn parse(s: &str) -> PropertyStatus {
        let l = s.trim().to_ascii_lowercase();
        if l == "valid" {
            PropertyStatus::Valid
        } else if l.starts_with("valid") || l.contains("under hyp") || l == "partially proven" {
            PropertyStatus::ValidUnderHypotheses
        } else if l.starts_with("unknown") {
            PropertyStatus::Unknown
        } else if l.contains("invalid") || l.contains("unreachable") {
            PropertyStatus::InvalidOrUnreachable
        } else if l.starts_with("considered valid") {
            PropertyStatus::ConsideredValid
        } else {
            PropertyStatus::Other(s.trim().to_string())
        }
    }

    /// True for [`PropertyStatus::Valid`].
    pub fn is_valid(&self) -> bool {
        matches!(self, PropertyStatus::Valid)
    }

    /// True when WP proved the property itself, possibly using other properties
    /// that are not proved: [`PropertyStatus::Valid`] or
    /// [`PropertyStatus::ValidUnderHypotheses`].
    pub fn is_proved(&self) -> bool {
        matches!(
            self,
            PropertyStatus::Valid | PropertyStatus::ValidUnderHypotheses
        )
    }

    /// True when the property was assumed, not proved (it had nothing to prove
    /// in this run): [`PropertyStatus::ConsideredValid`].
    pub fn is_assumed(&self) -> bool {
        matches!(self, PropertyStatus::ConsideredValid)
    }
}

/// One property from Frama-C's CSV report: an annotation clause or an RTE guard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Property {
    /// 1-based line in the original file.
    pub line: usize,
    /// The function.
    pub function: String,
    /// Frama-C's kind, e.g. `postcondition`, `loop invariant`, `mem_access`.
    pub kind: String,
    /// The property as Frama-C prints it.
    pub text: String,
    /// Its consolidated status.
    pub status: PropertyStatus,
    /// The goals of this property, when they could be matched.
    pub goals: Vec<String>,
    /// The original file of the clause (Frama-C's report gives it: a header for
    /// a contract on a prototype).
    #[serde(default)]
    pub file: Option<String>,
}

impl Property {
    /// What the property is, stable across runs, harnesses and goal renumbering:
    /// function, kind, the clause text with white space normalized, file and line.
    pub fn key(&self) -> String {
        let text: Vec<&str> = self.text.split_whitespace().collect();
        format!(
            "{}|{}|{}|{}:{}",
            self.function,
            self.kind,
            text.join(" "),
            self.file.as_deref().unwrap_or(""),
            self.line
        )
    }
}

/// A message Frama-C printed (a warning), with its location in the original
/// files when it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// The plug-in and category, e.g. `kernel:annot-error` or `wp:pedantic-assigns`.
    pub plugin: String,
    /// The file.
    pub file: Option<String>,
    /// The 1-based line.
    pub line: Option<usize>,
    /// The text, continuation lines joined.
    pub text: String,
}

/// One smoke test (a check that a precondition or a piece of code is not dead).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmokeTest {
    /// WP's name.
    pub name: String,
    /// The function.
    pub function: Option<String>,
    /// False when WP proved `false` there: dead code or an inconsistent precondition.
    pub passed: bool,
}

/// The verdict of one run (or of a file), never "proved" without evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// Every goal is valid, there was at least one, and no smoke test failed.
    Proved {
        /// Number of goals.
        goals: usize,
    },
    /// Some goals are not proved.
    NotProved {
        /// Goals not proved.
        unproved: usize,
        /// All goals.
        goals: usize,
    },
    /// WP generated no goal at all: nothing was checked.
    NoGoals,
    /// A smoke test failed: dead code or an inconsistent precondition makes the
    /// proofs vacuous.
    Inconsistent {
        /// Names of the failed smoke tests.
        failed_smoke_tests: Vec<String>,
        /// Goals not proved.
        unproved: usize,
        /// All goals.
        goals: usize,
    },
    /// WP's output did not add up: the goals and smoke tests read from it do
    /// not match its own count (`Proved goals: P / N`). Nothing is claimed.
    Unreadable {
        /// What did not match.
        reason: String,
    },
}

impl Verdict {
    /// True only for [`Verdict::Proved`].
    pub fn is_proved(&self) -> bool {
        matches!(self, Verdict::Proved { .. })
    }

    /// The verdict of goals and smoke tests read from WP's output, checked
    /// against WP's summary line (`Proved goals: proved / total`, which counts
    /// smoke tests too: a passed one as proved).
    fn of(goals: &[Goal], smoke: &[SmokeTest], summary: Option<(usize, usize)>) -> Verdict {
        let unproved = goals
            .iter()
            .filter(|g| g.status != GoalStatus::Valid)
            .count();
        let failed: Vec<String> = smoke
            .iter()
            .filter(|s| !s.passed)
            .map(|s| s.name.clone())
            .collect();
        let read = goals.len() + smoke.len();
        let read_proved = goals.len() - unproved + smoke.len() - failed.len();
        if read > 0 {
            match summary {
                None => {
                    return Verdict::Unreadable {
                        reason: format!(
                            "{} goals and {} smoke tests read, but WP printed no `Proved goals` line",
                            goals.len(),
                            smoke.len()
                        ),
                    }
                }
                Some((p, n)) if (p, n) != (read_proved, read) => {
                    return Verdict::Unreadable {
                        reason: format!(
                            "WP counts {p} of {n} goals and smoke tests proved; its goal lines give {read_proved} of {read}"
                        ),
                    }
                }
                Some(_) => {}
            }
        }
        if !failed.is_empty() {
            Verdict::Inconsistent {
                failed_smoke_tests: failed,
                unproved,
                goals: goals.len(),
            }
        } else if goals.is_empty() {
            Verdict::NoGoals
        } else if unproved == 0 {
            Verdict::Proved { goals: goals.len() }
        } else {
            Verdict::NotProved {
                unproved,
                goals: goals.len(),
            }
        }
    }
}

/// The result of one Frama-C/WP run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WpRun {
    /// The verdict.
    pub verdict: Verdict,
    /// Every goal, in the order WP printed them.
    pub goals: Vec<Goal>,
    /// Every property of the file from the CSV report.
    pub properties: Vec<Property>,
    /// Smoke tests, when requested.
    pub smoke_tests: Vec<SmokeTest>,
    /// Warnings Frama-C printed, located.
    pub warnings: Vec<Message>,
    /// True when this result came from the cache.
    pub cached: bool,
    /// Wall time of the Frama-C process in seconds (0 for a cache hit).
    pub seconds: f64,
}

/// Counters shared by the runs of one command.
#[derive(Debug, Default)]
pub struct Counters {
    /// Frama-C processes started.
    pub verifier_calls: AtomicUsize,
    /// Runs answered from the cache.
    pub cache_hits: AtomicUsize,
}

impl Counters {
    /// A snapshot (calls, hits).
    pub fn get(&self) -> (usize, usize) {
        (
            self.verifier_calls.load(Ordering::Relaxed),
            self.cache_hits.load(Ordering::Relaxed),
        )
    }
}

const CACHE_VERSION: &str = "acsl-wp-5";

/// The hash of everything that can change a prover's answer on a goal: the
/// Frama-C, Why3 and prover versions, the Why3 configuration, the provers asked
/// for, the timeout and the extra Frama-C arguments (which may set step or
/// memory limits or another memory model).
pub fn answer_key(cfg: &WpConfig, setup: &Setup) -> String {
    util::content_hash(&[
        CACHE_VERSION.as_bytes(),
        setup.frama_c_version.as_bytes(),
        setup.why3_version.as_bytes(),
        setup.why3_config_hash.as_bytes(),
        format!("{:?}", setup.provers).as_bytes(),
        cfg.prover.as_bytes(),
        cfg.timeout.to_string().as_bytes(),
        cfg.extra_args.join("\0").as_bytes(),
    ])
}

/// WP's goal cache directory for `cfg`: one per [`answer_key`], because WP
/// reuses a cached "unknown" whatever the timeout it was found with, so one
/// directory shared by several timeouts (or prover versions) would keep giving
/// the answers of the weakest setting. `None` when nothing is cached.
pub fn goal_cache_dir(cfg: &WpConfig, setup: &Setup) -> Option<PathBuf> {
    let key = answer_key(cfg, setup);
    cfg.cache_dir
        .as_ref()
        .map(|d| d.join("wp-goals").join(&key[..16]))
}

/// The key of one run's result in vera's cache: the [`answer_key`], the full
/// argument list (timeout, provers, RTE guards, smoke tests, `-wp-fct`, the goal
/// cache, the file name, extra arguments) and the text.
pub fn run_key(cfg: &WpConfig, setup: &Setup, args: &[String], text: &str) -> String {
    util::content_hash(&[
        CACHE_VERSION.as_bytes(),
        answer_key(cfg, setup).as_bytes(),
        args.join("\0").as_bytes(),
        text.as_bytes(),
    ])
}

/// Run Frama-C/WP on `text` (written to a temporary file called `file_name`)
/// for `functions`: WP verifies only these (all functions of the text when the
/// list is empty), and goals are attributed to them by name.
/// A result is cached under [`run_key`]: a change of any option or version that
/// can change an answer runs Frama-C again.
pub fn run_wp(
    text: &str,
    file_name: &str,
    functions: &[String],
    cfg: &WpConfig,
    counters: &Counters,
) -> Result<WpRun, WpError> {
    run_input(
        &Input::Text {
            text,
            name: file_name,
        },
        Select::Functions(functions),
        cfg,
        counters,
    )
}

/// What Frama-C reads in one run.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// One self-contained text (a harness), written to a temporary file `name`.
    Text {
        /// The C text.
        text: &'a str,
        /// The file name it gets (Frama-C reports locations with it).
        name: &'a str,
    },
    /// Files on disk, preprocessed by Frama-C with options.
    Files {
        /// Preprocessor options for Frama-C (`-cpp-extra-args=...`).
        cpp: &'a [String],
        /// The source files, absolute.
        files: &'a [String],
        /// Stands for the content of everything the run reads, in the cache key
        /// (the files' text is not read here).
        key: &'a str,
        /// A temporary directory the files are copied under: left out of the
        /// cache key and cut from the run's file names and messages, so a result
        /// does not depend on where the copy was made (and one cached from an
        /// earlier copy reads the same).
        root: Option<&'a str>,
    },
}

/// The Frama-C option that passes `flags` to its preprocessor:
/// `-cpp-extra-args=` and the flags quoted for a shell, with each `,` escaped
/// (`\,`) because Frama-C splits the option's value at commas (an include
/// directory named `a,b` would otherwise become two flags).
pub fn cpp_extra_args(flags: &[String]) -> Result<String, WpError> {
    let joined = shlex::try_join(flags.iter().map(String::as_str))
        .map_err(|e| WpError::Io(format!("preprocessor flags cannot be quoted: {e}")))?;
    Ok(format!("-cpp-extra-args={}", joined.replace(',', "\\,")))
}

/// Run Frama-C/WP on `input`, proving what `select` asks for. A result is
/// cached under [`run_key`].
pub fn run_input(
    input: &Input<'_>,
    select: Select<'_>,
    cfg: &WpConfig,
    counters: &Counters,
) -> Result<WpRun, WpError> {
    let setup = detect(cfg)?;
    let goal_cache = goal_cache_dir(cfg, &setup);
    let dir = tempfile::tempdir().map_err(|e| WpError::Io(format!("temporary directory: {e}")))?;
    let root = match *input {
        Input::Files { root, .. } => root.filter(|r| !r.is_empty()),
        Input::Text { .. } => None,
    };
    let unrooted = |t: &str| match root {
        Some(r) => t.replace(r, ""),
        None => t.to_string(),
    };
    let (inputs, key_text, shown, filter): (Vec<String>, &str, String, Option<&str>) = match *input
    {
        Input::Text { text, name } => (vec![name.to_string()], text, name.to_string(), Some(name)),
        Input::Files {
            cpp, files, key, ..
        } => (
            cpp.iter().chain(files).cloned().collect(),
            key,
            files.join(" "),
            None,
        ),
    };
    let inputs = file_arguments(input, inputs)?;
    // The CSV path is relative (the run's own directory), so it does not enter
    // the cache key.
    let args = cfg.arguments_for(&inputs, "report.csv", select, goal_cache.as_deref());
    let key_args: Vec<String> = args.iter().map(|a| unrooted(a)).collect();
    let key = run_key(cfg, &setup, &key_args, key_text);
    let cache = cfg.cache_dir.as_deref();
    if let Some(run) = cached_run(cache, &key, counters) {
        return Ok(run);
    }
    if let Input::Text { text, name } = *input {
        // Frama-C counts a CRLF inside an ACSL annotation as two lines: written
        // with LF ends, the text keeps its line numbers.
        std::fs::write(dir.path().join(name), text.replace("\r\n", "\n")) // scratch: the C text in this run's temporary folder
            .map_err(|e| WpError::Io(e.to_string()))?;
    }
    let out = run_frama_c(
        cfg,
        &setup,
        &args,
        dir.path(),
        goal_cache.as_deref(),
        counters,
        &shown,
    )?;
    let console = format!("{}\n{}", out.stdout, out.stderr);
    if let Some(e) = prover_missing(&console, &setup) {
        return Err(e);
    }
    if !out.status.success() {
        return Err(WpError::FramaC {
            file: unrooted(&shown),
            status: out.status.code().unwrap_or(-1),
            messages: error_lines(&console).iter().map(|m| unrooted(m)).collect(),
        });
    }
    let csv = std::fs::read_to_string(dir.path().join("report.csv")).unwrap_or_default();
    let functions: &[String] = match select {
        Select::Functions(f) => f,
        Select::Lemmas => &[],
    };
    let mut run = parse_run(&console, &csv, filter, functions);
    run.seconds = out.elapsed.as_secs_f64();
    if root.is_some() {
        unroot(&mut run, &unrooted);
    }
    if let Ok(j) = serde_json::to_string(&run) {
        util::cache_put(cache, "runs", &key, &j);
    }
    Ok(run)
}

/// The file arguments of a run, checked: Frama-C cannot read a file name with a comma,
/// a `"` or a `\`; a name that starts with `-` is passed as `./NAME` so that it is
/// not read as an option.
fn file_arguments(input: &Input<'_>, inputs: Vec<String>) -> Result<Vec<String>, WpError> {
    // Frama-C splits file arguments at commas, with no escape.
    let named: Vec<&str> = match *input {
        Input::Text { name, .. } => vec![name],
        Input::Files { files, .. } => files.iter().map(String::as_str).collect(),
    };
    if let Some(f) = named.iter().find(|f| f.contains(',')) {
        return Err(WpError::Io(format!(
            "{f}: Frama-C cannot read a file whose name has a comma (it splits file names there); rename the file or give it through a link without one"
        )));
    }
    // Frama-C writes file names into line directives for its preprocessor unescaped:
    // a `"` or a `\` in one breaks the run (or names another file).
    if let Some(f) = named.iter().find(|f| f.contains(['"', '\\'])) {
        return Err(WpError::Io(format!(
            "{f}: Frama-C cannot read a file whose name has a `\"` or a `\\` (it writes the name into its preprocessor's line directives as it is); rename the file or give it through a link without one"
        )));
    }
    // A file name that starts with `-` would be read as an option.
    Ok(inputs
        .into_iter()
        .map(|i| {
            if i.starts_with('-') && named.contains(&i.as_str()) {
                format!("./{i}")
            } else {
                i
            }
        })
        .collect())
}

/// The cached run under `key`, if any (counted as a cache hit).
fn cached_run(cache: Option<&Path>, key: &str, counters: &Counters) -> Option<WpRun> {
    let hit = util::cache_get(cache, "runs", key)?;
    let mut run = serde_json::from_str::<WpRun>(&hit).ok()?;
    counters.cache_hits.fetch_add(1, Ordering::Relaxed);
    run.cached = true;
    run.seconds = 0.0;
    Some(run)
}

/// Runs Frama-C with `args` in `dir`, within the process limit (`shown` names the
/// input when it is exceeded).
fn run_frama_c(
    cfg: &WpConfig,
    setup: &Setup,
    args: &[String],
    dir: &Path,
    goal_cache: Option<&Path>,
    counters: &Counters,
    shown: &str,
) -> Result<util::Finished, WpError> {
    let mut cmd = Command::new(&cfg.frama_c);
    // Frama-C resolves relative file names against $PWD, not the process's
    // working directory: set both.
    cmd.args(args)
        .current_dir(dir)
        .env("PWD", dir)
        .env("WHY3CONFIG", &setup.why3_config);
    if let Some(d) = goal_cache {
        // WP's goal cache must exist, or every prover call fails.
        std::fs::create_dir_all(d).map_err(|e| WpError::Io(format!("{}: {e}", d.display())))?;
    }
    counters.verifier_calls.fetch_add(1, Ordering::Relaxed);
    util::run_limited(cmd, dir, None, Duration::from_secs(cfg.process_limit)).map_err(|e| match e {
        RunError::Spawn(e) => spawn_error(&cfg.frama_c, &e),
        RunError::Killed => WpError::ProcessLimit {
            file: shown.to_string(),
            seconds: cfg.process_limit,
        },
        RunError::Io(e) => WpError::Io(e.to_string()),
    })
}

/// The error when the console says that a prover is not in Why3's configuration.
fn prover_missing(console: &str, setup: &Setup) -> Option<WpError> {
    let p = console
        .lines()
        .find_map(|l| {
            l.split("Prover '")
                .nth(1)
                .and_then(|r| r.split('\'').next())
        })
        .filter(|_| console.contains("not found in why3.conf"))?;
    Some(WpError::ProverMissing {
        prover: p.to_string(),
        available: setup.provers.iter().map(|p| p.alias.clone()).collect(),
        config: setup.why3_config.clone(),
    })
}

/// Takes the root out of every file name and warning text of `run`.
fn unroot(run: &mut WpRun, unrooted: &dyn Fn(&str) -> String) {
    let files = run
        .goals
        .iter_mut()
        .map(|g| &mut g.file)
        .chain(run.properties.iter_mut().map(|p| &mut p.file))
        .chain(run.warnings.iter_mut().map(|w| &mut w.file));
    for f in files.flatten() {
        *f = unrooted(f);
    }
    for w in &mut run.warnings {
        w.text = unrooted(&w.text);
    }
}

/// Frama-C's error lines (and the warnings that made it stop).
fn error_lines(console: &str) -> Vec<String> {
    // Frama-C wraps long messages: the text of `[kernel:annot-error] f.c:3: Warning:`
    // is on the indented lines that follow, which belong to the same message.
    let mut v: Vec<String> = Vec::new();
    let mut in_message = false;
    for l in console.lines() {
        let matched = l.contains("Error")
            || l.contains("error")
            || l.contains("aborted")
            || l.contains("annot-error");
        if matched {
            v.push(l.trim().to_string());
            in_message = true;
        } else if in_message && l.starts_with("  ") && !l.trim().is_empty() {
            if let Some(last) = v.last_mut() {
                last.push(' ');
                last.push_str(l.trim());
            }
        } else {
            in_message = false;
        }
    }
    if v.is_empty() {
        v = console
            .lines()
            .rev()
            .take(5)
            .map(|l| l.trim().to_string())
            .collect();
        v.reverse();
    }
    v.truncate(30);
    v
}

/// The function a goal name belongs to: the longest function name that follows
/// the model prefix (`typed_`) and is followed by `_`.
fn goal_function(name: &str, functions: &[String]) -> Option<String> {
    let rest = name.split_once('_').map(|(_, r)| r).unwrap_or(name);
    functions
        .iter()
        .filter(|f| rest.starts_with(f.as_str()) && rest[f.len()..].starts_with('_'))
        .max_by_key(|f| f.len())
        .cloned()
}

fn parse_time(token: &str) -> Option<f64> {
    let t = token.trim_matches(|c| c == '(' || c == ')');
    if t.contains(':') {
        return None;
    }
    if let Some(ms) = t.strip_suffix("ms") {
        return ms.parse().ok();
    }
    if let Some(s) = t.strip_suffix('s') {
        return s.parse::<f64>().ok().map(|s| s * 1000.0);
    }
    None
}

/// How close a status is to a proof, to pick the best of several attempts.
fn rank(s: GoalStatus) -> u8 {
    match s {
        GoalStatus::Valid => 5,
        GoalStatus::Timeout => 4,
        GoalStatus::Unknown => 3,
        GoalStatus::Failed => 2,
        GoalStatus::Invalid => 1,
        GoalStatus::NotTried => 0,
    }
}

/// A goal line of Frama-C 27 and later: `[Valid] typed_f_ensures (Qed)`,
/// `[Unsuccess] typed_f_assert (Alt-Ergo) (Cached)`, `[Timeout] ... (Z3)`.
fn new_style_goal(tag: Option<&str>, rest: &str, functions: &[String]) -> Option<Goal> {
    let tag = tag?;
    let status_words = [
        "Valid",
        "Unsuccess",
        "Unknown",
        "Timeout",
        "Stepout",
        "Failed",
        "Invalid",
        "NoResult",
        "Computing",
    ];
    if !status_words.contains(&tag) {
        return None;
    }
    let (name, after) = rest.split_once(' ').unwrap_or((rest, ""));
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let groups: Vec<&str> = after
        .split('(')
        .skip(1)
        .filter_map(|g| g.split(')').next())
        .collect();
    let status = match tag {
        "Unsuccess" | "NoResult" | "Computing" => GoalStatus::Unknown,
        "Stepout" => GoalStatus::Timeout,
        t => GoalStatus::parse(t),
    };
    Some(Goal {
        function: goal_function(name, functions),
        name: name.to_string(),
        status,
        prover: groups
            .first()
            .filter(|p| **p != "Cached")
            .map(|p| p.to_string()),
        time_ms: groups.iter().find_map(|g| parse_time(g)),
        cached: groups.contains(&"Cached"),
        file: None,
        line: None,
        key: None,
    })
}

/// Frama-C's warnings: `[plugin:key] FILE:LINE: Warning: ` and the indented
/// lines that continue the message.
fn messages(console: &str) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    let mut open = false;
    for l in console.lines() {
        if let Some(at) = l.find("Warning:") {
            let head = l[..at].trim();
            let (plugin, place) = match head.strip_prefix('[').and_then(|r| r.split_once(']')) {
                Some((p, rest)) => (p.to_string(), rest.trim()),
                None => (String::new(), head),
            };
            let place = place.trim_end_matches(':');
            let (file, line) = match place.rsplit_once(':') {
                Some((f, n)) if n.parse::<usize>().is_ok() => (Some(f.to_string()), n.parse().ok()),
                _ if !place.is_empty() => (Some(place.to_string()), None),
                _ => (None, None),
            };
            out.push(Message {
                plugin,
                file,
                line,
                text: l[at + "Warning:".len()..].trim().to_string(),
            });
            open = true;
        } else if open && l.starts_with("  ") && !l.trim().is_empty() {
            if let Some(m) = out.last_mut() {
                if !m.text.is_empty() {
                    m.text.push(' ');
                }
                m.text.push_str(l.trim());
            }
        } else {
            open = false;
        }
    }
    out
}

/// The word WP puts in goal names for a property kind of Frama-C's report.
fn goal_word(kind: &str) -> String {
    match kind {
        "postcondition" => "ensures".into(),
        "precondition" => "requires".into(),
        "assigns clause" => "assigns".into(),
        "loop invariant" => "loop_invariant".into(),
        "loop assigns" => "loop_assigns".into(),
        "loop variant" => "loop_variant".into(),
        "assertion" => "assert".into(),
        "check" => "check".into(),
        "lemma" => "lemma".into(),
        "decreases" | "variant" => "variant".into(),
        k => match k.strip_prefix("precondition of ") {
            Some(g) => format!("call_{g}_requires"),
            // Run-time error guards: `mem_access` is `assert_rte_mem_access`.
            None => format!("assert_rte_{}", k.replace([' ', '-'], "_")),
        },
    }
}

/// Give each goal the file, line and key of the clause it proves, by WP's
/// naming scheme: `<model>_<function>_<kind word>[_<label>|_<n>][_<part>]`,
/// where unlabelled clauses of one kind are numbered in source order (the first
/// has no number). Goals that match nothing keep `None`; properties get the
/// names of the goals matched to them.
fn locate_goals(goals: &mut [Goal], properties: &mut [Property]) {
    // Properties per (function, word), in source order, with their labels.
    let mut order: Vec<usize> = (0..properties.len()).collect();
    order.sort_by(|&a, &b| {
        (&properties[a].file, properties[a].line).cmp(&(&properties[b].file, properties[b].line))
    });
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut counters: HashMap<(String, String), usize> = HashMap::new();
    for &i in &order {
        let p = &properties[i];
        let word = goal_word(&p.kind);
        let label = p
            .text
            .split_once(':')
            .map(|(l, _)| l.trim())
            .filter(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '_'));
        let base = match label {
            Some(l) if !word.starts_with("assert_rte") => format!("{}_{word}_{l}", p.function),
            _ => {
                let n = counters
                    .entry((p.function.clone(), word.clone()))
                    .or_insert(0);
                *n += 1;
                if *n == 1 {
                    format!("{}_{word}", p.function)
                } else {
                    format!("{}_{word}_{n}", p.function)
                }
            }
        };
        names.entry(base).or_insert(i);
    }
    for g in goals.iter_mut() {
        // Drop the memory model prefix (`typed_`, `typed_ref_`, ...).
        let rest = g.name.split_once('_').map(|(_, r)| r).unwrap_or(&g.name);
        let rest = rest.strip_prefix("ref_").unwrap_or(rest);
        // The longest base name the goal name starts with, followed by nothing or
        // by a part suffix.
        let mut best: Option<(usize, usize)> = None;
        for (base, &i) in &names {
            if let Some(tail) = rest.strip_prefix(base.as_str()) {
                let part_ok = tail.is_empty()
                    || [
                        "_part",
                        "_established",
                        "_preserved",
                        "_exit",
                        "_normal",
                        "_positive",
                        "_decrease",
                    ]
                    .iter()
                    .any(|p| tail.starts_with(p));
                if part_ok && best.is_none_or(|(len, _)| base.len() > len) {
                    best = Some((base.len(), i));
                }
            }
        }
        if let Some((len, i)) = best {
            let p = &mut properties[i];
            g.file = p.file.clone();
            g.line = Some(p.line);
            let part = rest[len..].trim_start_matches('_');
            g.key = Some(if part.is_empty() {
                p.key()
            } else {
                format!("{}|{part}", p.key())
            });
            if !p.goals.contains(&g.name) {
                p.goals.push(g.name.clone());
            }
        }
    }
}

/// Parse the console output and the CSV report of one run.
///
/// `file_name` keeps only the CSV rows of that file (a harness) and those of
/// `functions` (placed elsewhere by a `#line` directive); `None` keeps every row
/// (a program of several files).
pub fn parse_run(console: &str, csv: &str, file_name: Option<&str>, functions: &[String]) -> WpRun {
    let warnings = messages(console);
    let mut c = Console::default();
    for line in console.lines() {
        c.line(line.trim_end(), functions);
    }
    let goals = last_result_per_goal(c.goals);
    let mut properties = csv_properties(csv, file_name, functions, &goals);
    let mut goals = goals;
    locate_goals(&mut goals, &mut properties);
    WpRun {
        verdict: Verdict::of(&goals, &c.smoke, c.summary),
        goals,
        properties,
        smoke_tests: c.smoke,
        warnings,
        cached: false,
        seconds: 0.0,
    }
}

/// What the console output of a run says, read line by line.
#[derive(Default)]
struct Console {
    goals: Vec<Goal>,
    smoke: Vec<SmokeTest>,
    /// The `Proved goals: P / N` line.
    summary: Option<(usize, usize)>,
    /// The goal printed on the line before, to which indented attempt lines belong.
    attempts_of: Option<usize>,
}

impl Console {
    /// Reads one line of the console output (its end trimmed).
    fn line(&mut self, l: &str, functions: &[String]) {
        // `  Z3 4.8.12: Timeout (Qed:4ms) (2s)`: one prover's attempt on the goal
        // printed just above (several provers were given). Indented lines after
        // anything else (the per-prover statistics after `Proved goals`, the text
        // of a warning) are not attempts.
        if l.starts_with("  ") && !l.starts_with("   ") {
            self.attempt(l);
            return;
        }
        self.attempts_of = None;
        let Some(rest) = l.strip_prefix("[wp] ") else {
            return;
        };
        if let Some(counts) = rest.trim_start().strip_prefix("Proved goals:") {
            if let Some((p, n)) = counts.split_once('/') {
                if let (Ok(p), Ok(n)) = (p.trim().parse(), n.trim().parse()) {
                    self.summary = Some((p, n));
                }
            }
            return;
        }
        let (tag, rest) = match rest.strip_prefix('[') {
            Some(r) => match r.split_once("] ") {
                Some((t, r)) => (Some(t.to_string()), r),
                None => (None, rest),
            },
            None => (None, rest),
        };
        if self.smoke_test(tag.as_deref(), rest, functions) {
            return;
        }
        let Some(g) = rest.strip_prefix("Goal ") else {
            // Frama-C 27 and later: `[STATUS] NAME (PROVER) (Cached)`, the
            // status in the tag and no `Goal` word.
            if let Some(goal) = new_style_goal(tag.as_deref(), rest, functions) {
                self.goals.push(goal);
                self.attempts_of = Some(self.goals.len() - 1);
            }
            return;
        };
        self.goals.push(old_style_goal(tag, g, functions));
        self.attempts_of = Some(self.goals.len() - 1);
    }

    /// An indented line: a prover's attempt on the goal printed just above, kept when
    /// it is better than what the goal has.
    fn attempt(&mut self, l: &str) {
        if let (Some(g), Some((prover, result))) = (
            self.attempts_of.and_then(|i| self.goals.get_mut(i)),
            l.trim().split_once(": "),
        ) {
            if g.prover.is_none() || g.status != GoalStatus::Valid {
                let status = GoalStatus::parse(result);
                let better = g.prover.is_none() || rank(status) > rank(g.status);
                if better {
                    g.status = status;
                    g.prover = Some(prover.to_string());
                    g.time_ms = result.split_whitespace().rev().find_map(parse_time);
                    g.cached = result.contains("(cached)");
                }
            }
        }
    }

    /// A smoke test's line (`rest` after the tag), recorded; false when it is none.
    fn smoke_test(&mut self, tag: Option<&str>, rest: &str, functions: &[String]) -> bool {
        // Frama-C 27 and later: `[Failed] (Doomed) NAME (Qed)` and `[Passed]
        // (Unsuccess) NAME (Alt-Ergo)` are smoke tests.
        let smoke_line = rest.strip_prefix("Smoke-test ").or_else(|| {
            let (paren, after) = rest.strip_prefix('(')?.split_once(") ")?;
            let name = after.split_whitespace().next()?;
            (!paren.contains(' ') && name.contains("_wp_smoke_")).then_some(after)
        });
        let Some(s) = smoke_line else {
            return false;
        };
        let name = s.split_whitespace().next().unwrap_or("").to_string();
        // Only WP's `[Passed]` is a pass; a failed test is printed twice.
        let passed = tag == Some("Passed");
        match self.smoke.iter_mut().find(|t| t.name == name) {
            Some(t) => t.passed &= passed,
            None => self.smoke.push(SmokeTest {
                function: goal_function(&name, functions),
                name,
                passed,
            }),
        }
        true
    }
}

/// A goal as Frama-C before 27 prints it: `[PROVER] Goal NAME : RESULT`, or
/// `[STATUS] Goal NAME` with the attempts on indented lines; `g` is the text after
/// `Goal `.
fn old_style_goal(tag: Option<String>, g: &str, functions: &[String]) -> Goal {
    match g.split_once(" : ") {
        Some((name, result)) => {
            let name = name.trim().to_string();
            Goal {
                function: goal_function(&name, functions),
                name,
                status: GoalStatus::parse(result),
                prover: tag.filter(|t| t != "Cache"),
                time_ms: result.split_whitespace().rev().find_map(parse_time),
                cached: result.contains("(cached)"),
                file: None,
                line: None,
                key: None,
            }
        }
        None => {
            // `[wp] [Failed] Goal NAME`, the attempts follow on indented lines.
            let name = g.split_whitespace().next().unwrap_or("").to_string();
            Goal {
                function: goal_function(&name, functions),
                name,
                status: tag
                    .as_deref()
                    .map(GoalStatus::parse)
                    .unwrap_or(GoalStatus::Unknown),
                prover: None,
                time_ms: None,
                cached: false,
                file: None,
                line: None,
                key: None,
            }
        }
    }
}

/// A goal can be printed twice (once per prover attempt): keeps the last result, in
/// the order of first appearance.
fn last_result_per_goal(goals: Vec<Goal>) -> Vec<Goal> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut unique_goals: Vec<Goal> = Vec::new();
    for g in goals {
        match seen.get(&g.name) {
            Some(&i) => unique_goals[i] = g,
            None => {
                seen.insert(g.name.clone(), unique_goals.len());
                unique_goals.push(g);
            }
        }
    }
    unique_goals
}

/// The properties of the CSV report (see [`parse_run`] for `file_name`), each with
/// the goals its label names.
fn csv_properties(
    csv: &str,
    file_name: Option<&str>,
    functions: &[String],
    goals: &[Goal],
) -> Vec<Property> {
    let mut properties: Vec<Property> = Vec::new();
    for (i, row) in csv.lines().enumerate() {
        if i == 0 {
            continue;
        }
        let cols: Vec<&str> = row.split('\t').collect();
        // A harness run keeps its own rows and those of the functions it was asked
        // about wherever a `#line` directive put them (not the C library's).
        if cols.len() < 7
            || file_name.is_some_and(|f| cols[1] != f && !functions.iter().any(|n| n == cols[3]))
        {
            continue;
        }
        let file = if cols[0].is_empty() || cols[0] == "." {
            cols[1].to_string()
        } else {
            format!("{}/{}", cols[0], cols[1])
        };
        let text = cols[6..].join("\t");
        let kind = cols[4].to_string();
        let function = cols[3].to_string();
        // Labelled clauses (`name: ...`) name their goals: match them.
        let label = text
            .split_once(':')
            .map(|(l, _)| l.trim())
            .filter(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '_'));
        let matched = match label {
            Some(l) => goals
                .iter()
                .filter(|g| g.function.as_deref() == Some(function.as_str()))
                .filter(|g| {
                    g.name.ends_with(&format!("_{l}")) || g.name.contains(&format!("_{l}_"))
                })
                .map(|g| g.name.clone())
                .collect(),
            None => Vec::new(),
        };
        properties.push(Property {
            line: cols[2].parse().unwrap_or(0),
            function,
            kind,
            text,
            status: PropertyStatus::parse(cols[5]),
            goals: matched,
            file: Some(file),
        });
    }
    properties
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_lines_of_newer_frama_c() {
        // The console format of Frama-C 27 and later (as in WP's own test
        // oracles): the status in the tag, no `Goal` word, smoke tests tagged
        // `(Doomed)` or `(Unsuccess)`, goals of the control-flow checks.
        let console = "[wp] [Valid] Goal f_exits (Cfg) (Unreachable)\n\
[wp] [Valid] Goal f_terminates (Cfg) (Trivial)\n\
[wp] 4 goals scheduled\n\
[wp] [Valid] typed_f_ensures (Qed)\n\
[wp] [Unsuccess] typed_f_assert_a1 (Alt-Ergo) (Cached)\n\
[wp] [Timeout] typed_f_loop_invariant_preserved (Z3)\n\
[wp] [Failed] (Doomed) typed_f_wp_smoke_default_requires (Qed)\n\
[wp] x.c:10: Warning: Failed smoke-test\n\
[wp] [Passed] (Unsuccess) typed_g_wp_smoke_default_requires (Alt-Ergo) (Cached)\n\
[wp] Proved goals:    4 / 7\n";
        let fns = vec!["f".to_string(), "g".into()];
        let r = parse_run(console, "", Some("x.c"), &fns);
        let names: Vec<&str> = r.goals.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "f_exits",
                "f_terminates",
                "typed_f_ensures",
                "typed_f_assert_a1",
                "typed_f_loop_invariant_preserved"
            ]
        );
        assert_eq!(r.goals[2].status, GoalStatus::Valid);
        assert_eq!(r.goals[2].prover.as_deref(), Some("Qed"));
        assert_eq!(r.goals[3].status, GoalStatus::Unknown);
        assert!(r.goals[3].cached);
        assert_eq!(r.goals[4].status, GoalStatus::Timeout);
        assert_eq!(r.smoke_tests.len(), 2);
        assert!(!r.smoke_tests[0].passed && r.smoke_tests[1].passed);
        // 3 valid goals + 1 passed smoke test of 5 goals + 2 tests: it adds up.
        assert!(
            matches!(r.verdict, Verdict::Inconsistent { .. }),
            "{:?}",
            r.verdict
        );
        assert_eq!(r.warnings[0].file.as_deref(), Some("x.c"));
        assert_eq!(r.warnings[0].line, Some(10));
    }

    #[test]
    fn frama_c_versions() {
        assert_eq!(major_version("25.0-beta (Manganese)"), Some(25));
        assert_eq!(major_version("30.0 (Zinc)"), Some(30));
        assert_eq!(major_version("Frama-C 22.0 (Titanium)"), Some(22));
        assert_eq!(major_version("unknown"), None);
        let e = WpError::UnsupportedVersion {
            version: "22.0 (Titanium)".into(),
            oldest: OLDEST_FRAMA_C,
        };
        assert!(e
            .to_string()
            .contains("Frama-C 22.0 (Titanium) is not supported"));
    }

    #[test]
    fn console_lines() {
        let console = "[wp] [Qed] Goal typed_find_loop_invariant_preserved : Valid (4ms)\n\
[wp] [Z3 5.4.1] Goal typed_find_assert_rte_mem_access : Valid (Qed:4ms) (50ms) (105911)\n\
[wp] [Z3 5.4.1] Goal typed_bad_ensures : Failed\n\
[wp] [CVC5 1.0.3] Goal typed_f_g_ensures : Timeout (Qed:3ms) (1s)\n\
[wp] Goal typed_find_ensures : not tried\n\
[wp] [Failed] Smoke-test typed_f_wp_smoke_default_requires\n\
[wp] [Failed] Goal typed_bad_ensures_wrong\n  Z3 5.4.1: Failed\n  CVC5 1.0.3: Timeout (Qed:4ms) (2s)\n\
[wp] Proved goals:    2 / 7\n";
        let fns = vec!["find".to_string(), "bad".into(), "f".into(), "f_g".into()];
        let r = parse_run(console, "", Some("x.c"), &fns);
        assert_eq!(r.goals.len(), 6);
        assert_eq!(r.goals[5].status, GoalStatus::Timeout);
        assert_eq!(r.goals[5].prover.as_deref(), Some("CVC5 1.0.3"));
        assert_eq!(r.goals[5].time_ms, Some(2000.0));
        assert_eq!(r.goals[1].time_ms, Some(50.0));
        assert_eq!(r.goals[1].prover.as_deref(), Some("Z3 5.4.1"));
        assert_eq!(r.goals[2].status, GoalStatus::Failed);
        assert_eq!(r.goals[3].status, GoalStatus::Timeout);
        assert_eq!(r.goals[3].function.as_deref(), Some("f_g"));
        assert_eq!(r.goals[3].time_ms, Some(1000.0));
        assert_eq!(r.goals[4].status, GoalStatus::NotTried);
        assert!(r.goals.iter().all(|g| !g.cached));
        let again = parse_run(
            "[wp] [Z3 5.4.1] Goal typed_f_ensures : Valid (Qed:2ms) (10ms) (29893) (cached)\n\
[wp] [Failed] Goal typed_f_ensures_2\n  Z3 5.4.1: Failed \n  CVC5 1.0.3: Unknown (Qed:4ms) (cached)\n",
            "",
            Some("x.c"),
            &fns,
        );
        assert!(again.goals[0].cached);
        assert_eq!(again.goals[1].status, GoalStatus::Unknown);
        assert!(again.goals[1].cached);
        assert!(!r.smoke_tests[0].passed);
        assert!(matches!(r.verdict, Verdict::Inconsistent { .. }));
    }

    #[test]
    fn goals_that_do_not_add_up_are_not_proved() {
        let fns = vec!["f".to_string()];
        let ok = "[wp] 1 goal scheduled\n[wp] [Qed] Goal typed_f_ensures : Valid (2ms)\n\
[wp] Proved goals:    1 / 1\n  Qed:             1  (2ms)\n";
        assert_eq!(
            parse_run(ok, "", Some("x.c"), &fns).verdict,
            Verdict::Proved { goals: 1 }
        );
        // WP counts a goal that no goal line shows: the unseen one is not proved.
        let missing =
            "[wp] [Qed] Goal typed_f_ensures : Valid (2ms)\n[wp] Proved goals:    1 / 2\n";
        assert!(matches!(
            parse_run(missing, "", Some("x.c"), &fns).verdict,
            Verdict::Unreadable { .. }
        ));
        // WP proved fewer than the goal lines say.
        let fewer = "[wp] [Qed] Goal typed_f_ensures : Valid (2ms)\n[wp] Proved goals:    0 / 1\n";
        assert!(matches!(
            parse_run(fewer, "", Some("x.c"), &fns).verdict,
            Verdict::Unreadable { .. }
        ));
        // Goal lines without WP's count.
        let no_summary = "[wp] [Qed] Goal typed_f_ensures : Valid (2ms)\n";
        assert!(matches!(
            parse_run(no_summary, "", Some("x.c"), &fns).verdict,
            Verdict::Unreadable { .. }
        ));
    }

    #[test]
    fn only_attempt_lines_change_a_goal() {
        let fns = vec!["f".to_string()];
        // The per-prover statistics after the count belong to no goal.
        let console = "[wp] [Failed] Goal typed_f_ensures\n  Z3 5.4.1: Failed\n\
[wp] Proved goals:    0 / 1\n  Z3 5.4.1:        0  (failed: 1)\n  Qed: Valid\n";
        let r = parse_run(console, "", Some("x.c"), &fns);
        assert_eq!(r.goals.len(), 1);
        assert_eq!(r.goals[0].status, GoalStatus::Failed);
        assert_eq!(r.goals[0].prover.as_deref(), Some("Z3 5.4.1"));
        assert_eq!(
            r.verdict,
            Verdict::NotProved {
                unproved: 1,
                goals: 1
            }
        );
    }

    #[test]
    fn smoke_tests_pass_only_when_wp_says_passed() {
        let fns = vec!["f".to_string()];
        let console = "[wp] [Qed] Goal typed_f_ensures : Valid\n\
[wp] [Failed] Smoke-test typed_f_wp_smoke_default_requires\n       Qed: Valid\n\
[wp] [Failed] Smoke-test typed_f_wp_smoke_default_requires\n\
[wp] [Passed] Smoke-test typed_f_wp_smoke_dead_code_s3\n\
[wp] [Qed] Smoke-test typed_f_wp_smoke_dead_code_s4\n\
[wp] Proved goals:    3 / 4\n";
        let r = parse_run(console, "", Some("x.c"), &fns);
        let passed: Vec<(&str, bool)> = r
            .smoke_tests
            .iter()
            .map(|t| (t.name.as_str(), t.passed))
            .collect();
        assert_eq!(
            passed,
            vec![
                ("typed_f_wp_smoke_default_requires", false),
                ("typed_f_wp_smoke_dead_code_s3", true),
                ("typed_f_wp_smoke_dead_code_s4", false),
            ]
        );
        assert!(matches!(r.verdict, Verdict::Unreadable { .. }));
        let console = console.replace("3 / 4", "2 / 4");
        match parse_run(&console, "", Some("x.c"), &fns).verdict {
            Verdict::Inconsistent {
                failed_smoke_tests, ..
            } => assert_eq!(failed_smoke_tests.len(), 2),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn detect_lines() {
        let p = parse_detect("[wp] Prover         Z3 5.4.1  [z3|Z3:5.4.1]\n[wp] Prover       CVC4 1.8    [cvc4|CVC4:1.8]\n");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].alias, "z3");
        assert_eq!(p[1].version, "1.8");
    }

    fn a_setup() -> Setup {
        Setup {
            frama_c_version: "25.0-beta (Manganese)".into(),
            why3_config: "/cache/why3.conf".into(),
            provers: vec![ProverInfo {
                name: "Z3".into(),
                version: "4.8.12".into(),
                alias: "z3".into(),
            }],
            why3_version: "Why3 platform, version 1.5.1".into(),
            why3_config_hash: "0123".into(),
        }
    }

    #[test]
    fn every_option_that_changes_an_answer_changes_the_cache_keys() {
        let cfg = WpConfig {
            cache_dir: Some("/cache".into()),
            ..WpConfig::default()
        };
        let setup = a_setup();
        let keys = |c: &WpConfig, s: &Setup, text: &str, fns: &[String], file: &str| {
            let goals = goal_cache_dir(c, s);
            let args = c.arguments(file, "r.csv", fns, goals.as_deref());
            (run_key(c, s, &args, text), goals)
        };
        let f = vec!["f".to_string()];
        let (base, base_goals) = keys(&cfg, &setup, "int f(void);", &f, "a.c");
        assert_eq!(keys(&cfg, &setup, "int f(void);", &f, "a.c").0, base);
        let with = |c: WpConfig| keys(&c, &setup, "int f(void);", &f, "a.c");
        let of = |s: Setup| keys(&cfg, &s, "int f(void);", &f, "a.c");
        // (what changed, keys, whether WP's goal answers may differ)
        let cases = [
            (
                "timeout",
                with(WpConfig {
                    timeout: 3,
                    ..cfg.clone()
                }),
                true,
            ),
            (
                "prover",
                with(WpConfig {
                    prover: "cvc5".into(),
                    ..cfg.clone()
                }),
                true,
            ),
            (
                "extra arguments",
                with(WpConfig {
                    extra_args: vec!["-wp-steps".into(), "100".into()],
                    ..cfg.clone()
                }),
                true,
            ),
            (
                "frama-c",
                of(Setup {
                    frama_c_version: "26.0".into(),
                    ..a_setup()
                }),
                true,
            ),
            (
                "why3",
                of(Setup {
                    why3_version: "Why3 1.6.0".into(),
                    ..a_setup()
                }),
                true,
            ),
            (
                "why3.conf",
                of(Setup {
                    why3_config_hash: "4567".into(),
                    ..a_setup()
                }),
                true,
            ),
            (
                "prover version",
                of(Setup {
                    provers: vec![ProverInfo {
                        name: "Z3".into(),
                        version: "4.12.2".into(),
                        alias: "z3".into(),
                    }],
                    ..a_setup()
                }),
                true,
            ),
            (
                "rte",
                with(WpConfig {
                    rte: false,
                    ..cfg.clone()
                }),
                false,
            ),
            (
                "smoke tests",
                with(WpConfig {
                    smoke_tests: false,
                    ..cfg.clone()
                }),
                false,
            ),
            ("text", keys(&cfg, &setup, "int f(int);", &f, "a.c"), false),
            (
                "functions",
                keys(&cfg, &setup, "int f(void);", &[], "a.c"),
                false,
            ),
            (
                "file name",
                keys(&cfg, &setup, "int f(void);", &f, "b.c"),
                false,
            ),
        ];
        for (what, (key, goals), answers_differ) in cases {
            assert_ne!(key, base, "{what} must change the run key");
            if answers_differ {
                assert_ne!(goals, base_goals, "{what} must change WP's goal cache");
            } else {
                assert_eq!(goals, base_goals, "{what}: goal answers are shared");
            }
        }
        let none = WpConfig {
            cache_dir: None,
            ..cfg.clone()
        };
        assert_eq!(goal_cache_dir(&none, &setup), None);
        assert!(!none
            .arguments("a.c", "r.csv", &f, None)
            .contains(&"-wp-cache".to_string()));
    }

    #[test]
    fn zero_goals_is_not_proved() {
        assert_eq!(Verdict::of(&[], &[], None), Verdict::NoGoals);
    }
}
