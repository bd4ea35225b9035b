//! `workspace`: a program's own files copied into a private directory, so that
//! candidate annotations can be verified in the original sources and headers
//! (with the build's flags, and the macros an annotation may use) without
//! touching what the user wrote.
//!
//! Annotations are placed by offsets of [`Program::file`]'s preprocessed text
//! (where segments and points of interest are computed); [`Workspace::place`]
//! carries each one to its original file and byte, or says why it cannot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::annotate::{insert, Insertion};
use crate::project::{display_path, normalize, Preprocessor, Program, Unit};
use crate::segment::Segment;
use crate::tce::{compile_file, Compiled, TceConfig, TceCounters, TceError};
use crate::verify::{linked_names, verify_program, VerifyReport};
use crate::wp::{run_input, Counters, Input, Select, WpConfig, WpError, WpRun};

/// The program's own files (not Frama-C's library headers), copied under a
/// temporary root at their absolute paths, with the units' flags pointing there.
pub struct Workspace<'p> {
    program: &'p Program,
    pp: Preprocessor,
    root: tempfile::TempDir,
    /// Absolute original path -> original text, for every own file.
    originals: BTreeMap<PathBuf, String>,
    /// The units with their sources and include paths in the copy.
    units: Vec<Unit>,
    /// One run at a time writes the copy.
    lock: Mutex<()>,
}

/// The texts of the program's own files with annotations inserted, by absolute
/// original path (every own file, changed or not).
pub type Edited = BTreeMap<PathBuf, String>;

/// A place of the preprocessed program in an original file.
struct Located {
    /// The file's absolute path.
    file: PathBuf,
    /// Byte where the place's line starts.
    line_start: usize,
    /// Byte of the place within the line.
    column: usize,
    /// The file has CRLF line ends.
    crlf: bool,
}

/// Where the annotated copy of the program's own file `abs` goes under `dir`: at its
/// path relative to `cwd` (the working directory), or its absolute path below `dir`.
pub fn copy_path(dir: &Path, abs: &Path, cwd: &Path) -> PathBuf {
    match abs.strip_prefix(cwd) {
        Ok(rel) => dir.join(rel),
        Err(_) => dir.join(
            abs.components()
                .filter(|c| !matches!(c, std::path::Component::RootDir))
                .collect::<PathBuf>(),
        ),
    }
}

impl<'p> Workspace<'p> {
    /// Copy the own files of `program` (read again from disk) under a new
    /// temporary root.
    pub fn new(program: &'p Program, pp: &Preprocessor) -> Result<Workspace<'p>, WpError> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let root = tempfile::tempdir().map_err(|e| WpError::Io(format!("workspace: {e}")))?;
        let mut originals = BTreeMap::new();
        for f in &program.files {
            let abs = normalize(&cwd.join(f));
            if f.to_string_lossy().starts_with('<') || abs.starts_with(&program.libc) {
                continue;
            }
            let text = std::fs::read_to_string(&abs)
                .map_err(|e| WpError::Io(format!("{}: {e}", f.display())))?;
            originals.insert(abs, text);
        }
        let copy = |p: &Path| mirrored(root.path(), p);
        let units: Vec<Unit> = program
            .units
            .iter()
            .map(|u| Unit {
                source: copy(&normalize(&cwd.join(&u.unit.source))),
                directory: copy(&normalize(&cwd.join(&u.unit.directory))),
                flags: crate::project::CppFlags {
                    args: mirrored_flags(root.path(), &u.unit.flags.args),
                    ignored: Vec::new(),
                },
            })
            .collect();
        // gcc runs in each unit's directory: it must exist in the copy even when
        // none of the program's files is in it (`build/` of a CMake project).
        for u in &units {
            let u: &Unit = u;
            std::fs::create_dir_all(&u.directory)
                .map_err(|e| WpError::Io(format!("workspace: {e}")))?;
        }
        let ws = Workspace {
            program,
            pp: pp.clone(),
            root,
            originals,
            units,
            lock: Mutex::new(()),
        };
        let unchanged: Edited = ws.originals.clone();
        ws.write(&unchanged)?;
        Ok(ws)
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The own files, by absolute original path, with their original texts.
    pub fn originals(&self) -> &BTreeMap<PathBuf, String> {
        &self.originals
    }

    /// Where byte `at` of [`Program::file`]'s text is in the program's own
    /// original files: the byte of the original line that the same code
    /// precedes (whitespace may differ, as the preprocessor re-spaces lines).
    /// A place on a line the preprocessor changed before that point (a macro
    /// expanded there), or in a file that is not the program's own, is an error
    /// naming it.
    fn locate(&self, at: usize) -> Result<Located, String> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let text = &self.program.file.text;
        let line = self.program.file.line_of(at);
        let Some(origin) = self.program.origin_of_line(line) else {
            return Err(format!(
                "line {line} of the preprocessed program has no original file"
            ));
        };
        let abs = normalize(&cwd.join(&origin.file));
        let mut oline_no = origin.line;
        let crlf = self.originals.get(&abs).is_some_and(|t| t.contains("\r\n"));
        if crlf {
            // The preprocessor writes each CRLF inside a comment as two line
            // ends (and puts a line marker after the comment): inside a
            // comment begun on an earlier line, count from its first line.
            if let Some(cs) = text[..at].rfind("/*") {
                let lc = self.program.file.line_of(cs);
                if !text[cs..at].contains("*/") && lc < line {
                    if let Some(oc) = self.program.origin_of_line(lc) {
                        oline_no = oc.line + (line - lc) / 2;
                    }
                }
            }
        }
        let shown = format!("{}:{}", origin.file.display(), oline_no);
        let Some(original) = self.originals.get(&abs) else {
            return Err(format!(
                "{shown}: not one of the program's own files; no annotation is placed there"
            ));
        };
        let start = text[..at].rfind('\n').map(|p| p + 1).unwrap_or(0);
        let pre = &text[start..at];
        let Some(line_start) = line_start(original, oline_no) else {
            return Err(format!(
                "{shown}: the file has fewer lines than its line markers say"
            ));
        };
        let oline = original[line_start..].split('\n').next().unwrap_or("");
        let end = text[at..].find('\n').map_or(text.len(), |p| at + p);
        let post = &text[at..end];
        let Some(column) = same_prefix(pre, oline).or_else(|| same_suffix(post, oline)) else {
            return Err(format!(
                "{shown}: the preprocessor changed this line both before and after the place (a macro?); place it by hand"
            ));
        };
        Ok(Located {
            file: abs,
            line_start,
            column,
            crlf,
        })
    }

    /// Carry insertions at offsets of [`Program::file`]'s text to their original
    /// files (see `locate`).
    pub fn place(&self, ins: &[Insertion]) -> Result<BTreeMap<PathBuf, Vec<Insertion>>, String> {
        let mut out: BTreeMap<PathBuf, Vec<Insertion>> = BTreeMap::new();
        for i in ins {
            let Located {
                file: abs,
                line_start: ostart,
                column: col,
                crlf,
                ..
            } = self.locate(i.at)?;
            let original = &self.originals[&abs];
            let oline = original[ostart..].split('\n').next().unwrap_or("");
            // The indentation after a comment inserted before the line's code is
            // the original line's.
            let mut t = i.text.clone();
            let before_code = oline[..col].chars().all(|c| c == ' ' || c == '\t');
            if let Some(nl) = t.rfind('\n').filter(|_| before_code) {
                if t[nl + 1..].chars().all(|c| c == ' ' || c == '\t') {
                    let indent: String = oline[..col]
                        .chars()
                        .take_while(|c| *c == ' ' || *c == '\t')
                        .collect();
                    t.truncate(nl + 1);
                    t.push_str(&indent);
                }
            }
            if crlf {
                t = t.replace('\n', "\r\n");
            }
            out.entry(abs).or_default().push(Insertion {
                at: ostart + col,
                text: t,
            });
        }
        Ok(out)
    }

    /// Every own file with the insertions placed in it.
    pub fn edited(&self, ins: &[Insertion]) -> Result<Edited, String> {
        let placed = self.place(ins)?;
        let mut out = Edited::new();
        for (path, text) in &self.originals {
            let t = match placed.get(path) {
                Some(i) => insert(text, i).map_err(|e| e.to_string())?.text,
                None => text.clone(),
            };
            out.insert(path.clone(), t);
        }
        Ok(out)
    }

    fn write(&self, edited: &Edited) -> Result<(), WpError> {
        for (path, text) in edited {
            let to = mirrored(self.root.path(), path);
            if let Some(d) = to.parent() {
                std::fs::create_dir_all(d).map_err(|e| WpError::Io(format!("workspace: {e}")))?;
            }
            // Only what changed is written again: unchanged files keep their times.
            if std::fs::read_to_string(&to).ok().as_deref() != Some(text.as_str()) {
                // scratch: a mirrored source in the workspace's temporary folder
                std::fs::write(&to, text).map_err(|e| WpError::Io(format!("workspace: {e}")))?;
            }
        }
        Ok(())
    }

    /// Verify the functions of `segment` in the edited files with Frama-C/WP (a
    /// whole-program run restricted to them). File names in the run are the
    /// original ones (relative to the working directory); lines are those of the
    /// edited texts.
    pub fn run(
        &self,
        edited: &Edited,
        segment: &Segment,
        cfg: &WpConfig,
        counters: &Counters,
    ) -> Result<WpRun, WpError> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.write(edited)?;
        let mut names = Vec::new();
        for f in &segment.functions {
            names.extend(linked_names(self.program, f));
        }
        let cpp = crate::verify::cpp_options_of(&self.units)?;
        let files: Vec<String> = self
            .units
            .iter()
            .map(|u| u.source.display().to_string())
            .collect();
        let key = format!(
            "{}\0{}",
            serde_json::to_string(
                &self
                    .program
                    .units
                    .iter()
                    .map(|u| &u.unit)
                    .collect::<Vec<_>>()
            )
            .unwrap_or_default(),
            edited.values().cloned().collect::<Vec<_>>().join("\0")
        );
        let root = format!("{}", self.root.path().display());
        // File names come back as the original absolute paths (the root cut).
        let mut run = run_input(
            &Input::Files {
                cpp: &cpp,
                files: &files,
                key: &key,
                root: Some(&root),
            },
            Select::Functions(&names),
            cfg,
            counters,
        )
        .map_err(|e| match e {
            WpError::FramaC {
                file,
                status,
                messages,
            } => WpError::FramaC {
                file: self.original_name(&file),
                status,
                messages,
            },
            e => e,
        })?;
        let map = |f: &mut String| *f = self.original_name(f);
        for g in &mut run.goals {
            if let Some(f) = &mut g.file {
                map(f);
            }
        }
        for p in &mut run.properties {
            if let Some(f) = &mut p.file {
                map(f);
            }
        }
        for w in &mut run.warnings {
            if let Some(f) = &mut w.file {
                map(f);
            }
        }
        Ok(run)
    }

    /// The indices of the units whose preprocessed text comes in part from the
    /// own file `abs` (its source, or a header it includes).
    pub fn units_including(&self, abs: &Path) -> Vec<usize> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let Some(idx) = self
            .program
            .files
            .iter()
            .position(|f| normalize(&cwd.join(f)) == abs)
        else {
            return Vec::new();
        };
        self.program
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.markers.iter().any(|m| m.1 == idx))
            .map(|(i, _)| i)
            .collect()
    }

    /// Compile units `units` of the edited program with gcc (in the copy, with
    /// each unit's preprocessor flags after `tce`'s) for Trivial Compiler
    /// Equivalence, one outcome per unit.
    pub fn compile(
        &self,
        edited: &Edited,
        units: &[usize],
        tce: &TceConfig,
        counters: &TceCounters,
    ) -> Result<Vec<Compiled>, TceError> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.write(edited)
            .map_err(|e| TceError::Io(format!("workspace: {e}")))?;
        let texts = edited.values().cloned().collect::<Vec<_>>().join("\0");
        // Paths under the temporary root are written as the original ones
        // (`__FILE__` of an `assert`), so objects do not depend on the root and
        // the cache can be keyed by the original unit.
        let root = self.root.path().display().to_string();
        let map = format!("-ffile-prefix-map={root}/=/");
        let mut out = Vec::new();
        for &i in units {
            let (Some(u), Some(orig)) = (self.units.get(i), self.program.units.get(i)) else {
                continue;
            };
            let key = format!(
                "{}\0{texts}",
                serde_json::to_string(&orig.unit).unwrap_or_default()
            );
            let mut args = u.flags.args.clone();
            args.push(map.clone());
            out.push(
                match compile_file(&u.source, &u.directory, &args, &key, tce, counters)? {
                    // The compiler names the copy: name the original.
                    Compiled::Rejected { message } => Compiled::Rejected {
                        message: message.replace(&root, ""),
                    },
                    c => c,
                },
            );
        }
        Ok(out)
    }

    /// Verify the whole edited program as `vera c verify` would (lemmas once,
    /// one run per segment), locations named by the original files and lines of
    /// the edited texts.
    pub fn verify(&self, edited: &Edited, cfg: &WpConfig) -> Result<VerifyReport, WpError> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.write(edited)?;
        let program = Program::load(&self.units, &self.pp)
            .map_err(|d| WpError::Io(format!("the annotated program does not load: {d}")))?;
        let mut report = verify_program(&program, cfg)?;
        crate::verify::for_each_location(&mut report, |f| *f = self.original_name(f));
        report.files = report
            .files
            .iter()
            .map(|f| PathBuf::from(self.original_name(&f.display().to_string())))
            .collect();
        Ok(report)
    }

    /// A file name of the copy, or an own file's absolute original path, as the
    /// original's name relative to the working directory (other names unchanged).
    fn original_name(&self, f: &str) -> String {
        let cwd = std::env::current_dir().unwrap_or_default();
        let abs = normalize(&cwd.join(f));
        let original = match abs.strip_prefix(self.root.path()) {
            Ok(rest) => Path::new("/").join(rest),
            Err(_) => abs,
        };
        if self.originals.contains_key(&original) {
            display_path(&original.display().to_string(), &cwd)
                .display()
                .to_string()
        } else {
            f.to_string()
        }
    }
}

/// Where the copy of absolute path `p` is under `root`.
fn mirrored(root: &Path, p: &Path) -> PathBuf {
    let rel: PathBuf = p
        .components()
        .filter(|c| {
            !matches!(
                c,
                std::path::Component::RootDir | std::path::Component::Prefix(_)
            )
        })
        .collect();
    root.join(rel)
}

/// The flags with their include paths moved under `root` (flags are stored with
/// absolute paths by [`crate::CppFlags::from_args`]).
fn mirrored_flags(root: &Path, args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut next_is_path = false;
    for a in args {
        if next_is_path {
            out.push(mirrored(root, Path::new(a)).display().to_string());
            next_is_path = false;
            continue;
        }
        match a.as_str() {
            "-iquote" | "-isystem" | "-idirafter" | "-include" | "-imacros" => {
                out.push(a.clone());
                next_is_path = true;
            }
            _ => match a.strip_prefix("-I") {
                Some(p) if Path::new(p).is_absolute() => {
                    out.push(format!("-I{}", mirrored(root, Path::new(p)).display()))
                }
                _ => out.push(a.clone()),
            },
        }
    }
    out
}

/// Byte offset where 1-based line `line` of `text` starts.
fn line_start(text: &str, line: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    if line == 1 {
        return Some(0);
    }
    text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)
}

/// The byte of `original` that the end of `pre` corresponds to when both hold
/// the same code up to there, whitespace aside; `None` when they differ.
fn same_prefix(pre: &str, original: &str) -> Option<usize> {
    let mut o = original.char_indices().peekable();
    for c in pre.chars().filter(|c| !c.is_whitespace()) {
        loop {
            let (_, oc) = o.next()?;
            if oc.is_whitespace() {
                continue;
            }
            if oc != c {
                return None;
            }
            break;
        }
    }
    // Past the whitespace that precedes the next code on the original line.
    while let Some(&(i, oc)) = o.peek() {
        if !oc.is_whitespace() {
            return Some(i);
        }
        o.next();
    }
    Some(original.len())
}

/// The byte of `original` where the code of `post` starts when `original` ends
/// with the same code, whitespace aside (a macro expanded earlier on the line);
/// `None` when it does not, or when `post` has no code.
fn same_suffix(post: &str, original: &str) -> Option<usize> {
    let mut o = original.char_indices().rev();
    let mut first = None;
    for c in post.chars().rev().filter(|c| !c.is_whitespace()) {
        loop {
            let (i, oc) = o.next()?;
            if oc.is_whitespace() {
                continue;
            }
            if oc != c {
                return None;
            }
            first = Some(i);
            break;
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_places_match_whitespace_aside() {
        // The preprocessor turned a tab into spaces.
        assert_eq!(same_prefix("        ", "\tfor (;;)"), Some(1));
        assert_eq!(same_prefix("  int x; ", "\tint x;  for (;;)"), Some(9));
        // A macro expanded before the place: not the same code.
        assert_eq!(same_prefix("  int x = 3; ", "  int x = N; for (;;)"), None);
        assert_eq!(same_prefix("", "int f(void)"), Some(0));
        // After a macro on the line, the rest of the line places it.
        assert_eq!(same_suffix("- 1;", "  return CAPACITY - 1;\r"), Some(18));
        assert_eq!(same_suffix("16 - 1;", "  return CAPACITY - 1;"), None);
        assert_eq!(same_suffix("  ", "x;"), None);
    }

    #[test]
    fn lines_and_copies() {
        assert_eq!(line_start("a\nb\nc", 1), Some(0));
        assert_eq!(line_start("a\nb\nc", 3), Some(4));
        assert_eq!(line_start("a\nb\nc", 4), None);
        let root = Path::new("/tmp/r");
        assert_eq!(
            mirrored(root, Path::new("/w/x.c")),
            PathBuf::from("/tmp/r/w/x.c")
        );
        assert_eq!(
            mirrored_flags(
                root,
                &[
                    "-I/w/inc".into(),
                    "-DX=1".into(),
                    "-isystem".into(),
                    "/w/sys".into(),
                    "-include".into(),
                    "/w/cfg.h".into(),
                ]
            ),
            vec![
                "-I/tmp/r/w/inc",
                "-DX=1",
                "-isystem",
                "/tmp/r/w/sys",
                "-include",
                "/tmp/r/w/cfg.h"
            ]
        );
    }
}
