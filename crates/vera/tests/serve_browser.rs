//! Browser tests: real headless Chromium over the DevTools protocol
//! (`support/devtools.rs`), first on a small page of the test's own, then end to end on
//! `vera serve`: the overview, a spec's audit, a clarified reading chosen from saved
//! `vera clarify` proposals and an edit (each with its diff preview, the file then
//! exactly as previewed, the audit re-run to consistent), refused stale writes, a rule case's check with an accepted exception, the
//! server's access, CSRF, path and escaping checks, and that another local web server
//! on 127.0.0.1 receives none of its cookie.
//!
//! Screenshots of the pages visited are saved as PNG files; with `VERA_SCREENSHOTS` set
//! to a folder they go there (to refresh the documentation's:
//! `VERA_SCREENSHOTS=$PWD/docs/serve cargo test -p vera --test serve_browser`).

#[path = "support/devtools.rs"]
mod devtools;
#[path = "support/http.rs"]
mod plain_http;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use devtools::{js_str, Browser, Page};
use plain_http::{form, Resp};

/// A tiny HTTP server answering every GET of `/` with `html` (other paths: 404),
/// until the test process ends. Returns its base URL.
fn serve_static(html: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut req = Vec::new();
            let mut buf = [0u8; 1024];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&req);
            let path = head.split_whitespace().nth(1).unwrap_or("");
            let (status, body) = if path == "/" {
                ("200 OK", html)
            } else {
                ("404 Not Found", "not found")
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}/")
}

/// A local web server of someone else's on 127.0.0.1: answers every GET with a small
/// page and keeps each request's head. Returns its base URL and the heads received.
fn serve_recording() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = heads.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut req = Vec::new();
            let mut buf = [0u8; 1024];
            while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            seen.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&req).into_owned());
            let body =
                "<!doctype html><title>other</title><p id=\"other\">another local server</p>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (format!("http://{addr}/"), heads)
}

const HARNESS_PAGE: &str = r#"<!doctype html>
<html><head><title>harness</title></head>
<body>
<h1 id="title">Harness page</h1>
<p id="out" data-clicks="0">not clicked</p>
<button id="go" onclick="const o = document.getElementById('out'); o.textContent = 'clicked: ' + document.getElementById('name').value; o.dataset.clicks = String(Number(o.dataset.clicks) + 1);">Go</button>
<input id="name" value="">
<p id="echo"></p>
<script>document.getElementById('name').addEventListener('input', e => { document.getElementById('echo').textContent = 'typed ' + e.target.value; });</script>
<a id="next" href="/missing">next</a>
</body></html>"#;

#[test]
fn harness_drives_a_served_page() {
    let start = Instant::now();
    let url = serve_static(HARNESS_PAGE);
    let browser = Browser::launch();
    let page = browser.new_page();
    page.goto(&url);
    assert_eq!(page.url(), url);
    page.wait_for("#go", Duration::from_secs(5));
    assert_eq!(page.text("#out"), "not clicked");

    page.set_value("#name", "Ada <b>");
    assert_eq!(page.text("#echo"), "typed Ada <b>");
    page.click("#go");
    page.wait_until(
        "document.getElementById('out').dataset.clicks === '1'",
        Duration::from_secs(5),
        "the click's effect",
    );
    assert_eq!(page.text("#out"), "clicked: Ada <b>");
    assert_eq!(page.attr("#out", "data-clicks").as_deref(), Some("1"));
    assert_eq!(page.attr("#out", "data-missing"), None);
    assert_eq!(page.eval("1 + 2"), serde_json::json!(3));
    assert_eq!(
        page.eval("Promise.resolve({a: [1, 'x']})"),
        serde_json::json!({"a": [1, "x"]})
    );
    assert_eq!(page.count("p"), 2);

    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("harness.png");
    page.screenshot(&shot);
    let (w, h) = devtools::check_png(&shot, 2_000);
    assert!(w >= 800 && h >= 300, "screenshot is {w}x{h}");

    // A failed wait says where the page was and what it showed.
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        page.wait_for("#never", Duration::from_millis(300))
    }))
    .expect_err("waiting for a missing element fails");
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("#never") && msg.contains(&url), "{msg}");
    assert!(
        msg.contains("Harness page") && msg.contains("clicked: Ada"),
        "{msg}"
    );

    // A link to another document.
    page.click_nav("#next");
    assert_eq!(page.url(), format!("{url}missing"));
    assert_eq!(page.text("body"), "not found");
    eprintln!("harness test took {:?}", start.elapsed());
}

// ---------------------------------------------------------------------------------
// `vera serve`, end to end.

/// How long a check run from a page may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a page may take to show what it should after loading.
const SHOW: Duration = Duration::from_secs(10);

/// Repository paths, relative to this crate.
fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A spec whose id and text carry markup and a terminal escape (`\u001b` is TOML's
/// escape: the text holds the ESC character itself).
const XSS_SPEC: &str = r#"[spec]
name = "Escaping check <script>alert(1)</script>"

[[variables]]
name = "x"
sort = "Real"
min = 0
max = 10

[[requirements]]
id = "R-<script>alert(1)</script>"
text = "The value <script>alert(1)</script> shall stay \u001b[31mred\u001b[0m below 5."
formula = "(< x 5)"
"#;

/// A `vera.clarify.v1` proposals file for the conflicting hemodialysis spec: R-TEMP-6
/// ("warmed to at least 38.5 degC", against R-TEMP-5's "never exceed 38.0 degC")
/// clarified to a lower bound that agrees with R-TEMP-5.
const PROPOSALS: &str = r#"{"schema":"vera.clarify.v1","file":"hemodialysis-inconsistent.toml","proposals":[{"id":"R-TEMP-6","original":"The dialysate shall always be warmed to at least 38.5 degC.","clarified":"The dialysate temperature shall always be at least 35.0 degC.","rounds":2,"classes_before":2,"classes_after":1,"converged":true,"accepted":false,"formula":"(>= dialysate_temp 35.0)","history":[{"text":"The dialysate shall always be warmed to at least 35.0 degC.","classes":2},{"text":"The dialysate temperature shall always be at least 35.0 degC.","classes":1}]}]}"#;

/// `vera serve DIR --port 0` as a child process, killed on drop.
struct Server {
    child: Child,
    /// The address it printed, with the access token.
    token_url: String,
    /// `http://IP:PORT`
    base: String,
    /// `IP:PORT`, as printed.
    host: String,
    port: u16,
    token: String,
    log: PathBuf,
}

impl Server {
    fn start(dir: &Path, log: PathBuf) -> Server {
        Server::start_with(dir, log, &[])
    }

    fn start_with(dir: &Path, log: PathBuf, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vera"))
            .arg("serve")
            .arg(dir)
            .args(["--port", "0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("vera serve starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut first = String::new();
            let _ = r.read_line(&mut first);
            let _ = tx.send(first);
            // Keep reading so that the server never blocks on a full pipe.
            let _ = std::io::copy(&mut r, &mut std::io::sink());
        });
        let mut server = Server {
            child,
            token_url: String::new(),
            base: String::new(),
            host: String::new(),
            port: 0,
            token: String::new(),
            log,
        };
        let line = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(l) => l,
            Err(_) => panic!(
                "vera serve printed no first line in 30 s; its standard error:\n{}",
                server.stderr()
            ),
        };
        let line = line.trim_end();
        let url = line.strip_prefix("vera serve: ").unwrap_or_else(|| {
            panic!(
                "vera serve's first line is not `vera serve: URL`: {line:?}\nstandard error:\n{}",
                server.stderr()
            )
        });
        let rest = url
            .strip_prefix("http://127.")
            .unwrap_or_else(|| panic!("not a loopback URL: {url}"));
        let (host, token) = rest
            .split_once("/?token=")
            .unwrap_or_else(|| panic!("no /?token= in {url}"));
        let host = format!("127.{host}");
        let port = host.rsplit_once(':').map(|(_, p)| p).unwrap_or("");
        server.port = port.parse().unwrap_or_else(|_| panic!("port in {url}"));
        server.token = token.to_string();
        assert!(server.token.len() >= 16, "short token in {url}");
        server.base = format!("http://{host}");
        server.host = host;
        server.token_url = url.to_string();
        server
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        plain_http::stop_server(&mut self.child);
    }
}

/// One request to the server over a plain socket (no browser).
fn http(host: &str, method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Resp {
    let mut req = format!(
        "{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    plain_http::exchange(host, &req)
}

/// Applies a unified diff (`---`/`+++` headers, `@@ -a,b +c,d @@` hunks) to `old`.
/// Panics when a context or removed line does not match `old`.
fn apply_unified_diff(old: &str, diff: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut next = 0usize; // index in old_lines of the next line not yet copied
    let mut no_newline_at_end = false;
    let mut last_sign = ' ';
    for line in diff.lines() {
        if line.starts_with("--- ") || line.starts_with("+++ ") {
            continue;
        }
        if let Some(h) = line.strip_prefix("@@ -") {
            let old_start: usize = h
                .split([',', ' '])
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("bad hunk header {line:?}"));
            // "-0,0" is an empty old side: the hunk starts before the first line.
            let at = old_start.saturating_sub(1).max(next);
            let at = if old_start == 0 { 0 } else { at };
            assert!(at <= old_lines.len(), "hunk past the end: {line:?}");
            out.extend(old_lines[next..at].iter().map(|l| l.to_string()));
            next = at;
            continue;
        }
        if line.starts_with('\\') {
            // "\ No newline at end of file" after a line of the new side.
            if last_sign != '-' {
                no_newline_at_end = true;
            }
            continue;
        }
        let (sign, text) = match line.chars().next() {
            Some(c @ (' ' | '-' | '+')) => (c, &line[1..]),
            None => (' ', ""),
            _ => panic!("not a diff line: {line:?}"),
        };
        last_sign = sign;
        match sign {
            ' ' | '-' => {
                assert_eq!(
                    old_lines.get(next).copied(),
                    Some(text),
                    "the diff's line {line:?} is not line {} of the old file",
                    next + 1
                );
                if sign == ' ' {
                    out.push(text.to_string());
                }
                next += 1;
            }
            _ => out.push(text.to_string()),
        }
    }
    out.extend(old_lines[next..].iter().map(|l| l.to_string()));
    let mut new = out.join("\n");
    let ends_with_newline = if no_newline_at_end {
        false
    } else {
        old.ends_with('\n') || old.is_empty()
    };
    if ends_with_newline && !new.is_empty() {
        new.push('\n');
    }
    new
}

#[test]
fn unified_diff_reader() {
    let old = "a\nb\nc\nd\n";
    let diff = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    assert_eq!(apply_unified_diff(old, diff), "a\nB\nc\nd\n");
    assert_eq!(
        apply_unified_diff("", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"),
        "x\ny\n"
    );
}

/// The diff shown on a preview page (the raw text of `pre#diff`).
fn previewed_diff(page: &Page) -> String {
    page.wait_for("pre#diff", SHOW);
    page.eval("document.querySelector('pre#diff').textContent")
        .as_str()
        .unwrap()
        .to_string()
}

/// Where screenshots go: `VERA_SCREENSHOTS`, else `fallback`.
struct Shots {
    dir: PathBuf,
    taken: Vec<PathBuf>,
}

impl Shots {
    fn take(&mut self, page: &Page, name: &str) {
        let path = self.dir.join(format!("{name}.png"));
        page.screenshot(&path);
        let (w, h) = devtools::check_png(&path, 5_000);
        assert!(w >= 600 && h >= 300, "{}: {w}x{h}", path.display());
        self.taken.push(path);
    }
}

/// Clicks a button that starts a check and waits until `#job` says it ended; returns the
/// states `#job` went through. Fails unless it ended `done`.
fn run_check(page: &Page, button: &str) -> Vec<String> {
    page.wait_for(button, SHOW);
    page.wait_for("#job", SHOW);
    // Record every state #job takes, across reloads of the page (sessionStorage).
    page.eval(
        "(() => { sessionStorage.setItem('jobStates', '[]');
          const rec = () => { const j = document.querySelector('#job'); if (!j) return;
            const s = j.getAttribute('data-state'); const a = JSON.parse(sessionStorage.getItem('jobStates') || '[]');
            if (a[a.length - 1] !== s) { a.push(s); sessionStorage.setItem('jobStates', JSON.stringify(a)); } };
          new MutationObserver(rec).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-state']});
          window.__recordJob = rec; return true; })()",
    );
    page.click(button);
    let deadline = Instant::now() + CHECK_TIMEOUT;
    let mut seen: Vec<String> = Vec::new();
    loop {
        // The states polled from here and those the page recorded (it may reload itself
        // to show the results between two polls).
        let state = page
            .try_eval(
                "(() => { if (window.__recordJob) window.__recordJob();
                  const j = document.querySelector('#job'); return j ? j.getAttribute('data-state') : null; })()",
            )
            .ok()
            .and_then(|v| v.as_str().map(str::to_string));
        if let Some(s) = state {
            if seen.last() != Some(&s) {
                seen.push(s);
            }
        }
        let recorded: Vec<String> = page
            .try_eval("JSON.parse(sessionStorage.getItem('jobStates') || '[]')")
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        // A state from before the click (an earlier run's `done`) does not count: the
        // job must have been seen running first.
        let ended = |states: &[String]| {
            let running = states.iter().position(|s| s == "running")?;
            states[running..]
                .iter()
                .find(|s| ["done", "failed", "cancelled"].contains(&s.as_str()))
                .cloned()
        };
        if let Some(end) = ended(&recorded).or_else(|| ended(&seen)) {
            if end != "done" {
                page.fail(&format!(
                    "the check ended `{end}` (states polled: {seen:?}; recorded on the page: {recorded:?})"
                ));
            }
            return if ended(&recorded).is_some() {
                recorded
            } else {
                seen
            };
        }
        if Instant::now() > deadline {
            page.fail(&format!(
                "the check started by `{button}` did not end `done` within {CHECK_TIMEOUT:?} \
                 (states polled: {seen:?}; recorded on the page: {recorded:?})"
            ));
        }
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// The fields of a form, as the browser would send them.
fn form_fields(page: &Page, form: &str) -> Vec<(String, String)> {
    let v = page.eval(&format!(
        "Array.from(new FormData(document.querySelector({}))).map(([k, v]) => [k, String(v)])",
        js_str(form)
    ));
    serde_json::from_value(v).unwrap()
}

/// Opens the edit form of `id` from the spec page, changes it, and opens the preview.
fn edit_and_preview(page: &Page, id: &str, text: &str, formula: &str) -> String {
    page.click_nav(&format!("a.edit[data-id={}]", js_str(id)));
    page.wait_for("#edit-form", SHOW);
    page.set_value("#edit-form textarea[name=\"text\"]", text);
    page.set_value("#edit-form textarea[name=\"formula\"]", formula);
    page.click_nav("#preview");
    page.wait_for("form#apply-form #apply", SHOW);
    previewed_diff(page)
}

fn step(start: Instant, what: &str) {
    eprintln!("[{:5.1} s] {what}", start.elapsed().as_secs_f64());
}

#[test]
fn vera_serve_end_to_end() {
    let start = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("served");
    std::fs::create_dir(&dir).unwrap();
    let spec_name = "hemodialysis-inconsistent.toml";
    let spec_path = dir.join(spec_name);
    std::fs::copy(
        repo("examples/hemodialysis/hemodialysis-inconsistent.toml"),
        &spec_path,
    )
    .unwrap();
    let case = dir.join("cra-ab");
    copy_dir(&repo("testdata/fees-dataset/cra-25/ab"), &case);
    std::fs::copy(
        repo("examples/fees/cra-bounds.json"),
        case.join("bounds.json"),
    )
    .unwrap();
    std::fs::write(dir.join("xss.toml"), XSS_SPEC).unwrap();
    // A clarification of R-TEMP-6 as `vera clarify` writes it (the model's rewrite is
    // scripted here: the flow of choosing it is what is tested).
    std::fs::write(
        dir.join("hemodialysis-inconsistent.proposals.json"),
        PROPOSALS,
    )
    .unwrap();
    // A file beside the served folder, which no request may reach.
    std::fs::write(tmp.path().join("outside"), "SECRET-OUTSIDE-THE-ROOT\n").unwrap();

    let mut shots = Shots {
        dir: std::env::var_os("VERA_SCREENSHOTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| tmp.path().join("screenshots")),
        taken: Vec::new(),
    };
    std::fs::create_dir_all(&shots.dir).unwrap();

    step(start, "starting vera serve");
    let server = Server::start(&dir, tmp.path().join("serve.stderr"));
    eprintln!("    {}", server.base);

    // --- Access: no token, no page; the token sets a cookie.
    step(start, "plain HTTP: the token is required");
    for target in [
        "/",
        "/spec?path=hemodialysis-inconsistent.toml",
        "/file?path=xss.toml",
    ] {
        let r = http(&server.host, "GET", target, &[], "");
        assert!(
            r.status == 401 || r.status == 403,
            "GET {target} without the token answered {}:\n{}",
            r.status,
            r.body
        );
        assert!(
            !r.body.contains("R-TEMP-5") && !r.body.contains("alert"),
            "{}",
            r.body
        );
    }
    let r = http(&server.host, "GET", "/?token=wrong", &[], "");
    assert!(
        r.status == 401 || r.status == 403,
        "a wrong token: {}",
        r.status
    );
    let r = http(
        &server.host,
        "GET",
        &format!("/?token={}", server.token),
        &[],
        "",
    );
    let cookie = r
        .header("set-cookie")
        .unwrap_or_else(|| panic!("no cookie set by the token URL ({}):\n{}", r.status, r.head));
    let cookie = cookie.split(';').next().unwrap().to_string();
    let with_cookie = [("Cookie", cookie.as_str())];
    let r = http(&server.host, "GET", "/", &with_cookie, "");
    assert_eq!(r.status, 200, "GET / with the cookie:\n{}", r.body);
    assert!(r.body.contains("data-file=\"cra-ab\""), "{}", r.body);

    step(start, "plain HTTP: paths outside the folder are refused");
    for target in [
        "/file?path=../outside",
        "/file?path=..%2Foutside",
        "/file?path=%2Fetc%2Fpasswd",
        "/spec?path=../outside",
    ] {
        let r = http(&server.host, "GET", target, &with_cookie, "");
        assert!(
            r.status == 403 || r.status == 404,
            "GET {target} answered {}:\n{}",
            r.status,
            r.body
        );
        assert!(!r.body.contains("SECRET-OUTSIDE") && !r.body.contains("root:x:0"));
    }
    // A Host header naming another site (DNS rebinding) is refused.
    let mut s = TcpStream::connect(&server.host).unwrap();
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: attacker.invalid\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let status = raw.split_whitespace().nth(1).unwrap_or("");
    assert!(
        status == "403" || status == "400" || status == "421",
        "a foreign Host header answered {status}"
    );

    // --- The browser.
    step(start, "launching Chromium");
    let browser = Browser::launch();
    let page = browser.new_page();
    page.goto(&server.token_url);
    page.wait_for("a[data-file=\"hemodialysis-inconsistent.toml\"]", SHOW);
    page.wait_for("a[data-file=\"cra-ab\"]", SHOW);
    assert!(
        !page.url().contains(&server.token),
        "the token stays in the address bar: {}",
        page.url()
    );
    shots.take(&page, "overview");
    let overview_url = page.url();

    // --- The cookie is not sent to another local web server (browsers scope cookies
    // by host, not by port: the server's address is its own in 127.0.0.0/8).
    step(start, "another local server gets no cookie of the page's");
    assert!(
        !server.host.starts_with("127.0.0.1:"),
        "the server listens on 127.0.0.1: {}",
        server.host
    );
    let (other, heads) = serve_recording();
    page.goto(&other);
    page.wait_for("#other", SHOW);
    let got = heads.lock().unwrap().clone();
    assert!(!got.is_empty(), "the other server saw no request");
    for h in &got {
        assert!(
            !h.to_ascii_lowercase().contains("vera_token") && !h.contains(&server.token),
            "another local server received the token:\n{h}"
        );
    }
    // The same visit from a page served on 127.0.0.1 (`--listen 127.0.0.1`) does
    // carry its cookie there: what the address of the server's own prevents.
    {
        let shared = Server::start_with(
            &dir,
            tmp.path().join("serve2.stderr"),
            &["--listen", "127.0.0.1"],
        );
        assert!(shared.host.starts_with("127.0.0.1:"), "{}", shared.host);
        let tab = browser.new_page();
        tab.goto(&shared.token_url);
        tab.wait_for("a[data-file=\"cra-ab\"]", SHOW);
        heads.lock().unwrap().clear();
        tab.goto(&other);
        tab.wait_for("#other", SHOW);
        let got = heads.lock().unwrap().clone();
        assert!(
            got.iter().any(|h| h.contains(&shared.token)),
            "a cookie of 127.0.0.1 did not reach the other server on 127.0.0.1: {got:?}"
        );
    }
    page.goto(&overview_url);
    page.wait_for("a[data-file=\"cra-ab\"]", SHOW);

    // --- The spec page and its audit.
    step(start, "spec page: run the audit");
    page.click_nav("a[data-file=\"hemodialysis-inconsistent.toml\"]");
    let spec_url = page.url();
    let frame_scripts = page.count("script");
    let states = run_check(&page, "#run-audit");
    assert!(
        states.iter().position(|s| s == "running") < states.iter().position(|s| s == "done"),
        "#job went through {states:?}, not running then done"
    );
    page.wait_for("#consistency[data-status=\"inconsistent\"]", SHOW);
    page.wait_for("table#requirements tr[data-id=\"R-TEMP-5\"]", SHOW);
    page.wait_for(
        "table#requirements tr[data-id=\"R-HEP-6\"] a.edit[data-id=\"R-HEP-6\"]",
        SHOW,
    );
    let conflicting: Vec<String> = serde_json::from_value(page.eval(
        "Array.from(document.querySelectorAll('table#requirements tr.conflicting')).map(r => r.dataset.id).sort()",
    ))
    .unwrap();
    let members: Vec<String> = serde_json::from_value(page.eval(
        "Array.from(new Set(Array.from(document.querySelectorAll('.conflict [data-id]')).map(e => e.dataset.id))).sort()",
    ))
    .unwrap();
    eprintln!("    conflicting rows: {conflicting:?}; conflict members: {members:?}");
    assert!(page.count(".conflict") >= 1, "no .conflict section");
    assert!(!conflicting.is_empty(), "no row has class conflicting");
    for id in &members {
        assert!(
            conflicting.contains(id),
            "{id} is in a conflict but its row is not conflicting"
        );
    }
    let conflict_text = page.text(".conflict");
    assert!(
        ["R-HEP-5", "R-HEP-6"]
            .iter()
            .all(|id| conflict_text.contains(id))
            || ["R-TEMP-5", "R-TEMP-6"]
                .iter()
                .all(|id| conflict_text.contains(id)),
        "the conflict section lists neither planted conflict:\n{conflict_text}"
    );
    shots.take(&page, "spec-findings");

    // --- One conflict is resolved by choosing a clarified reading from the saved
    // proposals, previewed as a diff, then saved; the file changes as shown.
    step(start, "choose the clarified reading of R-TEMP-6");
    page.wait_for("ul.saved-reports li.proposals a", SHOW);
    assert!(
        page.text("ul.saved-reports li.proposals")
            .contains("clarifications proposed for 1 requirement (R-TEMP-6)"),
        "{}",
        page.text("ul.saved-reports")
    );
    page.click_nav("ul.saved-reports li.proposals a");
    page.wait_for("form.choose-reading button", SHOW);
    shots.take(&page, "proposals");
    let old = std::fs::read_to_string(&spec_path).unwrap();
    page.click_nav("form.choose-reading button");
    page.wait_for("form#apply-form #apply", SHOW);
    let diff = previewed_diff(&page);
    let changed = |sign: char| -> Vec<String> {
        diff.lines()
            .filter(|l| l.starts_with(sign) && !l.starts_with(&format!("{sign}{sign}{sign}")))
            .map(|l| l[1..].to_string())
            .collect()
    };
    assert_eq!(
        changed('-'),
        [
            "text = \"The dialysate shall always be warmed to at least 38.5 degC.\"",
            "formula = \"(>= dialysate_temp 38.5)\"",
        ],
        "{diff}"
    );
    assert_eq!(
        changed('+'),
        [
            "# clarified by vera in 2 rounds (2 -> 1 readings); was: The dialysate shall always be warmed to at least 38.5 degC.",
            "text = \"The dialysate temperature shall always be at least 35.0 degC.\"",
            "formula = \"(>= dialysate_temp 35.0)\"",
            "origin = \"model\"",
            "accepted = true",
        ],
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(&spec_path).unwrap(),
        old,
        "the preview wrote the file"
    );
    shots.take(&page, "clarification-preview");
    page.click_nav("#apply");
    page.wait_for("#notice", SHOW);
    let new = std::fs::read_to_string(&spec_path).unwrap();
    assert_eq!(
        new,
        apply_unified_diff(&old, &diff),
        "the file on disk is not the previewed change:\n{diff}"
    );
    // The proposal now fits no longer (the text it clarified is gone): the list says so.
    page.goto(&spec_url);
    page.wait_for("ul.saved-reports li.proposals", SHOW);
    assert!(
        page.text("ul.saved-reports li.proposals")
            .contains("earlier text of R-TEMP-6"),
        "{}",
        page.text("ul.saved-reports")
    );

    // --- The other conflict by an edit, previewed as a diff, then saved.
    let edits = [(
        "R-HEP-6",
        "The heparin stop time setting shall not exceed 90 minutes.",
        "(<= heparin_stop_min 90)",
        "(<= heparin_stop_min 30)",
    )];
    for (n, (id, text, formula, old_formula)) in edits.iter().enumerate() {
        step(start, &format!("edit {id}: preview and save"));
        let old = std::fs::read_to_string(&spec_path).unwrap();
        let diff = edit_and_preview(&page, id, text, formula);
        let plus: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .collect();
        let minus: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with('-') && !l.starts_with("---"))
            .collect();
        assert!(
            plus.iter().any(|l| l.contains(formula)) && plus.iter().any(|l| l.contains(text)),
            "{diff}"
        );
        assert!(minus.iter().any(|l| l.contains(old_formula)), "{diff}");
        assert_eq!(
            plus.len(),
            2,
            "only the text and formula lines change:\n{diff}"
        );
        assert_eq!(
            minus.len(),
            2,
            "only the text and formula lines change:\n{diff}"
        );
        assert_eq!(
            std::fs::read_to_string(&spec_path).unwrap(),
            old,
            "a preview wrote the file"
        );
        if n == 0 {
            shots.take(&page, "edit-preview");
            // The same request without its CSRF field, and from another origin, is
            // refused and writes nothing.
            step(
                start,
                "plain HTTP: a save without the CSRF field is refused",
            );
            let fields = form_fields(&page, "form#apply-form");
            assert!(fields.iter().any(|(k, _)| k == "csrf"), "{fields:?}");
            let action =
                page.eval("document.querySelector('form#apply-form').getAttribute('action')");
            let action = action.as_str().unwrap();
            let no_csrf: Vec<_> = fields
                .iter()
                .filter(|(k, _)| k != "csrf")
                .cloned()
                .collect();
            let wrong_csrf: Vec<_> = fields
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if k == "csrf" {
                            "0".repeat(v.len())
                        } else {
                            v.clone()
                        },
                    )
                })
                .collect();
            let form_type = ("Content-Type", "application/x-www-form-urlencoded");
            for (what, body, origin) in [
                ("no CSRF field", form(&no_csrf), None),
                ("a wrong CSRF field", form(&wrong_csrf), None),
                (
                    "another origin",
                    form(&fields),
                    Some("http://attacker.invalid"),
                ),
            ] {
                let mut headers = vec![with_cookie[0], form_type];
                if let Some(o) = origin {
                    headers.push(("Origin", o));
                }
                let r = http(&server.host, "POST", action, &headers, &body);
                assert!(
                    (400..500).contains(&r.status),
                    "a save with {what} answered {}:\n{}",
                    r.status,
                    r.body
                );
                assert_eq!(
                    std::fs::read_to_string(&spec_path).unwrap(),
                    old,
                    "a save with {what} wrote the file"
                );
            }
        }
        page.click_nav("#apply");
        page.wait_for("#notice", SHOW);
        assert!(page.url().contains("/spec"), "after saving: {}", page.url());
        let new = std::fs::read_to_string(&spec_path).unwrap();
        assert_ne!(new, old, "saving {id} did not change the file");
        assert_eq!(
            new,
            apply_unified_diff(&old, &diff),
            "the file on disk is not the previewed change:\n{diff}"
        );
    }
    step(start, "run the audit again: consistent");
    run_check(&page, "#run-audit");
    page.wait_for("#consistency[data-status=\"consistent\"]", SHOW);
    assert_eq!(page.count("table#requirements tr.conflicting"), 0);

    // --- Two tabs preview an edit of the same requirement; the second save is refused.
    step(start, "two tabs: the second save is refused");
    let tab2 = browser.new_page();
    tab2.goto(&spec_url);
    let before = std::fs::read_to_string(&spec_path).unwrap();
    let first = "The dialysate temperature shall never exceed 38.0 degC (tab one).";
    let second = "The dialysate temperature shall never exceed 38.0 degC (tab two).";
    page.goto(&spec_url);
    let diff1 = edit_and_preview(&page, "R-TEMP-5", first, "(<= dialysate_temp 38.0)");
    edit_and_preview(&tab2, "R-TEMP-5", second, "(<= dialysate_temp 38.0)");
    page.click_nav("#apply");
    page.wait_for("#notice", SHOW);
    let after_first = std::fs::read_to_string(&spec_path).unwrap();
    assert_eq!(after_first, apply_unified_diff(&before, &diff1));
    tab2.click_nav("#apply");
    tab2.wait_for("#error", SHOW);
    let err = tab2.text("#error");
    assert!(err.contains("changed since"), "the refusal says: {err}");
    shots.take(&tab2, "refused-write");
    let now = std::fs::read_to_string(&spec_path).unwrap();
    assert_eq!(now, after_first, "the refused save changed the file");
    assert!(now.contains("(tab one)") && !now.contains("(tab two)"));
    drop(tab2);

    // --- A text editor changes the file after the preview: the save is refused.
    step(
        start,
        "a change on disk after the preview: the save is refused",
    );
    page.goto(&spec_url);
    edit_and_preview(
        &page,
        "R-TEMP-5",
        "Changed in the page.",
        "(<= dialysate_temp 38.0)",
    );
    let by_hand = format!("{after_first}# a note added in a text editor\n");
    std::fs::write(&spec_path, &by_hand).unwrap();
    page.click_nav("#apply");
    page.wait_for("#error", SHOW);
    let err = page.text("#error");
    assert!(err.contains("changed since"), "the refusal says: {err}");
    assert_eq!(
        std::fs::read_to_string(&spec_path).unwrap(),
        by_hand,
        "the hand edit was lost"
    );

    // --- Markup and terminal escapes in a spec are shown as text.
    step(start, "markup in a spec shows as text");
    page.goto(&overview_url);
    page.click_nav("a[data-file=\"xss.toml\"]");
    page.wait_for("table#requirements", SHOW);
    assert_eq!(
        page.count("script"),
        frame_scripts,
        "the spec page holds a script element of the spec's"
    );
    let text = page.text("body");
    assert!(
        text.contains("<script>alert(1)</script>"),
        "the markup is not shown as text:\n{text}"
    );
    // The ESC character itself, or the control picture ␛ standing for it.
    assert!(
        text.contains("\u{1b}[31mred") || text.contains("\u{241b}[31mred"),
        "the terminal escape is not shown as text:\n{text}"
    );
    let esc = if text.contains('\u{1b}') {
        "kept as the ESC character"
    } else {
        "shown as the control picture \u{241b}"
    };
    eprintln!("    terminal escape: {esc}");
    assert_eq!(
        page.count("main script"),
        0,
        "a script element inside the page's content"
    );
    assert!(
        page.exists("tr[data-id=\"R-<script>alert(1)</script>\"]"),
        "the id is not kept as the row's data-id"
    );

    // --- The rule case: check, accept the divergence as an exception, check again.
    step(start, "case page: run the check");
    page.goto(&overview_url);
    page.click_nav("a[data-file=\"cra-ab\"]");
    page.wait_for("svg#plot", SHOW);
    run_check(&page, "#run-check");
    page.wait_for("#verdict[data-verdict=\"inconsistent\"]", SHOW);
    page.wait_for(".region form.accept-exception", SHOW);
    page.wait_for("svg#plot", SHOW);
    // `.region` also names the chart's shaded bands: count the sections.
    let regions = page.count("div.region:not(.common)");
    assert!(regions >= 1, "no divergence region");
    eprintln!("    {regions} divergence region(s)");
    shots.take(&page, "case-plot");
    // The condition every region has in common, when the page offers it, covers every
    // divergence at once; else the first region.
    let form = if page.exists("div.region.common form.accept-exception") {
        "div.region.common form.accept-exception"
    } else {
        "div.region form.accept-exception"
    };
    eprintln!("    accepting the exception of `{form}`");
    assert_eq!(
        page.count("div.region:not(.common) form.accept-exception"),
        regions,
        "a divergence region without its form"
    );
    for name in ["reason", "accepted_by", "assume"] {
        page.wait_for(&format!("{form} [name=\"{name}\"]"), SHOW);
    }
    let assume = page.eval(&format!(
        "document.querySelector({}).value",
        js_str(&format!("{form} [name=\"assume\"]"))
    ));
    assert!(
        assume.as_str().is_some_and(|a| !a.trim().is_empty()),
        "the exception's assumption is not prefilled: {assume}"
    );
    page.set_value(
        &format!("{form} [name=\"reason\"]"),
        "SINs from 900 million up are temporary workers, taxed elsewhere",
    );
    page.set_value(&format!("{form} [name=\"accepted_by\"]"), "J. Tremblay");
    assert!(!case.join("exceptions.toml").exists());
    step(start, "case page: preview and save the exception");
    page.click_nav(&format!(
        "{form} button[type=\"submit\"], {form} button:not([type]), {form} input[type=\"submit\"]"
    ));
    let diff = previewed_diff(&page);
    page.wait_for("#apply", SHOW);
    assert!(
        !case.join("exceptions.toml").exists(),
        "the preview wrote exceptions.toml"
    );
    page.click_nav("#apply");
    let written = std::fs::read_to_string(case.join("exceptions.toml"))
        .unwrap_or_else(|e| page.fail(&format!("no exceptions.toml after saving: {e}")));
    assert_eq!(
        written,
        apply_unified_diff("", &diff),
        "exceptions.toml is not the previewed text:\n{diff}"
    );
    assert!(written.contains("J. Tremblay"), "{written}");
    step(start, "case page: run the check again: consistent");
    if !page.exists("#run-check") {
        page.goto(&overview_url);
        page.click_nav("a[data-file=\"cra-ab\"]");
    }
    run_check(&page, "#run-check");
    page.wait_for("#verdict[data-verdict=\"consistent\"]", SHOW);

    for p in &shots.taken {
        devtools::check_png(p, 5_000);
    }
    step(
        start,
        &format!("done; screenshots in {}", shots.dir.display()),
    );
    drop(page);
    drop(browser);
    drop(server);
}
