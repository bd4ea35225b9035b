//! `vera run DOC`: from a requirements document to an audited model in one resumable
//! command.
//!
//! The stages, each writing its files into the run directory:
//!
//! | stage | reads | writes |
//! |---|---|---|
//! | extract | the document | `requirements.json` (`vera.requirements.v1`) |
//! | schema | `requirements.json` | `schema.toml`, `schema.json` |
//! | formalize | `schema.toml` | `formalized.toml`, `formalize.json` |
//! | audit | `formalized.toml` | `audit.json` |
//! | ambiguity | `formalized.toml` | `ambiguity.json` |
//! | roundtrip | `formalized.toml` | `roundtrip.json` |
//!
//! `run.json` records, per stage, a key (a SHA-256 of what the stage reads and the
//! options that shape it), the SHA-256 of every file it wrote, and its counts. A stage
//! whose key and files are unchanged is not run again: a rerun after a crash or an
//! interruption starts at the first stage that did not finish, and inside that stage
//! the language model's answers come from its cache. A file of the run directory that
//! was changed after vera wrote it (a reviewed `schema.toml`) is used as it is, so the
//! stages after it run again on it; it is never written over unless `force`.
//!
//! The counts are honest per stage: extracted, formalized at the first attempt, after
//! repair, failed with the reason, audit findings, ambiguity flags, round trip
//! equivalent at the first try and after one repair. A stage that could not decide
//! something says so; nothing undecided is counted as a pass.

use crate::ambiguity::{AmbiguityOptions, AmbiguityReport};
use crate::formalize::{FormalizeOptions, FormalizeReport, PipelineError};
use crate::roundtrip::{RoundTripError, RoundTripOptions, RoundTripReport};
use crate::schema::{DraftOptions, SchemaError};
use llm::Client;
use reqs::Spec;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use solver::SolverConfig;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The schema tag of the run report.
pub const RUN_TAG: &str = "vera.run.v1";
/// The schema tag of `run.json`.
pub const STATE_TAG: &str = "vera.run-state.v1";
/// The state file in the run directory.
pub const STATE_FILE: &str = "run.json";

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The document could not be read as a requirement list.
    #[error(transparent)]
    Extract(#[from] extract::ExtractError),
    /// The schema stage failed (no valid draft, an LLM or solver failure).
    #[error("schema: {0}")]
    Schema(#[from] SchemaError),
    /// Formalization or the ambiguity screening failed.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The round trip failed.
    #[error("round trip: {0}")]
    RoundTrip(#[from] RoundTripError),
    /// The audit could not run.
    #[error("audit: {0}")]
    Audit(#[from] reqs::audit::AuditError),
    /// A spec of the run directory does not load (after an edit, say).
    #[error("{file} cannot be used:\n{diagnostics}")]
    Load {
        /// The file.
        file: String,
        /// Every problem, located.
        diagnostics: String,
    },
    /// A file of the run directory was changed after vera wrote it (or was not written
    /// by vera), and the stage that writes it must run again.
    #[error("{path} was changed after vera wrote it (or was not written by this run), and the {stage} stage must write it again because {why}; move it away, or pass --force to replace it")]
    Edited {
        /// The file.
        path: String,
        /// The stage.
        stage: &'static str,
        /// What changed upstream.
        why: String,
    },
    /// `run.json` is not a run state.
    #[error("{path}: not a run state of this version of vera ({detail}); remove it to start the run afresh")]
    State {
        /// The file.
        path: String,
        /// What is wrong.
        detail: String,
    },
    /// Reading or writing a file.
    #[error(transparent)]
    File(#[from] safefile::SafeFileError),
    /// Creating, locking or reading the run directory.
    #[error("{path}: {error}")]
    Io {
        /// The path.
        path: String,
        /// The error (in the message, and not chained as a source, so it is not
        /// printed twice).
        error: std::io::Error,
    },
    /// Another `vera run` holds the run directory.
    #[error("another vera run is using {path} (it holds {path}/.lock); wait for it to finish, or use another --dir")]
    Busy {
        /// The run directory.
        path: String,
    },
    /// The run directory is a file.
    #[error("{path} is a file, not a directory: choose another --dir")]
    NotADir {
        /// The path.
        path: String,
    },
    /// The directory holds something else: files without a run state, or the run of
    /// another document.
    #[error("{path}: {why}; choose another --dir, or pass --force to use it anyway")]
    NotARunDir {
        /// The directory.
        path: String,
        /// What is there.
        why: String,
    },
}

/// Options of [`run`].
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The run directory.
    pub dir: PathBuf,
    /// Keep only requirements whose section or id starts with one of these (a section
    /// number such as `5` or `5.1`; empty: every requirement).
    pub sections: Vec<String>,
    /// Keep the candidates too (`shall` sentences the document does not mark).
    pub candidates: bool,
    /// At most this many requirements (after the other filters).
    pub limit: Option<usize>,
    /// Schema drafting.
    pub draft: DraftOptions,
    /// A schema to use instead of drafting one: a vera spec whose enumerations,
    /// variables and domain constraints are taken as they are, with the extracted
    /// requirements (a requirement of the file with the same id keeps its formula).
    pub schema: Option<PathBuf>,
    /// Formalization.
    pub formalize: FormalizeOptions,
    /// Parallel solver processes of the audit.
    pub audit_jobs: usize,
    /// The ambiguity screening (`None`: not run).
    pub ambiguity: Option<AmbiguityOptions>,
    /// The round trip (`None`: not run).
    pub roundtrip: Option<RoundTripOptions>,
    /// Replace files of the run directory that were changed after vera wrote them.
    pub force: bool,
}

/// The default run directory of a document: `DOC.vera` next to it.
pub fn default_dir(doc: &Path) -> PathBuf {
    let name = doc
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "document".into());
    doc.with_file_name(format!("{name}.vera"))
}

/// The section numbers of `--sections` items (`5.`, ` 5.1 `): blanks and a final dot
/// cut, empty items left out.
pub fn parse_sections(items: &[String]) -> Vec<String> {
    items
        .iter()
        .map(|s| s.trim().trim_end_matches('.').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Why a `vera run` command line is refused before any work is done.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// A report format the run's report has not.
    #[error("`vera run` has no {0} output: use --format human, json or html (the stages' own commands, such as `vera audit`, write SARIF and JUnit)")]
    Format(String),
    /// An output (the report, a transcript) that would land among the run's own files.
    #[error("{what} {} is inside the run directory {}, whose files vera run keeps: write it elsewhere", .path.display(), .dir.display())]
    InsideRunDir {
        /// The option that names it (`-o`, `--transcript`).
        what: &'static str,
        /// The output.
        path: PathBuf,
        /// The run directory.
        dir: PathBuf,
    },
    /// `--sections` given, but every item is blank.
    #[error("--sections names no section (give numbers such as 5 or 5.1,5.2)")]
    NoSection,
}

/// The checks of a `vera run` command line before any work is done: the report's
/// `format` (`sarif` and `junit` are the stages' own commands'), the `outputs` (each
/// with the option that names it) that would land in the run directory `dir`, whose
/// files the run keeps, and `--sections` items that name no section. Gives back the
/// section numbers ([`parse_sections`]).
pub fn check_request(
    format: &str,
    dir: &Path,
    outputs: &[(&'static str, Option<&Path>)],
    sections: &[String],
) -> Result<Vec<String>, RequestError> {
    if matches!(format, "sarif" | "junit") {
        return Err(RequestError::Format(format.to_string()));
    }
    let inside = |p: &Path| {
        let parent = p
            .parent()
            .filter(|x| !x.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        match (std::fs::canonicalize(parent), std::fs::canonicalize(dir)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    };
    for &(what, p) in outputs {
        if let Some(p) = p.filter(|p| inside(p)) {
            let (path, dir) = (p.to_path_buf(), dir.to_path_buf());
            return Err(RequestError::InsideRunDir { what, path, dir });
        }
    }
    let parsed = parse_sections(sections);
    if !sections.is_empty() && parsed.is_empty() {
        return Err(RequestError::NoSection);
    }
    Ok(parsed)
}

/// What [`run`] tells its caller as it goes.
#[derive(Debug, Clone)]
pub enum Event {
    /// A stage starts (`reused`: its files are up to date and it is not run).
    Stage {
        /// 1-based.
        index: usize,
        /// Stages in this run.
        total: usize,
        /// Its name.
        name: &'static str,
        /// Up to date from an earlier run.
        reused: bool,
        /// What it is about to do.
        detail: String,
    },
    /// A stage finished.
    Done {
        /// Its name.
        name: &'static str,
        /// Its counts in one line.
        line: String,
    },
}

// ------------------------------------------------------------------ counts

/// The extract stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExtractCounts {
    /// The format the document was read as.
    pub format: String,
    /// Requirements found (marked and candidates).
    pub found: usize,
    /// Marked in the source.
    pub marked: usize,
    /// Candidates.
    pub candidates: usize,
    /// Kept by the section filter, the candidate switch and the limit: the requirements
    /// of the run.
    pub selected: usize,
    /// The extractor's notes.
    pub notes: Vec<String>,
}

/// The schema stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SchemaCounts {
    /// Variables drafted.
    pub variables: usize,
    /// Enumerations.
    pub enums: usize,
    /// Domain constraints.
    pub domain: usize,
    /// Requests the list was drafted in.
    pub chunks: usize,
    /// Answers of the draft (every chunk).
    pub answers: usize,
    /// Answers refused.
    pub refused: usize,
    /// Variables proposed by repair rounds.
    pub proposed: usize,
    /// The checks' findings, one line each.
    pub findings: Vec<String>,
    /// A check the solver could not decide.
    pub undecided: bool,
    /// The schema file given with `--schema` (not drafted, not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
    /// Formulas of the given schema kept for requirements of the same id.
    #[serde(default)]
    pub kept_formulas: usize,
}

/// A requirement that did not formalize.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Its id.
    pub id: String,
    /// Names its answers used that the schema lacks (empty: another reason).
    pub missing: Vec<String>,
    /// Why the last answer was refused.
    pub reason: String,
}

/// The formalize stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FormalizeCounts {
    /// Requirements sent to the model.
    pub requirements: usize,
    /// Accepted at the first attempt.
    pub first_attempt: usize,
    /// Accepted after one or more repair turns.
    pub after_repair: usize,
    /// Not formalized, each with the reason.
    pub failed: Vec<Failure>,
    /// Accepted formulas that carry a screening note.
    pub with_notes: usize,
    /// Requirements that had a formula already (from a given schema) and were kept.
    #[serde(default)]
    pub kept: usize,
    /// Requirements whose forms disagreed: flagged for review, no formula.
    #[serde(default)]
    pub flagged: Vec<String>,
    /// Formulas by path (parser, form, SMT-LIB).
    #[serde(default)]
    pub by_path: crate::formalize::ByPath,
}

/// The audit stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditCounts {
    /// Requirements with a formula (audited).
    pub audited: usize,
    /// `consistent`, `inconsistent`, `domain-inconsistent`, `unknown`, or
    /// `not-checked` (no formula to audit).
    pub consistency: String,
    /// Minimal conflicts (ids), when inconsistent.
    pub conflicts: Vec<Vec<String>>,
    /// Requirements whose trigger can never hold.
    pub vacuous: usize,
    /// Requirements the domain alone forces.
    pub implied_by_domain: usize,
    /// Requirements the others imply.
    pub redundant: usize,
    /// Conflicts the environment can force.
    pub conflicts_for_some_inputs: usize,
    /// Checks the solver did not decide.
    pub unknown: usize,
    /// Ids of the requirements with a finding.
    pub with_findings: Vec<String>,
}

/// The ambiguity stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AmbiguityCounts {
    /// Requirements screened.
    pub requirements: usize,
    /// Samples per requirement.
    pub samples: u32,
    /// Flagged: several readings.
    pub flagged: Vec<String>,
    /// Fewer than two valid samples: not screened (never "one reading").
    pub could_not_screen: Vec<String>,
    /// One reading.
    pub one_reading: usize,
    /// Pairwise agreement of valid samples, pooled.
    pub pairwise_agreement: Option<f64>,
}

/// The round-trip stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundTripCounts {
    /// Formalized requirements checked.
    pub checked: usize,
    /// Equivalent at the first try.
    pub equivalent_first: usize,
    /// Equivalent after at most one repair.
    pub equivalent_after_repair: usize,
    /// Not equivalent (or undecided) after the repair.
    pub differs: Vec<String>,
    /// No formula came back.
    pub no_formula: Vec<String>,
    /// Sentences flagged (unmentioned variables, drift).
    pub flagged: usize,
    /// Mean lexical cosine of requirement text and reconstructed sentence.
    pub mean_similarity: Option<f64>,
}

/// One stage as it went in this run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageRun {
    /// Its name.
    pub name: &'static str,
    /// Up to date from an earlier run (not run now).
    pub reused: bool,
    /// Seconds it took when it ran (in the earlier run when reused).
    pub seconds: f64,
    /// The files it wrote, relative to the run directory.
    pub files: Vec<String>,
    /// Files of it that were changed after vera wrote them, used as they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edited: Vec<String>,
}

/// The report of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// The document.
    pub document: String,
    /// The run directory.
    pub dir: String,
    /// The stages, in order.
    pub stages: Vec<StageRun>,
    /// Extraction.
    pub extract: ExtractCounts,
    /// The schema (absent when no requirement was selected).
    #[serde(rename = "schema_draft", skip_serializing_if = "Option::is_none")]
    pub schema: Option<SchemaCounts>,
    /// Formalization.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formalize: Option<FormalizeCounts>,
    /// The audit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<AuditCounts>,
    /// The ambiguity screening.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ambiguity: Option<AmbiguityCounts>,
    /// The round trip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roundtrip: Option<RoundTripCounts>,
    /// What a reader should know (a stage skipped, an edited file used).
    pub notes: Vec<String>,
}

impl RunReport {
    /// True when something was left undecided or could not be checked: an undecided
    /// schema check or audit check, a requirement the ambiguity screening could not
    /// screen, or no requirement to check at all.
    pub fn undecided(&self) -> bool {
        self.extract.selected == 0
            || self.schema.as_ref().is_some_and(|s| s.undecided)
            || self
                .audit
                .as_ref()
                .is_some_and(|a| a.unknown > 0 || a.consistency == "unknown")
            || self
                .ambiguity
                .as_ref()
                .is_some_and(|a| !a.could_not_screen.is_empty())
    }

    /// True when some stage found something a person must look at.
    pub fn has_findings(&self) -> bool {
        self.schema.as_ref().is_some_and(|s| !s.findings.is_empty())
            || self
                .formalize
                .as_ref()
                .is_some_and(|f| !f.failed.is_empty())
            || self
                .audit
                .as_ref()
                .is_some_and(|a| a.consistency != "consistent" || !a.with_findings.is_empty())
            || self
                .ambiguity
                .as_ref()
                .is_some_and(|a| !a.flagged.is_empty())
            || self
                .roundtrip
                .as_ref()
                .is_some_and(|r| !r.differs.is_empty() || !r.no_formula.is_empty())
    }
}

// ------------------------------------------------------------------ state

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct State {
    schema: String,
    document: String,
    stages: BTreeMap<String, StageState>,
    /// Per file, the SHA-256 of every version vera is about to write or wrote: recorded
    /// before the file is renamed into place, so a run killed between the two still
    /// knows the file as its own.
    #[serde(default)]
    written: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StageState {
    key: String,
    /// File name → SHA-256 of what vera wrote.
    files: BTreeMap<String, String>,
    seconds: f64,
    counts: serde_json::Value,
}

fn sha(bytes: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(bytes);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The key of a stage: its name and version, the hashes of what it reads, and its
/// options. A stage's version (`schema@2`) goes up when a change to vera changes what the
/// stage writes for the same input, so that runs made before it are not reused.
fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The run directory and its state.
struct Dir {
    path: PathBuf,
    state: State,
    force: bool,
    /// Held (locked) while the run lasts.
    _lock: std::fs::File,
}

/// Every file a run writes into its directory.
const FILES: [&str; 9] = [
    STATE_FILE,
    "requirements.json",
    "schema.toml",
    "schema.json",
    "formalized.toml",
    "formalize.json",
    "audit.json",
    "ambiguity.json",
    "roundtrip.json",
];

/// Extraction notes kept by a run.
const MAX_NOTES: usize = 50;

/// The largest `run.json` read (its counts are small; the requirement list is not in it).
const MAX_STATE_BYTES: u64 = 16 << 20;

/// How a stage's files stand.
enum Standing {
    /// Key and files as recorded: reuse; the files changed since are listed.
    Fresh { edited: Vec<String> },
    /// Must run.
    Stale,
}

impl Dir {
    fn open(path: &Path, document: &str, force: bool) -> Result<Dir, RunError> {
        let io = |p: &Path| {
            let p = p.display().to_string();
            move |error| RunError::Io { path: p, error }
        };
        if path.exists() && !path.is_dir() {
            return Err(RunError::NotADir {
                path: path.display().to_string(),
            });
        }
        // Files other than vera's hidden ones (the lock, temporary files).
        let had_files = std::fs::read_dir(path).is_ok_and(|d| {
            d.flatten()
                .any(|e| !e.file_name().to_string_lossy().starts_with('.'))
        });
        std::fs::create_dir_all(path).map_err(io(path))?;
        // One run at a time per directory: an advisory lock the system drops when the
        // process ends, however it ends.
        let lock_path = path.join(".lock");
        let lock = std::fs::OpenOptions::new() // scratch: the run directory's empty lock file
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(RunError::Busy {
                    path: path.display().to_string(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(&lock_path)(e)),
        }
        let state_path = path.join(STATE_FILE);
        let state = if state_path.exists() {
            // Not `safefile::read_text`: the state is the run's own file, written again.
            let meta = std::fs::metadata(&state_path).map_err(io(&state_path))?;
            if meta.len() > MAX_STATE_BYTES {
                return Err(RunError::State {
                    path: state_path.display().to_string(),
                    detail: format!("{} bytes, more than a run state holds", meta.len()),
                });
            }
            let text = std::fs::read_to_string(&state_path).map_err(|e| RunError::State {
                path: state_path.display().to_string(),
                detail: e.to_string(),
            })?;
            let mut s: State = serde_json::from_str(&text).map_err(|e| RunError::State {
                path: state_path.display().to_string(),
                detail: e.to_string(),
            })?;
            if s.schema != STATE_TAG {
                return Err(RunError::State {
                    path: state_path.display().to_string(),
                    detail: format!("schema `{}`", s.schema),
                });
            }
            if s.document != document {
                if !force {
                    return Err(RunError::NotARunDir {
                        path: path.display().to_string(),
                        why: format!("it holds the run of {}", s.document),
                    });
                }
                s.document = document.into();
            }
            s
        } else {
            if had_files && !force {
                return Err(RunError::NotARunDir {
                    path: path.display().to_string(),
                    why: "it has files but no run.json, so it is not a vera run directory".into(),
                });
            }
            State {
                schema: STATE_TAG.into(),
                document: document.into(),
                stages: BTreeMap::new(),
                written: BTreeMap::new(),
            }
        };
        // Temporary files of writes a killed run did not finish.
        if let Ok(entries) = std::fs::read_dir(path) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let ours = FILES
                    .iter()
                    .any(|f| name.starts_with(&format!(".{f}.")) && name.ends_with(".tmp"));
                if ours {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Ok(Dir {
            path: path.to_path_buf(),
            state,
            force,
            _lock: lock,
        })
    }

    fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The SHA-256 of a file of the directory, `None` when it does not exist.
    fn current(&self, name: &str) -> Result<Option<String>, RunError> {
        let p = self.file(name);
        if !p.exists() {
            return Ok(None);
        }
        // Not through `safefile::read_bytes`, which marks what it reads as an input
        // that must never be written: these files are the run's own.
        let bytes = std::fs::read(&p).map_err(|source| RunError::Io {
            path: p.display().to_string(),
            error: source,
        })?;
        Ok(Some(sha(&bytes)))
    }

    fn standing(&self, stage: &str, key: &str) -> Result<Standing, RunError> {
        let Some(s) = self.state.stages.get(stage) else {
            return Ok(Standing::Stale);
        };
        if s.key != key {
            return Ok(Standing::Stale);
        }
        let mut edited = Vec::new();
        for (name, recorded) in &s.files {
            match self.current(name)? {
                None => return Ok(Standing::Stale),
                Some(h) if &h != recorded => edited.push(name.clone()),
                Some(_) => {}
            }
        }
        Ok(Standing::Fresh { edited })
    }

    /// Refuses to replace a file that vera did not write as it is now, unless forced.
    fn may_write(&self, stage: &'static str, name: &str, why: &str) -> Result<(), RunError> {
        let Some(now) = self.current(name)? else {
            return Ok(());
        };
        let recorded = self
            .state
            .stages
            .values()
            .any(|s| s.files.get(name) == Some(&now))
            || self
                .state
                .written
                .get(name)
                .is_some_and(|hs| hs.contains(&now));
        if recorded || self.force {
            Ok(())
        } else {
            Err(RunError::Edited {
                path: self.file(name).display().to_string(),
                stage,
                why: why.to_string(),
            })
        }
    }

    /// Before a stage runs: refuses at once (not after the model was paid) when one of
    /// the files it will write cannot be written.
    fn check_writable(&self, stage: &'static str, files: &[&str]) -> Result<(), RunError> {
        let why = if self.state.stages.contains_key(stage) {
            "what it reads or its options changed"
        } else {
            "it has not run in this directory"
        };
        for name in files {
            self.may_write(stage, name, why)?;
        }
        Ok(())
    }

    /// Writes the files of a stage (atomically) and records the stage.
    fn finish(
        &mut self,
        stage: &'static str,
        key: String,
        files: &[(&str, String)],
        seconds: f64,
        counts: serde_json::Value,
    ) -> Result<(), RunError> {
        // Checked again: a file may have changed while the stage ran.
        let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
        self.check_writable(stage, &names)?;
        // The hashes go into run.json before the files are renamed into place.
        let mut recorded = BTreeMap::new();
        for (name, text) in files {
            let h = sha(text.as_bytes());
            let w = self.state.written.entry(name.to_string()).or_default();
            if !w.contains(&h) {
                w.push(h.clone());
                // A few versions per file are enough to know one a crash left behind.
                if w.len() > 8 {
                    w.remove(0);
                }
            }
            recorded.insert(name.to_string(), h);
        }
        self.save()?;
        for (name, text) in files {
            safefile::write_atomic(&self.file(name), text.as_bytes(), true)?;
        }
        self.state.stages.insert(
            stage.to_string(),
            StageState {
                key,
                files: recorded,
                seconds,
                counts,
            },
        );
        self.save()
    }

    fn save(&self) -> Result<(), RunError> {
        let text = serde_json::to_string_pretty(&self.state).expect("the state serializes");
        safefile::write_atomic(&self.file(STATE_FILE), text.as_bytes(), true)?;
        Ok(())
    }

    fn counts<T: for<'de> Deserialize<'de>>(&self, stage: &str) -> Result<T, RunError> {
        let s = &self.state.stages[stage];
        serde_json::from_value(s.counts.clone()).map_err(|e| RunError::State {
            path: self.file(STATE_FILE).display().to_string(),
            detail: format!("the counts of stage {stage}: {e}"),
        })
    }
}

// ------------------------------------------------------------------ stages

/// The names of the stages, in order.
pub const STAGES: [&str; 6] = [
    "extract",
    "schema",
    "formalize",
    "audit",
    "ambiguity",
    "roundtrip",
];

fn selected(x: &mut extract::Extraction, options: &RunOptions) {
    x.requirements.retain(|r| {
        let in_section = options.sections.is_empty()
            || options.sections.iter().any(|s| {
                let s = s.trim();
                let sec = r.section.as_deref().unwrap_or("");
                let starts = |t: &str| {
                    t == s
                        || t.strip_prefix(s)
                            .is_some_and(|rest| rest.starts_with(['.', ' ', '(']))
                };
                starts(sec) || starts(&r.id)
            });
        in_section && (options.candidates || r.confidence == extract::Confidence::High)
    });
    if let Some(n) = options.limit {
        x.requirements.truncate(n);
    }
}

fn load(path: &Path) -> Result<Spec, RunError> {
    reqs::load(path).map_err(|e| RunError::Load {
        file: path.display().to_string(),
        diagnostics: match e {
            reqs::LoadError::Invalid(d) => d.to_string(),
            other => other.to_string(),
        },
    })
}

fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).expect("a report serializes") + "\n"
}

fn to_value<T: Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).expect("counts serialize")
}

fn formalize_counts(r: &FormalizeReport) -> FormalizeCounts {
    FormalizeCounts {
        requirements: r.requirements.len(),
        first_attempt: r.first_attempt,
        after_repair: r.after_repair,
        failed: r
            .requirements
            .iter()
            .filter(|f| f.formula.is_none())
            .map(|f| {
                let mut missing: Vec<String> = f
                    .attempts
                    .iter()
                    .filter_map(|a| a.error.as_deref())
                    .flat_map(crate::schema::names_not_in_schema)
                    .collect();
                missing.sort();
                missing.dedup();
                Failure {
                    id: f.id.clone(),
                    missing,
                    reason: match (&f.vote, f.flagged) {
                        // Valid answers that disagree: the last attempt may well be
                        // a valid one, so its (absent) error says nothing.
                        (Some(v), true) => format!(
                            "flagged for review: the forms disagree ({} of {} valid answers in the largest group, {} readings)",
                            v.agreeing,
                            v.valid,
                            v.readings.len()
                        ),
                        _ => f
                            .attempts
                            .last()
                            .and_then(|a| a.error.clone())
                            .unwrap_or_else(|| "no answer".into()),
                    },
                }
            })
            .collect(),
        with_notes: r
            .requirements
            .iter()
            .filter(|f| f.formula.is_some() && !f.notes.is_empty())
            .count(),
        kept: r.kept.len(),
        flagged: r.flagged.clone(),
        by_path: r.by_path,
    }
}

fn audit_counts(spec: &Spec, r: &reqs::AuditReport) -> AuditCounts {
    let s = reqs::summary::summarize(spec, r);
    let (consistency, conflicts) = match &r.consistency {
        reqs::audit::Consistency::Consistent => ("consistent", vec![]),
        reqs::audit::Consistency::DomainInconsistent { conflict } => {
            ("domain-inconsistent", vec![conflict.clone()])
        }
        reqs::audit::Consistency::Inconsistent { conflicts, .. } => {
            ("inconsistent", conflicts.clone())
        }
        reqs::audit::Consistency::Unknown { .. } => ("unknown", vec![]),
    };
    let mut with_findings: Vec<String> = r
        .requirements
        .iter()
        .filter(|a| a.has_findings())
        .map(|a| a.id.clone())
        .collect();
    for id in r.requirements.iter().map(|a| &a.id) {
        if !reqs::summary::env_conflicts_of(r, id).is_empty() && !with_findings.contains(id) {
            with_findings.push(id.clone());
        }
    }
    AuditCounts {
        audited: s.formalized,
        consistency: consistency.into(),
        conflicts,
        vacuous: s.vacuous,
        implied_by_domain: s.implied_by_domain,
        redundant: s.redundant,
        conflicts_for_some_inputs: s.conflicts_for_some_inputs,
        unknown: s.unknown,
        with_findings,
    }
}

/// The ambiguity counts of a formalization by forms, from its vote (`formalize.json`):
/// a requirement whose valid forms fall into several groups of equivalent formulas has
/// several readings; one with fewer than two valid forms could not be compared. Only
/// requirements the model was asked about (those with a vote) are counted.
fn vote_ambiguity(formalize: &serde_json::Value, samples: u32) -> AmbiguityCounts {
    let mut c = AmbiguityCounts {
        samples,
        ..AmbiguityCounts::default()
    };
    let (mut agreeing_pairs, mut pairs) = (0usize, 0usize);
    let empty = Vec::new();
    for r in formalize["report"]["requirements"]
        .as_array()
        .or_else(|| formalize["requirements"].as_array())
        .unwrap_or(&empty)
    {
        let Some(vote) = r.get("vote") else { continue };
        let id = r["id"].as_str().unwrap_or_default().to_string();
        c.requirements += 1;
        let valid = vote["valid"].as_u64().unwrap_or(0) as usize;
        let counts: Vec<usize> = vote["readings"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .map(|x| x["count"].as_u64().unwrap_or(0) as usize)
                    .collect()
            })
            .unwrap_or_default();
        if valid < 2 {
            c.could_not_screen.push(id);
            continue;
        }
        pairs += valid * (valid - 1) / 2;
        agreeing_pairs += counts
            .iter()
            .map(|n| n * n.saturating_sub(1) / 2)
            .sum::<usize>();
        if counts.len() > 1 {
            c.flagged.push(id);
        } else {
            c.one_reading += 1;
        }
    }
    c.pairwise_agreement = (pairs > 0).then(|| agreeing_pairs as f64 / pairs as f64);
    c
}

fn ambiguity_counts(r: &AmbiguityReport, samples: u32) -> AmbiguityCounts {
    AmbiguityCounts {
        requirements: r.requirements.len(),
        samples,
        flagged: r
            .requirements
            .iter()
            .filter(|s| s.flagged)
            .map(|s| s.id.clone())
            .collect(),
        could_not_screen: r
            .requirements
            .iter()
            .filter(|s| s.could_not_screen)
            .map(|s| s.id.clone())
            .collect(),
        one_reading: r
            .requirements
            .iter()
            .filter(|s| !s.flagged && !s.could_not_screen)
            .count(),
        pairwise_agreement: r.summary.pairwise_agreement,
    }
}

fn roundtrip_counts(r: &RoundTripReport) -> RoundTripCounts {
    RoundTripCounts {
        checked: r.trips.len(),
        equivalent_first: r.trips.iter().filter(|t| t.initially_equivalent()).count(),
        equivalent_after_repair: r.trips.iter().filter(|t| t.finally_equivalent()).count(),
        differs: r
            .trips
            .iter()
            .filter(|t| !t.finally_equivalent() && t.reformalized.is_some())
            .map(|t| t.id.clone())
            .collect(),
        no_formula: r
            .trips
            .iter()
            .filter(|t| !t.finally_equivalent() && t.reformalized.is_none())
            .map(|t| t.id.clone())
            .collect(),
        flagged: r.flagged,
        mean_similarity: r.mean_lexical_similarity,
    }
}

/// The given schema with the extracted requirements: the spec text and how many
/// formulas of the schema file were kept.
fn given_schema(
    spec: &Spec,
    list: &crate::schema::RequirementList,
    given: &Path,
) -> (String, usize) {
    let mut kept = 0;
    let reqs: Vec<crate::formalize::OutRequirement> = list
        .requirements
        .iter()
        .map(|r| {
            let own = spec
                .requirements
                .iter()
                .find(|x| x.id == r.id && x.formula.is_some());
            kept += usize::from(own.is_some());
            crate::formalize::OutRequirement {
                id: r.id.clone(),
                text: r.text.clone(),
                formula: own.and_then(|x| x.formula.as_ref().map(logic::print::term)),
                origin: own.map(|x| x.origin).unwrap_or_default(),
                timed: None,
                notes: own
                    .map(|_| vec![format!("formula kept from {}", given.display())])
                    .unwrap_or_default(),
            }
        })
        .collect();
    let header = vec![format!(
        "The schema of {} with the requirements extracted by vera run.",
        given.display()
    )];
    (crate::formalize::render_spec(spec, &header, &reqs), kept)
}

/// Runs the stages on `document` (see the module docs).
pub fn run(
    document: &Path,
    client: &Client,
    solver: &SolverConfig,
    options: &RunOptions,
    progress: &dyn Fn(Event),
) -> Result<RunReport, RunError> {
    let doc_name = document.display().to_string();
    safefile::register_input(document);
    // Read and extracted before the run directory is made: a document that cannot be
    // read leaves nothing behind. Extraction is deterministic and fast.
    // A UTF-16 document (with a byte-order mark) is read as its text.
    let doc_bytes = safefile::read_bytes_as_utf8(document)?.0;
    let extraction = extract::extract(&doc_name, &doc_bytes, None)?;
    // The run directory knows its document by its full path.
    let doc_id = std::fs::canonicalize(document)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| doc_name.clone());
    let mut st = Stages {
        dir: Dir::open(&options.dir, &doc_id, options.force)?,
        total: 4
            + usize::from(options.ambiguity.is_some())
            + usize::from(options.roundtrip.is_some()),
        index: 0,
        stages: Vec::new(),
        notes: Vec::new(),
        progress,
    };
    let ctx = Ctx {
        client,
        solver,
        options,
        model: format!("{}/{}", client.provider().id(), client.provider().model()),
    };
    let extract = extract_stage(&mut st, &ctx, extraction, (&doc_name, &doc_bytes))?;
    let mut report = RunReport {
        document: doc_name.clone(),
        dir: options.dir.display().to_string(),
        stages: Vec::new(),
        extract,
        schema: None,
        formalize: None,
        audit: None,
        ambiguity: None,
        roundtrip: None,
        notes: Vec::new(),
    };
    if report.extract.selected == 0 {
        st.notes.push(format!(
            "no requirement to check: {} found in {doc_name}, none selected{}",
            report.extract.found,
            if options.sections.is_empty() {
                String::new()
            } else {
                format!(" in section(s) {}", options.sections.join(", "))
            }
        ));
    } else {
        let selected = report.extract.selected;
        report.schema = Some(schema_stage(&mut st, &ctx, selected)?);
        report.formalize = Some(formalize_stage(&mut st, &ctx, selected)?);
        // 4-6 read the formalized spec.
        let spec_path = st.dir.file("formalized.toml");
        let spec_hash = sha(&safefile::read_bytes(&spec_path)?);
        let spec = load(&spec_path)?;
        report.audit = Some(audit_stage(&mut st, &ctx, &spec, &spec_hash)?);
        report.ambiguity = ambiguity_stage(&mut st, &ctx, &spec, &spec_hash)?;
        report.roundtrip = roundtrip_stage(&mut st, &ctx, &spec, &spec_hash)?;
    }
    report.stages = st.stages;
    report.notes = st.notes;
    Ok(report)
}

/// What every stage of a run reads: the model, the solver and the options.
struct Ctx<'a> {
    client: &'a Client,
    solver: &'a SolverConfig,
    options: &'a RunOptions,
    /// `provider/model`, part of the keys of the stages that ask the model.
    model: String,
}

/// The run directory and what the stages so far did.
struct Stages<'a> {
    dir: Dir,
    /// The number of stages of this run, and the one running.
    total: usize,
    index: usize,
    stages: Vec<StageRun>,
    notes: Vec<String>,
    progress: &'a dyn Fn(Event),
}

/// What a stage that ran wrote: its files (name, text), its counts, and, when it
/// stopped asking the model, why.
struct Done {
    files: Vec<(&'static str, String)>,
    counts: serde_json::Value,
    halted: Option<String>,
}

impl Done {
    fn new(files: Vec<(&'static str, String)>, counts: serde_json::Value) -> Done {
        Done {
            files,
            counts,
            halted: None,
        }
    }
}

impl Stages<'_> {
    /// Runs stage `name` unless its files are up to date for `key`: `work` computes it
    /// (`writes`: every file the stage may write, checked before it starts). A stage
    /// that stopped asking the model keeps what it found, under a key no later run
    /// matches: the next run does it again (its answers so far come from the cache)
    /// instead of taking the partial result as done.
    fn stage(
        &mut self,
        name: &'static str,
        key: String,
        detail: String,
        writes: &[&str],
        work: impl FnOnce() -> Result<Done, RunError>,
    ) -> Result<(), RunError> {
        if self.begin(name, &key, detail)? {
            return Ok(());
        }
        let t = std::time::Instant::now();
        self.dir.check_writable(name, writes)?;
        let done = work()?;
        let secs = t.elapsed().as_secs_f64();
        let key = match &done.halted {
            Some(_) => format!("{key}#halted"),
            None => key,
        };
        self.dir.finish(name, key, &done.files, secs, done.counts)?;
        if let Some(reason) = &done.halted {
            return Err(RunError::Pipeline(PipelineError::Input(format!(
                "{name}: stopped asking the model: {reason}; the formulas found so far are in {}; run the same command again to go on (the answers received so far come from the cache)",
                self.dir.file(done.files[0].0).display()
            ))));
        }
        self.stages.push(StageRun {
            name,
            reused: false,
            seconds: secs,
            files: done.files.iter().map(|(f, _)| f.to_string()).collect(),
            edited: vec![],
        });
        Ok(())
    }

    /// Marks a stage as starting; returns whether it is up to date.
    fn begin(&mut self, name: &'static str, key: &str, detail: String) -> Result<bool, RunError> {
        self.index += 1;
        let standing = self.dir.standing(name, key)?;
        let reused = matches!(standing, Standing::Fresh { .. });
        (self.progress)(Event::Stage {
            index: self.index,
            total: self.total,
            name,
            reused,
            detail,
        });
        if let Standing::Fresh { edited } = standing {
            let s = &self.dir.state.stages[name];
            for e in &edited {
                self.notes.push(format!(
                    "{e} was changed after vera wrote it; the later stages use it as it is{}",
                    if e.ends_with(".toml") {
                        format!(
                            " (the counts of the {name} stage are those of the file vera wrote)"
                        )
                    } else {
                        String::new()
                    }
                ));
            }
            self.stages.push(StageRun {
                name,
                reused: true,
                seconds: s.seconds,
                files: s.files.keys().cloned().collect(),
                edited,
            });
        }
        Ok(reused)
    }

    /// The counts stage `name` recorded, and its one line of progress.
    fn counts<T: for<'de> Deserialize<'de>>(
        &self,
        name: &'static str,
        line: impl FnOnce(&T) -> String,
    ) -> Result<T, RunError> {
        let c: T = self.dir.counts(name)?;
        (self.progress)(Event::Done {
            name,
            line: line(&c),
        });
        Ok(c)
    }
}

/// Stage 1, extract: the selected requirements of the document.
fn extract_stage(
    st: &mut Stages,
    ctx: &Ctx,
    mut x: extract::Extraction,
    (doc_name, doc_bytes): (&str, &[u8]),
) -> Result<ExtractCounts, RunError> {
    let options = ctx.options;
    let k = key(&[
        "extract@1",
        &sha(doc_bytes),
        &format!("{:?}", options.sections),
        &options.candidates.to_string(),
        &format!("{:?}", options.limit),
    ]);
    let detail = format!("reading {doc_name}");
    st.stage("extract", k, detail, &["requirements.json"], || {
        // A document of page furniture can give a note per line: the run keeps the first
        // ones (`vera extract` lists them all).
        if x.notes.len() > MAX_NOTES {
            let more = x.notes.len() - MAX_NOTES;
            x.notes.truncate(MAX_NOTES);
            x.notes.push(format!(
                "... and {more} more notes (`vera extract` lists them all)"
            ));
        }
        let all = x.counts();
        selected(&mut x, options);
        let counts = ExtractCounts {
            format: x.format.name().into(),
            found: all.requirements,
            marked: all.high,
            candidates: all.candidate,
            selected: x.requirements.len(),
            notes: x.notes.clone(),
        };
        let text = x.to_json().expect("an extraction serializes") + "\n";
        Ok(Done::new(
            vec![("requirements.json", text)],
            to_value(&counts),
        ))
    })?;
    st.counts("extract", |c: &ExtractCounts| {
        format!(
            "{} requirements found ({} marked, {} candidates); {} selected",
            c.found, c.marked, c.candidates, c.selected
        )
    })
}

/// Stage 2, schema: given (`--schema`), or drafted by the model for the `selected`
/// requirements.
fn schema_stage(st: &mut Stages, ctx: &Ctx, selected: usize) -> Result<SchemaCounts, RunError> {
    let options = ctx.options;
    let reqs_path = st.dir.file("requirements.json");
    let reqs_bytes = safefile::read_bytes(&reqs_path)?;
    let list = || crate::schema::read_requirements(&reqs_path.display().to_string(), &reqs_bytes);
    let writes = ["schema.toml", "schema.json"];
    if let Some(given) = &options.schema {
        let given_bytes = safefile::read_bytes(given)?;
        let k = key(&["schema-given@2", &sha(&reqs_bytes), &sha(&given_bytes)]);
        let detail = format!("taking the schema of {}", given.display());
        st.stage("schema", k, detail, &writes, || {
            let spec = load(given)?;
            let (text, kept) = given_schema(&spec, &list()?, given);
            let counts = SchemaCounts {
                variables: spec.variables.len(),
                enums: spec.enums.len(),
                domain: crate::formalize::user_domain(&spec).count(),
                given: Some(given.display().to_string()),
                kept_formulas: kept,
                ..Default::default()
            };
            Ok(Done::new(vec![("schema.toml", text)], to_value(&counts)))
        })?;
    } else {
        let k = key(&[
            "schema@2",
            &sha(&reqs_bytes),
            &format!("{:?}", options.draft),
            &ctx.model,
        ]);
        let detail = format!(
            "drafting a schema for {selected} requirements{}",
            if options.draft.chunk > 0 {
                format!(
                    " ({} requests of at most {})",
                    selected.div_ceil(options.draft.chunk),
                    options.draft.chunk
                )
            } else {
                String::new()
            }
        );
        st.stage("schema", k, detail, &writes, || {
            let d = crate::schema::draft_schema(&list()?, ctx.client, ctx.solver, &options.draft)?;
            let r = &d.report;
            let counts = SchemaCounts {
                variables: r.draft.variables.len(),
                enums: r.draft.enums.len(),
                domain: r.draft.domain.len(),
                chunks: r.chunks,
                answers: r.attempts,
                refused: r.refused.len(),
                proposed: r.proposed.len(),
                findings: r.findings.iter().map(crate::schema::finding_line).collect(),
                undecided: d.undecided(),
                ..Default::default()
            };
            Ok(Done::new(
                vec![("schema.toml", d.spec_toml()), ("schema.json", json(r))],
                to_value(&counts),
            ))
        })?;
    }
    let schema: SchemaCounts = st.counts("schema", |c: &SchemaCounts| {
        format!(
            "{} variables, {} enumerations, {} domain constraints; {} findings",
            c.variables,
            c.enums,
            c.domain,
            c.findings.len()
        )
    })?;
    if let Some(g) = &schema.given {
        st.notes.push(format!(
            "the schema is {g} as given (--schema), not drafted; the draft checks did not run on it{}",
            if schema.kept_formulas > 0 {
                format!(
                    "; {} formula(s) of it kept for requirements of the same id",
                    schema.kept_formulas
                )
            } else {
                String::new()
            }
        ));
    }
    Ok(schema)
}

/// Stage 3, formalize: the `selected` requirements over the schema.
fn formalize_stage(
    st: &mut Stages,
    ctx: &Ctx,
    selected: usize,
) -> Result<FormalizeCounts, RunError> {
    let options = ctx.options;
    let schema_path = st.dir.file("schema.toml");
    let k = key(&[
        "formalize@1",
        &sha(&safefile::read_bytes(&schema_path)?),
        &format!("{:?}", options.formalize),
        &ctx.model,
    ]);
    let detail = format!(
        "formalizing {selected} requirements, {} repair turns each",
        options.formalize.max_retries
    );
    let writes = ["formalized.toml", "formalize.json"];
    st.stage("formalize", k, detail, &writes, || {
        let spec = load(&schema_path)?;
        let r = crate::formalize::formalize(&spec, ctx.client, ctx.solver, &options.formalize)?;
        let text = crate::formalize::formalized_spec(&spec, &r);
        Ok(Done {
            files: vec![("formalized.toml", text), ("formalize.json", json(&r))],
            counts: to_value(&formalize_counts(&r)),
            halted: r.halted.clone(),
        })
    })?;
    st.counts("formalize", |c: &FormalizeCounts| {
        format!(
            "{} of {} formalized at the first attempt, {} after repair, {} failed",
            c.first_attempt,
            c.requirements,
            c.after_repair,
            c.failed.len()
        )
    })
}

/// Stage 4: the audit of the formalized spec (`spec_hash`: its file's hash).
fn audit_stage(
    st: &mut Stages,
    ctx: &Ctx,
    spec: &Spec,
    spec_hash: &str,
) -> Result<AuditCounts, RunError> {
    let formalized = spec.formalized().count();
    let k = key(&["audit@1", spec_hash, &solver_id(ctx.solver)]);
    let detail = format!("auditing {formalized} formalized requirements");
    st.stage("audit", k, detail, &["audit.json"], || {
        let (counts, text) = if formalized == 0 {
            let c = AuditCounts {
                consistency: "not-checked".into(),
                ..Default::default()
            };
            (
                c,
                json(&serde_json::json!({"not_checked": "no requirement has a formula"})),
            )
        } else {
            let mut o = reqs::AuditOptions::new(ctx.solver.clone());
            o.jobs = ctx.options.audit_jobs.max(1);
            let r = reqs::audit(spec, &o)?;
            (audit_counts(spec, &r), json(&r))
        };
        Ok(Done::new(vec![("audit.json", text)], to_value(&counts)))
    })?;
    let audit: AuditCounts = st.counts("audit", |a: &AuditCounts| {
        format!(
            "{}; {} vacuous, {} implied by the domain, {} redundant, {} conflicts the environment can force, {} undecided",
            a.consistency,
            a.vacuous,
            a.implied_by_domain,
            a.redundant,
            a.conflicts_for_some_inputs,
            a.unknown
        )
    })?;
    if audit.consistency == "not-checked" {
        st.notes
            .push("the audit did not run: no requirement was formalized".into());
    }
    Ok(audit)
}

/// Stage 5, ambiguity: with forms, the vote of the formalization stage already compared
/// several answers per requirement by meaning; it is read from there, no new samples.
/// Otherwise the texts are screened with new samples.
fn ambiguity_stage(
    st: &mut Stages,
    ctx: &Ctx,
    spec: &Spec,
    spec_hash: &str,
) -> Result<Option<AmbiguityCounts>, RunError> {
    let options = ctx.options;
    let Some(a) = &options.ambiguity else {
        return Ok(None);
    };
    let by_vote =
        options.formalize.forms && options.formalize.mode == crate::formalize::Mode::PerRequirement;
    if by_vote {
        let formalize_json = safefile::read_bytes(&st.dir.file("formalize.json"))?;
        let k = key(&["ambiguity-vote@1", &sha(&formalize_json)]);
        let detail = "reading the forms' vote of the formalization (no new samples)".to_string();
        st.stage("ambiguity", k, detail, &["ambiguity.json"], || {
            let v: serde_json::Value = serde_json::from_slice(&formalize_json).map_err(|e| {
                RunError::Pipeline(PipelineError::Input(format!("formalize.json: {e}")))
            })?;
            let counts = vote_ambiguity(&v, options.formalize.vote.samples as u32);
            Ok(Done::new(
                vec![("ambiguity.json", json(&counts))],
                to_value(&counts),
            ))
        })?;
        return st
            .counts("ambiguity", |c: &AmbiguityCounts| {
                format!(
                    "{} with several readings, {} with one reading, {} with fewer than two valid forms (from the vote)",
                    c.flagged.len(),
                    c.one_reading,
                    c.could_not_screen.len()
                )
            })
            .map(Some);
    }
    let k = key(&["ambiguity@1", spec_hash, &format!("{a:?}"), &ctx.model]);
    let detail = format!(
        "screening {} requirement texts, {} samples each",
        spec.requirements.len(),
        a.samples
    );
    st.stage("ambiguity", k, detail, &["ambiguity.json"], || {
        let r = crate::ambiguity::screen(spec, ctx.client, ctx.solver, a)?;
        let counts = ambiguity_counts(&r, a.samples);
        Ok(Done::new(
            vec![("ambiguity.json", json(&r))],
            to_value(&counts),
        ))
    })?;
    st.counts("ambiguity", |c: &AmbiguityCounts| {
        format!(
            "{} flagged, {} with one reading, {} could not be screened",
            c.flagged.len(),
            c.one_reading,
            c.could_not_screen.len()
        )
    })
    .map(Some)
}

/// Stage 6: the round trip of the formulas through English.
fn roundtrip_stage(
    st: &mut Stages,
    ctx: &Ctx,
    spec: &Spec,
    spec_hash: &str,
) -> Result<Option<RoundTripCounts>, RunError> {
    let Some(rt) = &ctx.options.roundtrip else {
        return Ok(None);
    };
    let formalized = spec.formalized().count();
    let k = key(&[
        "roundtrip@1",
        spec_hash,
        &format!("{:?}/{}", rt.selection, rt.repair),
        &rt.embeddings
            .as_ref()
            .map(|e| e.model().to_string())
            .unwrap_or_default(),
        &ctx.model,
    ]);
    let detail = format!("round trip of {formalized} formulas");
    st.stage("roundtrip", k, detail, &["roundtrip.json"], || {
        let (counts, text) = if formalized == 0 {
            (
                RoundTripCounts::default(),
                json(&serde_json::json!({"not_checked": "no requirement has a formula"})),
            )
        } else {
            let r = crate::roundtrip::run(spec, ctx.client, ctx.solver, rt)?;
            (roundtrip_counts(&r), json(&r))
        };
        Ok(Done::new(vec![("roundtrip.json", text)], to_value(&counts)))
    })?;
    st.counts("roundtrip", |c: &RoundTripCounts| {
        format!(
            "{} of {} equivalent at the first try, {} after one repair",
            c.equivalent_first, c.checked, c.equivalent_after_repair
        )
    })
    .map(Some)
}

/// The solver part of the audit's key: the kind and the per-query limit.
fn solver_id(s: &SolverConfig) -> String {
    format!("{:?}/{:?}", s.kind, s.timeout)
}
