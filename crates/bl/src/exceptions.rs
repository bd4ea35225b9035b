//! Accepted exceptions on file: `exceptions.toml` next to a dataset or a case.
//!
//! ```toml
//! [[exception]]
//! id = "sin_exception"
//! cases = "cra-25/*"                       # glob over case names; default "*"
//! assume = "(< sin 900000000)"             # SMT-LIB predicate over the inputs
//! reason = "temporary workers taxed elsewhere"
//! accepted_by = "J. Tremblay"
//! date = "2026-11-02"
//! ```
//!
//! Each entry is an assumption (as with `--assume NAME=TERM`) recorded with why it is
//! accepted, by whom and when. The checker reports which exceptions a verdict rests on,
//! and which are stale (they exclude no divergent input) or broader than needed (they
//! also exclude inputs where the outputs agree), see [`crate::check::ExceptionUse`].

use crate::check::Assumption;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file name looked for next to a dataset or a case.
pub const FILE_NAME: &str = "exceptions.toml";

/// One accepted exception.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exception {
    /// Its name (used like an assumption's name).
    pub id: String,
    /// Which cases it applies to: a glob (`*` any text, `?` one character) matched
    /// against the case's folder name or its path under the batch root.
    #[serde(default = "every_case")]
    pub cases: String,
    /// The predicate added to the input constraints, in SMT-LIB over the inputs
    /// (`nl.x` / `bl.x`, or unqualified names that exist on one side only).
    pub assume: String,
    /// Why it is accepted.
    pub reason: String,
    /// Who accepted it.
    pub accepted_by: String,
    /// When (`YYYY-MM-DD`).
    pub date: String,
    /// The file it comes from (filled in when loading).
    #[serde(default, skip_deserializing)]
    pub file: String,
}

fn every_case() -> String {
    "*".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileFormat {
    #[serde(default)]
    exception: Vec<Exception>,
}

/// Why an exceptions file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ExceptionsError {
    /// The file cannot be read.
    #[error("cannot read {file}: {message}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// Not valid TOML, or not the format (the message has the line and column).
    #[error("{file}: {}", crate::diag::message(.message))]
    Format {
        /// The file.
        file: String,
        /// What is wrong, located.
        message: String,
    },
    /// An exception of an `--exceptions` file reuses the id of one next to the
    /// implementation.
    #[error("exception `{}` of {file} is also in {other}", crate::diag::quote(.id))]
    Duplicate {
        /// The exception's id.
        id: String,
        /// The file it comes from.
        file: String,
        /// The `exceptions.toml` that has the same id.
        other: String,
    },
    /// An entry is invalid.
    #[error("{file}: exception `{}`: {message}", crate::diag::quote(.id))]
    Entry {
        /// The file.
        file: String,
        /// The entry's id.
        id: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads exceptions from TOML text.
pub fn parse(file: &str, text: &str) -> Result<Vec<Exception>, ExceptionsError> {
    let f: FileFormat = toml::from_str(text).map_err(|e| ExceptionsError::Format {
        file: file.to_string(),
        message: e.to_string().trim().replace('\n', " "),
    })?;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for mut e in f.exception {
        let bad = |message: &str| ExceptionsError::Entry {
            file: file.to_string(),
            id: e.id.clone(),
            message: message.to_string(),
        };
        if e.id.trim().is_empty() || e.id.contains(char::is_whitespace) {
            return Err(bad("the id must be one word"));
        }
        if !seen.insert(e.id.clone()) {
            return Err(bad("the id is used twice"));
        }
        for (what, v) in [
            ("assume", &e.assume),
            ("reason", &e.reason),
            ("accepted_by", &e.accepted_by),
        ] {
            if v.trim().is_empty() {
                return Err(bad(&format!("`{what}` is empty")));
            }
        }
        if !is_date(&e.date) {
            return Err(bad("`date` must be YYYY-MM-DD"));
        }
        e.file = file.to_string();
        out.push(e);
    }
    Ok(out)
}

/// Reads an exceptions file (at most 1 MiB).
pub fn load(path: &Path) -> Result<Vec<Exception>, ExceptionsError> {
    use std::io::Read as _;
    let file = path.display().to_string();
    let read = |message: String| ExceptionsError::Read {
        file: file.clone(),
        message,
    };
    let f = std::fs::File::open(path).map_err(|e| read(e.to_string()))?;
    // An input of the command: no output may replace it.
    safefile::register_input(path);
    let mut bytes = Vec::new();
    f.take((1 << 20) + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| read(e.to_string()))?;
    if bytes.len() > 1 << 20 {
        return Err(read("larger than 1 MiB".into()));
    }
    let text = String::from_utf8(bytes).map_err(|_| read("not UTF-8".into()))?;
    parse(&file, &text)
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=12).contains(&s[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&s[8..10].parse::<u32>().unwrap_or(0))
}

/// Glob matching: `*` any text (slashes included), `?` one character.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative with backtracking to the last `*`: linear space, no recursion.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}

impl Exception {
    /// True when it applies to a case with this path under the batch root (or this
    /// folder name).
    pub fn applies_to(&self, case_path: &str) -> bool {
        let last = case_path.rsplit('/').next().unwrap_or(case_path);
        glob(&self.cases, case_path) || glob(&self.cases, last)
    }

    /// The assumption it adds.
    pub fn assumption(&self) -> Assumption {
        Assumption {
            name: self.id.clone(),
            term: self.assume.clone(),
        }
    }
}

/// The name an exception's pattern is matched against: the folder's path `rel` below
/// the exceptions' root (with `/`), or the folder's own name when `rel` is empty.
fn pattern_name(dir: &Path, rel: &Path) -> String {
    if rel.as_os_str().is_empty() {
        dir.file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default()
    } else {
        rel.to_string_lossy().replace('\\', "/")
    }
}

/// The exceptions that apply to a case: those of every `exceptions.toml` from `root`
/// down to the case's folder, whose pattern matches the case's path under `root`.
/// A later file (closer to the case) may not reuse an id of an earlier one.
pub fn for_case(root: &Path, case_dir: &Path) -> Result<Vec<Exception>, ExceptionsError> {
    let rel = case_dir.strip_prefix(root).unwrap_or(case_dir);
    let name = pattern_name(case_dir, rel);
    let mut dirs = vec![root.to_path_buf()];
    let mut d = root.to_path_buf();
    for c in rel.components() {
        d.push(c);
        dirs.push(d.clone());
    }
    let mut out: Vec<Exception> = Vec::new();
    for dir in dirs {
        let f = dir.join(FILE_NAME);
        if !f.is_file() {
            continue;
        }
        for e in load(&f)? {
            if !e.applies_to(&name) {
                continue;
            }
            if let Some(prev) = out.iter().find(|x| x.id == e.id) {
                return Err(ExceptionsError::Entry {
                    file: e.file.clone(),
                    id: e.id.clone(),
                    message: format!("the id is also used in {}", prev.file),
                });
            }
            out.push(e);
        }
    }
    Ok(out)
}

/// The exceptions of a single check of the implementation `imp`: the `exceptions.toml`
/// next to it (when `nearby`) and those of `extra` (an `--exceptions` file) whose
/// pattern matches the implementation's folder (its path under `extra`'s folder, or its
/// name). An id may not be used by both.
pub fn for_single(
    imp: &Path,
    nearby: bool,
    extra: Option<&Path>,
) -> Result<Vec<Exception>, ExceptionsError> {
    let dir = match imp.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut out = if nearby {
        for_case(&dir, &dir)?
    } else {
        Vec::new()
    };
    let Some(f) = extra else {
        return Ok(out);
    };
    let base = f.parent().unwrap_or(Path::new(""));
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (dir_abs, base_abs) = (
        abs(&dir),
        abs(if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        }),
    );
    let rel = dir_abs.strip_prefix(&base_abs).unwrap_or(Path::new(""));
    let name = pattern_name(&dir_abs, rel);
    for e in load(f)? {
        if !e.applies_to(&name) {
            continue;
        }
        if out.iter().any(|x| x.id == e.id) {
            return Err(ExceptionsError::Duplicate {
                other: dir.join(FILE_NAME).display().to_string(),
                id: e.id,
                file: e.file,
            });
        }
        out.push(e);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("*", "cra-25/ab"));
        assert!(glob("cra-25/*", "cra-25/ab"));
        assert!(!glob("cra-25/*", "usps/x"));
        assert!(glob("a?c", "abc"));
        assert!(glob("*b*", "abc"));
        assert!(!glob("a", "ab"));
        assert!(glob("", ""));
        assert!(glob(&"*".repeat(50), &"a".repeat(50)));
    }

    #[test]
    fn entries_are_checked() {
        let ok = r#"[[exception]]
id = "sin_exception"
assume = "(< sin 900000000)"
reason = "temporary workers taxed elsewhere"
accepted_by = "J. Tremblay"
date = "2026-11-02"
"#;
        let e = parse("exceptions.toml", ok).unwrap();
        assert_eq!(e[0].cases, "*");
        assert_eq!(e[0].file, "exceptions.toml");
        for (bad, what) in [
            (ok.replace("2026-11-02", "2026-13-02"), "YYYY-MM-DD"),
            (ok.replace("J. Tremblay", " "), "`accepted_by` is empty"),
            (format!("{ok}{ok}"), "used twice"),
            (ok.replace("reason", "why"), "unknown field"),
            (ok.replace("id = ", "id = 3 #"), "exceptions.toml"),
        ] {
            let err = parse("exceptions.toml", &bad).unwrap_err().to_string();
            assert!(err.contains(what), "{what}: {err}");
        }
    }
}
