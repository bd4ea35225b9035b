//! C as a build compiles it: preprocessor flags (`-I`, `-D`, `-U`, ...), a
//! `compile_commands.json`, preprocessing with the flags and headers Frama-C uses,
//! and a [`Program`]: every translation unit preprocessed and parsed as one text,
//! with each byte mapped back to its original file and line through the
//! preprocessor's line markers.
//!
//! Segments, points of interest and harnesses of a program come from the same
//! functions as for one file ([`crate::segments`], [`crate::harness`]) applied to
//! [`Program::file`]; verification runs Frama-C on the original files with the
//! same flags ([`crate::verify::verify_program`]).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::front::{parse_preprocessed, CFile, Diagnostic, Diagnostics, Item, ItemKind};
use crate::util::{self, RunError};

/// Preprocessor flags of one translation unit, as a C compiler takes them.
/// Include directories are absolute, so the flags mean the same from any
/// working directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CppFlags {
    /// The flags, each one argument: `-I/abs/dir`, `-DNAME=1`, `-UNAME`,
    /// `-include`, `/abs/file.h`, `-std=c99`, ...
    pub args: Vec<String>,
    /// Flags of a compile command that do not change preprocessing and were left
    /// out (`-O2`, `-Wall`, `-c`, `-o x.o`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<String>,
}

/// A problem with flags or a compile-commands file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlagError {
    /// A flag that needs a value came last.
    #[error("{origin}: `{flag}` needs a value")]
    MissingValue {
        /// Where the flags came from.
        origin: String,
        /// The flag.
        flag: String,
    },
    /// The compile-commands file cannot be read or is not a JSON compilation
    /// database.
    #[error("{path}: {message}")]
    CompileCommands {
        /// The file.
        path: String,
        /// What is wrong (with the entry's position when known).
        message: String,
    },
    /// A file asked for is not in the compile-commands file.
    #[error("{file} has no entry in {database}")]
    NotInDatabase {
        /// The file.
        file: String,
        /// The compile-commands file.
        database: String,
    },
}

fn absolute(dir: &Path, p: &str) -> PathBuf {
    normalize(&dir.join(p))
}

/// `a/./b/../c` as `a/c`, without touching the file system.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

impl CppFlags {
    /// Read preprocessor flags out of a compiler's argument list, relative paths
    /// resolved against `dir`. `origin` names the source in messages.
    pub fn from_args(args: &[String], dir: &Path, origin: &str) -> Result<CppFlags, FlagError> {
        let mut out = CppFlags::default();
        let mut i = 0;
        let value = |i: usize, flag: &str| -> Result<String, FlagError> {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| FlagError::MissingValue {
                    origin: origin.to_string(),
                    flag: flag.to_string(),
                })
        };
        while i < args.len() {
            let a = args[i].as_str();
            // Include directories: joined or separate value.
            let mut dir_flag = None;
            for f in ["-I", "-iquote", "-isystem", "-idirafter"] {
                if a == f {
                    dir_flag = Some((f, value(i, f)?, 2));
                    break;
                }
                if let Some(rest) = a.strip_prefix(f) {
                    if !rest.is_empty() && (f == "-I" || !rest.starts_with('-')) {
                        dir_flag = Some((f, rest.to_string(), 1));
                        break;
                    }
                }
            }
            if let Some((f, v, n)) = dir_flag {
                let p = absolute(dir, &v).display().to_string();
                if f == "-I" {
                    out.args.push(format!("-I{p}"));
                } else {
                    out.args.extend([f.to_string(), p]);
                }
                i += n;
                continue;
            }
            match a {
                "-D" | "-U" => {
                    out.args.push(format!("{a}{}", value(i, a)?));
                    i += 2;
                }
                "-include" | "-imacros" => {
                    let v = value(i, a)?;
                    out.args
                        .extend([a.to_string(), absolute(dir, &v).display().to_string()]);
                    i += 2;
                }
                "-o" | "-MF" | "-MT" | "-MQ" | "-x" | "-arch" | "-target" => {
                    out.ignored.extend([a.to_string(), value(i, a)?]);
                    i += 2;
                }
                _ if (a.starts_with("-D") || a.starts_with("-U")) && a.len() > 2 => {
                    out.args.push(a.to_string());
                    i += 1;
                }
                _ if a.starts_with("-std=") || a == "-ansi" || a.starts_with("-funsigned-char") => {
                    out.args.push(a.to_string());
                    i += 1;
                }
                _ => {
                    out.ignored.push(a.to_string());
                    i += 1;
                }
            }
        }
        Ok(out)
    }
}

/// One translation unit: a C source file and its preprocessor flags.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// The source file, as the user named it (relative to the working directory
    /// or absolute).
    pub source: PathBuf,
    /// The directory the build compiles it in (relative `-I` flags were resolved
    /// against it).
    pub directory: PathBuf,
    /// Its flags.
    pub flags: CppFlags,
}

/// One entry of a JSON compilation database.
#[derive(Debug, Deserialize)]
struct Entry {
    directory: String,
    file: String,
    #[serde(default)]
    arguments: Option<Vec<String>>,
    #[serde(default)]
    command: Option<String>,
}

/// The translation units of a `compile_commands.json` (C files only, in the
/// file's order; a file compiled twice keeps its first entry). When `only` is not
/// empty, just those files, each of which must have an entry.
pub fn read_compile_commands(path: &Path, only: &[PathBuf]) -> Result<Vec<Unit>, FlagError> {
    let shown = path.display().to_string();
    let err = |message: String| FlagError::CompileCommands {
        path: shown.clone(),
        message,
    };
    let text = safefile::read_text(path).map_err(|e| FlagError::CompileCommands {
        path: shown.clone(),
        message: match e {
            safefile::SafeFileError::Read { error, .. } => format!("cannot read: {error}"),
            other => other.to_string(),
        },
    })?;
    let entries: Vec<Entry> = serde_json::from_str(&text).map_err(|e| {
        err(format!(
            "line {}, column {}: not a JSON compilation database (a list of objects with `directory`, `file` and `arguments` or `command`): {e}",
            e.line(),
            e.column()
        ))
    })?;
    let base = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(Path::new("."));
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut units: Vec<Unit> = Vec::new();
    for (n, e) in entries.iter().enumerate() {
        let directory = absolute(&cwd.join(base), &e.directory);
        let args: Vec<String> = match (&e.arguments, &e.command) {
            (Some(a), _) => a.clone(),
            (None, Some(c)) => shlex::split(c).ok_or_else(|| {
                err(format!(
                    "entry {}: `command` is not a valid shell command line",
                    n + 1
                ))
            })?,
            (None, None) => {
                return Err(err(format!(
                    "entry {}: neither `arguments` nor `command`",
                    n + 1
                )))
            }
        };
        let source = absolute(&directory, &e.file);
        // Every file the database compiles is the project's: never an output,
        // whether or not this run reads it.
        safefile::register_input(&source);
        if source.extension().and_then(|x| x.to_str()) != Some("c") {
            continue;
        }
        if units.iter().any(|u| u.source == source) {
            continue;
        }
        // The compiler itself and the source file are not flags.
        let flags: Vec<String> = args
            .iter()
            .skip(1)
            .filter(|a| absolute(&directory, a) != source)
            .cloned()
            .collect();
        let flags = CppFlags::from_args(&flags, &directory, &format!("{shown} entry {}", n + 1))?;
        units.push(Unit {
            source,
            directory,
            flags,
        });
    }
    if only.is_empty() {
        if units.is_empty() {
            return Err(err("no C file in the database".into()));
        }
        return Ok(units);
    }
    let mut picked = Vec::new();
    for f in only {
        let want = normalize(&cwd.join(f));
        match units.iter().find(|u| u.source == want) {
            Some(u) => picked.push(u.clone()),
            None => {
                return Err(FlagError::NotInDatabase {
                    file: f.display().to_string(),
                    database: shown,
                })
            }
        }
    }
    Ok(picked)
}

/// How C is preprocessed: the way Frama-C does it (`gcc -E -C` with Frama-C's
/// own C library headers and machine macros), so that vera sees the declarations
/// Frama-C sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preprocessor {
    /// The compiler driver used for `-E`.
    pub program: PathBuf,
    /// Frama-C's C library headers (`$FRAMAC_SHARE/libc`).
    pub libc: PathBuf,
}

impl Preprocessor {
    /// The preprocessor for the Frama-C program `frama_c`: asks it for its share
    /// directory.
    pub fn for_frama_c(frama_c: &Path) -> Result<Preprocessor, Diagnostics> {
        let fail = |message: String| Diagnostics {
            file: None,
            items: vec![Diagnostic {
                line: 0,
                column: 0,
                message,
                file: None,
            }],
        };
        let mut cmd = Command::new(frama_c);
        cmd.arg("-print-share-path");
        let dir = tempfile::tempdir().map_err(|e| fail(format!("temporary directory: {e}")))?;
        let out =
            util::run_limited(cmd, dir.path(), None, Duration::from_secs(60)).map_err(|e| {
                fail(format!(
                    "cannot run `{} -print-share-path`: {e:?}",
                    frama_c.display()
                ))
            })?;
        let share = out.stdout.trim();
        if !out.status.success() || share.is_empty() {
            return Err(fail(format!(
                "`{} -print-share-path` failed: {}",
                frama_c.display(),
                out.stderr.trim()
            )));
        }
        Ok(Preprocessor {
            program: "gcc".into(),
            libc: Path::new(share).join("libc"),
        })
    }

    /// The command that preprocesses `unit`, writing the list of every file it
    /// opens (in make's syntax) to `deps`.
    fn command(&self, unit: &Unit, deps: &Path) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(["-E", "-C", "-I."])
            .args(["-MD", "-MT", DEPS_TARGET, "-MF"])
            .arg(deps)
            .arg(format!("-I{}", self.libc.display()))
            .args(["-D__FRAMAC__", "-D__FC_MACHDEP_X86_64", "-nostdinc", "-m64"])
            .args(&unit.flags.args)
            .arg(absolute(
                &std::env::current_dir().unwrap_or_default(),
                &unit.source.display().to_string(),
            ))
            .current_dir(&unit.directory);
        cmd
    }
}

/// The target named in the dependency list the preprocessor writes.
const DEPS_TARGET: &str = "vera-deps";

/// The files of a dependency list in make's syntax (`target: a.c b.h c.h`), as gcc's
/// `-MD` writes it: a backslash at the end of a line continues it, a space in a name
/// is `\ `, a `#` is `\#`, a `$` is `$$`.
pub fn dependency_files(text: &str) -> Vec<String> {
    let body = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let body = match body.split_once(&format!("{DEPS_TARGET}:")) {
        Some((_, rest)) => rest.to_string(),
        None => body,
    };
    let mut files = Vec::new();
    let mut name = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ' | '#' | '\t')) => {
                name.push(chars.next().unwrap_or(' '));
            }
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                name.push('$');
            }
            c if c.is_whitespace() => {
                if !name.is_empty() {
                    files.push(std::mem::take(&mut name));
                }
            }
            c => name.push(c),
        }
    }
    if !name.is_empty() {
        files.push(name);
    }
    files
}

/// Lines `FILE:LINE:COL: error: MESSAGE` (and `fatal error:`) of a compiler's
/// error output.
fn compiler_errors(stderr: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for l in stderr.lines() {
        let Some((head, msg)) = l
            .split_once(": fatal error: ")
            .or_else(|| l.split_once(": error: "))
        else {
            continue;
        };
        let mut parts = head.rsplitn(3, ':');
        let (c, ln, f) = (parts.next(), parts.next(), parts.next());
        let (file, line, column) = match (
            f,
            ln.and_then(|x| x.parse().ok()),
            c.and_then(|x| x.parse().ok()),
        ) {
            (Some(f), Some(line), Some(column)) => (f.to_string(), line, column),
            _ => match head.rsplit_once(':') {
                Some((f, ln)) => (f.to_string(), ln.parse().unwrap_or(0), 0),
                None => (head.to_string(), 0, 0),
            },
        };
        out.push(Diagnostic {
            line,
            column,
            message: format!("preprocessor: {}", msg.trim()),
            file: Some(PathBuf::from(file)),
        });
        if out.len() >= 20 {
            break;
        }
    }
    out
}

/// Where a byte of a program came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The original file (as the preprocessor named it).
    pub file: PathBuf,
    /// 1-based line in it.
    pub line: usize,
}

/// A preprocessed translation unit inside a [`Program`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitText {
    /// The unit.
    pub unit: Unit,
    /// First line (1-based) of this unit in [`Program::file`]'s text.
    pub first_line: usize,
    /// Number of lines of its preprocessed text.
    pub lines: usize,
    /// Line markers: (0-based line of the unit's text where the marker was,
    /// index into [`Program::files`], the original line of the next line).
    pub markers: Vec<(usize, usize, usize)>,
}

/// Several translation units preprocessed, as one parsed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// The units, in the order given.
    pub units: Vec<UnitText>,
    /// Every original file named by a line marker (sources, headers, Frama-C's
    /// library headers), relative to the working directory where possible.
    pub files: Vec<PathBuf>,
    /// The preprocessed units one after another (line markers blanked out), parsed.
    pub file: CFile,
    /// Frama-C's C library directory: items from there are not the program's own.
    pub libc: PathBuf,
}

/// `p` relative to `cwd` when it is under it, normalized.
pub fn display_path(p: &str, cwd: &Path) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        let n = normalize(path);
        match n.strip_prefix(cwd) {
            Ok(r) => r.to_path_buf(),
            Err(_) => n,
        }
    } else {
        normalize(path)
    }
}

/// The brackets (`{`, `(`, `[`) an included file leaves open at its end, or closes
/// though they were opened before it, in the preprocessed `text` of `program`: each is
/// located in the included file. Comments, strings and character constants are
/// skipped.
fn unbalanced_in_includes(text: &str, program: &Program) -> Vec<Diagnostic> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::new();
    let mut diag = |line: usize, message: String| {
        if let Some(o) = program.origin_of_line(line) {
            if out.len() < 20 {
                out.push(Diagnostic {
                    line: o.line,
                    column: 0,
                    message,
                    file: Some(o.file),
                });
            }
        }
    };
    for u in &program.units {
        // The files entered and not yet left: (file, open brackets when it was entered).
        let mut stack: Vec<(usize, usize)> = Vec::new();
        // Open brackets: (the bracket, its line in `text`, 1-based).
        let mut open: Vec<(char, usize)> = Vec::new();
        let mut in_comment = false;
        let mut markers = u.markers.iter().peekable();
        for local in 0..u.lines {
            let global = u.first_line + local;
            if let Some(&&(_, f, _)) = markers.peek().filter(|m| m.0 == local) {
                markers.next();
                match stack.iter().position(|(g, _)| *g == f) {
                    Some(k) => {
                        // Back in a file: every file entered after it has ended.
                        while stack.len() > k + 1 {
                            let (_, entry) = stack.pop().expect("a file");
                            if open.len() > entry {
                                let (c, at) = open[entry];
                                diag(at, format!("this `{c}` is not closed before the end of the file (a file that includes it cannot close it)"));
                                open.truncate(entry);
                            }
                        }
                    }
                    None => stack.push((f, open.len())),
                }
                continue;
            }
            let Some(l) = lines.get(global - 1) else {
                break;
            };
            let mut chars = l.chars().peekable();
            let mut quote: Option<char> = None;
            while let Some(c) = chars.next() {
                if in_comment {
                    if c == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        in_comment = false;
                    }
                    continue;
                }
                if let Some(q) = quote {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        c if c == q => quote = None,
                        _ => {}
                    }
                    continue;
                }
                match c {
                    '/' if chars.peek() == Some(&'*') => {
                        chars.next();
                        in_comment = true;
                    }
                    '/' if chars.peek() == Some(&'/') => break,
                    '"' | '\'' => quote = Some(c),
                    '{' | '(' | '[' => open.push((c, global)),
                    '}' | ')' | ']' => {
                        let entry = stack.last().map_or(0, |s| s.1);
                        if open.len() > entry {
                            open.pop();
                        } else if stack.len() > 1 {
                            diag(global, format!("this `{c}` closes a bracket the file did not open (one opened before the file was included)"));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// A line marker `# 12 "file" 1 3`: the line and the file.
fn line_marker(line: &str) -> Option<(usize, String)> {
    let rest = line.strip_prefix("# ")?;
    let (num, rest) = rest.split_once(' ')?;
    let n: usize = num.parse().ok()?;
    let rest = rest.trim_start().strip_prefix('"')?;
    // The name is a C string: `\"` and `\\` are escapes.
    let mut name = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => name.push(chars.next()?),
            '"' => return Some((n, name)),
            c => name.push(c),
        }
    }
    None
}

/// An error about a whole file (or about none), at line 0.
fn unplaced(message: String, file: Option<PathBuf>) -> Diagnostic {
    Diagnostic {
        line: 0,
        column: 0,
        message,
        file,
    }
}

/// Runs the preprocessor on `unit` (registering every file it opened as an input);
/// its output, or the errors.
fn preprocess(unit: &Unit, pp: &Preprocessor, cwd: &Path) -> Result<String, Vec<Diagnostic>> {
    if !unit.source.is_file() {
        return Err(vec![unplaced(
            "no such C file".into(),
            Some(unit.source.clone()),
        )]);
    }
    let dir = tempfile::tempdir()
        .map_err(|e| vec![unplaced(format!("temporary directory: {e}"), None)])?;
    let deps = dir.path().join("deps.d");
    let run = util::run_limited(
        pp.command(unit, &deps),
        dir.path(),
        None,
        Duration::from_secs(120),
    );
    // Every file the preprocessor opened is an input of the command, which
    // no output may replace (the file names in line markers, below, too).
    safefile::register_input(&unit.source);
    if let Ok(list) = std::fs::read_to_string(&deps) {
        for f in dependency_files(&list) {
            safefile::register_input(&absolute(&unit.directory, &f));
        }
    }
    let out = run.map_err(|e| {
        let why = match e {
            RunError::Spawn(e) => format!("cannot run `{}`: {e}", pp.program.display()),
            RunError::Killed => "the preprocessor ran longer than 120 s".into(),
            RunError::Io(e) => e.to_string(),
        };
        vec![unplaced(why, Some(unit.source.clone()))]
    })?;
    if !out.status.success() {
        let mut found = compiler_errors(&out.stderr);
        for d in &mut found {
            if let Some(f) = &d.file {
                d.file = Some(display_path(&f.display().to_string(), cwd));
            }
        }
        if found.is_empty() {
            found.push(unplaced(
                format!(
                    "the preprocessor failed: {}",
                    out.stderr.lines().last().unwrap_or("").trim()
                ),
                Some(unit.source.clone()),
            ));
        }
        return Err(found);
    }
    Ok(out.stdout)
}

/// The preprocessed units joined into one text, with the files their line markers
/// name.
#[derive(Default)]
struct Joined {
    text: String,
    /// The files named, as shown.
    files: Vec<PathBuf>,
    /// The index of each file in `files`.
    file_index: BTreeMap<PathBuf, usize>,
    texts: Vec<UnitText>,
}

impl Joined {
    /// Appends the preprocessed text `out` of `unit`: its line markers are blanked
    /// (same length, so offsets do not move) and where they point is remembered.
    fn append(&mut self, unit: &Unit, out: &str, cwd: &Path) {
        let first_line = self.text.bytes().filter(|&b| b == b'\n').count() + 1;
        let mut markers = Vec::new();
        let mut lines = 0;
        for (i, l) in out.split_inclusive('\n').enumerate() {
            lines = i + 1;
            match line_marker(l.trim_end_matches('\n')) {
                Some((n, name)) => {
                    // A name is relative to the directory the preprocessor ran in.
                    let named = if name.starts_with('<') {
                        PathBuf::from(&name)
                    } else {
                        let p = absolute(&unit.directory, &name);
                        safefile::register_input(&p);
                        p
                    };
                    let shown = display_path(&named.display().to_string(), cwd);
                    let next = self.files.len();
                    let idx = *self.file_index.entry(shown.clone()).or_insert(next);
                    if idx == next {
                        self.files.push(shown);
                    }
                    markers.push((i, idx, n));
                    self.text
                        .extend(l.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
                }
                None => self.text.push_str(l),
            }
        }
        if !self.text.ends_with('\n') {
            self.text.push('\n');
            lines += 1;
        }
        self.texts.push(UnitText {
            unit: unit.clone(),
            first_line,
            lines,
            markers,
        });
    }
}

impl Program {
    /// Preprocess every unit and parse them as one program. Errors of every unit
    /// (the preprocessor's, then syntax errors) come back together, located in
    /// the original files.
    pub fn load(units: &[Unit], pp: &Preprocessor) -> Result<Program, Diagnostics> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut errors: Vec<Diagnostic> = Vec::new();
        let mut joined = Joined::default();
        for unit in units {
            match preprocess(unit, pp, &cwd) {
                Ok(out) => joined.append(unit, &out, &cwd),
                Err(found) => errors.extend(found),
            }
        }
        if !errors.is_empty() {
            return Err(Diagnostics {
                file: None,
                items: errors,
            });
        }
        let Joined {
            text, files, texts, ..
        } = joined;
        let libc = normalize(&pp.libc);
        let mut program = Program {
            units: texts,
            files,
            file: CFile {
                path: None,
                text: String::new(),
                items: Vec::new(),
            },
            libc,
        };
        match parse_preprocessed(&text) {
            Ok(f) => {
                program.file = f;
                Ok(program)
            }
            Err(d) => Err(program.located(d, &text)),
        }
    }

    /// The syntax errors `d` of the joined `text`, located in the original files; a
    /// bracket an included file leaves open is that file's error, though the parser
    /// notices it only in the file that includes it (said only of a file where the
    /// parser found no error itself).
    fn located(&self, d: Diagnostics, text: &str) -> Diagnostics {
        let found: Vec<Diagnostic> = d
            .items
            .into_iter()
            .map(|mut e| {
                if let Some(o) = self.origin_of_line(e.line) {
                    e.line = o.line;
                    e.file = Some(o.file);
                }
                e
            })
            .collect();
        let mut items: Vec<Diagnostic> = unbalanced_in_includes(text, self)
            .into_iter()
            .filter(|u| !found.iter().any(|f| f.file == u.file))
            .collect();
        items.extend(found);
        Diagnostics { file: None, items }
    }

    /// Where line `line` (1-based) of [`Program::file`]'s text came from.
    pub fn origin_of_line(&self, line: usize) -> Option<Origin> {
        let u = self
            .units
            .iter()
            .find(|u| line >= u.first_line && line < u.first_line + u.lines)?;
        let local = line - u.first_line;
        let &(at, file, n) = u.markers.iter().rev().find(|m| m.0 < local)?;
        Some(Origin {
            file: self.files.get(file)?.clone(),
            line: n + (local - at - 1),
        })
    }

    /// Where a byte of [`Program::file`]'s text came from.
    pub fn origin(&self, offset: usize) -> Option<Origin> {
        self.origin_of_line(self.file.line_of(offset))
    }

    /// Where an item (its contract, if it has one) starts in the original files.
    pub fn item_origin(&self, item: &Item) -> Option<Origin> {
        self.origin(item.full_span().start)
    }

    /// True when the item comes from Frama-C's C library headers.
    pub fn is_library(&self, item: &Item) -> bool {
        self.item_origin(item).is_some_and(|o| {
            let f = if o.file.is_absolute() {
                o.file.clone()
            } else {
                normalize(&std::env::current_dir().unwrap_or_default().join(&o.file))
            };
            f.starts_with(&self.libc) || o.file.to_string_lossy().starts_with('<')
        })
    }

    /// Function definitions of the program's own files (not the library's).
    pub fn functions(&self) -> impl Iterator<Item = &Item> {
        self.file
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Function && !self.is_library(i))
    }

    /// The source files of the units, relative to the working directory when
    /// under it.
    pub fn sources(&self) -> Vec<PathBuf> {
        let cwd = std::env::current_dir().unwrap_or_default();
        self.units
            .iter()
            .map(|u| display_path(&u.unit.source.display().to_string(), &cwd))
            .collect()
    }

    /// True when every unit has the same flags.
    pub fn uniform_flags(&self) -> bool {
        self.units
            .windows(2)
            .all(|w| w[0].unit.flags.args == w[1].unit.flags.args)
    }

    /// How many copies of a function called `name` Frama-C's linker keeps:
    /// static functions of a header are defined once per unit that includes it,
    /// and Frama-C renames the copies `name_0`, `name_1`, ...; external
    /// definitions are one function.
    pub fn definitions(&self, name: &str) -> usize {
        let defs: Vec<&Item> = self
            .file
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Function && i.name == name)
            .collect();
        // Only `static` copies are renamed (identical external definitions
        // of a file given twice are merged).
        let is_static = |i: &&Item| {
            let head = match i.body {
                Some(b) => &self.file.text[i.span.start..b.start],
                None => i.span.text(&self.file.text),
            };
            head.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == "static")
        };
        if defs.iter().any(is_static) {
            defs.len()
        } else {
            defs.len().min(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_lists_keep_names_with_spaces_hashes_and_dollars() {
        let text =
            "vera-deps: /p/src/main.c /p/my\\ inc/x.h \\\n /p/a\\#b.h /p/c$$d.h\\\n  /p/e.h\n";
        assert_eq!(
            dependency_files(text),
            [
                "/p/src/main.c",
                "/p/my inc/x.h",
                "/p/a#b.h",
                "/p/c$d.h",
                "/p/e.h"
            ]
        );
        assert!(dependency_files("vera-deps:\n").is_empty());
    }

    /// gcc's own list for a file in a folder with a space and a header read through
    /// `-imacros`: every file it opened, and the preprocessed program registers each
    /// as an input.
    #[test]
    fn every_file_the_preprocessor_opens_is_an_input() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::create_dir(d.join("my inc")).unwrap();
        std::fs::write(d.join("my inc/x.h"), "#define OFFSET 0\n").unwrap();
        std::fs::write(d.join("defs.h"), "#define FACTOR 2\n").unwrap();
        std::fs::write(
            d.join("m.c"),
            "#include <x.h>\nint twice(int v) { return v * FACTOR + OFFSET; }\n",
        )
        .unwrap();
        let flags = CppFlags::from_args(
            &["-imacros".into(), "defs.h".into(), "-Imy inc".into()],
            d,
            "test",
        )
        .unwrap();
        let unit = Unit {
            source: d.join("m.c"),
            directory: d.to_path_buf(),
            flags,
        };
        let pp = Preprocessor {
            program: "gcc".into(),
            libc: d.join("no-libc"),
        };
        let deps = d.join("deps.d");
        let out = pp.command(&unit, &deps).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let listed = dependency_files(&std::fs::read_to_string(&deps).unwrap());
        for f in ["m.c", "my inc/x.h", "defs.h"] {
            assert!(
                listed.iter().any(|l| Path::new(l) == d.join(f)),
                "{f} not in {listed:?}"
            );
        }
        Program::load(&[unit], &pp).unwrap();
        for f in ["m.c", "my inc/x.h", "defs.h"] {
            assert!(safefile::is_input(&d.join(f)), "{f}");
        }
        // The inputs are process-wide: the files stay, so that their inodes are not
        // given to another test's files.
        std::mem::forget(t);
    }
}
