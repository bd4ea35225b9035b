//! The rule-case page (documentation vs implementation): the last check's verdict, its
//! divergence regions with their witnesses, both outputs plotted over one input, and
//! accepting a divergence as an exception (a preview of `exceptions.toml`, then a
//! guarded write).

use crate::app::{self, App};
use crate::exceptions_edit::{self, NewException};
use crate::page::{self, enc, escape, hidden};
use crate::workspace::{self, Kind};
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize as _;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The files of a case folder, each as the check and the page read it: resolved
/// (links followed) to a path inside the served folder, relative to it.
#[derive(Debug, Clone)]
pub struct CaseFiles {
    /// The documentation side.
    pub nl: String,
    /// The implementation.
    pub implementation: String,
    /// Its bounds file.
    pub bounds: Option<String>,
    /// Where the case's accepted exceptions are written: `exceptions.toml` beside the
    /// implementation (as the folder names it, before links are followed).
    pub exceptions_rel: String,
    /// That file as the check reads it.
    pub exceptions: Exceptions,
}

/// A case's `exceptions.toml` as the check reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exceptions {
    /// There is none (or a link to nothing): the check reads none.
    Absent,
    /// The file, resolved inside the served folder, relative to it.
    Inside(String),
    /// It leads out of the served folder (or is not a file): neither the page nor a
    /// check reads it. The reason, for the page.
    Refused(String),
}

impl CaseFiles {
    /// Resolves the files of a case as the folder names them (`nl`, `implementation`,
    /// `bounds`, relative to the root): each must lead to a file inside the served
    /// folder; its `exceptions.toml` is looked up beside the implementation.
    pub fn resolve(
        app: &App,
        nl: &str,
        implementation: &str,
        bounds: Option<&str>,
    ) -> Result<CaseFiles, String> {
        let inside = |rel: &str| -> Result<String, String> {
            let real = app.root.existing(rel).map_err(|e| e.to_string())?;
            if !real.is_file() {
                return Err(format!("`{rel}` is not a file"));
            }
            app.root
                .relative(&real)
                .ok_or_else(|| format!("`{rel}` is not a path inside the served folder"))
        };
        let folder = std::path::Path::new(implementation)
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let exceptions_rel = exceptions_rel(&folder);
        let exceptions = match app.root.existing(&exceptions_rel) {
            Ok(real) if real.is_file() => match app.root.relative(&real) {
                Some(r) => Exceptions::Inside(r),
                None => Exceptions::Refused(format!(
                    "`{exceptions_rel}` is not a path inside the served folder; it is not read"
                )),
            },
            Ok(_) => Exceptions::Refused(format!(
                "`{exceptions_rel}` is not a file; it is not read"
            )),
            Err(crate::paths::PathError::Outside(_)) => Exceptions::Refused(format!(
                "`{exceptions_rel}` leads outside the served folder; it is not read, and the check does not run until it is a file inside the folder (or removed)"
            )),
            Err(crate::paths::PathError::Missing(_)) => Exceptions::Absent,
        };
        Ok(CaseFiles {
            nl: inside(nl)?,
            implementation: inside(implementation)?,
            bounds: bounds.map(inside).transpose()?,
            exceptions_rel,
            exceptions,
        })
    }
}

/// The case at `rel` (a folder the scan found as a case).
pub fn case_files(app: &App, rel: &str) -> Result<CaseFiles, String> {
    app.root.existing(rel).map_err(|e| e.to_string())?;
    let scan = workspace::scan(&app.root);
    match scan.get(rel).map(|e| &e.kind) {
        Some(Kind::Case {
            nl,
            implementation,
            bounds,
        }) => CaseFiles::resolve(app, nl, implementation, bounds.as_deref()),
        _ => Err(format!(
            "`{rel}` is not a rule case folder (one `.bl` program and one documentation `.smt2`)"
        )),
    }
}

/// The consistency check of a case as a check job. Its command line names only the
/// resolved files inside the served folder, its exceptions file included
/// (`--no-exceptions --exceptions FILE`: the check looks for no other).
pub fn check_job(app: &App, rel: &str) -> Result<crate::jobs::Spec, String> {
    let c = case_files(app, rel)?;
    let mut args = vec![
        "consistency".to_string(),
        "--nl".into(),
        crate::jobs::path_arg(&c.nl),
        "--impl".into(),
        crate::jobs::path_arg(&c.implementation),
        "--enumerate".into(),
        "--format".into(),
        "json".into(),
    ];
    if let Some(b) = &c.bounds {
        args.push("--bounds".into());
        args.push(crate::jobs::path_arg(b));
    }
    args.push("--no-exceptions".into());
    match &c.exceptions {
        Exceptions::Absent => {}
        Exceptions::Inside(e) => {
            args.push("--exceptions".into());
            args.push(crate::jobs::path_arg(e));
        }
        Exceptions::Refused(why) => return Err(why.clone()),
    }
    args.extend(app.check_args.iter().cloned());
    Ok(crate::jobs::Spec {
        kind: "consistency".into(),
        target: rel.to_string(),
        program: app.vera.clone(),
        args,
        cwd: app.root.dir().to_path_buf(),
        version: case_version(app, &c),
    })
}

/// One version for the files a check reads (documentation, implementation, bounds,
/// exceptions): a change to any of them makes the last result stale.
pub fn case_version(app: &App, c: &CaseFiles) -> String {
    let mut all = Vec::new();
    let exc = match &c.exceptions {
        Exceptions::Inside(e) => Some(e),
        Exceptions::Absent | Exceptions::Refused(_) => None,
    };
    for rel in [Some(&c.nl), Some(&c.implementation), c.bounds.as_ref(), exc]
        .into_iter()
        .flatten()
    {
        let b = app
            .root
            .existing(rel)
            .ok()
            .and_then(|p| app::read_limited(&p).ok().flatten());
        all.extend_from_slice(page::version(b.as_deref()).as_bytes());
    }
    if let Exceptions::Refused(why) = &c.exceptions {
        all.extend_from_slice(why.as_bytes());
    }
    page::version(Some(&all))
}

fn exceptions_rel(folder: &str) -> String {
    if folder.is_empty() {
        bl::exceptions::FILE_NAME.to_string()
    } else {
        format!("{folder}/{}", bl::exceptions::FILE_NAME)
    }
}

/// Today as `YYYY-MM-DD` (UTC).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `?path=` and the plot's choices.
#[derive(serde::Deserialize)]
pub struct CaseQuery {
    path: String,
    #[serde(default)]
    saved: Option<String>,
    #[serde(flatten)]
    rest: BTreeMap<String, String>,
}

fn case_link(rel: &str) -> String {
    format!("/case?path={}", enc(rel))
}

fn kv_table(m: &BTreeMap<String, String>) -> String {
    let mut s = String::from("<table class=\"witness\"><tbody>");
    for (k, v) in m {
        s.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td></tr>",
            escape(k),
            escape(v)
        ));
    }
    s.push_str("</tbody></table>");
    s
}

/// The check report of a stored `vera.consistency.v1` payload, read into its type
/// (`None` for another payload, or one this version cannot read).
fn consistency_report(json: &Value) -> Option<bl::check::Report> {
    #[derive(serde::Deserialize)]
    struct Payload {
        schema: String,
        report: Option<bl::check::Report>,
    }
    let p = Payload::deserialize(json).ok()?;
    (p.schema == "vera.consistency.v1")
        .then_some(p.report)
        .flatten()
}

/// The name serde gives a unit enum value in the JSON (`consistent`, `in_use`, ...).
pub(crate) fn serde_tag<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}

/// The verdict of a check, its accepted exceptions and its counterexample (an open
/// `<section>`: the caller closes it).
fn verdict_section(r: &bl::check::Report) -> String {
    let verdict = serde_tag(&r.verdict);
    let mut body = format!(
        "<section><h2>Verdict</h2><div id=\"verdict\" data-verdict=\"{v}\" class=\"verdict {v}\">{text}</div>",
        v = escape(&verdict),
        text = match r.verdict {
            bl::check::Verdict::Consistent => "Consistent: on every allowed input, the implementation computes what the documentation says.".to_string(),
            bl::check::Verdict::Inconsistent => "Inconsistent: the outputs differ on some allowed input.".to_string(),
            _ => format!("{}: {}", escape(&verdict), escape(r.reason.as_deref().unwrap_or(""))),
        }
    );
    if !r.exceptions.is_empty() {
        body.push_str("<h3>Accepted exceptions in this check</h3><ul>");
        for e in &r.exceptions {
            body.push_str(&format!(
                "<li><code>{}</code> ({}): {} — accepted by {} on {}</li>",
                escape(&e.id),
                escape(&serde_tag(&e.status)),
                escape(&e.reason),
                escape(&e.accepted_by),
                escape(&e.date),
            ));
        }
        body.push_str("</ul>");
    }
    if let Some(cx) = &r.counterexample {
        body.push_str(&format!(
            "<h3>Counterexample</h3><div class=\"cx\"><div><h4>documentation: {} = {}</h4>{}<p class=\"meta\">{}</p></div><div><h4>implementation: {} = {}</h4>{}<p class=\"meta\">{}</p></div></div>",
            escape(&cx.nl.output),
            escape(&cx.nl.value),
            kv_table(&cx.nl.inputs),
            escape(&cx.nl.replay),
            escape(&cx.bl.output),
            escape(&cx.bl.value),
            kv_table(&cx.bl.inputs),
            escape(&cx.bl.replay),
        ));
    }
    body
}

/// The case page.
pub async fn show(State(app): State<Arc<App>>, Query(q): Query<CaseQuery>) -> Response {
    let rel = &q.path;
    let c = match case_files(&app, rel) {
        Ok(c) => c,
        Err(e) => return app::error_page(&app, StatusCode::NOT_FOUND, "Not a rule case", &e),
    };
    let version = case_version(&app, &c);
    let exc_rel = c.exceptions_rel.clone();
    let mut body = format!(
        "<h1>Rule case {}</h1><ul class=\"case-files\">",
        escape(rel)
    );
    for (what, f) in [
        ("documentation (SMT-LIB)", Some(&c.nl)),
        ("implementation (BL)", Some(&c.implementation)),
        ("bounds", c.bounds.as_ref()),
    ] {
        match f {
            Some(f) => body.push_str(&format!(
                "<li>{what}: <a href=\"{}\"><code>{}</code></a></li>",
                escape(&format!("/file?path={}", enc(f))),
                escape(f)
            )),
            None => body.push_str(&format!("<li>{what}: none</li>")),
        }
    }
    // The page reads the exceptions the check reads: the resolved file inside the
    // folder, never through a link out of it.
    let exc_text = match &c.exceptions {
        Exceptions::Inside(e) => app
            .root
            .existing(e)
            .ok()
            .and_then(|p| app::read_limited(&p).ok().flatten()),
        Exceptions::Absent | Exceptions::Refused(_) => None,
    };
    body.push_str(&format!(
        "<li id=\"exceptions-file\">accepted exceptions: {}</li></ul>",
        match (&c.exceptions, &exc_text) {
            (Exceptions::Refused(why), _) =>
                format!("<span class=\"badge bad\">not read</span> {}", escape(why)),
            (Exceptions::Inside(e), Some(_)) => format!(
                "<a href=\"{}\"><code>{}</code></a>",
                escape(&format!("/file?path={}", enc(e))),
                escape(&exc_rel)
            ),
            _ => format!(
                "none yet (<code>{}</code> would hold them)",
                escape(&exc_rel)
            ),
        }
    ));
    if let Some(id) = &q.saved {
        body.push_str(&page::message(
            "notice",
            &format!(
                "Saved: exception <code>{}</code> was added to <code>{}</code>. Run the check again to see the verdict with it.",
                escape(id),
                escape(&exc_rel)
            ),
        ));
    }
    body.push_str(&crate::spec_page::job_box_for(
        &app,
        rel,
        "consistency",
        "Run the consistency check",
    ));
    let stored = app.jobs.result(rel);
    let report = stored.as_ref().and_then(|s| consistency_report(&s.json));
    if let Some(s) = &stored {
        body.push_str(&crate::spec_page::stale_note_for(s, &version));
    }
    let mut regions: Vec<bl::check::Region> = Vec::new();
    if let Some(r) = report {
        body.push_str(&verdict_section(&r));
        regions = r.regions;
        body.push_str("</section>");
    }
    body.push_str("<!--plot-->");
    let exc_version = page::version(exc_text.as_deref());
    let existing_ids: Vec<String> = exc_text
        .as_deref()
        .and_then(|b| bl::exceptions::parse(&exc_rel, &String::from_utf8_lossy(b)).ok())
        .map(|v| v.into_iter().map(|e| e.id).collect())
        .unwrap_or_default();
    if !regions.is_empty() {
        body.push_str(&format!(
            "<section><h2>Divergences ({})</h2><p>Each region is a set of inputs where the outputs differ. Accepting one as an exception records it in <code>{}</code> with your reason; the check then leaves those inputs out and says that its verdict rests on the exception.</p>",
            regions.len(),
            escape(&exc_rel)
        ));
        if let Some(common) = common_conditions(&regions) {
            body.push_str(&format!(
                "<div class=\"region common\"><h3>What every region has in common</h3><p><code>{}</code></p>{}</div>",
                escape(&common),
                accept_form(&app, rel, &format!("(not {common})"), &suggest_id(&regions[0], &existing_ids), &exc_version, "Accept every divergence with this condition")
            ));
        }
        for (i, g) in regions.iter().enumerate() {
            body.push_str(&format!(
                "<div class=\"region\" data-index=\"{i}\"><h3>Region {}: {}</h3><p>documentation {} · implementation {} · difference (implementation − documentation): <code>{}</code>{}</p>{}{}</div>",
                i + 1,
                escape(&g.conditions.join(", ")),
                escape(&g.nl_output),
                escape(&g.bl_output),
                escape(&g.difference),
                match g.everywhere {
                    Some(true) => " — on every input of the region",
                    Some(false) => " — on part of it",
                    None => " — undecided",
                },
                witnesses(g),
                accept_form(&app, rel, &exceptions_edit::suggested_assume(g), &exceptions_edit::suggested_id(g, &existing_ids), &exc_version, "Preview this exception"),
            ));
        }
        body.push_str("</section>");
    }
    let plot = {
        let root = app.root.dir().to_path_buf();
        let rel = rel.clone();
        let c = c.clone();
        let rest = q.rest.clone();
        let solver = app.solver();
        tokio::task::spawn_blocking(move || {
            crate::case_plot::section(&root, &rel, &c, &regions, &rest, &solver)
        })
        .await
        .unwrap_or_else(|_| "<p class=\"meta\">No chart: drawing it failed.</p>".into())
    };
    let body = body.replacen("<!--plot-->", &plot, 1);
    Html(page::frame(
        &format!("case {rel}"),
        &[(String::new(), rel.clone())],
        &app.csrf,
        &body,
    ))
    .into_response()
}

fn suggest_id(g: &bl::check::Region, taken: &[String]) -> String {
    exceptions_edit::suggested_id(g, taken)
}

fn witnesses(g: &bl::check::Region) -> String {
    if g.witnesses.is_empty() {
        return String::new();
    }
    let mut s = String::from("<table class=\"witness\"><thead><tr><th>where</th><th>inputs</th><th>documentation</th><th>implementation</th></tr></thead><tbody>");
    for w in &g.witnesses {
        let inputs: Vec<String> = w.inputs.iter().map(|(k, x)| format!("{k} = {x}")).collect();
        s.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&serde_tag(&w.at)),
            escape(&inputs.join(", ")),
            escape(&w.nl_output),
            escape(&w.bl_output),
        ));
    }
    s.push_str("</tbody></table>");
    s
}

/// The conjuncts every region's SMT term shares, as one term (`None`: none shared, or
/// a single region).
fn common_conditions(regions: &[bl::check::Region]) -> Option<String> {
    if regions.len() < 2 {
        return None;
    }
    let conj = |smt: &str| -> Vec<String> {
        let Ok(e) = logic::sexp::read_one(smt) else {
            return vec![smt.to_string()];
        };
        match e.as_list() {
            Some([head, rest @ ..]) if head.as_symbol() == Some("and") => rest
                .iter()
                .filter_map(|x| smt.get(x.span.start..x.span.end).map(str::to_string))
                .collect(),
            _ => vec![smt.trim().to_string()],
        }
    };
    let mut common = conj(&regions[0].smt);
    for r in &regions[1..] {
        let c = conj(&r.smt);
        common.retain(|x| c.contains(x));
    }
    match common.len() {
        0 => None,
        1 => common.pop(),
        _ => Some(format!("(and {})", common.join(" "))),
    }
}

fn accept_form(
    app: &App,
    rel: &str,
    assume: &str,
    id: &str,
    exc_version: &str,
    button: &str,
) -> String {
    format!(
        "<form class=\"accept-exception\" method=\"post\" action=\"/case/exception/preview\">{}\
         <label>id <input name=\"id\" value=\"{}\"></label>\
         <label>assume (SMT-LIB over the inputs; where it is false, inputs are left out of the check) <input name=\"assume\" value=\"{}\"></label>\
         <label>reason <input name=\"reason\" required placeholder=\"why this divergence is intended\"></label>\
         <label>accepted by <input name=\"accepted_by\" required></label>\
         <label>date <input name=\"date\" value=\"{}\"></label>\
         <button class=\"preview-exception\" type=\"submit\">{}</button></form>",
        [
            hidden("path", rel),
            hidden("cases", "*"),
            hidden("version", exc_version),
            hidden("csrf", &app.csrf),
        ]
        .concat(),
        escape(id),
        escape(assume),
        escape(&today()),
        escape(button)
    )
}

/// An exception as the forms send it.
#[derive(serde::Deserialize, Clone)]
pub struct ExceptionForm {
    path: String,
    id: String,
    #[serde(default)]
    cases: String,
    assume: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    accepted_by: String,
    #[serde(default)]
    date: String,
    version: String,
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    new_version: String,
}

struct Prepared {
    exc_rel: String,
    path: std::path::PathBuf,
    old: String,
    version: String,
    new: Result<String, String>,
}

fn prepare(app: &App, f: &ExceptionForm) -> Result<Prepared, Response> {
    let c = case_files(app, &f.path)
        .map_err(|e| app::error_page(app, StatusCode::NOT_FOUND, "Not a rule case", &e))?;
    if let Exceptions::Refused(why) = &c.exceptions {
        return Err(app::error_page(
            app,
            StatusCode::FORBIDDEN,
            "Not saved",
            why,
        ));
    }
    let exc_rel = c.exceptions_rel.clone();
    let path = app
        .root
        .writable(&exc_rel)
        .map_err(|e| app::path_refused(app, e))?;
    let bytes = app::read_limited(&path).map_err(|e| {
        app::error_page(
            app,
            StatusCode::UNPROCESSABLE_ENTITY,
            "Cannot read",
            &e.to_string(),
        )
    })?;
    if bytes
        .as_deref()
        .is_some_and(|b| std::str::from_utf8(b).is_err())
    {
        return Err(app::error_page(
            app,
            StatusCode::UNPROCESSABLE_ENTITY,
            "Not saved",
            &format!(
                "{exc_rel} is not UTF-8 text; saving it from this page would change its other bytes. Edit it in a text editor."
            ),
        ));
    }
    let version = page::version(bytes.as_deref());
    let old = bytes
        .as_deref()
        .map(|b| String::from_utf8_lossy(b).into_owned());
    let e = NewException {
        id: f.id.trim().to_string(),
        cases: f.cases.clone(),
        assume: f.assume.clone(),
        reason: f.reason.replace("\r\n", "\n"),
        accepted_by: f.accepted_by.clone(),
        date: f.date.trim().to_string(),
    };
    let new = exceptions_edit::add_exception(old.as_deref(), &e).map_err(|e| e.to_string());
    Ok(Prepared {
        exc_rel,
        path,
        old: old.unwrap_or_default(),
        version,
        new,
    })
}

/// [`prepare`], after checking the form's CSRF token.
fn prepare_checked(app: &App, f: &ExceptionForm) -> Result<Prepared, Response> {
    if !app.csrf_ok(&f.csrf) {
        return Err(app::error_page(
            app,
            StatusCode::FORBIDDEN,
            "Refused",
            "the form has no valid CSRF token; reload the page",
        ));
    }
    prepare(app, f)
}

/// The diff that accepting an exception makes, and the form that saves it.
pub async fn preview(State(app): State<Arc<App>>, Form(f): Form<ExceptionForm>) -> Response {
    let p = match prepare_checked(&app, &f) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let crumbs = [
        (case_link(&f.path), f.path.clone()),
        (String::new(), "preview exception".into()),
    ];
    let mut body = format!("<h1>Preview: accept <code>{}</code></h1>", escape(&f.id));
    if p.version != f.version {
        body.push_str(&changed_html(&f.path, &p.exc_rel));
        return app::preview_page(&app, StatusCode::CONFLICT, &crumbs, &body);
    }
    match &p.new {
        Err(e) => {
            body.push_str(&page::message(
                "error",
                &format!("This exception cannot be saved: {}", escape(e)),
            ));
            body.push_str(&format!(
                "<p><a href=\"{}\">Back to the case</a></p>",
                escape(&case_link(&f.path))
            ));
            app::preview_page(&app, StatusCode::UNPROCESSABLE_ENTITY, &crumbs, &body)
        }
        Ok(new) => {
            body.push_str(&page::diff(&p.exc_rel, &p.old, new));
            body.push_str(&page::apply_form(
                "/case/exception/apply",
                &[
                    hidden("path", &f.path),
                    hidden("id", &f.id),
                    hidden("cases", &f.cases),
                    hidden("assume", &f.assume),
                    hidden("reason", &f.reason),
                    hidden("accepted_by", &f.accepted_by),
                    hidden("date", &f.date),
                    hidden("version", &f.version),
                    hidden("new_version", &page::version(Some(new.as_bytes()))),
                    hidden("csrf", &app.csrf),
                ]
                .concat(),
                &p.exc_rel,
            ));
            app::preview_page(&app, StatusCode::OK, &crumbs, &body)
        }
    }
}

fn changed_html(case: &str, exc_rel: &str) -> String {
    page::message(
        "error",
        &format!(
            "Not saved: <code>{}</code> changed since this page loaded it (another tab, a text editor). Nothing was written. <a href=\"{}\">Reload the case</a> and accept the exception again.",
            escape(exc_rel),
            escape(&case_link(case))
        ),
    )
}

/// Saves a previewed exception, unless the exceptions file changed since the preview.
pub async fn apply(State(app): State<Arc<App>>, Form(f): Form<ExceptionForm>) -> Response {
    let p = match prepare_checked(&app, &f) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let crumbs = [
        (case_link(&f.path), f.path.clone()),
        (String::new(), "not saved".into()),
    ];
    let fail = |html: String| {
        (
            StatusCode::CONFLICT,
            Html(page::frame(
                "Not saved",
                &crumbs,
                &app.csrf,
                &format!("<h1>Not saved</h1>{html}"),
            )),
        )
            .into_response()
    };
    if p.version != f.version {
        return fail(changed_html(&f.path, &p.exc_rel));
    }
    let new = match p.new {
        Ok(n) => n,
        Err(e) => {
            return fail(page::message(
                "error",
                &format!("Not saved: {}", escape(&e)),
            ))
        }
    };
    if page::version(Some(new.as_bytes())) != f.new_version {
        return fail(page::message(
            "error",
            "Not saved: the change is not the one previewed; preview it again.",
        ));
    }
    match app::guarded_write(&app, &p.path, &f.version, new.as_bytes()).await {
        Ok(()) => Redirect::to(&format!(
            "{}&saved={}",
            case_link(&f.path),
            enc(f.id.trim())
        ))
        .into_response(),
        Err(app::WriteRefused::Changed { .. }) => fail(changed_html(&f.path, &p.exc_rel)),
        Err(r) => fail(app::refusal_html(&p.exc_rel, &r)),
    }
}
