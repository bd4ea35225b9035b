//! What is in the served folder: specs, rule cases, C files and saved reports.

use crate::paths::Root;
use std::path::Path;

/// Deepest folder the scan looks into.
pub const MAX_DEPTH: usize = 8;
/// Most entries the scan reads.
pub const MAX_ENTRIES: usize = 20_000;
/// Largest JSON file read to learn whether it is a saved report.
const MAX_REPORT_BYTES: u64 = 8 << 20;

/// What a file or folder is to the review page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A requirements spec (`[[requirements]]`); `timed` when it has a `[time]` table.
    Spec {
        /// Has a `[time]` table.
        timed: bool,
    },
    /// A rule case folder: documentation formalization and implementation.
    Case {
        /// The documentation side, relative to the root.
        nl: String,
        /// The implementation, relative to the root.
        implementation: String,
        /// Its `bounds.json`, relative to the root.
        bounds: Option<String>,
    },
    /// A C source file.
    C,
    /// A saved vera JSON report (`schema` is its tag, e.g. `vera.clarify.v1`).
    Report {
        /// The schema tag.
        schema: String,
    },
}

/// One entry of the overview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Path relative to the root, `/` separated.
    pub rel: String,
    /// What it is.
    pub kind: Kind,
}

/// The scan of the folder.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// What was found, by path.
    pub entries: Vec<Entry>,
    /// What was not looked into, with why.
    pub skipped: Vec<String>,
}

/// Walks the root (no links to folders followed, hidden folders, `target` and
/// `node_modules` skipped) and classifies what it finds. vera's own temporary files
/// ([`safefile::is_temp_name`]) are never listed.
pub fn scan(root: &Root) -> Scan {
    let mut out = Scan::default();
    let mut stack = vec![(root.dir().to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            out.skipped.push(format!(
                "{}: cannot read the folder",
                root.relative(&dir).unwrap_or_default()
            ));
            continue;
        };
        let mut names: Vec<_> = rd.filter_map(Result::ok).collect();
        names.sort_by_key(|e| e.file_name());
        for e in names {
            seen += 1;
            if seen > MAX_ENTRIES {
                out.skipped
                    .push(format!("the scan stops after {MAX_ENTRIES} entries"));
                stack.clear();
                break;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            let path = e.path();
            let Some(rel) = root.relative(&path) else {
                continue;
            };
            if ft.is_dir() {
                if name.starts_with('.') || name == "target" || name == "node_modules" {
                    continue;
                }
                if depth + 1 > MAX_DEPTH {
                    out.skipped
                        .push(format!("{rel}: deeper than {MAX_DEPTH} folders"));
                    continue;
                }
                stack.push((path, depth + 1));
                continue;
            }
            if !ft.is_file() || safefile::is_temp_name(&name) {
                continue;
            }
            if name.ends_with(".toml")
                && e.metadata()
                    .is_ok_and(|m| m.len() > crate::app::MAX_FILE_BYTES)
            {
                out.skipped.push(format!(
                    "{rel}: larger than {} MiB",
                    crate::app::MAX_FILE_BYTES >> 20
                ));
                continue;
            }
            if let Some(kind) = classify(&path, &name) {
                out.entries.push(Entry { rel, kind });
            }
        }
    }
    if let Ok(d) = bl::batch::discover(root.dir()) {
        for c in d.cases {
            let r = |p: &Path| root.relative(p).unwrap_or_else(|| p.display().to_string());
            let folder = c.nl.parent().map(&r).unwrap_or_default();
            out.entries.push(Entry {
                rel: folder,
                kind: Kind::Case {
                    nl: r(&c.nl),
                    implementation: r(&c.implementation),
                    bounds: c.bounds.as_deref().map(r),
                },
            });
        }
    }
    out.entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// Removes the temporary files of vera's own naming ([`safefile::is_temp_name`]) that a
/// writer killed between its write and its rename left in the folders the scan walks,
/// and returns them (relative to the root). A temporary file some process still has
/// open is being written: it stays. Where the open files of processes cannot be seen
/// (no `/proc`), only files untouched for a day are removed.
pub fn remove_stale_temps(root: &Root) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![(root.dir().to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.filter_map(Result::ok) {
            seen += 1;
            if seen > MAX_ENTRIES {
                stack.clear();
                break;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if !(name.starts_with('.') || name == "target" || name == "node_modules")
                    && depth < MAX_DEPTH
                {
                    stack.push((e.path(), depth + 1));
                }
            } else if ft.is_file() && safefile::is_temp_name(&name) {
                found.push(e.path());
            }
        }
    }
    if found.is_empty() {
        return Vec::new();
    }
    let open = open_files();
    let day = std::time::Duration::from_secs(86_400);
    let mut removed = Vec::new();
    for p in found {
        let stale = match &open {
            Some(open) => !open.contains(&p),
            None => std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > day),
        };
        if stale && std::fs::remove_file(&p).is_ok() {
            removed.push(root.relative(&p).unwrap_or_else(|| p.display().to_string()));
        }
    }
    removed.sort();
    removed
}

/// Every file some process has open, as far as this user can see (`/proc/*/fd`);
/// `None` where there is no `/proc`.
fn open_files() -> Option<std::collections::HashSet<std::path::PathBuf>> {
    let procs = std::fs::read_dir("/proc").ok()?;
    let mut open = std::collections::HashSet::new();
    for p in procs.filter_map(Result::ok) {
        if !p
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        for fd in fds.filter_map(Result::ok) {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                open.insert(target);
            }
        }
    }
    Some(open)
}

fn classify(path: &Path, name: &str) -> Option<Kind> {
    if name.ends_with(".toml") && name != bl::exceptions::FILE_NAME {
        let text = std::fs::read_to_string(path).ok()?;
        let has = |h: &str| text.lines().any(|l| l.trim() == h);
        return has("[[requirements]]").then(|| Kind::Spec {
            timed: has("[time]"),
        });
    }
    if name.ends_with(".c") {
        return Some(Kind::C);
    }
    if name.ends_with(".json") {
        let md = std::fs::metadata(path).ok()?;
        if md.len() > MAX_REPORT_BYTES {
            return None;
        }
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        let schema = v.get("schema")?.as_str()?;
        return schema.starts_with("vera.").then(|| Kind::Report {
            schema: schema.to_string(),
        });
    }
    None
}

impl Scan {
    /// The entry at `rel`.
    pub fn get(&self, rel: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.rel == rel)
    }
}
