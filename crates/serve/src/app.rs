//! The router, the access token, the CSRF check, and the job endpoints.
//!
//! Access: the URL printed at start carries a random token; the first request with it
//! sets an `HttpOnly`, `SameSite=Strict` cookie and redirects to the same page without
//! it. Every request needs the cookie (or the token). The `Host` header must name the
//! address the server listens on (a page on another site cannot reach it through DNS
//! rebinding). Every POST needs the page's CSRF token (a form field `csrf` or the header
//! `x-vera-csrf`), and an `Origin`, when sent, must be this server.

use crate::jobs::Jobs;
use crate::page;
use crate::paths::Root;
use crate::workspace;
use axum::extract::{Path as UrlPath, Request, State as AxState};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// The server's state.
pub struct App {
    /// The served folder.
    pub root: Root,
    token: String,
    /// The CSRF token every form carries.
    pub csrf: String,
    /// Where the server listens.
    pub addr: SocketAddr,
    /// The `vera` binary.
    pub vera: PathBuf,
    /// Extra arguments for every check.
    pub check_args: Vec<String>,
    /// The checks.
    pub jobs: Arc<Jobs>,
    /// Serializes this server's writes (a check-then-write is not interleaved).
    pub write_lock: tokio::sync::Mutex<()>,
    /// A folder of this server's own (check caches), removed when it stops.
    pub scratch: tempfile_dir::Scratch,
}

/// A scratch folder removed on drop.
pub mod tempfile_dir {
    use std::path::{Path, PathBuf};
    /// A folder under the system's temporary folder, readable by its owner only
    /// (mode 0700), with a random name that tells nothing of the access token; removed
    /// by [`Scratch::remove`] or on drop.
    pub struct Scratch(PathBuf);
    impl Scratch {
        /// Makes a new one.
        pub fn new() -> std::io::Result<Scratch> {
            let dir = tempfile::Builder::new()
                .prefix("vera-serve-")
                .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .tempdir()?;
            Ok(Scratch(dir.keep()))
        }
        /// Its path.
        pub fn path(&self) -> &Path {
            &self.0
        }
        /// Removes it with everything in it (again: nothing to do).
        pub fn remove(&self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    impl Drop for Scratch {
        fn drop(&mut self) {
            self.remove();
        }
    }
}

fn random_hex(bytes: usize) -> std::io::Result<String> {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

impl App {
    /// A new server state with fresh random tokens.
    pub fn new(root: Root, addr: SocketAddr, config: &crate::Config) -> std::io::Result<Arc<App>> {
        let token = random_hex(16)?;
        Ok(Arc::new(App {
            root,
            csrf: random_hex(16)?,
            scratch: tempfile_dir::Scratch::new()?,
            token,
            addr,
            vera: config.vera.clone(),
            check_args: config.check_args.clone(),
            jobs: Arc::new(Jobs::new(config.max_checks)),
            write_lock: tokio::sync::Mutex::new(()),
        }))
    }

    /// The solver of the page's own computations (the chart), as the checks use it.
    pub fn solver(&self) -> solver::SolverConfig {
        let kind = if self.check_args.iter().any(|a| a == "cvc5") {
            solver::SolverKind::Cvc5
        } else {
            solver::SolverKind::Z3
        };
        solver::SolverConfig::new(kind)
    }

    /// The access token.
    pub fn token(&self) -> &str {
        &self.token
    }

    fn cookie_name(&self) -> String {
        format!("vera_token_{}", self.addr.port())
    }

    /// Whether a form's CSRF field is this server's.
    pub fn csrf_ok(&self, given: &str) -> bool {
        same(given, &self.csrf)
    }

    fn host_ok(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        let port = self.addr.port();
        let ip = self.addr.ip();
        let mut allowed = vec![crate::display_addr(self.addr)];
        // The names of 127.0.0.1 and ::1; an address of the server's own in
        // 127.0.0.0/8 has no other name.
        if ip == std::net::Ipv4Addr::LOCALHOST || ip == std::net::Ipv6Addr::LOCALHOST {
            allowed.push(format!("localhost:{port}"));
            allowed.push(format!("127.0.0.1:{port}"));
            allowed.push(format!("[::1]:{port}"));
        } else if ip.is_unspecified() {
            // Listening everywhere was asked for explicitly: any host name, this port.
            return host
                .rsplit_once(':')
                .is_some_and(|(_, p)| p == port.to_string());
        }
        allowed.iter().any(|a| a.eq_ignore_ascii_case(host))
    }
}

/// Compares two secrets in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The router with every page.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(overview))
        .route("/assets/style.css", get(style))
        .route("/assets/app.js", get(script))
        .route("/file", get(file))
        .route("/spec", get(crate::spec_page::show))
        .route("/spec/req", get(crate::spec_page::requirement))
        .route("/spec/edit", get(crate::spec_page::edit))
        .route("/spec/preview", post(crate::spec_page::preview))
        .route("/spec/apply", post(crate::spec_page::apply))
        .route(
            "/spec/proposal/preview",
            post(crate::spec_page::proposal_preview),
        )
        .route("/report", get(crate::report_page::show))
        .route("/c", get(crate::report_page::c_source))
        .route("/case", get(crate::case_page::show))
        .route("/case/exception/preview", post(crate::case_page::preview))
        .route("/case/exception/apply", post(crate::case_page::apply))
        .route("/jobs", post(start_job))
        .route("/jobs/{id}", get(job_state))
        .route("/jobs/{id}/events", get(job_events))
        .route("/jobs/{id}/cancel", post(cancel_job))
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Every answer, the refusals before the token check included, carries the same
/// security headers.
async fn guard(state: AxState<Arc<App>>, req: Request, next: Next) -> Response {
    let mut r = admit(state, req, next).await;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(page::CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // `same-origin`, not `no-referrer`: with no referrer, browsers send `Origin: null`
    // on the page's own form posts, which the Origin check refuses.
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The Host, Origin and token checks; the page when they pass.
async fn admit(AxState(app): AxState<Arc<App>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !app.host_ok(host) {
        return (
            StatusCode::FORBIDDEN,
            "vera serve: unexpected Host header\n",
        )
            .into_response();
    }
    if req.method() == axum::http::Method::POST {
        if let Some(origin) = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) {
            let want = format!("http://{}", host.unwrap_or(""));
            if !origin.eq_ignore_ascii_case(&want) {
                return (
                    StatusCode::FORBIDDEN,
                    "vera serve: cross-origin request refused\n",
                )
                    .into_response();
            }
        }
    }
    let query = req.uri().query().unwrap_or("");
    let token_in_url = query
        .split('&')
        .filter_map(|kv| kv.strip_prefix("token="))
        .any(|t| same(t, &app.token));
    let owner = |req: &Request| {
        if let Some(a) = req.extensions().get::<crate::server::Authenticated>() {
            a.mark();
        }
    };
    if token_in_url {
        owner(&req);
        let rest: Vec<&str> = query
            .split('&')
            .filter(|kv| !kv.starts_with("token=") && !kv.is_empty())
            .collect();
        let path = one_leading_slash(req.uri().path());
        let target = if rest.is_empty() {
            path
        } else {
            format!("{path}?{}", rest.join("&"))
        };
        let cookie = format!(
            "{}={}; Path=/; HttpOnly; SameSite=Strict",
            app.cookie_name(),
            app.token
        );
        let mut r = Redirect::to(&target).into_response();
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            r.headers_mut().insert(header::SET_COOKIE, v);
        }
        return r;
    }
    let name = app.cookie_name();
    let has_cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .any(|(k, v)| k == name && same(v, &app.token));
    if has_cookie {
        owner(&req);
    } else {
        return (
            StatusCode::UNAUTHORIZED,
            Html(page::frame(
                "vera serve: not authorized",
                &[],
                "",
                "<h1>Not authorized</h1><p>Open the address that <code>vera serve</code> printed when it started (it carries the access token).</p>",
            )),
        )
            .into_response();
    }
    match canonical_redirect(&app, &req) {
        Some(r) => r,
        None => next.run(req).await,
    }
}

/// `path` with one leading slash: `//host/...` (or `/\\host`, which browsers read the
/// same way) in a redirect would be a link to another site.
fn one_leading_slash(path: &str) -> String {
    format!("/{}", path.trim_start_matches(['/', '\\']))
}

/// A GET whose `path` parameter names a file of the folder spelled another way than
/// the folder's own (`./a.toml`, `a//b.toml`, `b/`) is redirected to that spelling, so
/// that every page finds the check results kept under it.
fn canonical_redirect(app: &App, req: &Request) -> Option<Response> {
    if req.method() != axum::http::Method::GET {
        return None;
    }
    let query = req.uri().query()?;
    let mut changed = false;
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .map(|(k, v)| {
            if k != "path" {
                return (k, v);
            }
            match app.root.normalize(&v) {
                Ok(n) if n != v => {
                    changed = true;
                    (k, n)
                }
                _ => (k, v),
            }
        })
        .collect();
    if !changed {
        return None;
    }
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&pairs)
        .finish();
    let target = format!("{}?{query}", one_leading_slash(req.uri().path()));
    Some(Redirect::to(&target).into_response())
}

async fn style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        page::STYLE,
    )
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        page::SCRIPT,
    )
}

/// The preview of a change, answered with `status`.
pub fn preview_page(
    app: &App,
    status: StatusCode,
    crumbs: &[(String, String)],
    body: &str,
) -> Response {
    (
        status,
        Html(page::frame("Preview", crumbs, &app.csrf, body)),
    )
        .into_response()
}

/// An error page with a status.
pub fn error_page(app: &App, status: StatusCode, title: &str, message: &str) -> Response {
    (
        status,
        Html(page::frame(
            title,
            &[],
            &app.csrf,
            &format!(
                "<h1>{}</h1>{}",
                page::escape(title),
                page::message("error", &page::escape(message))
            ),
        )),
    )
        .into_response()
}

/// A refused path as a response.
pub fn path_refused(app: &App, e: crate::paths::PathError) -> Response {
    let status = match e {
        crate::paths::PathError::Outside(_) => StatusCode::FORBIDDEN,
        crate::paths::PathError::Missing(_) => StatusCode::NOT_FOUND,
    };
    error_page(app, status, "Not available", &e.to_string())
}

#[derive(serde::Deserialize)]
struct PathQuery {
    path: String,
}

async fn file(AxState(app): AxState<Arc<App>>, q: axum::extract::Query<PathQuery>) -> Response {
    let p = match app.root.existing(&q.path) {
        Ok(p) => p,
        Err(e) => return path_refused(&app, e),
    };
    match read_limited(&p) {
        Ok(Some(b)) => {
            let text = String::from_utf8_lossy(&b);
            let body = format!(
                "<h1>{}</h1><pre class=\"source\">{}</pre>",
                page::escape(&q.path),
                page::escape(&text)
            );
            Html(page::file_frame(&q.path, &app.csrf, &body)).into_response()
        }
        _ => error_page(
            &app,
            StatusCode::NOT_FOUND,
            "Not available",
            "not a readable file",
        ),
    }
}

/// Largest file the pages read.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Reads a regular file of at most [`MAX_FILE_BYTES`]; `None` when it does not exist.
pub fn read_limited(path: &std::path::Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
        Ok(m) if !m.is_file() => {
            return Err(std::io::Error::other("not a regular file"));
        }
        Ok(m) if m.len() > MAX_FILE_BYTES => {
            return Err(std::io::Error::other(format!(
                "larger than {} MiB",
                MAX_FILE_BYTES >> 20
            )))
        }
        Ok(_) => {}
    }
    std::fs::read(path).map(Some)
}

/// Why a guarded write did not happen.
#[derive(Debug)]
pub enum WriteRefused {
    /// The file is not the one the page showed.
    Changed {
        /// Its version now.
        now: String,
    },
    /// The write failed.
    Failed(String),
}

/// Writes `new` to `path` atomically, only if the file is still at `expected` (its
/// version when the page showed it; `absent` for a file that did not exist).
pub async fn guarded_write(
    app: &App,
    path: &std::path::Path,
    expected: &str,
    new: &[u8],
) -> Result<(), WriteRefused> {
    let _g = app.write_lock.lock().await;
    let now = match read_limited(path) {
        Ok(b) => page::version(b.as_deref()),
        Err(e) => return Err(WriteRefused::Failed(e.to_string())),
    };
    if now != expected {
        return Err(WriteRefused::Changed { now });
    }
    safefile::write_atomic(path, new, true).map_err(|e| WriteRefused::Failed(e.to_string()))
}

/// The message shown when a write was refused.
pub fn refusal_html(rel: &str, r: &WriteRefused) -> String {
    match r {
        WriteRefused::Changed { .. } => page::message(
            "error",
            &format!(
                "Not saved: <code>{}</code> changed since this page loaded it (another tab, \
                 a text editor, or a check). Nothing was written. \
                 <a href=\"/spec?path={}\">Reload</a> to see the file as it is now, and make \
                 the change again.",
                page::escape(rel),
                page::escape(&page::enc(rel))
            ),
        ),
        WriteRefused::Failed(e) => {
            page::message("error", &format!("Not saved: {}", page::escape(e)))
        }
    }
}

/// The version of what a check of `e` reads, as the check's result records it.
fn current_version(app: &App, e: &workspace::Entry) -> String {
    match &e.kind {
        workspace::Kind::Case {
            nl,
            implementation,
            bounds,
        } => match crate::case_page::CaseFiles::resolve(app, nl, implementation, bounds.as_deref())
        {
            Ok(c) => crate::case_page::case_version(app, &c),
            Err(e) => page::version(Some(e.as_bytes())),
        },
        _ => {
            let bytes = app
                .root
                .existing(&e.rel)
                .ok()
                .and_then(|p| read_limited(&p).ok().flatten());
            page::version(bytes.as_deref())
        }
    }
}

async fn overview(AxState(app): AxState<Arc<App>>) -> Response {
    let scan = workspace::scan(&app.root);
    let mut body = format!(
        "<h1>Review: {}</h1>",
        page::escape(&app.root.dir().display().to_string())
    );
    let results = app.jobs.results();
    let state_of = |e: &workspace::Entry| -> String {
        let rel = e.rel.as_str();
        if let Some(v) = app.jobs.active(rel) {
            return match v.ahead {
                Some(ahead) => format!(
                    "<span class=\"badge running queued\">{} queued ({ahead} ahead)</span>",
                    page::escape(&v.kind)
                ),
                None => format!(
                    "<span class=\"badge running\">{} running</span>",
                    page::escape(&v.kind)
                ),
            };
        }
        match results.iter().find(|(k, _)| k == rel) {
            // A result about an older text says nothing about the file as it is now.
            Some((_, s)) if current_version(&app, e) != s.version => format!(
                "<span class=\"badge warn stale\">{} — the file changed since; run it again</span>",
                page::escape(&s.kind)
            ),
            Some((_, s)) => {
                let (label, class) = match s.exit {
                    0 => ("no findings", "good"),
                    1 => ("findings", "bad"),
                    _ => ("undecided", "warn"),
                };
                format!(
                    "<span class=\"badge {class}\">{} — {label}</span>",
                    page::escape(&s.kind)
                )
            }
            None => "<span class=\"badge\">not checked yet</span>".into(),
        }
    };
    let section = |title: &str, rows: Vec<String>| -> String {
        if rows.is_empty() {
            return String::new();
        }
        format!(
            "<section><h2>{}</h2><table class=\"files\"><tbody>{}</tbody></table></section>",
            page::escape(title),
            rows.concat()
        )
    };
    let row = |href: String, rel: &str, what: String, state: String| {
        format!(
            "<tr><td><a data-file=\"{r}\" href=\"{h}\">{r}</a></td><td>{w}</td><td>{s}</td></tr>",
            r = page::escape(rel),
            h = page::escape(&href),
            w = what,
            s = state
        )
    };
    let mut specs = Vec::new();
    let mut cases = Vec::new();
    let mut cfiles = Vec::new();
    let mut reports = Vec::new();
    for e in &scan.entries {
        let enc = page::enc(&e.rel);
        match &e.kind {
            workspace::Kind::Spec { timed } => specs.push(row(
                format!("/spec?path={enc}"),
                &e.rel,
                if *timed {
                    "timed requirements".into()
                } else {
                    "requirements".into()
                },
                state_of(e),
            )),
            workspace::Kind::Case {
                nl, implementation, ..
            } => cases.push(row(
                format!("/case?path={enc}"),
                &e.rel,
                format!(
                    "documentation <code>{}</code>, implementation <code>{}</code>",
                    page::escape(nl),
                    page::escape(implementation)
                ),
                state_of(e),
            )),
            workspace::Kind::C => cfiles.push(row(
                format!("/c?path={enc}"),
                &e.rel,
                "C source".into(),
                state_of(e),
            )),
            workspace::Kind::Report { schema } => reports.push(row(
                format!("/report?path={enc}"),
                &e.rel,
                format!("saved report <code>{}</code>", page::escape(schema)),
                String::new(),
            )),
        }
    }
    if specs.is_empty() && cases.is_empty() && cfiles.is_empty() && reports.is_empty() {
        body.push_str("<p>Nothing to review here: no spec (a <code>.toml</code> with <code>[[requirements]]</code>), rule case folder, C file or saved report was found.</p>");
    }
    body.push_str(&section("Requirements", specs));
    body.push_str(&section(
        "Rule cases (documentation vs implementation)",
        cases,
    ));
    body.push_str(&section("C sources", cfiles));
    body.push_str(&section("Saved reports", reports));
    if !scan.skipped.is_empty() {
        body.push_str("<section><h2>Not looked into</h2><ul>");
        for s in &scan.skipped {
            body.push_str(&format!("<li>{}</li>", page::escape(s)));
        }
        body.push_str("</ul></section>");
    }
    Html(page::frame("vera review", &[], &app.csrf, &body)).into_response()
}

#[derive(serde::Deserialize)]
struct StartForm {
    kind: String,
    path: String,
}

/// The script's requests carry the token in `x-vera-csrf`: `403` when it is missing or
/// wrong.
fn csrf_header(app: &App, headers: &HeaderMap) -> Result<(), Response> {
    let csrf = headers
        .get("x-vera-csrf")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if app.csrf_ok(csrf) {
        Ok(())
    } else {
        Err((StatusCode::FORBIDDEN, "missing or wrong CSRF token").into_response())
    }
}

async fn start_job(
    AxState(app): AxState<Arc<App>>,
    headers: HeaderMap,
    form: axum::extract::Form<StartForm>,
) -> Response {
    if let Err(refused) = csrf_header(&app, &headers) {
        return refused;
    }
    // One spelling per file (`./a.toml` and `a.toml` are one target).
    let rel = match app.root.normalize(&form.path) {
        Ok(r) => r,
        Err(e) => return (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
    };
    if let Some(v) = app.jobs.active(&rel) {
        return axum::Json(serde_json::json!({"id": v.id})).into_response();
    }
    let spec = match form.kind.as_str() {
        "audit" => crate::spec_page::audit_job(&app, &rel),
        "consistency" => crate::case_page::check_job(&app, &rel),
        "c-verify" => crate::report_page::verify_job(&app, &rel),
        _ => Err("unknown kind of check".to_string()),
    };
    match spec {
        Ok(s) => match app.jobs.start(s) {
            Ok(id) => axum::Json(serde_json::json!({"id": id})).into_response(),
            Err(e) => (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
        },
        Err(e) => (StatusCode::BAD_REQUEST, e).into_response(),
    }
}

async fn job_state(AxState(app): AxState<Arc<App>>, UrlPath(id): UrlPath<u64>) -> Response {
    match app.jobs.watch(id) {
        Some(rx) => axum::Json(rx.borrow().clone()).into_response(),
        None => (StatusCode::NOT_FOUND, "no such job").into_response(),
    }
}

async fn job_events(AxState(app): AxState<Arc<App>>, UrlPath(id): UrlPath<u64>) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let Some(rx) = app.jobs.watch(id) else {
        return (StatusCode::NOT_FOUND, "no such job").into_response();
    };
    let stream = futures_util::stream::unfold(
        (rx, false, false),
        |(mut rx, first_sent, ended)| async move {
            if ended {
                return None;
            }
            if first_sent && rx.changed().await.is_err() {
                return None;
            }
            let v = rx.borrow_and_update().clone();
            let ended = !v.state.active();
            let ev = Event::default()
                .event(if ended { "end" } else { "progress" })
                .json_data(&v)
                .unwrap_or_default();
            Some((Ok::<_, std::convert::Infallible>(ev), (rx, true, ended)))
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn cancel_job(
    AxState(app): AxState<Arc<App>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<u64>,
) -> Response {
    if let Err(refused) = csrf_header(&app, &headers) {
        return refused;
    }
    if app.jobs.cancel(id) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        (StatusCode::NOT_FOUND, "no such job").into_response()
    }
}
