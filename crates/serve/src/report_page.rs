//! Saved reports (ambiguity, clarification proposals, C proofs) and the C view.
//!
//! A saved `vera ambiguity` / `vera clarify` JSON payload in the folder is shown as the
//! readings grouped in classes with their witnesses ([`crate::ambig`]); a proposals file
//! (`vera.clarify.v1`) with a "preview this clarification" form per proposal, which
//! saves through the same edit as the requirement page. A C file is shown with each
//! ACSL clause coloured by its goals' status ([`crate::cview`]), from the last
//! `vera c verify` run on this page or a saved `vera.c-verify.v1` report that names it.

use crate::app::{self, App};
use crate::page::{self, escape};
use crate::workspace::{self, Kind};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use serde_json::Value;
use std::sync::Arc;

/// `?path=`.
#[derive(serde::Deserialize)]
pub struct PathQuery {
    path: String,
}

fn read_json(app: &App, rel: &str) -> Result<Value, Response> {
    let p = app
        .root
        .existing(rel)
        .map_err(|e| app::path_refused(app, e))?;
    let bytes = app::read_limited(&p).ok().flatten().ok_or_else(|| {
        app::error_page(
            app,
            StatusCode::NOT_FOUND,
            "Not available",
            "not a readable file",
        )
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        app::error_page(
            app,
            StatusCode::UNPROCESSABLE_ENTITY,
            "Not JSON",
            &format!("{rel}: {e}"),
        )
    })
}

/// A saved report.
pub async fn show(State(app): State<Arc<App>>, Query(q): Query<PathQuery>) -> Response {
    let json = match read_json(&app, &q.path) {
        Ok(j) => j,
        Err(r) => return r,
    };
    let schema = crate::payload::Envelope::of(&json);
    let rendered = match schema.as_str() {
        "vera.ambiguity.v1" | "vera.ambiguity-timed.v1" | "vera.clarify-run.v1" => {
            crate::ambig::render_ambiguity(&json).map_err(|e| e.to_string())
        }
        "vera.clarify.v1" => {
            let stale = serde_json::from_value::<pipeline::clarify::ProposalsFile>(json.clone())
                .map(|f| {
                    crate::spec_page::proposals_not_fitting(&app, &q.path, &f.file, &f.proposals)
                })
                .unwrap_or_default();
            crate::ambig::render_proposals(&q.path, &json, &app.csrf, &stale)
                .map_err(|e| e.to_string())
        }
        _ => Err(format!(
            "this page does not show `{schema}` reports; the JSON follows"
        )),
    };
    let mut body = format!(
        "<h1>{}</h1><p class=\"meta\">saved report <code>{}</code></p>",
        escape(&q.path),
        escape(&schema)
    );
    match rendered {
        Ok(html) => body.push_str(&html),
        Err(e) => {
            body.push_str(&page::message("error", &escape(&e)));
            body.push_str(&format!(
                "<pre class=\"json\">{}</pre>",
                escape(&serde_json::to_string_pretty(&json).unwrap_or_default())
            ));
        }
    }
    Html(page::file_frame(&q.path, &app.csrf, &body)).into_response()
}

/// `vera c verify FILE --format json` as a check job.
pub fn verify_job(app: &App, rel: &str) -> Result<crate::jobs::Spec, String> {
    crate::jobs::file_job(app, "c-verify", rel, |file| {
        let mut args = vec![
            "c".to_string(),
            "verify".into(),
            file,
            "--format".into(),
            "json".into(),
        ];
        args.extend(
            app.check_args
                .iter()
                .filter(|a| *a != "--solver" && *a != "cvc5")
                .cloned(),
        );
        args
    })
}

/// Whether the saved `vera.c-verify.v1` report at `report_rel` is about the file at
/// `rel`: one of the files it names (`report.file`, `report.files`), read relative to
/// the folder or to the report's own folder (or absolute), is that file. A report that
/// names no file, or names it only by a shared ending (`main.c` for `x/main.c`), could
/// be about another file and is not used.
fn report_names(app: &App, report_rel: &str, json: &Value, rel: &str) -> bool {
    /// The files a C verification report names.
    #[derive(serde::Deserialize, Default)]
    struct Named {
        #[serde(default)]
        file: Option<String>,
        #[serde(default)]
        files: Vec<String>,
    }
    /// The report inside the payload.
    #[derive(serde::Deserialize, Default)]
    struct Payload {
        #[serde(default)]
        report: Named,
    }
    let r = <Payload as serde::Deserialize>::deserialize(json)
        .unwrap_or_default()
        .report;
    let dir = std::path::Path::new(report_rel)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let same = |f: &str| -> bool {
        let p = std::path::Path::new(f);
        if p.is_absolute() {
            return std::fs::canonicalize(p)
                .ok()
                .and_then(|c| app.root.relative(&c))
                .is_some_and(|n| n == rel);
        }
        [f.to_string(), dir.join(f).to_string_lossy().into_owned()]
            .iter()
            .any(|c| app.root.normalize(c).is_ok_and(|n| n == rel))
    };
    r.file.iter().chain(&r.files).any(|f| same(f))
}

/// A C source with its clauses coloured by their goals' status.
pub async fn c_source(State(app): State<Arc<App>>, Query(q): Query<PathQuery>) -> Response {
    let rel = &q.path;
    let p = match app.root.existing(rel) {
        Ok(p) => p,
        Err(e) => return app::path_refused(&app, e),
    };
    let bytes = match app::read_limited(&p) {
        Ok(Some(b)) => b,
        _ => {
            return app::error_page(
                &app,
                StatusCode::NOT_FOUND,
                "Not available",
                "not a readable file",
            )
        }
    };
    let version = page::version(Some(&bytes));
    let source = String::from_utf8_lossy(&bytes).into_owned();
    let mut body = format!("<h1>{}</h1>", escape(rel));
    body.push_str(&crate::spec_page::job_box_for(
        &app,
        rel,
        "c-verify",
        "Prove with Frama-C/WP (vera c verify)",
    ));
    // The page's own last run first, else a saved report that names this file.
    let mut shown = false;
    if let Some(s) = app
        .jobs
        .result(rel)
        .filter(|s| crate::payload::Envelope::of(&s.json) == "vera.c-verify.v1")
    {
        body.push_str(&crate::spec_page::stale_note_for(&s, &version));
        match crate::cview::render_c(rel, &source, &s.json) {
            Ok(h) => {
                body.push_str(&h);
                shown = true;
            }
            Err(e) => body.push_str(&page::message("error", &escape(&e.to_string()))),
        }
    }
    if !shown {
        let scan = workspace::scan(&app.root);
        for e in &scan.entries {
            if !matches!(&e.kind, Kind::Report { schema } if schema == "vera.c-verify.v1") {
                continue;
            }
            let Ok(json) = read_json(&app, &e.rel) else {
                continue;
            };
            if !report_names(&app, &e.rel, &json, rel) {
                continue;
            }
            if let Ok(h) = crate::cview::render_c(rel, &source, &json) {
                body.push_str(&format!(
                    "<p class=\"meta\">From the saved report <a href=\"/report?path={}\"><code>{}</code></a> (it may be older than the file).</p>",
                    escape(&page::enc(&e.rel)),
                    escape(&e.rel)
                ));
                body.push_str(&h);
                shown = true;
                break;
            }
        }
    }
    if !shown {
        body.push_str("<p class=\"meta\">No proof results for this file yet: run the proof above (Frama-C/WP), or save a report with <code>vera c verify FILE --format json -o FILE.verify.json</code> in this folder.</p>");
        body.push_str(&format!("<pre class=\"source\">{}</pre>", escape(&source)));
    }
    Html(page::file_frame(rel, &app.csrf, &body)).into_response()
}
