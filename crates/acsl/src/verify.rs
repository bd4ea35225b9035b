//! `verify`: check the existing annotations of a C file, one harness per segment,
//! independent segments in parallel.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::annotate::harness;
use crate::front::{parse_c, CFile, ItemKind};
use crate::project::{display_path, Program, Unit};
use crate::segment::{function_segments, Segment};
use crate::util::parallel_map;
use crate::wp::{
    detect, run_input, run_wp, Counters, GoalStatus, Input, Select, Verdict, WpConfig, WpError,
    WpRun,
};

/// The result of one segment's harness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentReport {
    /// The segment index (topological order).
    pub segment: usize,
    /// Functions verified.
    pub functions: Vec<String>,
    /// Called functions used through their contracts (assumed, not proved, here).
    pub assumed: Vec<String>,
    /// Called functions included with their bodies (no contract, or no default
    /// `assigns` clause): calls to them may assign anything.
    pub with_body: Vec<String>,
    /// The run.
    pub run: WpRun,
}

/// Verification counts and timing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Frama-C processes started.
    pub verifier_calls: usize,
    /// Runs answered from the cache.
    pub cache_hits: usize,
    /// Wall time of the whole command in seconds.
    pub wall_seconds: f64,
}

/// What `verify` found for a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    /// The file.
    pub file: Option<PathBuf>,
    /// The verdict over all segments.
    pub verdict: Verdict,
    /// Goals over all segments.
    pub goals: usize,
    /// Goals proved.
    pub proved: usize,
    /// Goals that timed out.
    pub timeouts: usize,
    /// Functions for which WP generated no goal at all (nothing was checked there).
    pub functions_without_goals: Vec<String>,
    /// Per segment, in topological order.
    pub segments: Vec<SegmentReport>,
    /// The run that proved the lemmas, once for the whole program (segment runs
    /// assume them); `None` when there is no lemma.
    #[serde(default)]
    pub lemmas: Option<WpRun>,
    /// The source files verified (several for a program).
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// Counters.
    pub stats: RunStats,
    /// Frama-C version used.
    pub frama_c_version: String,
    /// Prover used.
    pub prover: String,
}

/// Combine the verdicts of several runs into one.
pub fn combine(runs: &[&WpRun]) -> Verdict {
    let unreadable: Vec<&str> = runs
        .iter()
        .filter_map(|r| match &r.verdict {
            Verdict::Unreadable { reason } => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    if !unreadable.is_empty() {
        return Verdict::Unreadable {
            reason: unreadable.join("; "),
        };
    }
    let goals: usize = runs.iter().map(|r| r.goals.len()).sum();
    let unproved: usize = runs
        .iter()
        .map(|r| {
            r.goals
                .iter()
                .filter(|g| g.status != GoalStatus::Valid)
                .count()
        })
        .sum();
    let failed: Vec<String> = runs
        .iter()
        .flat_map(|r| {
            r.smoke_tests
                .iter()
                .filter(|s| !s.passed)
                .map(|s| s.name.clone())
        })
        .collect();
    if !failed.is_empty() {
        Verdict::Inconsistent {
            failed_smoke_tests: failed,
            unproved,
            goals,
        }
    } else if goals == 0 {
        Verdict::NoGoals
    } else if unproved == 0 {
        Verdict::Proved { goals }
    } else {
        Verdict::NotProved { unproved, goals }
    }
}

/// The file name used for harnesses of `file` (its own name when it ends in `.c`,
/// commas replaced; else `input.c`).
pub fn harness_name(file: &CFile) -> String {
    file.path
        .as_ref()
        .and_then(|p| p.file_name())
        // Frama-C splits file names at commas: the harness's own name has none.
        .map(|n| n.to_string_lossy().replace(',', "_"))
        .filter(|n| n.ends_with(".c"))
        .unwrap_or_else(|| "input.c".into())
}

/// Verify one segment of a parsed file.
pub fn verify_segment(
    file: &CFile,
    segment: &Segment,
    cfg: &WpConfig,
    counters: &Counters,
) -> Result<SegmentReport, WpError> {
    let h = harness(file, segment);
    let run = run_wp(&h.text, &harness_name(file), &h.functions, cfg, counters)?;
    Ok(SegmentReport {
        segment: segment.index,
        functions: h.functions,
        assumed: h.assumed,
        with_body: h.with_body,
        run,
    })
}

/// True when the text has a `lemma` among its global annotations.
fn has_lemmas(file: &CFile, own: impl Fn(&crate::front::Item) -> bool) -> bool {
    file.items.iter().any(|i| {
        i.kind == ItemKind::Logic
            && own(i)
            && i.span
                .text(&file.text)
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == "lemma")
    })
}

/// Frama-C's report lists no lemma: give each lemma goal (`typed_lemma_NAME`)
/// the place of `lemma NAME` in the text, and a property of kind `lemma` with
/// the goal's status. `place` turns an offset of `file`'s text into (file, line).
fn locate_lemmas(run: &mut WpRun, file: &CFile, place: impl Fn(usize) -> (String, usize)) {
    let mut found: Vec<(String, usize)> = Vec::new();
    for item in file.items.iter().filter(|i| i.kind == ItemKind::Logic) {
        let text = item.span.text(&file.text);
        let mut from = 0;
        while let Some(i) = text[from..].find("lemma") {
            let at = from + i;
            from = at + 5;
            let before_ok = text[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            let name: String = text[from..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if before_ok && !name.is_empty() && text[from..].starts_with(char::is_whitespace) {
                found.push((name, item.span.start + at));
            }
        }
    }
    for g in &mut run.goals {
        if g.file.is_some() {
            continue;
        }
        let Some(name) = g.name.split_once("_lemma_").map(|(_, n)| n.to_string()) else {
            continue;
        };
        let Some(&(_, at)) = found.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let (f, line) = place(at);
        let status = match g.status {
            GoalStatus::Valid => crate::wp::PropertyStatus::Valid,
            _ => crate::wp::PropertyStatus::Unknown,
        };
        let property = crate::wp::Property {
            line,
            function: String::new(),
            kind: "lemma".into(),
            text: name,
            status,
            goals: vec![g.name.clone()],
            file: Some(f.clone()),
        };
        g.file = Some(f);
        g.line = Some(line);
        g.key = Some(property.key());
        run.properties.push(property);
    }
}

/// The text with every function reduced to a prototype: what lemmas can depend on.
fn without_functions(file: &CFile) -> String {
    let none = Segment {
        index: usize::MAX,
        items: Vec::new(),
        functions: Vec::new(),
        others: Vec::new(),
        recursive: false,
        depends_on: Vec::new(),
        called: Vec::new(),
        called_by_contract: Vec::new(),
        called_with_body: Vec::new(),
    };
    harness(file, &none).text
}

/// Verify the annotations of a parsed file.
pub fn verify_file(file: &CFile, cfg: &WpConfig) -> Result<VerifyReport, WpError> {
    let start = Instant::now();
    let setup = detect(cfg)?;
    let counters = Counters::default();
    let segs = function_segments(file);
    let results = parallel_map(&segs, cfg.jobs, |s| verify_segment(file, s, cfg, &counters));
    let mut segments = Vec::new();
    for r in results {
        segments.push(r?);
    }
    // Runs restricted to functions generate no lemma goals: prove the lemmas once.
    let lemmas = if has_lemmas(file, |_| true) {
        let text = without_functions(file);
        let mut run = run_input(
            &Input::Text {
                text: &text,
                name: &harness_name(file),
            },
            Select::Lemmas,
            cfg,
            &counters,
        )?;
        locate_lemmas(&mut run, file, |at| (harness_name(file), file.line_of(at)));
        Some(run)
    } else {
        None
    };
    let shown = file.path.as_ref().map(|p| p.display().to_string());
    let mut report = summarize(segments, lemmas, &counters, start, &setup, cfg);
    if let Some(shown) = shown {
        // Harness runs name the file without its directory; a name a `#line`
        // directive gave is kept.
        let name = harness_name(file);
        for_each_location(&mut report, |f| {
            if *f == name {
                *f = shown.clone()
            }
        });
    }
    report.file = file.path.clone();
    report.files = file.path.iter().cloned().collect();
    Ok(report)
}

/// Every WP run of the report: the segments' and the lemmas'.
fn runs_mut(report: &mut VerifyReport) -> impl Iterator<Item = &mut WpRun> {
    report
        .segments
        .iter_mut()
        .map(|s| &mut s.run)
        .chain(report.lemmas.as_mut())
}

/// Apply `f` to every file name in the report's goals, properties and warnings.
pub(crate) fn for_each_location(report: &mut VerifyReport, mut f: impl FnMut(&mut String)) {
    for run in runs_mut(report) {
        for g in &mut run.goals {
            if let Some(x) = &mut g.file {
                f(x);
            }
        }
        for p in &mut run.properties {
            if let Some(x) = &mut p.file {
                f(x);
            }
        }
        for w in &mut run.warnings {
            if let Some(x) = &mut w.file {
                f(x);
            }
        }
    }
}

/// The names WP knows a program's functions by: a static function defined in
/// several units (a header's `static inline`) is `f`, `f_0`, `f_1`, ... after
/// Frama-C links the units, skipping the names the program already uses (with a
/// global `f_0`, the second copy is `f_1`).
/// The segments of `program` that `keep` selects, each with the names Frama-C
/// gives its functions ([`linked_names`]); a function WP verifies once, in the
/// first segment that has it.
pub(crate) fn program_segments(
    program: &Program,
    keep: impl Fn(&Segment) -> bool,
) -> Vec<(Segment, Vec<String>)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut work = Vec::new();
    for seg in function_segments(&program.file) {
        if !keep(&seg) {
            continue;
        }
        let mut names = Vec::new();
        for f in &seg.functions {
            if seen.insert(f.clone()) {
                names.extend(linked_names(program, f));
            }
        }
        if !names.is_empty() {
            work.push((seg, names));
        }
    }
    work
}

pub(crate) fn linked_names(program: &Program, name: &str) -> Vec<String> {
    let n = program.definitions(name);
    let taken: std::collections::BTreeSet<&str> = program
        .file
        .items
        .iter()
        .flat_map(|i| std::iter::once(i.name.as_str()).chain(i.defines.iter().map(String::as_str)))
        .collect();
    let mut names = vec![name.to_string()];
    let mut k = 0usize;
    while names.len() < n {
        let candidate = format!("{name}_{k}");
        k += 1;
        if !taken.contains(candidate.as_str()) {
            names.push(candidate);
        }
    }
    names
}

/// The preprocessor options Frama-C gets for a program: the units' flags,
/// shared (`-cpp-extra-args`) or per file (`-cpp-extra-args-per-file`).
fn cpp_options(program: &Program) -> Result<Vec<String>, WpError> {
    let units: Vec<Unit> = program.units.iter().map(|u| u.unit.clone()).collect();
    cpp_options_of(&units)
}

/// [`cpp_options`] of units.
pub(crate) fn cpp_options_of(units: &[Unit]) -> Result<Vec<String>, WpError> {
    let quote = |args: &[String]| {
        shlex::try_join(args.iter().map(String::as_str))
            .map_err(|e| WpError::Io(format!("preprocessor flags cannot be quoted: {e}")))
    };
    let Some(first) = units.first() else {
        return Ok(Vec::new());
    };
    if units.windows(2).all(|w| w[0].flags.args == w[1].flags.args) {
        if first.flags.args.is_empty() {
            return Ok(Vec::new());
        }
        return Ok(vec![crate::wp::cpp_extra_args(&first.flags.args)?]);
    }
    let mut per_file = Vec::new();
    for u in units {
        let flags = quote(&u.flags.args)?;
        let file = absolute_source(&u.source);
        if flags.contains(',') || file.contains([',', ':']) {
            return Err(WpError::Io(format!(
                "{file}: flags that differ between files are given to Frama-C as `file:flags,...`, which cannot hold a `,` or a `:` in a name or flag"
            )));
        }
        per_file.push(format!("{file}:{flags}"));
    }
    Ok(vec![format!(
        "-cpp-extra-args-per-file={}",
        per_file.join(",")
    )])
}

fn absolute_source(p: &Path) -> String {
    crate::project::normalize(&std::env::current_dir().unwrap_or_default().join(p))
        .display()
        .to_string()
}

/// The text with every run of blank lines cut to one: a harness's lines move
/// when a line is added anywhere before them, which changes nothing WP proves.
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len() / 2);
    let mut blank = false;
    for l in text.lines() {
        let b = l.trim().is_empty();
        if !(b && blank) {
            out.push_str(l);
            out.push('\n');
        }
        blank = b;
    }
    out
}

/// `file:line` of the items `pick` chooses: the places a run's results name
/// (a segment's functions and the contracts on their prototypes, the lemmas),
/// part of its cache key so that a cached result never shows a stale line.
fn origins(program: &Program, pick: impl Fn(&crate::front::Item) -> bool) -> String {
    let mut out = String::new();
    for item in program.file.items.iter().filter(|i| pick(i)) {
        if let Some(o) = program.item_origin(item) {
            out.push_str(&format!("{}:{};", o.file.display(), o.line));
        }
    }
    out
}

/// Verify a program of several translation units: one Frama-C run per segment
/// on the original files with their preprocessor flags (`-wp-fct` the
/// segment's functions), and one run for the lemmas. A segment's result is
/// cached under its harness text cut from the preprocessed program (what WP can
/// see of the segment's functions, their callees' contracts, types, globals and
/// logic), with blank lines collapsed, and the original lines of the segment's
/// functions and contracts: an edit elsewhere, even one that moves lines, leaves
/// it unchanged.
pub fn verify_program(program: &Program, cfg: &WpConfig) -> Result<VerifyReport, WpError> {
    let start = Instant::now();
    let setup = detect(cfg)?;
    let counters = Counters::default();
    let cpp = cpp_options(program)?;
    let files: Vec<String> = program
        .units
        .iter()
        .map(|u| absolute_source(&u.unit.source))
        .collect();
    let flags = serde_json::to_string(&program.units.iter().map(|u| &u.unit).collect::<Vec<_>>())
        .unwrap_or_default();
    // Segments of the program's own functions.
    let work = program_segments(program, |seg| {
        seg.items.iter().any(|&i| {
            let it = &program.file.items[i];
            it.kind == ItemKind::Function && !program.is_library(it)
        })
    });
    let results = parallel_map(&work, cfg.jobs, |(seg, names)| {
        let h = harness(&program.file, seg);
        let key = format!(
            "{flags}\0{}\0{}",
            collapse_blank_lines(&h.text),
            origins(program, |i| {
                seg.functions.contains(&i.name)
                    && matches!(i.kind, ItemKind::Function | ItemKind::Prototype)
            })
        );
        let run = run_input(
            &Input::Files {
                cpp: &cpp,
                files: &files,
                key: &key,
                root: None,
            },
            Select::Functions(names),
            cfg,
            &counters,
        )?;
        Ok::<_, WpError>(SegmentReport {
            segment: seg.index,
            functions: names.clone(),
            assumed: h.assumed,
            with_body: h.with_body,
            run,
        })
    });
    let mut segments = Vec::new();
    for r in results {
        segments.push(r?);
    }
    let lemmas = if has_lemmas(&program.file, |i| !program.is_library(i)) {
        let key = format!(
            "{flags}\0{}\0{}",
            collapse_blank_lines(&without_functions(&program.file)),
            origins(program, |i| i.kind == ItemKind::Logic)
        );
        let mut run = run_input(
            &Input::Files {
                cpp: &cpp,
                files: &files,
                key: &key,
                root: None,
            },
            Select::Lemmas,
            cfg,
            &counters,
        )?;
        locate_lemmas(&mut run, &program.file, |at| match program.origin(at) {
            Some(o) => (o.file.display().to_string(), o.line),
            None => (String::new(), 0),
        });
        Some(run)
    } else {
        None
    };
    let mut report = summarize(segments, lemmas, &counters, start, &setup, cfg);
    let cwd = std::env::current_dir().unwrap_or_default();
    for_each_location(&mut report, |f| {
        *f = display_path(f, &cwd).display().to_string();
    });
    report.files = program.sources();
    correct_crlf_lines(&mut report);
    Ok(report)
}

/// Property kinds that are clauses of ACSL annotations (not run-time error
/// guards or call-site preconditions, which are at lines of code).
const ANNOTATION_KINDS: &[&str] = &[
    "postcondition",
    "precondition",
    "assigns clause",
    "loop invariant",
    "loop assigns",
    "loop variant",
    "assertion",
    "check",
    "lemma",
    "decreases",
    "variant",
    "exits",
    "complete behaviors",
    "disjoint behaviors",
    "terminates",
    "allocates",
    "frees",
];

/// The ACSL annotations of a text with CRLF line ends: (first line, lines).
/// Empty for a text without CRLF.
fn crlf_annotations(text: &str) -> Vec<(usize, usize)> {
    if !text.contains("\r\n") {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("/*@") {
        let start = from + i;
        let end = text[start..]
            .find("*/")
            .map(|e| start + e + 2)
            .unwrap_or(text.len());
        let line = text[..start].matches('\n').count() + 1;
        let lines = text[start..end].matches('\n').count() + 1;
        found.push((line, lines));
        from = end;
    }
    found
}

/// Where a line Frama-C reports inside a CRLF annotation really is: Frama-C
/// counts each CRLF there as two lines, so the k-th line of an annotation that
/// starts at line s is reported as s + 2k.
fn crlf_line(annotations: &[(usize, usize)], reported: usize) -> usize {
    annotations
        .iter()
        .find(|&&(s, n)| {
            reported >= s && reported <= s + 2 * (n - 1) && (reported - s).is_multiple_of(2)
        })
        .map(|&(s, _)| s + (reported - s) / 2)
        .unwrap_or(reported)
}

/// Correct the lines of annotation clauses in files with CRLF line ends (a
/// program's runs read the original files), and of the goals that prove them.
fn correct_crlf_lines(report: &mut VerifyReport) {
    let mut texts: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    for run in runs_mut(report) {
        let mut moved: HashMap<String, usize> = HashMap::new();
        for p in &mut run.properties {
            let Some(f) = &p.file else { continue };
            if !ANNOTATION_KINDS.contains(&p.kind.as_str()) {
                continue;
            }
            let annotations = texts.entry(f.clone()).or_insert_with(|| {
                std::fs::read(f)
                    .map(|b| crlf_annotations(&String::from_utf8_lossy(&b)))
                    .unwrap_or_default()
            });
            let line = crlf_line(annotations, p.line);
            if line != p.line {
                for g in &p.goals {
                    moved.insert(g.clone(), line);
                }
                p.line = line;
            }
        }
        for g in &mut run.goals {
            if let Some(&l) = moved.get(&g.name) {
                g.line = Some(l);
            }
        }
    }
}

fn summarize(
    segments: Vec<SegmentReport>,
    lemmas: Option<WpRun>,
    counters: &Counters,
    start: Instant,
    setup: &crate::wp::Setup,
    cfg: &WpConfig,
) -> VerifyReport {
    let runs: Vec<&WpRun> = segments
        .iter()
        .map(|s| &s.run)
        .chain(lemmas.as_ref())
        .collect();
    let verdict = combine(&runs);
    let goals = runs.iter().map(|r| r.goals.len()).sum();
    let proved = runs
        .iter()
        .map(|r| {
            r.goals
                .iter()
                .filter(|g| g.status == GoalStatus::Valid)
                .count()
        })
        .sum();
    let timeouts = runs
        .iter()
        .map(|r| {
            r.goals
                .iter()
                .filter(|g| g.status == GoalStatus::Timeout)
                .count()
        })
        .sum();
    let mut functions_without_goals = Vec::new();
    for s in &segments {
        for f in &s.functions {
            if !s
                .run
                .goals
                .iter()
                .any(|g| g.function.as_deref() == Some(f.as_str()))
            {
                functions_without_goals.push(f.clone());
            }
        }
    }
    let (verifier_calls, cache_hits) = counters.get();
    VerifyReport {
        file: None,
        verdict,
        goals,
        proved,
        timeouts,
        functions_without_goals,
        segments,
        stats: RunStats {
            verifier_calls,
            cache_hits,
            wall_seconds: start.elapsed().as_secs_f64(),
        },
        frama_c_version: setup.frama_c_version.clone(),
        prover: cfg.prover.clone(),
        lemmas,
        files: Vec::new(),
    }
}

/// Parse and verify the C file at `path`.
pub fn verify(path: &Path, cfg: &WpConfig) -> Result<VerifyReport, WpError> {
    let file = parse_c(path).map_err(WpError::Parse)?;
    verify_file(&file, cfg)
}

#[cfg(test)]
mod crlf_tests {
    use super::*;

    #[test]
    fn lines_inside_crlf_annotations_are_halved_back() {
        let text =
            "int a;\r\n/*@ requires x;\r\n    ensures y;\r\n    assigns z; */\r\nint f(int x);\r\n";
        let a = crlf_annotations(text);
        assert_eq!(a, vec![(2, 3)]);
        // Frama-C reports the 3 lines of the annotation as 2, 4 and 6.
        assert_eq!(crlf_line(&a, 2), 2);
        assert_eq!(crlf_line(&a, 4), 3);
        assert_eq!(crlf_line(&a, 6), 4);
        // Outside the annotation, or odd offsets, lines stay.
        assert_eq!(crlf_line(&a, 1), 1);
        assert_eq!(crlf_line(&a, 5), 5);
        assert_eq!(crlf_line(&a, 8), 8);
        // Text with LF ends needs nothing.
        assert!(crlf_annotations("/*@ requires x;\n ensures y; */\n").is_empty());
    }
}
