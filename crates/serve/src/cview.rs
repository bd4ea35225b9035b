//! The C view: a C source with each ACSL clause coloured by the status of its
//! WP goals, from the JSON report of `vera c verify FILE.c --format json`
//! (`vera.c-verify.v1`, docs/c.md).
//!
//! The view is a pure function of the source text and the report: it returns an
//! HTML fragment for the page's `<main>`. Every text that comes from the source or
//! the report is escaped with [`report::html::escape`].
//!
//! A clause's status is the worst of its goals' statuses, and a line's the worst of
//! its clauses'. Only a `valid` goal is proved. A clause whose goals are absent from
//! the report, or that the report lists with no goal at all, shows as
//! "no result", never as proved. Two run verdicts lower what the goals say: in a
//! run WP's output could not be read (`unreadable`) nothing is claimed, so no clause
//! of it is shown as proved; in a function with a failed smoke test
//! (`inconsistent`) a proof is vacuous, so its proved clauses show as not proved.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use report::html::escape;
use serde_json::Value;

/// Why a report could not be rendered. Shared by the views of this crate.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The payload's `schema` tag is not one the view reads.
    #[error("not a {expected} payload: its schema tag is {found}")]
    Schema {
        /// The schema tag(s) the view reads.
        expected: &'static str,
        /// The tag found (`missing` when there is none).
        found: String,
    },
    /// A field the view needs is absent (or `null`).
    #[error("{path}: missing")]
    Missing {
        /// Where, as `report.segments[0].run.goals`.
        path: String,
    },
    /// A field holds another JSON type than the one the schema gives it.
    #[error("{path}: expected {expected}, found {found}")]
    Type {
        /// Where, as `report.segments[0].run.goals`.
        path: String,
        /// The type the schema gives the field.
        expected: &'static str,
        /// The JSON type found.
        found: &'static str,
    },
    /// The report does not cover the source file asked for.
    #[error("{source_name} is not among the files of the report ({files})")]
    FileNotInReport {
        /// The name of the source given to the view.
        source_name: String,
        /// The files the report names, comma-separated.
        files: String,
    },
}

/// The name of a JSON value's type, for error messages.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON value with the path that leads to it, so that every error says where.
#[derive(Clone)]
pub(crate) struct At<'a> {
    pub(crate) v: &'a Value,
    pub(crate) path: String,
}

impl<'a> At<'a> {
    /// The payload's root.
    pub(crate) fn root(v: &'a Value) -> Self {
        At {
            v,
            path: "$".into(),
        }
    }

    fn child(&self, key: &str, v: &'a Value) -> Self {
        let path = if self.path == "$" {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        };
        At { v, path }
    }

    fn type_error(&self, expected: &'static str) -> ViewError {
        ViewError::Type {
            path: self.path.clone(),
            expected,
            found: type_name(self.v),
        }
    }

    /// A field that must be present and not `null`.
    pub(crate) fn field(&self, key: &str) -> Result<At<'a>, ViewError> {
        self.opt(key)?.ok_or_else(|| ViewError::Missing {
            path: self.child(key, &Value::Null).path,
        })
    }

    /// A field that may be absent or `null` (then `None`); an error when `self` is
    /// not an object.
    pub(crate) fn opt(&self, key: &str) -> Result<Option<At<'a>>, ViewError> {
        let o = self
            .v
            .as_object()
            .ok_or_else(|| self.type_error("an object"))?;
        Ok(o.get(key)
            .filter(|v| !v.is_null())
            .map(|v| self.child(key, v)))
    }

    /// The value as a string.
    pub(crate) fn str(&self) -> Result<&'a str, ViewError> {
        self.v.as_str().ok_or_else(|| self.type_error("a string"))
    }

    /// The value as a non-negative integer.
    pub(crate) fn count(&self) -> Result<u64, ViewError> {
        self.v
            .as_u64()
            .ok_or_else(|| self.type_error("a non-negative integer"))
    }

    /// The value as a number.
    pub(crate) fn number(&self) -> Result<f64, ViewError> {
        self.v.as_f64().ok_or_else(|| self.type_error("a number"))
    }

    /// The value as a boolean.
    pub(crate) fn bool(&self) -> Result<bool, ViewError> {
        self.v.as_bool().ok_or_else(|| self.type_error("a boolean"))
    }

    /// The value as an array, each item with its path.
    pub(crate) fn items(&self) -> Result<Vec<At<'a>>, ViewError> {
        let a = self
            .v
            .as_array()
            .ok_or_else(|| self.type_error("an array"))?;
        Ok(a.iter()
            .enumerate()
            .map(|(i, v)| At {
                v,
                path: format!("{}[{i}]", self.path),
            })
            .collect())
    }

    /// An optional string field.
    pub(crate) fn opt_str(&self, key: &str) -> Result<Option<&'a str>, ViewError> {
        self.opt(key)?.map(|a| a.str()).transpose()
    }

    /// A string field that must be present.
    pub(crate) fn str_field(&self, key: &str) -> Result<&'a str, ViewError> {
        self.field(key)?.str()
    }

    /// The payload's `schema` tag (`missing` when absent or not a string).
    pub(crate) fn schema_tag(&self) -> String {
        self.v
            .get("schema")
            .map(|s| match s.as_str() {
                Some(t) => t.to_string(),
                None => format!("{} (not a string)", type_name(s)),
            })
            .unwrap_or_else(|| "missing".into())
    }
}

/// The status a clause (or a line) is shown with, from best to worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Shown {
    Proved,
    NoResult,
    Unproved,
    Failed,
}

impl Shown {
    fn class(self) -> &'static str {
        match self {
            Shown::Proved => "goal-proved",
            Shown::NoResult => "goal-unknown",
            Shown::Unproved => "goal-unproved",
            Shown::Failed => "goal-failed",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Shown::Proved => "proved",
            Shown::NoResult => "no result",
            Shown::Unproved => "not proved",
            Shown::Failed => "failed",
        }
    }

    /// What a WP goal status says. Only `valid` is proved; a status the view does
    /// not know is no result.
    fn of_goal(status: Option<&str>) -> Shown {
        match status {
            Some("valid") => Shown::Proved,
            Some("timeout" | "unknown") => Shown::Unproved,
            Some("failed" | "invalid") => Shown::Failed,
            _ => Shown::NoResult,
        }
    }
}

/// One goal as the report gives it.
struct Goal<'a> {
    name: &'a str,
    function: Option<&'a str>,
    status: Option<&'a str>,
    prover: Option<&'a str>,
    time_ms: Option<f64>,
    file: Option<&'a str>,
    line: Option<u64>,
    key: Option<&'a str>,
}

impl Goal<'_> {
    /// `name: status (prover, time)`.
    fn describe(&self) -> String {
        let mut s = format!(
            "{}: {}",
            self.name,
            self.status.unwrap_or("no status in the report")
        );
        let mut extra = Vec::new();
        if let Some(p) = self.prover {
            extra.push(p.to_string());
        }
        if let Some(t) = self.time_ms {
            extra.push(format!("{t} ms"));
        }
        if !extra.is_empty() {
            let _ = write!(s, " ({})", extra.join(", "));
        }
        s
    }
}

fn read_goal<'a>(g: &At<'a>) -> Result<Goal<'a>, ViewError> {
    Ok(Goal {
        name: g.str_field("name")?,
        function: g.opt_str("function")?,
        status: g.opt_str("status")?,
        prover: g.opt_str("prover")?,
        time_ms: g.opt("time_ms")?.map(|t| t.number()).transpose()?,
        file: g.opt_str("file")?,
        line: g.opt("line")?.map(|l| l.count()).transpose()?,
        key: g.opt_str("key")?,
    })
}

/// A clause placed on a line: an ACSL property of the report, or a located goal no
/// property claims.
struct Clause {
    line: u64,
    function: String,
    kind: String,
    text: String,
    shown: Shown,
    /// One line per goal, and notes on how the status was decided.
    details: Vec<String>,
}

impl Clause {
    fn title(&self) -> String {
        let mut t = format!("{} `{}`", self.kind, self.text);
        if !self.function.is_empty() {
            let _ = write!(t, " in {}", self.function);
        }
        t
    }
}

/// Whether two file names denote the same file: equal, or one is the other with
/// leading directories.
fn same_file(a: &str, b: &str) -> bool {
    let a = a.trim_start_matches("./");
    let b = b.trim_start_matches("./");
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

/// The clauses of one WP run that belong to `source_name`, and the goals of the
/// run that are located nowhere (no file, no property).
struct RunView {
    clauses: Vec<Clause>,
    unlocated: Vec<String>,
    failed_smoke: Vec<String>,
    warnings: Vec<(Option<u64>, String)>,
}

fn read_run(
    run: &At<'_>,
    is_mine: &dyn Fn(Option<&str>) -> bool,
    lemmas: bool,
) -> Result<RunView, ViewError> {
    let verdict = run.field("verdict")?;
    let verdict_word = verdict.str_field("verdict")?;
    let goals = run
        .field("goals")?
        .items()?
        .iter()
        .map(read_goal)
        .collect::<Result<Vec<_>, _>>()?;
    let by_name: BTreeMap<&str, &Goal> = goals.iter().map(|g| (g.name, g)).collect();
    let (vacuous, failed_smoke) = smoke_failures(run)?;
    let lowering = Lowering {
        unreadable: verdict_word == "unreadable",
        vacuous,
    };
    let mut claimed: Vec<&str> = Vec::new();
    let mut clauses = Vec::new();
    for p in run.field("properties")?.items()? {
        if let Some(c) = property_clause(&p, &by_name, &lowering, is_mine, &mut claimed)? {
            clauses.push(c);
        }
    }
    // Goals no property claims: at their own line when they have one (lemmas are
    // located so), else listed apart.
    let mut unlocated = Vec::new();
    for g in goals.iter().filter(|g| !claimed.contains(&g.name)) {
        match (g.line, g.file) {
            (Some(line), file) if file.is_some() && is_mine(file) => {
                let mut details = vec![g.describe()];
                let function = g.function_name();
                let shown = lowering.apply(Shown::of_goal(g.status), &function, &mut details);
                clauses.push(Clause {
                    line,
                    function,
                    kind: if lemmas {
                        "lemma".to_string()
                    } else {
                        g.key
                            .and_then(|k| k.split('|').nth(1))
                            .unwrap_or("goal")
                            .to_string()
                    },
                    text: g
                        .key
                        .and_then(|k| k.split('|').nth(2))
                        .unwrap_or(g.name)
                        .to_string(),
                    shown,
                    details,
                });
            }
            (_, Some(file)) if !is_mine(Some(file)) => {}
            _ => unlocated.push(g.describe()),
        }
    }
    Ok(RunView {
        clauses,
        unlocated,
        failed_smoke,
        warnings: mine_warnings(run, is_mine)?,
    })
}

/// The functions with a failed smoke test (their proofs are vacuous) and the failed
/// smoke tests as shown.
fn smoke_failures(run: &At<'_>) -> Result<(Vec<String>, Vec<String>), ViewError> {
    let mut vacuous: Vec<String> = Vec::new();
    let mut failed_smoke = Vec::new();
    for s in run.field("smoke_tests")?.items()? {
        if !s.field("passed")?.bool()? {
            let name = s.str_field("name")?;
            let function = s.opt_str("function")?;
            failed_smoke.push(match function {
                Some(f) => format!("{name} (in {f})"),
                None => name.to_string(),
            });
            if let Some(f) = function {
                vacuous.push(f.to_string());
            }
        }
    }
    Ok((vacuous, failed_smoke))
}

/// What a run's verdict withholds from its proofs: all of them when WP's output could
/// not be read, those of functions with a failed smoke test.
struct Lowering {
    unreadable: bool,
    vacuous: Vec<String>,
}

impl Lowering {
    /// Lowers a status the run's verdict does not support, with the reason.
    fn apply(&self, shown: Shown, function: &str, details: &mut Vec<String>) -> Shown {
        if shown != Shown::Proved {
            return shown;
        }
        if self.unreadable {
            details
                .push("WP's output for this run could not be read: nothing is claimed".to_string());
            return Shown::NoResult;
        }
        if self.vacuous.iter().any(|f| f == function) {
            details.push(format!(
                "a smoke test failed in {function}: the proof is vacuous"
            ));
            return Shown::Unproved;
        }
        shown
    }
}

/// The clause of one property of the run, with the worst status of its goals (`None`
/// when it is in another file); its goals are added to `claimed`.
fn property_clause<'a>(
    p: &At<'a>,
    by_name: &BTreeMap<&str, &Goal>,
    lowering: &Lowering,
    is_mine: &dyn Fn(Option<&str>) -> bool,
    claimed: &mut Vec<&'a str>,
) -> Result<Option<Clause>, ViewError> {
    let names = p
        .field("goals")?
        .items()?
        .iter()
        .map(|g| g.str())
        .collect::<Result<Vec<_>, _>>()?;
    claimed.extend(names.iter().copied());
    if !is_mine(p.opt_str("file")?) {
        return Ok(None);
    }
    let function = p.str_field("function")?.to_string();
    let property_status = match p.opt("status")? {
        None => "missing".to_string(),
        Some(s) => match (s.v.as_str(), s.v.get("other").and_then(Value::as_str)) {
            (Some(t), _) => t.to_string(),
            (None, Some(o)) => o.to_string(),
            _ => "unrecognized".to_string(),
        },
    };
    let mut details = Vec::new();
    let mut shown = if names.is_empty() {
        details.push("no WP goal of the report is matched to this clause".to_string());
        Shown::NoResult
    } else {
        let mut worst = Shown::Proved;
        for n in &names {
            match by_name.get(n) {
                Some(g) => {
                    worst = worst.max(Shown::of_goal(g.status));
                    details.push(g.describe());
                }
                None => {
                    worst = worst.max(Shown::NoResult);
                    details.push(format!("{n}: no result in the report"));
                }
            }
        }
        worst
    };
    details.push(format!("Frama-C's property status: {property_status}"));
    if property_status == "invalid_or_unreachable" {
        shown = Shown::Failed;
    }
    shown = lowering.apply(shown, &function, &mut details);
    Ok(Some(Clause {
        line: p.field("line")?.count()?,
        function,
        kind: p.str_field("kind")?.to_string(),
        text: p.str_field("text")?.to_string(),
        shown,
        details,
    }))
}

/// The run's warnings about this file, with their lines.
fn mine_warnings(
    run: &At<'_>,
    is_mine: &dyn Fn(Option<&str>) -> bool,
) -> Result<Vec<(Option<u64>, String)>, ViewError> {
    let mut warnings = Vec::new();
    for w in run.field("warnings")?.items()? {
        if is_mine(w.opt_str("file")?) {
            let line = w.opt("line")?.map(|l| l.count()).transpose()?;
            warnings.push((line, w.str_field("text")?.to_string()));
        }
    }
    Ok(warnings)
}

impl Goal<'_> {
    /// The function of a goal, else the one its key (`function|kind|...`) names, else
    /// empty.
    fn function_name(&self) -> String {
        self.function
            .or_else(|| self.key.and_then(|k| k.split('|').next()))
            .unwrap_or("")
            .to_string()
    }
}

/// The verdict of a report in words.
fn verdict_words(v: &At<'_>) -> Result<(String, String), ViewError> {
    let word = v.str_field("verdict")?;
    let n = |k: &str| -> Result<u64, ViewError> {
        Ok(v.opt(k)?.map(|x| x.count()).transpose()?.unwrap_or(0))
    };
    let text = match word {
        "proved" => format!("proved ({} goals)", n("goals")?),
        "not_proved" => format!("not proved ({} of {} goals)", n("unproved")?, n("goals")?),
        "no_goals" => "no goals: WP generated none, nothing was checked".to_string(),
        "inconsistent" => "inconsistent: a smoke test failed, proofs there are vacuous".to_string(),
        "unreadable" => format!(
            "unreadable: nothing is claimed ({})",
            v.opt_str("reason")?.unwrap_or("no reason given")
        ),
        other => other.to_string(),
    };
    let class = if word.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
        word.to_string()
    } else {
        "other".to_string()
    };
    Ok((class, text))
}

/// Renders the C view of `source` (named `source_name`, as the page shows it) with
/// the results of `report`, a `vera.c-verify.v1` payload.
///
/// The fragment holds a summary (the report's verdict and goal counts, and how many
/// clauses are shown proved, not proved, failed and with no result), then
/// `<table class="source">` with one `<tr id="L{n}">` per source line. A line that
/// holds clauses carries the class of the worst of them (`goal-proved`,
/// `goal-unproved`, `goal-failed`, `goal-unknown` for no result), and each clause a
/// badge whose tooltip and expandable list name its goals and their prover results.
/// A goal `valid` is proved; `timeout` or `unknown`, not proved; `failed` or
/// `invalid`, failed; `not_tried`, a status the view does not know, or a goal absent
/// from the report, no result. A clause Frama-C reports `invalid_or_unreachable` is
/// failed whatever its goals.
/// Goals the report does not locate, clauses beyond the last line, failed smoke
/// tests and Frama-C's warnings for the file are listed after the table.
///
/// The clauses of `source_name` are those whose file is that name, or the name with
/// leading directories (either way round); a clause without a file belongs to the
/// report's main file.
///
/// # Errors
///
/// [`ViewError`] when the payload is not `vera.c-verify.v1`, lacks a field the view
/// needs or holds one of another type, or does not name `source_name` at all.
pub fn render_c(source_name: &str, source: &str, report: &Value) -> Result<String, ViewError> {
    let root = At::root(report);
    let tag = root.schema_tag();
    if tag != "vera.c-verify.v1" {
        return Err(ViewError::Schema {
            expected: "vera.c-verify.v1",
            found: tag,
        });
    }
    let rep = root.field("report")?;
    let main_file = rep.opt_str("file")?;
    let mut files: Vec<&str> = Vec::new();
    if let Some(fs) = rep.opt("files")? {
        for f in fs.items()? {
            files.push(f.str()?);
        }
    }
    let main_file = main_file.or(files.first().copied());
    let is_mine = |file: Option<&str>| -> bool {
        match file.or(main_file) {
            Some(f) => same_file(f, source_name),
            // A report that names no file at all is about the file asked for.
            None => true,
        }
    };
    let mut runs = Vec::new();
    for s in rep.field("segments")?.items()? {
        runs.push(read_run(&s.field("run")?, &is_mine, false)?);
    }
    if let Some(l) = rep.opt("lemmas")? {
        runs.push(read_run(&l, &is_mine, true)?);
    }
    let covered = main_file.is_none()
        || files
            .iter()
            .chain(main_file.iter())
            .any(|f| is_mine(Some(f)))
        || runs.iter().any(|r| !r.clauses.is_empty());
    if !covered {
        let mut named: Vec<&str> = files.clone();
        if let Some(m) = main_file {
            if !named.contains(&m) {
                named.insert(0, m);
            }
        }
        return Err(ViewError::FileNotInReport {
            source_name: source_name.to_string(),
            files: named.join(", "),
        });
    }

    let lines: Vec<&str> = source.lines().collect();
    let mut by_line: BTreeMap<u64, Vec<&Clause>> = BTreeMap::new();
    let mut outside: Vec<&Clause> = Vec::new();
    let mut counts: BTreeMap<Shown, usize> = BTreeMap::new();
    for c in runs.iter().flat_map(|r| &r.clauses) {
        *counts.entry(c.shown).or_default() += 1;
        if c.line >= 1 && c.line <= lines.len() as u64 {
            by_line.entry(c.line).or_default().push(c);
        } else {
            outside.push(c);
        }
    }

    let mut o = String::new();
    o.push_str("<section class=\"c-view\">\n");
    let _ = writeln!(o, "<h2 class=\"c-file\">{}</h2>", escape(source_name));
    summary(&mut o, &rep, &counts)?;
    source_table(&mut o, &lines, &by_line);
    apart(&mut o, &runs, &outside);
    o.push_str("</section>\n");
    Ok(o)
}

/// The report's verdict, its facts (goals, proved, timeouts, Frama-C version, prover)
/// and the clauses counted by status.
fn summary(o: &mut String, rep: &At<'_>, counts: &BTreeMap<Shown, usize>) -> Result<(), ViewError> {
    let (vclass, vtext) = verdict_words(&rep.field("verdict")?)?;
    let _ = writeln!(
        o,
        "<p class=\"verdict verdict-{}\">WP verdict: {}</p>",
        escape(&vclass),
        escape(&vtext)
    );
    let mut facts = Vec::new();
    for (k, label) in [
        ("goals", "goals"),
        ("proved", "proved"),
        ("timeouts", "timeouts"),
    ] {
        if let Some(n) = rep.opt(k)? {
            facts.push(format!("{} {label}", n.count()?));
        }
    }
    if let Some(v) = rep.opt_str("frama_c_version")? {
        facts.push(format!("Frama-C {v}"));
    }
    if let Some(p) = rep.opt_str("prover")? {
        facts.push(format!("prover {p}"));
    }
    if !facts.is_empty() {
        let _ = writeln!(
            o,
            "<p class=\"report-facts\">In the whole report: {}</p>",
            escape(&facts.join(" · "))
        );
    }
    o.push_str("<ul class=\"counts clause-counts\" aria-label=\"ACSL clauses by status\">\n");
    for s in [
        Shown::Proved,
        Shown::Unproved,
        Shown::Failed,
        Shown::NoResult,
    ] {
        let n = counts.get(&s).copied().unwrap_or(0);
        let _ = writeln!(
            o,
            "<li class=\"count {}\" data-status=\"{}\"><span class=\"value\">{n}</span> {}</li>",
            s.class(),
            s.class().trim_start_matches("goal-"),
            s.label()
        );
    }
    o.push_str("</ul>\n");

    Ok(())
}

/// The source, one row per line, each with the badges of its clauses and the colour of
/// the worst.
fn source_table(o: &mut String, lines: &[&str], by_line: &BTreeMap<u64, Vec<&Clause>>) {
    o.push_str("<table class=\"source\">\n<tbody>\n");
    for (i, text) in lines.iter().enumerate() {
        let n = i + 1;
        let clauses = by_line.get(&(n as u64));
        let worst = clauses.and_then(|cs| cs.iter().map(|c| c.shown).max());
        match worst {
            Some(w) => {
                let _ = write!(o, "<tr id=\"L{n}\" class=\"{}\">", w.class());
            }
            None => {
                let _ = write!(o, "<tr id=\"L{n}\">");
            }
        }
        let _ = write!(
            o,
            "<td class=\"lineno\"><a href=\"#L{n}\">{n}</a></td><td class=\"code\"><code>{}</code></td><td class=\"clauses\">",
            escape(text)
        );
        for c in clauses.into_iter().flatten() {
            badge(o, c);
        }
        o.push_str("</td></tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
}

/// What the source table cannot show: clauses beyond its last line, goals matched to
/// no clause, failed smoke tests and Frama-C's warnings.
fn apart(o: &mut String, runs: &[RunView], outside: &[&Clause]) {
    if !outside.is_empty() {
        o.push_str("<section class=\"c-outside\">\n<h3>Clauses beyond the last line of the source</h3>\n<p>The report places these clauses after the end of this text: it may be about another version of the file.</p>\n<ul>\n");
        for c in outside {
            let _ = write!(o, "<li>line {}: ", c.line);
            badge(o, c);
            o.push_str("</li>\n");
        }
        o.push_str("</ul>\n</section>\n");
    }
    let unlocated: Vec<&String> = runs.iter().flat_map(|r| &r.unlocated).collect();
    if !unlocated.is_empty() {
        o.push_str("<section class=\"c-unlocated\">\n<h3>Goals not matched to a clause</h3>\n<p>The report gives these goals no line and no clause claims them.</p>\n<ul>\n");
        for g in unlocated {
            let _ = writeln!(o, "<li>{}</li>", escape(g));
        }
        o.push_str("</ul>\n</section>\n");
    }
    let smoke: Vec<&String> = runs.iter().flat_map(|r| &r.failed_smoke).collect();
    if !smoke.is_empty() {
        o.push_str("<section class=\"c-smoke\">\n<h3>Failed smoke tests</h3>\n<p>The preconditions contradict each other or the code is dead: the proofs in these functions are vacuous.</p>\n<ul>\n");
        for s in smoke {
            let _ = writeln!(o, "<li class=\"goal-failed\">{}</li>", escape(s));
        }
        o.push_str("</ul>\n</section>\n");
    }
    let warnings: Vec<&(Option<u64>, String)> = runs.iter().flat_map(|r| &r.warnings).collect();
    if !warnings.is_empty() {
        o.push_str("<section class=\"c-warnings\">\n<h3>Frama-C warnings</h3>\n<ul>\n");
        for (line, text) in warnings {
            match line {
                Some(l) if *l >= 1 => {
                    let _ = writeln!(
                        o,
                        "<li><a href=\"#L{l}\">line {l}</a>: {}</li>",
                        escape(text)
                    );
                }
                _ => {
                    let _ = writeln!(o, "<li>{}</li>", escape(text));
                }
            }
        }
        o.push_str("</ul>\n</section>\n");
    }
}

/// One clause's badge: its status as a summary with the goals in the tooltip and in
/// the expandable list.
fn badge(o: &mut String, c: &Clause) {
    let title = format!("{}\n{}", c.title(), c.details.join("\n"));
    let _ = write!(
        o,
        "<details class=\"clause {}\" data-kind=\"{}\"><summary class=\"badge\" title=\"{}\">{}: {}</summary><ul class=\"goals\">",
        c.shown.class(),
        escape(&c.kind),
        escape(&title),
        escape(&c.kind),
        c.shown.label()
    );
    let _ = write!(o, "<li class=\"clause-text\">{}</li>", escape(&c.title()));
    for d in &c.details {
        let _ = write!(o, "<li>{}</li>", escape(d));
    }
    o.push_str("</ul></details>");
}
