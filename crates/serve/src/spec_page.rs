//! The requirements pages: the requirement table with the audit's flags, a
//! requirement's findings with their evidence, and editing a requirement (a preview
//! of the diff, then a guarded write through [`pipeline::spec_edit`]).

use crate::app::{self, App};
use crate::page::{self, enc, escape, hidden};
use crate::payload::{Assignment, Audit, Check, Envelope, Evidence, Saved, Trace};
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use logic::SourceFile;
use reqs::spec::{Origin, Spec};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The audit of a spec as a check job.
pub fn audit_job(app: &App, rel: &str) -> Result<crate::jobs::Spec, String> {
    let cache = app.scratch.path().join("audit");
    crate::jobs::file_job(app, "audit", rel, |file| {
        let mut args = vec![
            "audit".to_string(),
            file,
            "--format".into(),
            "json".into(),
            "--all-conflicts".into(),
            "10".into(),
            "--cache-dir".into(),
            cache.display().to_string(),
        ];
        args.extend(app.check_args.iter().cloned());
        args
    })
}

/// `?path=` (and what the page was told after a save).
#[derive(serde::Deserialize)]
pub struct SpecQuery {
    path: String,
    #[serde(default)]
    saved: Option<String>,
    #[serde(default)]
    id: Option<String>,
}

struct Loaded {
    text: String,
    /// The bytes are UTF-8 (`text` is them exactly; else it is a lossy reading, which
    /// must not be written back).
    utf8: bool,
    version: String,
    spec: Result<Spec, String>,
}

fn load(app: &App, rel: &str) -> Result<Loaded, Response> {
    let path = app
        .root
        .existing(rel)
        .map_err(|e| app::path_refused(app, e))?;
    let bytes = match app::read_limited(&path) {
        Ok(Some(b)) => b,
        Ok(None) => {
            return Err(app::error_page(
                app,
                StatusCode::NOT_FOUND,
                "Not available",
                "the file is gone",
            ))
        }
        Err(e) => {
            return Err(app::error_page(
                app,
                StatusCode::UNPROCESSABLE_ENTITY,
                "Cannot read",
                &e.to_string(),
            ))
        }
    };
    let version = page::version(Some(&bytes));
    let utf8 = std::str::from_utf8(&bytes).is_ok();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let spec =
        reqs::spec::parse_spec(SourceFile::new(rel, text.clone())).map_err(|d| d.to_string());
    Ok(Loaded {
        text,
        utf8,
        version,
        spec,
    })
}

/// The flags of one requirement, from an audit report.
#[derive(Default, Debug)]
struct Flags {
    conflicting: bool,
    vacuous: bool,
    redundant: bool,
    not_violatable: bool,
    undecided: bool,
    /// Some check was not run (e.g. vacuity and redundancy while inconsistent).
    skipped: bool,
    /// A saved ambiguity screening flagged it (several readings).
    ambiguous: bool,
    /// The environment can force it into a conflict (for some inputs).
    env_conflict: bool,
    /// A timed audit found runs that reach a dead end with it (no next step satisfies
    /// it and the others of the conflict).
    dead_end: bool,
    /// A timed audit's horizon is too short for its own durations: its verdicts say
    /// nothing about the runs that would show them (`bound_too_small`, `fits: false`).
    bound_too_small: bool,
}

impl Flags {
    fn classes(&self) -> Vec<&'static str> {
        [
            (self.conflicting, "conflicting"),
            (self.vacuous, "vacuous"),
            (self.redundant, "redundant"),
            (self.not_violatable, "not-violatable"),
            (self.undecided, "undecided"),
            (self.env_conflict, "conflict-for-some-inputs"),
            (self.dead_end, "dead-end"),
            (self.bound_too_small, "horizon-too-short"),
            (self.ambiguous, "ambiguous"),
            (self.skipped, "not-all-checked"),
        ]
        .into_iter()
        .filter_map(|(on, class)| on.then_some(class))
        .collect()
    }
}

fn flags(report: &Audit) -> BTreeMap<String, Flags> {
    let mut out: BTreeMap<String, Flags> = BTreeMap::new();
    for c in report.conflicts() {
        for id in c {
            out.entry(id).or_default().conflicting = true;
        }
    }
    for (ids, _) in report.env_conflicts() {
        for id in ids {
            out.entry(id.clone()).or_default().env_conflict = true;
        }
    }
    for d in report.dead_ends() {
        for id in &d.requirements {
            out.entry(id.clone()).or_default().dead_end = true;
        }
    }
    for id in &report.bound_too_small {
        out.entry(id.clone()).or_default().bound_too_small = true;
    }
    for r in &report.requirements {
        let f = out.entry(r.id.clone()).or_default();
        f.bound_too_small |= r.fits == Some(false);
        let [vd, vm, vi, re] = r.statuses();
        f.vacuous |= vd == "vacuous" || vm == "vacuous";
        f.redundant |= re == "redundant";
        f.not_violatable |= vi == "implied-by-domain";
        f.undecided |= r.statuses().contains(&"unknown");
        f.skipped |= r.statuses().contains(&"skipped");
    }
    out
}

fn spec_link(rel: &str) -> String {
    format!("/spec?path={}", enc(rel))
}

fn req_link(rel: &str, id: &str) -> String {
    format!("/spec/req?path={}&id={}", enc(rel), enc(id))
}

/// The run button, the cancel button and the progress box of a check.
pub fn job_box_for(app: &App, rel: &str, kind: &str, label: &str) -> String {
    let active = app.jobs.active(rel);
    let (state, status) = match &active {
        Some(v) if v.state == crate::jobs::State::Queued => (
            "queued",
            format!(
                "queued: {} check{} ahead (at most {} run at once)",
                v.ahead.unwrap_or(0),
                if v.ahead == Some(1) { "" } else { "s" },
                v.limit
            ),
        ),
        Some(_) => ("running", "running…".to_string()),
        None => ("idle", String::new()),
    };
    format!(
        "<div class=\"actions\"><button id=\"run-{kind_id}\" class=\"run\" data-kind=\"{kind}\" data-path=\"{p}\">{label}</button>\
         <button id=\"cancel\" class=\"cancel\" hidden>Cancel</button></div>\
         <div id=\"job\" data-state=\"{state}\" data-job=\"{job}\"><span class=\"job-status\">{status}</span><pre class=\"job-log\"></pre></div>",
        kind_id = if kind == "consistency" { "check" } else { kind },
        kind = kind,
        p = page::attr(rel),
        label = escape(label),
        job = active.as_ref().map(|v| v.id.to_string()).unwrap_or_default(),
        status = escape(&status),
    )
}

/// When the last check ran, and a warning when the file changed since.
pub fn stale_note_for(stored: &crate::jobs::Stored, version: &str) -> String {
    let mut s = format!(
        "<p class=\"meta\">Last {} run: {:.1} s, exit status {}.</p>",
        escape(&stored.kind),
        stored.seconds,
        stored.exit
    );
    if stored.version != version {
        s.push_str(&page::message(
            "stale",
            "The file changed since this check ran: these results are about the old text. Run the check again.",
        ));
    }
    s
}

/// The spec page: the requirement table, with the last audit's findings.
pub async fn show(State(app): State<Arc<App>>, Query(q): Query<SpecQuery>) -> Response {
    let l = match load(&app, &q.path) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let rel = &q.path;
    let mut body = String::new();
    let title = match &l.spec {
        Ok(s) => s.name.clone(),
        Err(_) => rel.clone(),
    };
    body.push_str(&format!(
        "<h1>{}</h1><p class=\"meta\"><code>{}</code> · version {}</p>",
        escape(&title),
        escape(rel),
        escape(&l.version)
    ));
    if let Some(id) = &q.saved {
        body.push_str(&page::message(
            "notice",
            &format!(
                "Saved: requirement <code>{}</code> was written to <code>{}</code>. Run the audit again to see its effect.",
                escape(id),
                escape(rel)
            ),
        ));
    }
    body.push_str(&job_box_for(&app, rel, "audit", "Run audit"));
    let spec = match &l.spec {
        Ok(s) => s,
        Err(d) => {
            body.push_str(&format!(
                "<section><h2>The spec has errors</h2><pre class=\"diagnostics\">{}</pre></section>",
                escape(d)
            ));
            return Html(page::frame(
                &title,
                &[(String::new(), rel.clone())],
                &app.csrf,
                &body,
            ))
            .into_response();
        }
    };
    let stored = app.jobs.result(rel);
    let audit = stored.as_ref().and_then(|s| Audit::of(&s.json));
    let report = audit.as_ref();
    let mut fl = report.map(flags).unwrap_or_default();
    let screenings = saved_about(&app, rel, spec);
    for s in screenings.iter().filter(|s| !s.proposals) {
        for id in &s.ids {
            fl.entry(id.clone()).or_default().ambiguous = true;
        }
    }
    if let Some(s) = &stored {
        body.push_str(&stale_note_for(s, &l.version));
    }
    if let Some(r) = report {
        body.push_str(&consistency_section(rel, spec, r));
    } else if let Some(s) = &stored {
        body.push_str(&format!(
            "<section><h2>Last check</h2><p>The report is <code>{}</code>; this page shows the plain audit's findings only. Its JSON:</p><pre class=\"json\">{}</pre></section>",
            escape(&Some(Envelope::of(&s.json)).filter(|t| !t.is_empty()).unwrap_or_else(|| "?".into())),
            escape(&serde_json::to_string_pretty(&s.json).unwrap_or_default())
        ));
    } else {
        body.push_str("<p class=\"meta\">Not audited yet on this page: run the audit to see conflicts, vacuity, violatability and redundancy.</p>");
    }
    body.push_str("<section id=\"ambiguity\"><h2>Ambiguity</h2>");
    if screenings.is_empty() {
        body.push_str(&format!(
            "<p class=\"meta\">No saved ambiguity screening or clarification proposals of this spec in the folder. <code>vera ambiguity {} --format json -o {}.ambiguity.json</code> samples several formalizations of each requirement with a language model and groups them by solver equivalence (docs/formalize.md); the report then shows here, and <code>vera clarify</code> proposals can be chosen from the page.</p>",
            escape(rel),
            escape(rel.trim_end_matches(".toml"))
        ));
    } else {
        body.push_str("<ul class=\"saved-reports\">");
        for s in &screenings {
            body.push_str(&saved_line(s));
        }
        body.push_str("</ul>");
    }
    body.push_str("</section>");
    // "no finding" only for what the audit checked, and only while its text is current.
    let checked: Vec<&str> = match (report, &stored) {
        (Some(r), Some(st)) if st.version == l.version => {
            r.requirements.iter().map(|x| x.id.as_str()).collect()
        }
        _ => Vec::new(),
    };
    body.push_str(&requirements_table(rel, spec, &fl, &checked));
    Html(page::frame(
        &title,
        &[(String::new(), rel.clone())],
        &app.csrf,
        &body,
    ))
    .into_response()
}

/// A saved report about one spec: an ambiguity screening or a proposals file.
struct SavedAbout {
    /// Its path relative to the folder.
    rel: String,
    /// `vera.clarify.v1`: clarification proposals; otherwise a screening.
    proposals: bool,
    /// The requirements it flags (screening) or has a proposal for, whose text in the
    /// spec is still the text the report was made for.
    ids: Vec<String>,
    /// The same, for requirements whose text has changed since (or that are gone): the
    /// report says nothing about their current text.
    stale: Vec<String>,
}

/// Saved ambiguity screenings (`vera.ambiguity.v1`, `vera.ambiguity-timed.v1`, the first
/// screening of `vera.clarify-run.v1` / `vera.clarify-run-timed.v1`) and clarification
/// proposals (`vera.clarify.v1`) of the spec at `rel`. A report names its spec by `file`
/// as written, so it is matched by that path relative to the folder, or by file name.
/// A requirement counts only while its text is the one the report was made for.
fn saved_about(app: &App, rel: &str, spec: &Spec) -> Vec<SavedAbout> {
    let name = std::path::Path::new(rel).file_name();
    let current = |id: &str, text: &str| {
        spec.requirements
            .iter()
            .any(|r| r.id == id && pipeline::clarify::same_words(&r.text, text))
    };
    let mut out = Vec::new();
    for e in crate::workspace::scan(&app.root).entries {
        let crate::workspace::Kind::Report { schema } = &e.kind else {
            continue;
        };
        let proposals = match schema.as_str() {
            "vera.ambiguity.v1"
            | "vera.ambiguity-timed.v1"
            | "vera.clarify-run.v1"
            | "vera.clarify-run-timed.v1" => false,
            "vera.clarify.v1" => true,
            _ => continue,
        };
        let Some(saved) = app
            .root
            .existing(&e.rel)
            .ok()
            .and_then(|p| app::read_limited(&p).ok().flatten())
            .and_then(|b| serde_json::from_slice::<Saved>(&b).ok())
        else {
            continue;
        };
        let file = saved.file.as_str();
        let same =
            file == rel || (!file.is_empty() && std::path::Path::new(file).file_name() == name);
        if !same {
            continue;
        }
        // (id, the text the report was made for)
        let items = if proposals {
            saved.proposed()
        } else {
            saved.flagged()
        };
        let (ids, stale): (Vec<_>, Vec<_>) =
            items.into_iter().partition(|(id, text)| current(id, text));
        out.push(SavedAbout {
            rel: e.rel,
            proposals,
            ids: ids.into_iter().map(|(i, _)| i).collect(),
            stale: stale.into_iter().map(|(i, _)| i).collect(),
        });
    }
    out
}

/// One line of the spec page's list of saved reports.
fn saved_line(s: &SavedAbout) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let what = if s.proposals {
        format!(
            "clarifications proposed for {} requirement{}",
            s.ids.len(),
            plural(s.ids.len())
        )
    } else {
        format!(
            "{} requirement{} with several readings",
            s.ids.len(),
            plural(s.ids.len())
        )
    };
    let ids = if s.ids.is_empty() {
        String::new()
    } else {
        format!(" ({})", escape(&s.ids.join(", ")))
    };
    let stale = if s.stale.is_empty() {
        String::new()
    } else {
        format!(
            "; made for an earlier text of {} (not shown as current)",
            escape(&s.stale.join(", "))
        )
    };
    format!(
        "<li class=\"{}\"><a href=\"{}\"><code>{}</code></a>: {what}{ids}{stale}</li>",
        if s.proposals {
            "proposals"
        } else {
            "screening"
        },
        escape(&format!("/report?path={}", enc(&s.rel))),
        escape(&s.rel),
    )
}

fn text_of<'a>(spec: &'a Spec, id: &str) -> Option<&'a str> {
    spec.requirements
        .iter()
        .find(|r| r.id == id)
        .map(|r| r.text.as_str())
        .or_else(|| {
            spec.domain
                .iter()
                .find(|d| d.id == id)
                .and_then(|d| d.text.as_deref())
        })
}

fn member_list(rel: &str, spec: &Spec, ids: &[String]) -> String {
    let mut s = String::from("<ul class=\"members\">");
    for id in ids {
        let is_req = spec.requirements.iter().any(|r| &r.id == id);
        let formula = spec
            .requirements
            .iter()
            .find(|r| &r.id == id)
            .and_then(|r| r.formula.as_ref())
            .map(logic::print::term)
            .or_else(|| {
                spec.domain
                    .iter()
                    .find(|d| &d.id == id)
                    .map(|d| logic::print::term(&d.formula))
            })
            .unwrap_or_default();
        s.push_str(&format!(
            "<li data-id=\"{ide}\">{link} <span class=\"kind\">{kind}</span> {text}<br><code>{f}</code>{edit}</li>",
            ide = escape(id),
            link = if is_req {
                format!("<a href=\"{}\"><b>{}</b></a>", escape(&req_link(rel, id)), escape(id))
            } else {
                format!("<b>{}</b>", escape(id))
            },
            kind = if is_req { "requirement" } else { "domain constraint" },
            edit = if is_req {
                format!(
                    " <a class=\"edit\" href=\"{}\">edit</a>",
                    escape(&format!("/spec/edit?path={}&id={}", enc(rel), enc(id)))
                )
            } else {
                String::new()
            },
            text = escape(text_of(spec, id).unwrap_or("")),
            f = escape(&formula),
        ));
    }
    s.push_str("</ul>");
    s
}

fn consistency_section(rel: &str, spec: &Spec, r: &Audit) -> String {
    let c = &r.consistency;
    let st = if c.status.is_empty() {
        "unknown"
    } else {
        c.status.as_str()
    };
    let mut s = format!("<section><h2>Consistency</h2><div id=\"consistency\" data-status=\"{}\" class=\"verdict {}\">", escape(st), escape(st));
    let conflicts = r.conflicts();
    match st {
        "consistent" => s.push_str(
            "Consistent: some state satisfies every requirement and domain constraint together.",
        ),
        "inconsistent" => {
            s.push_str(&format!(
                "Inconsistent: no state satisfies every requirement. {} minimal conflict{}{}.",
                conflicts.len(),
                if conflicts.len() == 1 { "" } else { "s" },
                if c.complete {
                    " (the complete list)"
                } else {
                    " (there may be more)"
                }
            ));
        }
        "domain-inconsistent" => s.push_str("The domain constraints alone cannot all hold."),
        _ => s.push_str(&format!(
            "Undecided: {}",
            escape(c.reason.as_deref().unwrap_or("the solver gave no answer"))
        )),
    }
    s.push_str("</div>");
    for (i, ids) in conflicts.iter().enumerate() {
        s.push_str(&format!(
            "<div class=\"conflict\" data-index=\"{i}\"><h3>Conflict {} — these cannot all hold at once</h3>{}<p class=\"hint\">Edit one of them (the edit link of its row) so that they agree, then run the audit again.</p></div>",
            i + 1,
            member_list(rel, spec, ids)
        ));
    }
    let env = r.env_conflicts();
    if !env.is_empty() {
        s.push_str("<h3>Conflicts the environment can force</h3><p>The requirements can all hold, but for some inputs (or some history of inputs) no behaviour of the system satisfies these together:</p>");
        for (i, (ids, question)) in env.iter().enumerate() {
            s.push_str(&format!(
                "<div class=\"conflict env-conflict\" data-index=\"{i}\">{}{}</div>",
                member_list(rel, spec, ids),
                if question.is_empty() {
                    String::new()
                } else {
                    format!("<p class=\"hint\">{}</p>", escape(question))
                }
            ));
        }
    }
    let dead = r.dead_ends();
    if !dead.is_empty() {
        s.push_str("<h3>Dead ends over time</h3><p>Some runs satisfy every requirement up to a step from which no next step satisfies these together, whatever it is:</p>");
        for (i, d) in dead.iter().enumerate() {
            s.push_str(&format!(
                "<div class=\"conflict dead-end\" data-index=\"{i}\">{}<p class=\"hint\">A run that is stuck after step {}:</p>{}</div>",
                member_list(rel, spec, &d.requirements),
                d.dead_end_at,
                trace_table(d.prefix.as_ref())
            ));
        }
    }
    // Checks over time that did not give an answer are said so, never left out.
    for (key, what, check) in [
        (
            "rt_inconsistency",
            "Dead ends over time",
            &r.rt_inconsistency,
        ),
        (
            "environment",
            "Conflicts the environment can force",
            &r.environment,
        ),
    ] {
        if check.status == "unknown" {
            s.push_str(&format!(
                "<p class=\"undecided\" data-check=\"{key}\">{what}: undecided: {}</p>",
                escape(check.reason.as_deref().unwrap_or(""))
            ));
        }
    }
    if !r.bound_too_small.is_empty() {
        s.push_str(&format!(
            "<div class=\"horizon-too-short\"><h3>Horizon too short</h3><p>The audit looked at runs of {} steps; these requirements need longer runs to show what they ask, so their verdicts are not conclusive. Run the audit with a longer <code>--horizon</code> (or set <code>horizon</code> in the spec's <code>[time]</code> table):</p>{}</div>",
            r.run_length(),
            member_list(rel, spec, &r.bound_too_small)
        ));
    }
    if let Some(n) = &r.summary {
        s.push_str(&format!(
            "<p class=\"counts\"><span>{} requirements</span> <span>{} formalized</span> <span class=\"c-vacuous\">{} vacuous</span> <span class=\"c-redundant\">{} redundant</span> <span>{} implied by the domain</span> <span class=\"c-undecided\">{} undecided</span></p>",
            n.requirements, n.formalized, n.vacuous, n.redundant, n.implied_by_domain, n.unknown
        ));
    }
    s.push_str("</section>");
    s
}

fn requirements_table(
    rel: &str,
    spec: &Spec,
    fl: &BTreeMap<String, Flags>,
    checked: &[&str],
) -> String {
    let mut s = String::from(
        "<section><h2>Requirements</h2><div class=\"filters\"><input id=\"filter\" type=\"search\" placeholder=\"Search id, text or formula\" aria-label=\"Search\">\
         <select id=\"flag-filter\" aria-label=\"Show\"><option value=\"\">all</option><option value=\"finding\">with a finding</option><option value=\"conflicting\">conflicting</option><option value=\"vacuous\">vacuous</option><option value=\"redundant\">redundant</option><option value=\"not-violatable\">not violatable</option><option value=\"undecided\">undecided</option><option value=\"not-all-checked\">not all checked</option><option value=\"ambiguous\">ambiguous</option><option value=\"conflict-for-some-inputs\">conflict for some inputs</option><option value=\"dead-end\">dead end over time</option><option value=\"horizon-too-short\">horizon too short</option><option value=\"unformalized\">not formalized</option></select></div>\
         <table id=\"requirements\"><thead><tr><th>id</th><th>text</th><th>formula</th><th>flags</th><th></th></tr></thead><tbody>",
    );
    for r in &spec.requirements {
        let f = fl.get(&r.id);
        let mut classes: Vec<&str> = f.map(Flags::classes).unwrap_or_default();
        let formula = match (&r.formula, &r.timed) {
            (Some(t), _) => logic::print::term(t),
            (None, Some(_)) => "(timed pattern)".into(),
            (None, None) => {
                classes.push("unformalized");
                String::new()
            }
        };
        // The formula read back in plain English, for the reviewer to sign off on both.
        let reads = r
            .formula
            .as_ref()
            .map(|t| {
                format!(
                    "<div class=\"reads\">reads: {}</div>",
                    escape(&pipeline::readback::sentence(spec, t))
                )
            })
            .unwrap_or_default();
        if classes
            .iter()
            .any(|c| *c != "unformalized" && *c != "not-all-checked")
        {
            classes.push("finding");
        }
        let badges: String = classes
            .iter()
            .filter(|c| **c != "finding")
            .map(|c| {
                match spec
                    .reviews
                    .iter()
                    .find(|v| v.requirement == r.id && v.finding == *c)
                {
                    Some(v) => format!(
                        "<span class=\"flag flag-{c} reviewed\" title=\"reviewed by {} on {}: {}\">{} · reviewed</span>",
                        escape(&v.reviewed_by),
                        escape(&v.date),
                        escape(&v.reason),
                        c.replace('-', " ")
                    ),
                    None => format!(
                        "<span class=\"flag flag-{c}\">{}</span>",
                        c.replace('-', " ")
                    ),
                }
            })
            .collect();
        let origin = match r.origin {
            Origin::Hand => "",
            Origin::Model => "<span class=\"flag flag-model\">model, not reviewed</span>",
            Origin::ModelAccepted => "<span class=\"flag flag-accepted\">model, accepted</span>",
        };
        s.push_str(&format!(
            "<tr data-id=\"{id}\" class=\"{cls}\"><td><a href=\"{link}\">{id}</a></td><td>{text}</td><td><code>{formula}</code>{reads}</td><td class=\"flags\">{badges}{origin}{none}</td><td><a class=\"edit\" data-id=\"{id}\" href=\"{edit}\">edit</a></td></tr>",
            id = escape(&r.id),
            cls = classes.join(" "),
            link = escape(&req_link(rel, &r.id)),
            text = escape(&r.text),
            formula = escape(&formula),
            reads = reads,
            badges = badges,
            origin = origin,
            none = if checked.contains(&r.id.as_str()) && badges.is_empty() && !classes.contains(&"unformalized") && r.formula.is_some() { "<span class=\"flag flag-ok\">no finding</span>" } else { "" },
            edit = escape(&format!("/spec/edit?path={}&id={}", enc(rel), enc(&r.id))),
        ));
    }
    s.push_str("</tbody></table></section>");
    s
}

/// A plain audit's witness state, or a timed audit's trace (rows of steps with values).
fn evidence(e: &Evidence) -> String {
    match &e.trace {
        Some(t) => trace_table(Some(t)),
        None => e.witness.as_deref().map(witness_table).unwrap_or_default(),
    }
}

/// A run as a table of intervals (nothing without a run).
fn trace_table(t: Option<&Trace>) -> String {
    let Some(t) = t else {
        return String::new();
    };
    let mut s = String::from("<table class=\"witness trace\"><thead><tr><th>steps</th><th>time</th><th>values</th></tr></thead><tbody>");
    for r in &t.rows {
        let values: Vec<String> = r
            .values
            .iter()
            .map(|x| format!("{} = {}", x.variable, x.value))
            .collect();
        s.push_str(&format!(
            "<tr><td>{}–{}</td><td>{} – {}</td><td>{}</td></tr>",
            r.from,
            r.to,
            escape(&r.from_time),
            escape(&r.to_time),
            escape(&values.join(", "))
        ));
    }
    s.push_str("</tbody></table>");
    s
}

fn witness_table(w: &[Assignment]) -> String {
    let mut s = String::from(
        "<table class=\"witness\"><thead><tr><th>variable</th><th>value</th></tr></thead><tbody>",
    );
    for a in w {
        s.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}{}</td></tr>",
            escape(&a.variable),
            escape(&a.value),
            a.unit
                .as_deref()
                .map(|u| format!(" {}", escape(u)))
                .unwrap_or_default()
        ));
    }
    s.push_str("</tbody></table>");
    s
}

/// A check that was not run, with why.
fn not_checked(v: &Check) -> String {
    format!(
        "<p>Not checked: {}</p>",
        escape(v.reason.as_deref().unwrap_or(""))
    )
}

/// A check the solver gave no answer for, with why.
fn undecided(v: &Check) -> String {
    format!(
        "<p class=\"undecided\">Undecided: {}</p>",
        escape(v.reason.as_deref().unwrap_or(""))
    )
}

/// The findings a requirement shares with others: the conflicts and dead ends it is
/// part of.
fn shared_findings(json: &Audit, rel: &str, spec: &Spec, id: &String) -> String {
    let mut body = String::new();
    for (i, c) in json
        .conflicts()
        .iter()
        .enumerate()
        .filter(|(_, c)| c.contains(id))
    {
        body.push_str(&format!(
            "<section class=\"finding conflict\"><h2>Conflict {}</h2><p>No state satisfies these together:</p>{}</section>",
            i + 1,
            member_list(rel, spec, c)
        ));
    }
    for d in json
        .dead_ends()
        .iter()
        .filter(|d| d.requirements.contains(id))
    {
        body.push_str(&format!(
            "<section class=\"finding dead-end\"><h2>Dead end over time</h2><p>Runs can reach a step from which no next step satisfies these together:</p>{}<p>A run that is stuck after step {}:</p>{}</section>",
            member_list(rel, spec, &d.requirements),
            d.dead_end_at,
            trace_table(d.prefix.as_ref())
        ));
    }
    body
}

/// The reviews recorded for one finding of a requirement, or the form to record one.
fn review_box(
    app: &App,
    spec: &Spec,
    rel: &str,
    r: &reqs::spec::Requirement,
    version: &str,
    finding: &str,
) -> String {
    let done: Vec<&reqs::spec::Review> = spec
        .reviews
        .iter()
        .filter(|v| v.requirement == r.id && v.finding == finding)
        .collect();
    if !done.is_empty() {
        return done
            .iter()
            .map(|v| {
                format!(
                    "<p class=\"reviewed\">Reviewed by {} on {}: {}</p>",
                    escape(&v.reviewed_by),
                    escape(&v.date),
                    escape(&v.reason)
                )
            })
            .collect();
    }
    format!(
        "<form class=\"mark-reviewed\" method=\"post\" action=\"/spec/preview\">{}\
         <label>reason <input name=\"reason\" required placeholder=\"why it stays as it is\"></label>\
         <label>reviewed by <input name=\"reviewed_by\" required></label>\
         <label>date <input name=\"date\" value=\"{}\"></label>\
         <button class=\"preview-review\" type=\"submit\">Mark as reviewed (preview)</button></form>",
        [
            hidden("path", rel),
            hidden("id", &r.id),
            hidden("text", &r.text),
            hidden("finding", finding),
            hidden("version", version),
            hidden("csrf", &app.csrf),
        ]
        .concat(),
        escape(&crate::case_page::today()),
    )
}

/// The requirement's own checks: vacuity (under the domain, under the others),
/// violatability and redundancy, each with its evidence and review box.
fn check_sections(
    a: &crate::payload::RequirementAudit,
    rel: &str,
    spec: &Spec,
    review_box: &dyn Fn(&str) -> String,
) -> String {
    let mut body = String::new();
    let section = |title: &str, class: &str, inner: String| {
        format!(
            "<section class=\"finding {class}\"><h2>{}</h2>{inner}</section>",
            escape(title)
        )
    };
    for (v, what) in [
        (&a.vacuity_domain, "under the domain constraints"),
        (&a.vacuity_model, "under the other requirements"),
    ] {
        let inner = match v.status.as_str() {
            "vacuous" => format!(
                "<p>Vacuous {what}: its trigger can never hold{}. Because of:</p>{}{}",
                if v.response_conflict {
                    " (whenever it fires, its response contradicts the others)"
                } else {
                    ""
                },
                member_list(rel, spec, &v.because),
                review_box("vacuous")
            ),
            "reachable" => format!("<p>Its trigger can hold {what}.</p>"),
            "not-applicable" => "<p>An invariant has no trigger.</p>".into(),
            "skipped" => not_checked(v),
            _ => undecided(v),
        };
        body.push_str(&section(&format!("Vacuity {what}"), &v.status, inner));
    }
    let v = &a.violatability;
    let inner = match v.status.as_str() {
        "violatable" => format!(
            "<p>It can be broken within the domain, e.g. in this state:</p>{}",
            evidence(&v.evidence)
        ),
        "implied-by-domain" => format!(
            "<p>Not violatable: the domain constraints alone already enforce it:</p>{}{}",
            member_list(rel, spec, &v.because),
            review_box("not-violatable")
        ),
        _ => undecided(v),
    };
    body.push_str(&section("Violatability", &v.status, inner));
    let v = &a.redundancy;
    let inner = match v.status.as_str() {
        "redundant" => format!(
            "<p>Redundant: already enforced by</p>{}{}",
            member_list(rel, spec, &v.subsumed_by),
            review_box("redundant")
        ),
        "not-redundant" => format!(
            "<p>Not redundant: this state satisfies everything else and breaks it:</p>{}",
            evidence(&v.evidence)
        ),
        "skipped" => not_checked(v),
        _ => undecided(v),
    };
    body.push_str(&section("Redundancy", &v.status, inner));
    body
}

/// A spec that loads, with the requirement a page is about.
struct Chosen {
    /// The file as read (its `spec` taken out into `spec`).
    loaded: Loaded,
    spec: Spec,
    /// The requirement's index in `spec`.
    index: usize,
}

/// The spec at the query's path and the requirement its `id` names, or the response
/// that says why there is none (a spec that does not load sends back to its page).
fn chosen(app: &App, q: &SpecQuery) -> Result<Chosen, Response> {
    let mut loaded = load(app, &q.path)?;
    let id = q.id.clone().unwrap_or_default();
    let spec = match std::mem::replace(&mut loaded.spec, Err(String::new())) {
        Ok(s) => s,
        Err(_) => return Err(Redirect::to(&spec_link(&q.path)).into_response()),
    };
    let Some(index) = spec.requirements.iter().position(|r| r.id == id) else {
        return Err(app::error_page(
            app,
            StatusCode::NOT_FOUND,
            "No such requirement",
            &format!("no requirement `{id}` in {}", q.path),
        ));
    };
    Ok(Chosen {
        loaded,
        spec,
        index,
    })
}

/// One requirement with every finding about it and its evidence.
pub async fn requirement(State(app): State<Arc<App>>, Query(q): Query<SpecQuery>) -> Response {
    let c = match chosen(&app, &q) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let (l, spec, rel) = (&c.loaded, &c.spec, &q.path);
    let r = &spec.requirements[c.index];
    let id = r.id.clone();
    let crumbs = [(spec_link(rel), rel.clone()), (String::new(), r.id.clone())];
    let page_of = |body: &str| Html(page::frame(&r.id, &crumbs, &app.csrf, body)).into_response();
    let mut body = format!(
        "<h1>{}</h1><p class=\"req-text\">{}</p><p><code>{}</code></p>{}<p><a class=\"edit\" data-id=\"{}\" href=\"{}\">Edit this requirement</a></p>",
        escape(&r.id),
        escape(&r.text),
        escape(&r.formula.as_ref().map(logic::print::term).unwrap_or_else(|| "(no formula)".into())),
        r.formula
            .as_ref()
            .map(|t| format!(
                "<p class=\"reads\">The formula reads: {}</p>",
                escape(&pipeline::readback::sentence(spec, t))
            ))
            .unwrap_or_default(),
        escape(&r.id),
        escape(&format!("/spec/edit?path={}&id={}", enc(rel), enc(&r.id))),
    );
    let stored = app.jobs.result(rel);
    let Some((report, json)) = stored.as_ref().and_then(|s| Some((s, Audit::of(&s.json)?))) else {
        body.push_str(
            "<p class=\"meta\">No audit on this page yet: run it from the spec page.</p>",
        );
        return page_of(&body);
    };
    body.push_str(&stale_note_for(report, &l.version));
    body.push_str(&shared_findings(&json, rel, spec, &id));
    let entry = json.requirement(&id);
    if json.bound_too_small.contains(&id) || entry.and_then(|a| a.fits) == Some(false) {
        body.push_str(&format!(
            "<section class=\"finding horizon-too-short\"><h2>Horizon too short</h2><p>It needs runs of {} steps to show what it asks; the audit looked at runs of {} steps, so its verdicts about this requirement are not conclusive. Run the audit with a longer <code>--horizon</code>.</p></section>",
            entry
                .and_then(|a| a.needs_steps)
                .map(|n| n.to_string())
                .unwrap_or_else(|| "more".into()),
            json.run_length(),
        ));
    }
    let Some(a) = entry else {
        body.push_str(if r.formula.is_none() && r.timed.is_none() {
            "<p>The audit has no entry for this requirement (it has no formula).</p>"
        } else {
            "<p>The audit has no entry for this requirement: it was not in the spec when the audit ran. Run the audit again.</p>"
        });
        return page_of(&body);
    };
    let review_box = |finding: &str| review_box(&app, spec, rel, r, &l.version, finding);
    body.push_str(&check_sections(a, rel, spec, &review_box));
    page_of(&body)
}

/// The edit form of a requirement.
pub async fn edit(State(app): State<Arc<App>>, Query(q): Query<SpecQuery>) -> Response {
    let c = match chosen(&app, &q) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let (l, spec, rel) = (&c.loaded, &c.spec, &q.path);
    let r = &spec.requirements[c.index];
    // The formula as written in the file (its spacing, its line breaks, `(- 5)` not
    // `(- 5.0)`): saved unchanged when only the text is edited.
    let formula = if r.formula.is_some() {
        pipeline::spec_edit::written_formula(&l.text, &r.id).unwrap_or_default()
    } else {
        String::new()
    };
    let formula_rows = formula.lines().count().clamp(1, 12);
    let body = format!(
        "<h1>Edit {ide}</h1><form id=\"edit-form\" method=\"post\" action=\"/spec/preview\">{h}\
         <label>Text<textarea name=\"text\" rows=\"4\">{text}</textarea></label>\
         <label>Formula (SMT-LIB over the spec's variables)<textarea name=\"formula\" rows=\"{formula_rows}\" spellcheck=\"false\" {ro}>{formula}</textarea></label>\
         <p class=\"hint\">The change is shown as a diff first; nothing is written until you save it. Only this requirement's text and formula change in the file; everything else stays as it is.</p>\
         <button id=\"preview\" type=\"submit\">Preview the change</button></form>",
        ide = escape(&r.id),
        h = [
            hidden("path", rel),
            hidden("id", &r.id),
            hidden("origin", "hand"),
            hidden("note", ""),
            hidden("version", &l.version),
            hidden("csrf", &app.csrf),
        ]
        .concat(),
        // The form sends these back: `attr`, so that a control character or a
        // bidirectional override stays that character (not its visible stand-in).
        text = page::attr(&r.text),
        formula = page::attr(&formula),
        ro = if r.timed.is_some() { "readonly title=\"timed patterns are edited in the file\"" } else { "" },
    );
    Html(page::frame(
        &format!("Edit {}", r.id),
        &[
            (spec_link(rel), rel.clone()),
            (String::new(), format!("edit {}", r.id)),
        ],
        &app.csrf,
        &body,
    ))
    .into_response()
}

/// A proposed edit, as the forms send it.
#[derive(serde::Deserialize, Clone)]
pub struct EditForm {
    path: String,
    id: String,
    text: String,
    #[serde(default)]
    formula: String,
    #[serde(default)]
    origin: String,
    #[serde(default)]
    note: String,
    version: String,
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    new_version: String,
    /// Set for a review of a finding instead of an edit.
    #[serde(default)]
    finding: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    reviewed_by: String,
    #[serde(default)]
    date: String,
}

fn edit_of(f: &EditForm) -> pipeline::spec_edit::Edit {
    pipeline::spec_edit::Edit {
        id: f.id.clone(),
        text: f.text.replace("\r\n", "\n"),
        // Browsers send line breaks of form fields as CRLF; the file's are LF.
        formula: Some(f.formula.replace("\r\n", "\n").trim().to_string()).filter(|s| !s.is_empty()),
        origin: match f.origin.as_str() {
            "model-accepted" => Origin::ModelAccepted,
            "model" => Origin::Model,
            _ => Origin::Hand,
        },
        note: Some(f.note.replace("\r\n", "\n")).filter(|s| !s.trim().is_empty()),
    }
}

/// The new text of the spec, or what is wrong with the edit (the spec reader's
/// diagnostics on the edited text).
fn compute(rel: &str, text: &str, f: &EditForm) -> Result<String, String> {
    let new = if f.finding.is_empty() {
        let mut e = edit_of(f);
        // The edit form sends the formula back as the file has it: when it is the
        // same, the formula, and who wrote it, stay as they are.
        if f.origin == "hand" {
            let written = pipeline::spec_edit::written_formula(text, &f.id);
            if e.formula.as_deref().map(str::trim) == written.as_deref().map(str::trim)
                && written.is_some()
            {
                e.formula = None;
                e.origin = reqs::spec::parse_spec(SourceFile::new(rel, text.to_string()))
                    .ok()
                    .and_then(|s| s.requirements.into_iter().find(|r| r.id == f.id))
                    .map_or(Origin::Hand, |r| r.origin);
            }
        }
        pipeline::spec_edit::edit_in_place(text, &[e])
    } else {
        pipeline::spec_edit::add_review(
            text,
            &pipeline::spec_edit::NewReview {
                requirement: f.id.clone(),
                finding: f.finding.clone(),
                reason: f.reason.replace("\r\n", "\n"),
                reviewed_by: f.reviewed_by.clone(),
                date: f.date.trim().to_string(),
            },
        )
    }
    .map_err(|e| e.to_string())?;
    reqs::spec::parse_spec(SourceFile::new(rel, new.clone())).map_err(|d| d.to_string())?;
    Ok(new)
}

fn refused(app: &App, what: &str) -> Response {
    app::error_page(app, StatusCode::FORBIDDEN, "Refused", what)
}

/// A file that is not UTF-8 is not saved from the page: its text here is a lossy
/// reading, and writing it back would change bytes the person never saw change.
fn not_utf8(app: &App, rel: &str) -> Response {
    app::error_page(
        app,
        StatusCode::UNPROCESSABLE_ENTITY,
        "Not saved",
        &format!(
            "{rel} is not UTF-8 text; saving it from this page would change its other bytes. Edit it in a text editor."
        ),
    )
}

/// The diff of an edit, and the form that saves it.
pub async fn preview(State(app): State<Arc<App>>, Form(f): Form<EditForm>) -> Response {
    if !app.csrf_ok(&f.csrf) {
        return refused(&app, "the form has no valid CSRF token; reload the page");
    }
    preview_page(&app, f)
}

/// The form of "choose this reading" on a clarification proposal.
#[derive(serde::Deserialize)]
pub struct ProposalForm {
    proposals: String,
    id: String,
    #[serde(default)]
    csrf: String,
}

/// The proposals of a `vera.clarify.v1` file (at `proposals_rel`, its `file` naming
/// the spec as `named`) that cannot be chosen for the spec as it is now, each with the
/// reason ([`pipeline::clarify::applicable`]). Empty when the spec is not found or does
/// not load: choosing then says why.
pub(crate) fn proposals_not_fitting(
    app: &App,
    proposals_rel: &str,
    named: &str,
    proposals: &[pipeline::clarify::Proposal],
) -> BTreeMap<String, String> {
    let Some(spec) = proposals_spec(app, proposals_rel, named)
        .and_then(|rel| load(app, &rel).ok())
        .and_then(|l| l.spec.ok())
    else {
        return BTreeMap::new();
    };
    proposals
        .iter()
        .filter_map(|p| {
            pipeline::clarify::applicable(&spec, p)
                .err()
                .map(|why| (p.id.clone(), why.to_string()))
        })
        .collect()
}

/// The spec a proposals file is about: its `file` as written (relative to the served
/// folder, or to the proposals file's folder), else a spec of that name beside it.
fn proposals_spec(app: &App, proposals_rel: &str, named: &str) -> Option<String> {
    let dir = std::path::Path::new(proposals_rel)
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file_name = std::path::Path::new(named)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let beside = |n: &str| {
        if dir.is_empty() {
            n.to_string()
        } else {
            format!("{dir}/{n}")
        }
    };
    [named.to_string(), beside(named), beside(&file_name)]
        .into_iter()
        .find(|c| app.root.existing(c).is_ok_and(|p| p.is_file()))
}

/// Choosing a clarified reading: the proposal becomes an edit of its requirement (as
/// `vera clarify --apply` takes it: the clarified text, the converged formula,
/// `origin = "model"` with `accepted = true`), shown as a diff to save.
pub async fn proposal_preview(
    State(app): State<Arc<App>>,
    Form(f): Form<ProposalForm>,
) -> Response {
    if !app.csrf_ok(&f.csrf) {
        return refused(&app, "the form has no valid CSRF token; reload the page");
    }
    let path = match app.root.existing(&f.proposals) {
        Ok(p) => p,
        Err(e) => return app::path_refused(&app, e),
    };
    let file: pipeline::clarify::ProposalsFile = match app::read_limited(&path)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice(&b).ok())
    {
        Some(f) => f,
        None => {
            return app::error_page(
                &app,
                StatusCode::UNPROCESSABLE_ENTITY,
                "Cannot read",
                "not a clarification proposals file (vera.clarify.v1)",
            )
        }
    };
    let Some(p) = file.proposals.iter().find(|p| p.id == f.id) else {
        return app::error_page(
            &app,
            StatusCode::NOT_FOUND,
            "No such proposal",
            &format!("no proposal for `{}` in {}", f.id, f.proposals),
        );
    };
    let Some(spec_rel) = proposals_spec(&app, &f.proposals, &file.file) else {
        return app::error_page(
            &app,
            StatusCode::NOT_FOUND,
            "Spec not found",
            &format!(
                "the proposals are about `{}`, which is not in the served folder",
                file.file
            ),
        );
    };
    let l = match load(&app, &spec_rel) {
        Ok(l) => l,
        Err(r) => return r,
    };
    // A proposal made for another text than the requirement's current one would
    // replace a later edit with a reading of the old text: refused, as `vera clarify
    // --apply` refuses it.
    if let Ok(spec) = &l.spec {
        if let Err(why) = pipeline::clarify::applicable(spec, p) {
            return app::error_page(
                &app,
                StatusCode::CONFLICT,
                "This proposal no longer fits the spec",
                &format!(
                    "{why}. Nothing was changed. Run `vera clarify` again on the spec as it is now, or edit the requirement on its page."
                ),
            );
        }
    }
    let current = l
        .spec
        .as_ref()
        .ok()
        .and_then(|s| s.requirements.iter().find(|r| r.id == p.id))
        .map(|r| r.origin)
        .unwrap_or_default();
    let e = pipeline::spec_edit::Edit::from_proposal(p, current);
    let form = EditForm {
        path: spec_rel,
        id: e.id,
        text: e.text,
        formula: e.formula.unwrap_or_default(),
        origin: origin_name(e.origin).into(),
        note: e.note.unwrap_or_default(),
        version: l.version,
        csrf: app.csrf.clone(),
        new_version: String::new(),
        finding: String::new(),
        reason: String::new(),
        reviewed_by: String::new(),
        date: String::new(),
    };
    preview_page(&app, form)
}

fn origin_name(o: Origin) -> &'static str {
    match o {
        Origin::Hand => "hand",
        Origin::Model => "model",
        Origin::ModelAccepted => "model-accepted",
    }
}

fn preview_page(app: &App, f: EditForm) -> Response {
    let l = match load(app, &f.path) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let rel = &f.path;
    let crumbs = [
        (spec_link(rel), rel.clone()),
        (String::new(), format!("preview {}", f.id)),
    ];
    if !l.utf8 {
        return not_utf8(app, rel);
    }
    let mut body = format!("<h1>Preview: {}</h1>", escape(&f.id));
    if l.version != f.version {
        body.push_str(&app::refusal_html(
            rel,
            &app::WriteRefused::Changed {
                now: l.version.clone(),
            },
        ));
        return app::preview_page(app, StatusCode::CONFLICT, &crumbs, &body);
    }
    match compute(rel, &l.text, &f) {
        Err(e) => {
            body.push_str(&page::message(
                "error",
                &format!("This edit cannot be saved:<pre>{}</pre>", escape(&e)),
            ));
            body.push_str(&format!(
                "<p><a href=\"{}\">Back to the edit form</a></p>",
                escape(&format!("/spec/edit?path={}&id={}", enc(rel), enc(&f.id)))
            ));
            app::preview_page(app, StatusCode::UNPROCESSABLE_ENTITY, &crumbs, &body)
        }
        Ok(new) => {
            if new == l.text {
                body.push_str(&page::message(
                    "notice",
                    "No change: the requirement already reads like this.",
                ));
            }
            body.push_str(&page::diff(rel, &l.text, &new));
            body.push_str(&page::apply_form(
                "/spec/apply",
                &[
                    hidden("path", rel),
                    hidden("id", &f.id),
                    hidden("text", &f.text),
                    hidden("formula", &f.formula),
                    hidden("origin", &f.origin),
                    hidden("note", &f.note),
                    hidden("version", &f.version),
                    hidden("new_version", &page::version(Some(new.as_bytes()))),
                    hidden("finding", &f.finding),
                    hidden("reason", &f.reason),
                    hidden("reviewed_by", &f.reviewed_by),
                    hidden("date", &f.date),
                    hidden("csrf", &app.csrf),
                ]
                .concat(),
                rel,
            ));
            app::preview_page(app, StatusCode::OK, &crumbs, &body)
        }
    }
}

/// Saves a previewed edit, unless the file changed since the preview.
pub async fn apply(State(app): State<Arc<App>>, Form(f): Form<EditForm>) -> Response {
    if !app.csrf_ok(&f.csrf) {
        return refused(&app, "the form has no valid CSRF token; reload the page");
    }
    let rel = &f.path;
    let path = match app.root.existing(rel) {
        Ok(p) => p,
        Err(e) => return app::path_refused(&app, e),
    };
    let crumbs = [
        (spec_link(rel), rel.clone()),
        (String::new(), "not saved".to_string()),
    ];
    let l = match load(&app, rel) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let fail = |app: &App, r: app::WriteRefused| {
        let body = format!("<h1>Not saved</h1>{}", app::refusal_html(rel, &r));
        (
            StatusCode::CONFLICT,
            Html(page::frame("Not saved", &crumbs, &app.csrf, &body)),
        )
            .into_response()
    };
    if l.version != f.version {
        return fail(&app, app::WriteRefused::Changed { now: l.version });
    }
    if !l.utf8 {
        return not_utf8(&app, rel);
    }
    let new = match compute(rel, &l.text, &f) {
        Ok(n) => n,
        Err(e) => return fail(&app, app::WriteRefused::Failed(e)),
    };
    if page::version(Some(new.as_bytes())) != f.new_version {
        return fail(
            &app,
            app::WriteRefused::Failed(
                "the change is not the one previewed; preview it again".into(),
            ),
        );
    }
    match app::guarded_write(&app, &path, &f.version, new.as_bytes()).await {
        Ok(()) => {
            Redirect::to(&format!("/spec?path={}&saved={}", enc(rel), enc(&f.id))).into_response()
        }
        Err(r) => fail(&app, r),
    }
}
