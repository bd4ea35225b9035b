//! `vera serve` over plain HTTP: the real binary on a temporary folder, requests written
//! by hand over a TCP stream. What a hostile page or a careless person could send: no
//! token, another Host or Origin, no CSRF token, paths and links out of the folder,
//! markup in names and texts, files changed between a preview and its save, odd files
//! in the folder, and the ways the server can fail to start; then the server's own
//! conduct with real processes: SIGINT and SIGTERM stop every check, checks beyond
//! `--jobs` wait in a queue, idle connections are closed and cannot lock the owner out.

#[path = "support/http.rs"]
mod plain_http;

use plain_http::{enc, form, Resp};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy(from: &str, to: &Path) {
    if let Some(p) = to.parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    std::fs::copy(repo().join(from), to).unwrap();
}

/// The hemodialysis spec at `dir/name`.
fn spec_into(dir: &Path, name: &str) -> String {
    copy("examples/hemodialysis/hemodialysis.toml", &dir.join(name));
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// The CRA rule case (documentation, program, bounds) in `dir/case`.
fn case_into(dir: &Path) {
    let c = dir.join("case");
    copy(
        "testdata/fees-dataset/cra-25/ab/ab.smt2",
        &c.join("ab.smt2"),
    );
    copy(
        "testdata/fees-dataset/cra-25/ab/prog.bl",
        &c.join("prog.bl"),
    );
    copy("examples/fees/cra-bounds.json", &c.join("bounds.json"));
}

struct Server {
    child: Child,
    /// `IP:PORT` as printed (what the Host header names).
    host: String,
    port: u16,
    token: String,
    cookie: String,
    _stdout: Option<BufReader<ChildStdout>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        plain_http::stop_server(&mut self.child);
    }
}

fn start_with(dir: &Path, extra: &[&str], keep_stdout: bool) -> Server {
    launch(dir, extra, keep_stdout, &[])
}

/// `vera serve DIR --port 0 EXTRA` with `env` added to its environment.
fn launch(dir: &Path, extra: &[&str], keep_stdout: bool, env: &[(&str, &Path)]) -> Server {
    launch_cmd(
        Command::new(env!("CARGO_BIN_EXE_vera")),
        dir,
        extra,
        keep_stdout,
        env,
    )
}

/// `vera serve` allowed `n` open files (the usual default of 1,024, where this
/// machine may allow more): through `sh`, which sets the limit and becomes vera.
fn start_with_open_files(dir: &Path, n: u32) -> Server {
    let mut sh = Command::new("sh");
    sh.args([
        "-c",
        &format!("ulimit -n {n} && exec \"$0\" \"$@\""),
        env!("CARGO_BIN_EXE_vera"),
    ]);
    launch_cmd(sh, dir, &[], true, &[])
}

fn launch_cmd(
    mut cmd: Command,
    dir: &Path,
    extra: &[&str],
    keep_stdout: bool,
    env: &[(&str, &Path)],
) -> Server {
    let mut child = cmd
        .arg("serve")
        .arg(dir)
        .args(["--port", "0"])
        .args(extra)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("vera serve: ")
        .unwrap_or_else(|| panic!("first line: {line:?}"));
    let rest = url.strip_prefix("http://").unwrap();
    let (addr, query) = rest.split_once("/?token=").unwrap();
    let port: u16 = addr.rsplit_once(':').unwrap().1.parse().unwrap();
    Server {
        child,
        host: addr.to_string(),
        port,
        token: query.to_string(),
        cookie: format!("vera_token_{port}={query}"),
        _stdout: keep_stdout.then_some(out),
    }
}

fn start(dir: &Path) -> Server {
    start_with(dir, &[], true)
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find(';').unwrap();
        let ent = &tail[1..end];
        match ent {
            "amp" => out.push('&'),
            "lt" => out.push('<'),
            "gt" => out.push('>'),
            "quot" => out.push('"'),
            _ => {
                let n: u32 = ent.strip_prefix('#').unwrap().parse().unwrap();
                out.push(char::from_u32(n).unwrap());
            }
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The hidden fields of the first form after `marker` in `html`.
fn hidden_after(html: &str, marker: &str) -> Vec<(String, String)> {
    let start = html
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in {html}"));
    let part = &html[start..];
    let part = &part[..part.find("</form>").unwrap()];
    let mut v = Vec::new();
    for chunk in part.split("<input type=\"hidden\" name=\"").skip(1) {
        let (name, rest) = chunk.split_once("\" value=\"").unwrap();
        let value = &rest[..rest.find('"').unwrap()];
        v.push((unescape(name), unescape(value)));
    }
    v
}

/// The formula an edit form shows (its textarea's text).
fn form_formula(html: &str) -> String {
    let f = html.split("name=\"formula\"").nth(1).unwrap();
    let f = &f[f.find('>').unwrap() + 1..];
    unescape(&f[..f.find("</textarea>").unwrap()])
}

fn set(fields: &mut [(String, String)], name: &str, value: &str) {
    for (k, v) in fields.iter_mut() {
        if k == name {
            *v = value.to_string();
        }
    }
}

fn s(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

impl Server {
    fn raw(&self, request: &str) -> Resp {
        plain_http::exchange(&self.host, request)
    }

    fn request(&self, method: &str, path: &str, extra: &[(&str, &str)], body: &str) -> Resp {
        let mut r = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !extra.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            r.push_str(&format!("Host: {}\r\n", self.host));
        }
        if !extra.iter().any(|(k, _)| k.eq_ignore_ascii_case("cookie")) {
            r.push_str(&format!("Cookie: {}\r\n", self.cookie));
        }
        for (k, v) in extra {
            r.push_str(&format!("{k}: {v}\r\n"));
        }
        if method == "POST" {
            r.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
            r.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        r.push_str("\r\n");
        r.push_str(body);
        self.raw(&r)
    }

    fn get(&self, path: &str) -> Resp {
        self.request("GET", path, &[], "")
    }

    fn post(&self, path: &str, fields: &[(String, String)]) -> Resp {
        self.request("POST", path, &[], &form(fields))
    }

    fn csrf(&self) -> String {
        let b = self.get("/").body;
        let i = b.find("<meta name=\"csrf\" content=\"").unwrap() + 27;
        b[i..i + 32].to_string()
    }

    /// Starts a check; its id.
    fn job(&self, kind: &str, path: &str) -> Resp {
        let csrf = self.csrf();
        self.request(
            "POST",
            "/jobs",
            &[("x-vera-csrf", &csrf)],
            &form(&[s("kind", kind), s("path", path)]),
        )
    }

    /// Waits until job `id` ends; its state as JSON text.
    fn wait_job(&self, id: &str) -> String {
        let t = Instant::now();
        loop {
            let r = self.get(&format!("/jobs/{id}"));
            assert_eq!(r.status, 200, "{}", r.body);
            if !r.body.contains("\"state\":\"running\"") {
                return r.body;
            }
            assert!(t.elapsed() < Duration::from_secs(15), "job {id} still runs");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Starts a check of `path` and waits until it ends; its end state as JSON text.
    fn run_check(&self, kind: &str, path: &str) -> String {
        let r = self.job(kind, path);
        assert_eq!(r.status, 200, "{}", r.body);
        let id = r.body.trim_start_matches("{\"id\":").trim_end_matches('}');
        self.wait_job(id)
    }

    /// The apply form of a requirement edit previewed with a new `text`.
    fn preview_text(&self, rel: &str, id: &str, text: &str) -> (Resp, Vec<(String, String)>) {
        let e = self.get(&format!("/spec/edit?path={}&id={}", enc(rel), enc(id)));
        assert_eq!(e.status, 200, "{}", e.body);
        let mut f = hidden_after(&e.body, "id=\"edit-form\"");
        f.push(s("text", text));
        f.push(s("formula", &form_formula(&e.body)));
        let p = self.post("/spec/preview", &f);
        let apply = if p.status == 200 {
            hidden_after(&p.body, "id=\"apply-form\"")
        } else {
            Vec::new()
        };
        (p, apply)
    }
}

const ART1: &str = "If the arterial pressure rises above the upper arterial limit, the arterial pressure alarm shall be raised.";

#[test]
fn access_needs_the_token_the_host_the_origin_and_the_csrf_token() {
    let t = tempfile::tempdir().unwrap();
    let original = spec_into(t.path(), "spec.toml");
    let srv = start(t.path());
    let p = srv.port;

    let r = srv.request("GET", "/", &[("Cookie", "x=y")], "");
    assert_eq!(r.status, 401);
    let r = srv.request(
        "GET",
        "/",
        &[("Cookie", &format!("vera_token_{p}=0000"))],
        "",
    );
    assert_eq!(r.status, 401);
    // The token in the URL sets the cookie and redirects to the same page without it.
    let r = srv.request(
        "GET",
        &format!("/spec?token={}&path=spec.toml", srv.token),
        &[("Cookie", "x=y")],
        "",
    );
    assert_eq!(r.status, 303);
    assert_eq!(r.headers["location"], "/spec?path=spec.toml");
    assert!(r.headers["set-cookie"].contains("HttpOnly; SameSite=Strict"));
    // Not to another site: `//host` in the path is a link to that host.
    let r = srv.request(
        "GET",
        &format!("//evil.example/x?token={}", srv.token),
        &[("Cookie", "x=y")],
        "",
    );
    assert_eq!(r.status, 303);
    assert_eq!(r.headers["location"], "/evil.example/x");
    // Nor with a backslash, which browsers read as a slash there.
    for start in [
        "/\\evil.example/x",
        "/\\/evil.example/x",
        "/%5Cevil.example/x",
    ] {
        let r = srv.request(
            "GET",
            &format!("{start}?token={}", srv.token),
            &[("Cookie", "x=y")],
            "",
        );
        assert_eq!(r.status, 303, "{start}");
        let to = &r.headers["location"];
        assert!(
            to.starts_with('/') && !to[1..].starts_with(['/', '\\']),
            "{start} -> {to}"
        );
    }
    // DNS rebinding: another name for this address.
    for host in [
        format!("evil.example:{p}"),
        format!("127.0.0.1:{}", p.wrapping_add(1)),
        String::new(),
    ] {
        let r = srv.request("GET", "/", &[("Host", &host)], "");
        assert_eq!(r.status, 403, "Host {host:?}");
    }
    // The server's address is its own in 127.0.0.0/8: no other name reaches it (and
    // its cookie is not one of 127.0.0.1's).
    assert!(
        srv.host.starts_with("127.") && !srv.host.starts_with("127.0.0.1:"),
        "{}",
        srv.host
    );
    for host in [format!("localhost:{p}"), format!("127.0.0.1:{p}")] {
        let r = srv.request("GET", "/", &[("Host", &host)], "");
        assert_eq!(r.status, 403, "Host {host:?}");
    }
    // Asked to listen on 127.0.0.1, its names are accepted.
    let local = start_with(t.path(), &["--listen", "127.0.0.1"], true);
    assert_eq!(local.host, format!("127.0.0.1:{}", local.port));
    for host in ["localhost", "127.0.0.1", "LOCALHOST"] {
        let r = local.request(
            "GET",
            "/",
            &[("Host", &format!("{host}:{}", local.port))],
            "",
        );
        assert_eq!(r.status, 200, "Host {host}");
    }
    drop(local);

    // A complete, valid save, sent the ways a hostile page or a stale tab would.
    let (pv, apply) = srv.preview_text("spec.toml", "R-ART-1", "Changed.");
    assert_eq!(pv.status, 200, "{}", pv.body);
    let body = form(&apply);
    let no_csrf: Vec<_> = apply.iter().filter(|(k, _)| k != "csrf").cloned().collect();
    let mut wrong = apply.clone();
    set(&mut wrong, "csrf", &"0".repeat(32));
    for (what, r) in [
        (
            "no cookie",
            srv.request("POST", "/spec/apply", &[("Cookie", "x=y")], &body),
        ),
        (
            "cross origin",
            srv.request(
                "POST",
                "/spec/apply",
                &[("Origin", "http://evil.example")],
                &body,
            ),
        ),
        (
            "null origin",
            srv.request("POST", "/spec/apply", &[("Origin", "null")], &body),
        ),
        (
            "other port",
            srv.request(
                "POST",
                "/spec/apply",
                &[("Origin", &format!("http://127.0.0.1:{}", p.wrapping_add(1)))],
                &body,
            ),
        ),
        ("no csrf", srv.post("/spec/apply", &no_csrf)),
        ("wrong csrf", srv.post("/spec/apply", &wrong)),
    ] {
        assert!(r.status == 401 || r.status == 403, "{what}: {}", r.status);
        assert_eq!(
            std::fs::read_to_string(t.path().join("spec.toml")).unwrap(),
            original,
            "{what}"
        );
    }
    // Jobs need the header too.
    let r = srv.request("POST", "/jobs", &[], "kind=audit&path=spec.toml");
    assert_eq!(r.status, 403);
    let r = srv.request("POST", "/jobs/1/cancel", &[("x-vera-csrf", "nope")], "");
    assert_eq!(r.status, 403);
    // The same-origin save goes through.
    let r = srv.request(
        "POST",
        "/spec/apply",
        &[("Origin", &format!("http://{}", srv.host))],
        &body,
    );
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(
        std::fs::read_to_string(t.path().join("spec.toml")).unwrap(),
        original.replace(ART1, "Changed.")
    );
}

#[test]
fn every_answer_before_login_carries_the_security_headers() {
    let t = tempfile::tempdir().unwrap();
    spec_into(t.path(), "spec.toml");
    let srv = start(t.path());
    let p = srv.port;
    for (what, r, status) in [
        (
            "no token",
            srv.request("GET", "/", &[("Cookie", "x=y")], ""),
            401,
        ),
        (
            "another Host",
            srv.request("GET", "/", &[("Host", &format!("evil.example:{p}"))], ""),
            403,
        ),
        (
            "another Origin",
            srv.request(
                "POST",
                "/jobs",
                &[("Origin", "http://evil.example")],
                "kind=audit&path=spec.toml",
            ),
            403,
        ),
        (
            "the token redirect",
            srv.request(
                "GET",
                &format!("/?token={}", srv.token),
                &[("Cookie", "x=y")],
                "",
            ),
            303,
        ),
        ("a page", srv.get("/"), 200),
    ] {
        assert_eq!(r.status, status, "{what}: {}", r.head);
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(
            csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
            "{what}: {}",
            r.head
        );
        assert_eq!(
            r.header("x-content-type-options").as_deref(),
            Some("nosniff"),
            "{what}: {}",
            r.head
        );
        assert_eq!(
            r.header("cache-control").as_deref(),
            Some("no-store"),
            "{what}"
        );
    }
}

#[test]
fn paths_and_links_out_of_the_folder_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("served");
    std::fs::create_dir(&dir).unwrap();
    spec_into(&dir, "spec.toml");
    let secret = "SECRET-OUTSIDE-4711";
    std::fs::write(
        t.path().join("secret.toml"),
        format!("[[requirements]]\n# {secret}\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(t.path().join("secret.toml"), dir.join("link.toml")).unwrap();
    std::os::unix::fs::symlink(t.path(), dir.join("up")).unwrap();
    let fifo = dir.join("x.toml");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let srv = start(&dir);
    let started = Instant::now();
    let o = srv.get("/");
    assert_eq!(o.status, 200);
    assert!(o.body.contains("data-file=\"spec.toml\""));
    assert!(!o.body.contains(secret));
    for page in [
        "/file",
        "/spec",
        "/spec/req",
        "/spec/edit",
        "/report",
        "/c",
        "/case",
    ] {
        for p in [
            "../secret.toml",
            "link.toml",
            "up/secret.toml",
            "/etc/passwd",
            "spec.toml/../../secret.toml",
            "x.toml",
            "",
            "nope.toml",
        ] {
            let r = srv.get(&format!("{page}?path={}&id=R-ART-1", enc(p)));
            assert!(
                [403, 404, 422].contains(&r.status),
                "{page} {p}: {} {}",
                r.status,
                r.body
            );
            assert!(!r.body.contains(secret), "{page} {p}");
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "a fifo blocked a read"
    );
    // Writes through a link out of the folder.
    let csrf = srv.csrf();
    let r = srv.post(
        "/spec/apply",
        &[
            s("path", "link.toml"),
            s("id", "R-ART-1"),
            s("text", "x"),
            s("version", "absent"),
            s("new_version", "x"),
            s("csrf", &csrf),
        ],
    );
    assert_eq!(r.status, 403);
    assert!(std::fs::read_to_string(t.path().join("secret.toml"))
        .unwrap()
        .contains(secret));
}

#[test]
fn a_rule_case_whose_files_link_out_of_the_folder_is_not_read() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("served");
    case_into(&dir);
    let secret = "SECRET_OUTSIDE_4711";
    std::fs::write(t.path().join("outside.bl"), format!("{secret} line\n")).unwrap();
    std::fs::remove_file(dir.join("case/prog.bl")).unwrap();
    std::os::unix::fs::symlink(t.path().join("outside.bl"), dir.join("case/prog.bl")).unwrap();
    let srv = start(&dir);
    let r = srv.get("/case?path=case");
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(!r.body.contains(secret), "{}", r.body);
    let r = srv.job("consistency", "case");
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(!r.body.contains(secret));
}

#[test]
fn a_case_whose_exceptions_file_links_out_of_the_folder_is_neither_shown_nor_checked() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("served");
    case_into(&dir);
    let secret = "SECRET_EXCEPTIONS_4711";
    std::fs::write(
        t.path().join("outside.toml"),
        format!("{secret} = \"first line\"\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        t.path().join("outside.toml"),
        dir.join("case/exceptions.toml"),
    )
    .unwrap();
    let srv = start(&dir);
    let r = srv.get("/case?path=case");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!r.body.contains(secret), "{}", r.body);
    let li = r.body.split("id=\"exceptions-file\"").nth(1).unwrap();
    let li = &li[..li.find("</li>").unwrap()];
    assert!(li.contains("leads outside the served folder"), "{li}");
    assert!(!li.contains("none yet"), "{li}");
    // The check would read it: it does not start.
    let r = srv.job("consistency", "case");
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body.contains("leads outside the served folder"),
        "{}",
        r.body
    );
    assert!(!r.body.contains(secret));
    // Nor is an exception written through the link.
    let csrf = srv.csrf();
    let r = srv.post(
        "/case/exception/preview",
        &[
            s("path", "case"),
            s("id", "x"),
            s("assume", "true"),
            s("reason", "r"),
            s("accepted_by", "me"),
            s("date", "2024-01-02"),
            s("version", "absent"),
            s("csrf", &csrf),
        ],
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(!r.body.contains(secret));
    assert_eq!(
        std::fs::read_to_string(t.path().join("outside.toml")).unwrap(),
        format!("{secret} = \"first line\"\n")
    );
}

#[test]
fn a_check_names_only_resolved_files_inside_the_folder() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("served");
    case_into(&dir);
    // Every file of the case is a link to a file elsewhere in the folder.
    std::fs::create_dir(dir.join("linked")).unwrap();
    for f in ["ab.smt2", "prog.bl", "bounds.json"] {
        std::fs::rename(dir.join("case").join(f), dir.join("linked").join(f)).unwrap();
        std::os::unix::fs::symlink(format!("../linked/{f}"), dir.join("case").join(f)).unwrap();
    }
    std::fs::write(
        dir.join("linked/exc.toml"),
        "[[exception]]\nid = \"low\"\ncases = \"*\"\nassume = \"(> Income 0)\"\nreason = \"r\"\naccepted_by = \"me\"\ndate = \"2024-01-02\"\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("../linked/exc.toml", dir.join("case/exceptions.toml")).unwrap();
    spec_into(&dir.join("linked"), "spec.toml");
    std::os::unix::fs::symlink("linked/spec.toml", dir.join("link.toml")).unwrap();
    let srv = start(&dir);
    let r = srv.get("/case?path=case");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("/file?path=linked/exc.toml"), "{}", r.body);
    for (kind, target) in [("consistency", "case"), ("audit", "link.toml")] {
        let v = srv.run_check(kind, target);
        let log: serde_json::Value = serde_json::from_str(&v).unwrap();
        assert_eq!(log["state"], "done", "{v}");
        let command = log["log"][0].as_str().unwrap().to_string();
        let args: Vec<&str> = command.split_whitespace().skip(2).collect();
        eprintln!("{command}");
        // Every argument that names a file of the folder names it without a link.
        let mut files = 0;
        for a in &args {
            let p = dir.join(a);
            // Options, and the server's own cache folder (outside the served folder).
            if a.starts_with('-') || a.starts_with('/') || !p.exists() {
                continue;
            }
            files += 1;
            assert!(
                !std::fs::symlink_metadata(&p)
                    .unwrap()
                    .file_type()
                    .is_symlink(),
                "{a} is a link: {command}"
            );
            assert_eq!(
                p.canonicalize().unwrap(),
                dir.canonicalize().unwrap().join(a)
            );
        }
        if kind == "consistency" {
            assert_eq!(files, 4, "{command}");
            assert!(
                command.contains("--no-exceptions --exceptions linked/exc.toml"),
                "{command}"
            );
        } else {
            assert_eq!(files, 1, "{command}");
            assert!(command.contains(" linked/spec.toml "), "{command}");
        }
    }
}

/// The `--cache-dir` of the last audit run by `srv` on `rel`.
fn cache_dir_of(srv: &Server, rel: &str) -> PathBuf {
    let v = srv.run_check("audit", rel);
    let log: serde_json::Value = serde_json::from_str(&v).unwrap();
    assert_eq!(log["state"], "done", "{v}");
    let command = log["log"][0].as_str().unwrap();
    let cache = command
        .split(" --cache-dir ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no --cache-dir in {command}"));
    PathBuf::from(cache)
}

#[test]
fn the_cache_folder_is_private_and_named_apart_from_the_token() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("served");
    std::fs::create_dir(&dir).unwrap();
    spec_into(&dir, "spec.toml");
    let tmp = t.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let srv = launch(&dir, &[], true, &[("TMPDIR", &tmp)]);
    let cache = cache_dir_of(&srv, "spec.toml");
    let folder = cache.parent().unwrap();
    assert_eq!(folder.parent(), Some(tmp.as_path()), "{}", cache.display());
    let name = folder.file_name().unwrap().to_str().unwrap();
    // No run of 5 hex digits of the token shows in the name (`ps` shows it to everyone).
    let token = srv.token.as_bytes();
    for w in token.windows(5) {
        let w = std::str::from_utf8(w).unwrap();
        assert!(!name.contains(w), "{name} holds {w} of the token");
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(folder).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{name} has mode {mode:o}");
}

#[test]
fn a_date_that_is_not_a_day_of_the_calendar_is_refused_for_reviews_and_exceptions() {
    let t = tempfile::tempdir().unwrap();
    spec_into(t.path(), "spec.toml");
    case_into(t.path());
    let srv = start(t.path());
    let e = srv.get("/spec/edit?path=spec.toml&id=R-ART-1");
    let version = hidden_after(&e.body, "id=\"edit-form\"")
        .into_iter()
        .find(|(k, _)| k == "version")
        .unwrap()
        .1;
    let csrf = srv.csrf();
    let review = |date: &str| {
        srv.post(
            "/spec/preview",
            &[
                s("path", "spec.toml"),
                s("id", "R-ART-1"),
                s("text", ""),
                s("finding", "redundant"),
                s("reason", "kept on purpose"),
                s("reviewed_by", "J. T"),
                s("date", date),
                s("version", &version),
                s("csrf", &csrf),
            ],
        )
    };
    let r = review("2024-02-30");
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("`2024-02-30` is not a date"), "{}", r.body);
    assert_eq!(review("2024-02-29").status, 200);
    let exception = |date: &str| {
        srv.post(
            "/case/exception/preview",
            &[
                s("path", "case"),
                s("id", "x"),
                s("assume", "(> Income 0)"),
                s("reason", "r"),
                s("accepted_by", "me"),
                s("date", date),
                s("version", "absent"),
                s("csrf", &csrf),
            ],
        )
    };
    let r = exception("2024-02-30");
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("YYYY-MM-DD"), "{}", r.body);
    assert_eq!(exception("2024-02-29").status, 200);
}

/// A spec with a byte order mark, CRLF line endings, no final newline, a formula over
/// three lines with `(- 5)` in it, and a model's formula.
const CRLF_SPEC: &str = "\u{feff}# CRLF, BOM, no final newline\r\n[spec]\r\nname = \"layout\"\r\n\r\n[[variables]]\r\nname = \"a\"\r\nsort = \"Int\"\r\nmin = -10\r\nmax = 10\r\n\r\n[[requirements]]\r\nid = \"R1\"\r\ntext = \"a stays above minus five\"\r\nformula = \"\"\"\r\n(and (> a (- 5))\r\n     (< a 9))\"\"\"   # as written\r\n\r\n[[requirements]]\r\nid = \"R2\"\r\ntext = \"a stays below nine\"\r\nformula = \"(< a 9)\"\r\norigin = \"model\"";

#[test]
fn an_edit_keeps_the_files_bom_line_endings_final_newline_and_formulas_as_written() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("spec.toml");
    std::fs::write(&path, CRLF_SPEC).unwrap();
    let srv = start(t.path());
    // The form shows the formula as the file has it, not re-printed.
    let e = srv.get("/spec/edit?path=spec.toml&id=R1");
    assert_eq!(e.status, 200, "{}", e.body);
    assert_eq!(form_formula(&e.body), "(and (> a (- 5))\n     (< a 9))");
    // Editing the text alone: the preview changes one line, the save that line's text
    // and no other byte.
    let (p, apply) = srv.preview_text("spec.toml", "R1", "a stays above minus five, always");
    assert_eq!(p.status, 200, "{}", p.body);
    let diff = p.body.split("id=\"diff\"").nth(1).unwrap();
    let diff = &diff[..diff.find("</pre>").unwrap()];
    assert_eq!(diff.matches("class=\"del\"").count(), 1, "{diff}");
    assert_eq!(diff.matches("class=\"add\"").count(), 1, "{diff}");
    let r = srv.post("/spec/apply", &apply);
    assert_eq!(r.status, 303, "{}", r.body);
    let after = std::fs::read(&path).unwrap();
    let want = CRLF_SPEC.replace(
        "text = \"a stays above minus five\"",
        "text = \"a stays above minus five, always\"",
    );
    assert_eq!(String::from_utf8(after).unwrap(), want);
    // A model's formula whose text alone is edited stays the model's.
    let (p, apply) = srv.preview_text("spec.toml", "R2", "a stays below nine, always");
    assert_eq!(p.status, 200, "{}", p.body);
    assert_eq!(srv.post("/spec/apply", &apply).status, 303);
    let want = want.replace(
        "text = \"a stays below nine\"",
        "text = \"a stays below nine, always\"",
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
    // A changed formula is written with the line's own CRLF ending.
    let e = srv.get("/spec/edit?path=spec.toml&id=R2");
    let mut f = hidden_after(&e.body, "id=\"edit-form\"");
    f.push(s("text", "a stays below eight"));
    f.push(s("formula", "(< a 8)"));
    let p = srv.post("/spec/preview", &f);
    assert_eq!(p.status, 200, "{}", p.body);
    let apply = hidden_after(&p.body, "id=\"apply-form\"");
    assert_eq!(srv.post("/spec/apply", &apply).status, 303);
    let want = want
        .replace(
            "text = \"a stays below nine, always\"",
            "text = \"a stays below eight\"",
        )
        .replace(
            "formula = \"(< a 9)\"\r\norigin = \"model\"",
            "formula = \"(< a 8)\"",
        );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
}

#[test]
fn temporary_files_left_by_an_interrupted_save_are_removed_at_start_and_never_listed() {
    let t = tempfile::tempdir().unwrap();
    spec_into(t.path(), "spec.toml");
    std::fs::create_dir(t.path().join("sub")).unwrap();
    // What a `kill -9` between a save's write and its rename leaves: safefile's naming.
    let stale = [".spec.toml.Ab3dE9.tmp", "sub/.exceptions.toml.q9Z0aa.tmp"];
    for f in stale {
        std::fs::write(t.path().join(f), "[[requirements]]\nid = \"half\"\n").unwrap();
    }
    // One that a writer still has open (this process), and files of other naming.
    let open_one = ".spec.toml.Zz9Yy8.tmp";
    let _writer = std::fs::File::create(t.path().join(open_one)).unwrap();
    let others = [
        ".notes.tmp",
        "spec.toml.Ab3dE9.tmp",
        ".spec.toml.Ab3dE9x.tmp",
    ];
    for f in others {
        std::fs::write(t.path().join(f), "x").unwrap();
    }
    let mut srv = start(t.path());
    for f in stale {
        assert!(!t.path().join(f).exists(), "{f} is still there");
    }
    for f in others.iter().chain([&open_one]) {
        assert!(t.path().join(f).exists(), "{f} was removed");
    }
    let o = srv.get("/");
    assert_eq!(o.status, 200);
    assert!(o.body.contains("data-file=\"spec.toml\""), "{}", o.body);
    assert!(!o.body.contains("Zz9Yy8"), "{}", o.body);
    srv.child.kill().unwrap();
    let mut err = String::new();
    srv.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    for f in stale {
        assert!(err.contains(&format!("removed {f}")), "{err}");
    }
}

#[test]
fn saves_are_refused_when_the_file_changed_since_the_preview() {
    let t = tempfile::tempdir().unwrap();
    let original = spec_into(t.path(), "spec.toml");
    let path = t.path().join("spec.toml");
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("outside.toml");
    let srv = start(t.path());

    // Two previews of the same version, then two saves: the second is refused.
    let (p1, a1) = srv.preview_text("spec.toml", "R-ART-1", "First.");
    let (p2, a2) = srv.preview_text("spec.toml", "R-ART-1", "Second <b>\"x\"</b>.");
    assert_eq!((p1.status, p2.status), (200, 200));
    assert!(p2.body.contains("Second &lt;b&gt;&quot;x&quot;&lt;/b&gt;."));
    let r = srv.post("/spec/apply", &a1);
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(r.headers["location"], "/spec?path=spec.toml&saved=R-ART-1");
    let first = original.replace(ART1, "First.");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), first);
    let r = srv.post("/spec/apply", &a2);
    assert_eq!(r.status, 409);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), first);
    // The same save again: refused, the file moved on.
    assert_eq!(srv.post("/spec/apply", &a1).status, 409);
    // A form that does not save what was previewed.
    let (_, mut a3) = srv.preview_text("spec.toml", "R-ART-1", "Third.");
    set(&mut a3, "text", "Not previewed.");
    assert_eq!(srv.post("/spec/apply", &a3).status, 409);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), first);

    // Edited in a text editor between the preview and the save.
    let (_, a4) = srv.preview_text("spec.toml", "R-ART-1", "Fourth.");
    let edited = format!("{first}\n# edited by hand\n");
    std::fs::write(&path, &edited).unwrap();
    let r = srv.post("/spec/apply", &a4);
    assert_eq!(r.status, 409);
    assert!(r.body.contains("changed since this page loaded it"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);

    // Deleted between the preview and the save.
    let (_, a5) = srv.preview_text("spec.toml", "R-ART-1", "Fifth.");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(srv.post("/spec/apply", &a5).status, 404);
    assert!(!path.exists());

    // Replaced by a link out of the folder (with the same text) between them.
    std::fs::write(&path, &edited).unwrap();
    let (_, a6) = srv.preview_text("spec.toml", "R-ART-1", "Sixth.");
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&outside, &edited).unwrap();
    std::os::unix::fs::symlink(&outside, &path).unwrap();
    assert_eq!(srv.post("/spec/apply", &a6).status, 403);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), edited);
    assert!(std::fs::symlink_metadata(&path)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_spec_that_is_not_utf8_is_not_rewritten() {
    let t = tempfile::tempdir().unwrap();
    let text = spec_into(t.path(), "spec.toml");
    let mut bytes = b"# caf\xe9 (Latin-1)\n".to_vec();
    bytes.extend_from_slice(text.as_bytes());
    std::fs::write(t.path().join("spec.toml"), &bytes).unwrap();
    let srv = start(t.path());
    assert_eq!(srv.get("/spec?path=spec.toml").status, 200);
    let (p, _) = srv.preview_text("spec.toml", "R-ART-1", "Changed.");
    assert_eq!(p.status, 422, "{}", p.body);
    assert!(p.body.contains("not UTF-8"));
    // A save sent without a preview is refused the same way.
    let e = srv.get("/spec/edit?path=spec.toml&id=R-ART-1");
    let mut f = hidden_after(&e.body, "id=\"edit-form\"");
    f.push(s("text", "Changed."));
    f.push(s("new_version", "x"));
    assert_eq!(srv.post("/spec/apply", &f).status, 422);
    assert_eq!(std::fs::read(t.path().join("spec.toml")).unwrap(), bytes);
}

#[test]
fn markup_in_names_and_texts_is_escaped_and_odd_ids_still_save() {
    let t = tempfile::tempdir().unwrap();
    let payload = "<script>alert(1)</script>\\\"'><img src=x onerror=alert(2)>\\u202e";
    let original = spec_into(t.path(), "spec.toml")
        .replace(
            "name = \"Hemodialysis machine: safety requirements\"",
            &format!("name = \"N{payload}\\u001b[31m\""),
        )
        .replace(
            "id = \"R-ART-1\"\ntext = \"",
            &format!("id = \"R-ART-1\"\ntext = \"T{payload}\\u001b[31m"),
        )
        .replace("id = \"R-ART-2\"", &format!("id = \"R{payload}\""));
    let odd = "a\"<img src=x onerror=alert(3)>.toml";
    std::fs::write(t.path().join("spec.toml"), &original).unwrap();
    std::fs::write(t.path().join(odd), &original).unwrap();
    std::fs::write(
        t.path().join("report.json"),
        format!(
            "{{\"schema\":\"vera.audit.v1\",\"file\":\"<script>x</script>\",\"x\":\"{payload}\"}}"
        ),
    )
    .unwrap();
    let srv = start(t.path());
    let id = "R<script>alert(1)</script>\"'><img src=x onerror=alert(2)>\u{202e}";
    for page in [
        "/".to_string(),
        "/spec?path=spec.toml".into(),
        "/spec/req?path=spec.toml&id=R-ART-1".into(),
        format!("/spec/req?path=spec.toml&id={}", enc(id)),
        format!("/spec/edit?path=spec.toml&id={}", enc(id)),
        format!("/spec?path={}", enc(odd)),
        "/file?path=spec.toml".into(),
        "/report?path=report.json".into(),
        format!("/spec?path={}", enc("<script>.toml")),
    ] {
        let r = srv.get(&page);
        assert!([200, 404].contains(&r.status), "{page}: {}", r.status);
        for bad in ["<script>alert", "<img", "\u{1b}", "\u{202e}<"] {
            assert!(!r.body.contains(bad), "{page} has {bad:?}");
        }
        let csp = &r.headers["content-security-policy"];
        assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"));
    }
    // The edit form carries the id as it is (not its escaped picture), so the save
    // finds the requirement.
    let (p, a) = srv.preview_text("spec.toml", id, "Renamed text.");
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(a.contains(&s("id", id)), "{a:?}");
    assert_eq!(srv.post("/spec/apply", &a).status, 303);
    let now = std::fs::read_to_string(t.path().join("spec.toml")).unwrap();
    let old_text = "The arterial pressure alarm shall be raised as soon as the arterial pressure comes within 10 mmHg of the upper arterial limit.";
    // The form sends the formula back as the file has it (`10`, not a re-printed
    // `10.0`): only the text changed.
    assert_eq!(now, original.replace(old_text, "Renamed text."));
}

#[test]
fn exceptions_are_added_once_and_refused_when_stale() {
    let t = tempfile::tempdir().unwrap();
    case_into(t.path());
    let exc = t.path().join("case/exceptions.toml");
    let srv = start(t.path());
    let csrf = srv.csrf();
    let page = srv.get("/case?path=case");
    assert_eq!(page.status, 200, "{}", page.body);
    let f = |id: &str, version: &str| {
        vec![
            s("path", "case"),
            s("id", id),
            s("cases", "*"),
            s("assume", "(> income 0)"),
            s("reason", "intended <b>\"rounding\"</b>"),
            s("accepted_by", "Reviewer"),
            s("date", "2024-01-02"),
            s("version", version),
            s("csrf", &csrf),
        ]
    };
    let p1 = srv.post("/case/exception/preview", &f("ex-1", "absent"));
    let p2 = srv.post("/case/exception/preview", &f("ex-2", "absent"));
    assert_eq!((p1.status, p2.status), (200, 200), "{}", p1.body);
    let a1 = hidden_after(&p1.body, "id=\"apply-form\"");
    let a2 = hidden_after(&p2.body, "id=\"apply-form\"");
    let mut no_csrf = a1.clone();
    set(&mut no_csrf, "csrf", "");
    assert_eq!(srv.post("/case/exception/apply", &no_csrf).status, 403);
    assert!(!exc.exists());
    let r = srv.post("/case/exception/apply", &a1);
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(r.headers["location"], "/case?path=case&saved=ex-1");
    let written = "[[exception]]\nid = \"ex-1\"\ncases = \"*\"\nassume = \"(> income 0)\"\nreason = 'intended <b>\"rounding\"</b>'\naccepted_by = \"Reviewer\"\ndate = \"2024-01-02\"\n";
    assert_eq!(std::fs::read_to_string(&exc).unwrap(), written);
    assert_eq!(srv.post("/case/exception/apply", &a2).status, 409);
    assert_eq!(srv.post("/case/exception/apply", &a1).status, 409);
    assert_eq!(std::fs::read_to_string(&exc).unwrap(), written);
    // Not UTF-8: not rewritten from the page.
    let mut latin1 = b"# caf\xe9\n".to_vec();
    latin1.extend_from_slice(written.as_bytes());
    std::fs::write(&exc, &latin1).unwrap();
    let r = srv.post("/case/exception/preview", &f("ex-3", "x"));
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(std::fs::read(&exc).unwrap(), latin1);
}

#[test]
fn a_proposals_file_naming_a_spec_out_of_the_folder_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("served");
    std::fs::create_dir(&dir).unwrap();
    let outside = spec_into(t.path(), "outside.toml");
    let inside = spec_into(&dir, "spec.toml");
    let proposals = |file: &str| {
        format!(
            r#"{{"schema":"vera.clarify.v1","file":{},"proposals":[{{"id":"R-ART-1","original":"If the arterial pressure rises above the upper arterial limit, the arterial pressure alarm shall be raised.","clarified":"Clarified.","rounds":1,"classes_before":2,"classes_after":1,"converged":true,"accepted":true,"formula":"(=> (> arterial_pressure art_high_limit) alarm_arterial)","history":[]}}]}}"#,
            serde_json_string(file)
        )
    };
    let abs = t.path().join("outside.toml").display().to_string();
    std::fs::write(dir.join("p1.json"), proposals("../outside.toml")).unwrap();
    std::fs::write(dir.join("p2.json"), proposals(&abs)).unwrap();
    std::fs::write(dir.join("p3.json"), proposals("spec.toml")).unwrap();
    let srv = start(&dir);
    let csrf = srv.csrf();
    for p in ["p1.json", "p2.json", "../p1.json"] {
        let r = srv.post(
            "/spec/proposal/preview",
            &[s("proposals", p), s("id", "R-ART-1"), s("csrf", &csrf)],
        );
        assert!(
            [403, 404].contains(&r.status),
            "{p}: {} {}",
            r.status,
            r.body
        );
        assert!(!r.body.contains("apply-form"), "{p}");
    }
    let r = srv.post(
        "/spec/proposal/preview",
        &[s("proposals", "p3.json"), s("id", "R-ART-1"), s("csrf", "")],
    );
    assert_eq!(r.status, 403);
    let r = srv.post(
        "/spec/proposal/preview",
        &[
            s("proposals", "p3.json"),
            s("id", "R-ART-1"),
            s("csrf", &csrf),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let a = hidden_after(&r.body, "id=\"apply-form\"");
    assert!(a.contains(&s("path", "spec.toml")));
    assert_eq!(
        std::fs::read_to_string(t.path().join("outside.toml")).unwrap(),
        outside
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("spec.toml")).unwrap(),
        inside
    );
}

fn serde_json_string(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

#[test]
fn the_scan_skips_huge_deep_and_odd_files_without_hanging() {
    let t = tempfile::tempdir().unwrap();
    spec_into(t.path(), "spec.toml");
    // 17 MiB that looks like a spec.
    let mut big = b"[[requirements]]\n".to_vec();
    big.resize(17 << 20, b'#');
    std::fs::write(t.path().join("big.toml"), &big).unwrap();
    let mut deep = t.path().to_path_buf();
    for _ in 0..12 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    spec_into(&deep, "deep.toml");
    use std::os::unix::ffi::OsStrExt;
    let odd = t.path().join(std::ffi::OsStr::from_bytes(b"bad\xff.toml"));
    std::fs::write(&odd, "[[requirements]]\n").unwrap();
    assert!(Command::new("mkfifo")
        .arg(t.path().join("fifo.toml"))
        .status()
        .unwrap()
        .success());
    let srv = start(t.path());
    let started = Instant::now();
    let r = srv.get("/");
    assert_eq!(r.status, 200);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(r.body.contains("data-file=\"spec.toml\""));
    assert!(!r.body.contains("data-file=\"big.toml\""));
    assert!(
        r.body.contains("big.toml: larger than 16 MiB"),
        "{}",
        r.body
    );
    assert!(r.body.contains("deeper than 8 folders"));
    assert_eq!(srv.get("/spec?path=big.toml").status, 422);
    assert_eq!(srv.get("/spec?path=fifo.toml").status, 422);
}

#[test]
fn checks_start_once_per_file_and_report_failures() {
    let t = tempfile::tempdir().unwrap();
    spec_into(t.path(), "spec.toml");
    spec_into(t.path(), "-draft.toml");
    std::fs::write(
        t.path().join("bad.toml"),
        "[spec]\nname = \"bad\"\n[[requirements]]\nid = \"A\"\ntext = \"t\"\nformula = \"(> y\"\n",
    )
    .unwrap();
    let srv = start(t.path());
    let id_of = |r: Resp| -> String {
        assert_eq!(r.status, 200, "{}", r.body);
        r.body
            .trim_start_matches("{\"id\":")
            .trim_end_matches('}')
            .to_string()
    };
    // Started under another spelling of the path, the result is the file's.
    let a = id_of(srv.job("audit", "./spec.toml"));
    let v = srv.wait_job(&a);
    assert!(v.contains("\"state\":\"done\""), "{v}");
    assert!(v.contains("\"target\":\"spec.toml\""), "{v}");
    let page = srv.get("/spec?path=spec.toml");
    assert!(page.body.contains("Last audit run"), "{}", page.body);
    // A file whose name starts with `-` is a file, not an option.
    let d = id_of(srv.job("audit", "-draft.toml"));
    let v = srv.wait_job(&d);
    assert!(v.contains("\"state\":\"done\""), "{v}");
    // A spec with errors: the check fails and says why.
    let b = id_of(srv.job("audit", "bad.toml"));
    let v = srv.wait_job(&b);
    assert!(v.contains("\"state\":\"failed\""), "{v}");
    assert!(v.contains("unclosed"), "{v}");
    // Bad requests.
    for (kind, path, status) in [
        ("audit", "../spec.toml", 400),
        ("audit", "nope.toml", 400),
        ("rm", "spec.toml", 400),
        ("consistency", "spec.toml", 400),
    ] {
        assert_eq!(srv.job(kind, path).status, status, "{kind} {path}");
    }
    let csrf = srv.csrf();
    let cancel = |id: &str| {
        srv.request(
            "POST",
            &format!("/jobs/{id}/cancel"),
            &[("x-vera-csrf", &csrf)],
            "",
        )
    };
    assert_eq!(cancel("999").status, 404);
    assert_eq!(cancel("abc").status, 400);
    assert_eq!(srv.get("/jobs/999").status, 404);
    assert_eq!(srv.get("/jobs/999/events").status, 404);
    // Cancelling a finished check changes nothing.
    assert_eq!(cancel(&a).status, 204);
    assert!(srv
        .get(&format!("/jobs/{a}"))
        .body
        .contains("\"state\":\"done\""));
}

/// Runs vera to its end (at most 15 s: a server that starts where it should not is
/// stopped and fails the test).
fn run_to_end(args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("vera {args:?} did not end");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code().unwrap_or(-1), err)
}

#[test]
fn the_server_starts_or_says_why_not() {
    let t = tempfile::tempdir().unwrap();
    let missing = t.path().join("missing");
    let (code, err) = run_to_end(&["serve", missing.to_str().unwrap(), "--port", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("No such file or directory") && !err.contains("panicked"),
        "{err}"
    );
    let file = t.path().join("file.toml");
    std::fs::write(&file, "").unwrap();
    let (code, err) = run_to_end(&["serve", file.to_str().unwrap(), "--port", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a folder"), "{err}");

    // Port in use: one message, once.
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let (code, err) = run_to_end(&[
        "serve",
        t.path().to_str().unwrap(),
        "--port",
        &port,
        "--listen",
        "127.0.0.1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.matches("in use").count(), 1, "{err}");

    // Standard output closed after the first line (`vera serve DIR | head -1`): the
    // server keeps serving.
    let mut srv = start_with(t.path(), &[], false);
    assert_eq!(srv.get("/").status, 200);
    assert_eq!(srv.get("/").status, 200);
    assert!(srv.child.try_wait().unwrap().is_none());
    srv.child.kill().unwrap();
    let mut err = String::new();
    srv.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("panicked"), "{err}");

    // Every address: a warning.
    let mut srv = start_with(t.path(), &["--listen", "0.0.0.0"], true);
    assert_eq!(srv.get("/").status, 200);
    srv.child.kill().unwrap();
    let mut err = String::new();
    srv.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("warning: listening on 0.0.0.0"), "{err}");
}

#[test]
fn choosing_a_clarified_reading_writes_it_in_place() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let before = spec_into(dir, "spec.toml");
    std::fs::write(
        dir.join("spec.proposals.json"),
        r#"{"schema":"vera.clarify.v1","file":"spec.toml","proposals":[{"id":"R-ART-1","original":"If the arterial pressure rises above the upper arterial limit, the arterial pressure alarm shall be raised.","clarified":"If the arterial pressure is strictly above the upper arterial limit, the arterial pressure alarm shall be raised.","rounds":2,"classes_before":2,"classes_after":1,"converged":true,"accepted":true,"formula":"(=> (> arterial_pressure art_high_limit) alarm_arterial)","history":[]}]}"#,
    )
    .unwrap();
    let srv = start(dir);
    // The proposals page offers the reading with its form.
    let page = srv.get("/report?path=spec.proposals.json");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("choose-reading"), "{}", page.body);
    let csrf = srv.csrf();
    let r = srv.post(
        "/spec/proposal/preview",
        &[
            s("proposals", "spec.proposals.json"),
            s("id", "R-ART-1"),
            s("csrf", &csrf),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let apply = hidden_after(&r.body, "id=\"apply-form\"");
    let saved = srv.post("/spec/apply", &apply);
    assert_eq!(saved.status, 303, "{}", saved.body);
    let after = std::fs::read_to_string(dir.join("spec.toml")).unwrap();
    // Exactly the requirement's table changed: a note line above it, the clarified
    // text, and the formula marked as a model's accepted by a person.
    let old_table = "[[requirements]]\nid = \"R-ART-1\"\ntext = \"If the arterial pressure rises above the upper arterial limit, the arterial pressure alarm shall be raised.\"\nformula = \"(=> (> arterial_pressure art_high_limit) alarm_arterial)\"\n";
    assert!(before.contains(old_table));
    let new_table = "# clarified by vera in 2 rounds (2 -> 1 readings); was: If the arterial pressure rises above the upper arterial limit, the arterial pressure alarm shall be raised.\n[[requirements]]\nid = \"R-ART-1\"\ntext = \"If the arterial pressure is strictly above the upper arterial limit, the arterial pressure alarm shall be raised.\"\nformula = \"(=> (> arterial_pressure art_high_limit) alarm_arterial)\"\norigin = \"model\"\naccepted = true\n";
    assert_eq!(after, before.replace(old_table, new_table));
    // And the spec still loads, with the requirement as accepted.
    let spec = reqs::parse_spec(logic::SourceFile::new("spec.toml", after)).unwrap();
    let r = spec
        .requirements
        .iter()
        .find(|r| r.id == "R-ART-1")
        .unwrap();
    assert_eq!(r.origin, reqs::spec::Origin::ModelAccepted);
}

/// The row of requirement `id` in a spec page's table.
fn row<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("<tr data-id=\"{id}\""))
        .unwrap_or_else(|| panic!("no row {id}:\n{html}"));
    let end = html[at..].find("</tr>").unwrap();
    &html[at..at + end]
}

#[test]
fn saved_screenings_and_proposals_count_only_for_the_text_they_were_made_for() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let before = spec_into(dir, "spec.toml");
    let art1 = "If the arterial pressure rises above the upper arterial limit, the arterial pressure alarm shall be raised.";
    // A screening that flagged R-ART-1 as it reads now, and R-ART-2 as it read before
    // someone edited it; the first screening of a clarify run flagging R-ART-1 too.
    let screened = |id: &str, text: &str| {
        format!(
            r#"{{"id":"{id}","text":"{text}","samples":[],"valid":0,"partition":[],"flagged":true,"could_not_screen":false,"explanations":[]}}"#
        )
    };
    std::fs::write(
        dir.join("spec.ambiguity.json"),
        format!(
            r#"{{"schema":"vera.ambiguity.v1","file":"spec.toml","report":{{"requirements":[{},{}],"summary":{{}}}}}}"#,
            screened("R-ART-1", art1),
            screened("R-ART-2", "An older text of R-ART-2.")
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("run.json"),
        format!(
            r#"{{"schema":"vera.clarify-run.v1","file":"spec.toml","report":{{"proposals":[],"screening":{{"requirements":[{}],"summary":{{}}}}}}}}"#,
            screened("R-ART-3", "An older text of R-ART-3.")
        ),
    )
    .unwrap();
    // Proposals: one for R-ART-1 as it reads now, one for an older text of R-ART-2.
    let proposal = |id: &str, original: &str| {
        format!(
            r#"{{"id":"{id}","original":"{original}","clarified":"The arterial pressure alarm shall be raised when the arterial pressure is strictly above the upper arterial limit.","rounds":1,"classes_before":2,"classes_after":1,"converged":true,"accepted":true,"formula":"(=> (> arterial_pressure art_high_limit) alarm_arterial)","history":[]}}"#
        )
    };
    std::fs::write(
        dir.join("spec.proposals.json"),
        format!(
            r#"{{"schema":"vera.clarify.v1","file":"spec.toml","proposals":[{},{}]}}"#,
            proposal("R-ART-1", art1),
            proposal("R-ART-2", "An older text of R-ART-2.")
        ),
    )
    .unwrap();
    let srv = start(dir);
    let page = srv.get("/spec?path=spec.toml");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(row(&page.body, "R-ART-1").contains("ambiguous"));
    assert!(!row(&page.body, "R-ART-2").contains("ambiguous"));
    assert!(!row(&page.body, "R-ART-3").contains("ambiguous"));
    // Each report is listed, with what it says and what no longer applies.
    let listed = page
        .body
        .split("<ul class=\"saved-reports\">")
        .nth(1)
        .and_then(|s| s.split("</ul>").next())
        .unwrap_or_else(|| panic!("no list of saved reports:\n{}", page.body));
    assert!(
        listed.contains("spec.ambiguity.json")
            && listed.contains("1 requirement with several readings (R-ART-1)")
            && listed.contains("earlier text of R-ART-2"),
        "{listed}"
    );
    assert!(
        listed.contains("run.json")
            && listed.contains("0 requirements with several readings")
            && listed.contains("earlier text of R-ART-3"),
        "{listed}"
    );
    assert!(
        listed.contains("spec.proposals.json")
            && listed.contains("clarifications proposed for 1 requirement (R-ART-1)"),
        "{listed}"
    );
    // The proposals page offers R-ART-1's reading and says why R-ART-2's cannot be
    // chosen.
    let props = srv.get("/report?path=spec.proposals.json");
    let art = |id: &str| -> String {
        let at = props
            .body
            .find(&format!("data-id=\"{id}\""))
            .unwrap_or_else(|| panic!("no proposal {id}:\n{}", props.body));
        let end = props.body[at..].find("</article>").unwrap();
        props.body[at..at + end].to_string()
    };
    assert!(
        art("R-ART-1").contains("choose-reading"),
        "{}",
        art("R-ART-1")
    );
    let a2 = art("R-ART-2");
    assert!(
        !a2.contains("choose-reading")
            && a2.contains("no-longer-fits")
            && a2.contains("changed since the proposal was made"),
        "{a2}"
    );
    // The proposal made for R-ART-2's older text is refused, and nothing is written.
    let csrf = srv.csrf();
    let r = srv.post(
        "/spec/proposal/preview",
        &[
            s("proposals", "spec.proposals.json"),
            s("id", "R-ART-2"),
            s("csrf", &csrf),
        ],
    );
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(
        r.body.contains("changed since the proposal was made")
            && r.body.contains("An older text of R-ART-2.")
            && !r.body.contains("apply-form"),
        "{}",
        r.body
    );
    // The one for R-ART-1 as it reads now previews.
    let r = srv.post(
        "/spec/proposal/preview",
        &[
            s("proposals", "spec.proposals.json"),
            s("id", "R-ART-1"),
            s("csrf", &csrf),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("apply-form"), "{}", r.body);
    assert_eq!(
        std::fs::read_to_string(dir.join("spec.toml")).unwrap(),
        before
    );
}

#[test]
fn a_result_about_an_older_text_is_not_shown_as_no_findings() {
    let t = tempfile::tempdir().unwrap();
    let spec = t.path().join("small.toml");
    std::fs::write(
        &spec,
        "[spec]\nname = \"small\"\n\n[[variables]]\nname = \"x\"\nsort = \"Int\"\nmin = 0\nmax = 10\n\n[[variables]]\nname = \"a\"\nsort = \"Bool\"\n\n[[requirements]]\nid = \"R1\"\ntext = \"If x is above 5, a holds.\"\nformula = \"(=> (> x 5) a)\"\n",
    )
    .unwrap();
    let srv = start(t.path());
    let v = srv.run_check("audit", "small.toml");
    assert!(
        v.contains("\"state\":\"done\"") && v.contains("\"exit\":0"),
        "{v}"
    );
    let badge = |html: &str| -> String {
        let row = &html[html.find("data-file=\"small.toml\"").unwrap()..];
        row[..row.find("</tr>").unwrap()].to_string()
    };
    assert!(badge(&srv.get("/").body).contains("audit — no findings"));
    let page = srv.get("/spec?path=small.toml");
    assert!(
        row(&page.body, "R1").contains("no finding"),
        "{}",
        page.body
    );

    // A requirement added after the audit (one the audit never saw) that conflicts.
    let mut text = std::fs::read_to_string(&spec).unwrap();
    text.push_str("\n[[requirements]]\nid = \"R2\"\ntext = \"x is 7 and a never holds.\"\nformula = \"(and (= x 7) (not a))\"\n");
    std::fs::write(&spec, &text).unwrap();
    let b = badge(&srv.get("/").body);
    assert!(!b.contains("no findings"), "{b}");
    assert!(b.contains("changed since"), "{b}");
    let page = srv.get("/spec?path=small.toml");
    assert!(page.body.contains("id=\"stale\""), "{}", page.body);
    for id in ["R1", "R2"] {
        assert!(
            !row(&page.body, id).contains("no finding"),
            "{id}: {}",
            row(&page.body, id)
        );
    }
    let req = srv.get("/spec/req?path=small.toml&id=R2");
    assert!(!req.body.contains("it has no formula"), "{}", req.body);
    assert!(req.body.contains("not in the spec when the audit ran"));
}

#[test]
fn a_reading_can_be_chosen_for_an_id_and_a_file_with_control_characters() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    // The id holds a right-to-left override; the name of the proposals file one and
    // an escape character. The page shows them as visible stand-ins, but its form
    // must send them back as they are.
    let before =
        spec_into(dir, "spec.toml").replace("id = \"R-ART-1\"", "id = \"R-ART-1\u{202e}\"");
    std::fs::write(dir.join("spec.toml"), &before).unwrap();
    let name = "spec\u{202e}\u{1b}.proposals.json";
    std::fs::write(
        dir.join(name),
        r#"{"schema":"vera.clarify.v1","file":"spec.toml","proposals":[{"id":"R-ART-1\u202e","original":"If the arterial pressure rises above the upper arterial limit, the arterial pressure alarm shall be raised.","clarified":"Strictly above the upper arterial limit, the arterial alarm is raised.","rounds":2,"classes_before":2,"classes_after":1,"converged":true,"accepted":true,"formula":"(=> (> arterial_pressure art_high_limit) alarm_arterial)","history":[]}]}"#,
    )
    .unwrap();
    let srv = start(dir);
    let page = srv.get(&format!("/report?path={}", enc(name)));
    assert_eq!(page.status, 200, "{}", page.body);
    let choose = hidden_after(&page.body, "class=\"choose-reading\"");
    assert!(choose.contains(&s("proposals", name)), "{choose:?}");
    assert!(choose.contains(&s("id", "R-ART-1\u{202e}")), "{choose:?}");
    let r = srv.post("/spec/proposal/preview", &choose);
    assert_eq!(r.status, 200, "{}", r.body);
    let saved = srv.post("/spec/apply", &hidden_after(&r.body, "id=\"apply-form\""));
    assert_eq!(saved.status, 303, "{}", saved.body);
    let after = std::fs::read_to_string(dir.join("spec.toml")).unwrap();
    assert!(after.contains(
        "text = \"Strictly above the upper arterial limit, the arterial alarm is raised.\""
    ));
    assert!(!after.contains(&format!("text = \"{ART1}\"")), "{after}");
}

#[test]
fn editing_the_formula_keeps_a_text_with_control_characters_as_it_is() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    // A text with a right-to-left override and an escape character (TOML escapes).
    let odd = "If the arterial pressure rises \\u202Eabove\\u202C the upper arterial limit, the \\u001b[1malarm\\u001b[0m shall be raised.";
    let before = spec_into(dir, "spec.toml").replace(ART1, odd);
    std::fs::write(dir.join("spec.toml"), &before).unwrap();
    let srv = start(dir);
    let e = srv.get("/spec/edit?path=spec.toml&id=R-ART-1");
    assert_eq!(e.status, 200, "{}", e.body);
    // What a browser sends: the hidden fields, the textarea's text as it is, and the
    // formula the person changed.
    let mut f = hidden_after(&e.body, "id=\"edit-form\"");
    let area = e
        .body
        .split("<textarea name=\"text\" rows=\"4\">")
        .nth(1)
        .unwrap();
    f.push(s(
        "text",
        &unescape(&area[..area.find("</textarea>").unwrap()]),
    ));
    f.push(s(
        "formula",
        "(=> (>= arterial_pressure art_high_limit) alarm_arterial)",
    ));
    let p = srv.post("/spec/preview", &f);
    assert_eq!(p.status, 200, "{}", p.body);
    let saved = srv.post("/spec/apply", &hidden_after(&p.body, "id=\"apply-form\""));
    assert_eq!(saved.status, 303, "{}", saved.body);
    let after = std::fs::read_to_string(dir.join("spec.toml")).unwrap();
    let text = |toml: &str| {
        reqs::parse_spec(logic::SourceFile::new("spec.toml", toml.to_string()))
            .unwrap()
            .requirements
            .iter()
            .find(|r| r.id == "R-ART-1")
            .unwrap()
            .text
            .clone()
    };
    assert_eq!(text(&after), text(&before));
    assert!(text(&after).contains("\u{202e}above\u{202c}"));
    assert!(after.contains("(>= arterial_pressure art_high_limit)"));
}

#[test]
fn a_timed_audit_that_finds_a_dead_end_shows_it() {
    let t = tempfile::tempdir().unwrap();
    // Consistent (never raise A and B together), but after A and B at one step, C must
    // stay false for 10 s and become true within 5 s: runs reach a dead end.
    std::fs::write(
        t.path().join("rt.toml"),
        "[spec]\nname = \"rt\"\n\n[time]\ntick = \"1 s\"\n\n[[variables]]\nname = \"A\"\nsort = \"Bool\"\n[[variables]]\nname = \"B\"\nsort = \"Bool\"\n[[variables]]\nname = \"C\"\nsort = \"Bool\"\n\n[[requirements]]\nid = \"req1\"\ntext = \"if A holds then !C holds for at least 10 time units\"\n[requirements.timed]\nif = \"A\"\nthen = \"(not C)\"\nfor = \"10 s\"\n\n[[requirements]]\nid = \"req2\"\ntext = \"if B holds then C holds after at most 5 time units\"\n[requirements.timed]\nif = \"B\"\nthen = \"C\"\nwithin = \"5 s\"\n",
    )
    .unwrap();
    let srv = start(t.path());
    let v = srv.run_check("audit", "rt.toml");
    assert!(
        v.contains("\"state\":\"done\"") && v.contains("\"exit\":1"),
        "{v}"
    );
    let page = srv.get("/spec?path=rt.toml");
    assert!(page.body.contains("Dead ends over time"), "{}", page.body);
    for id in ["req1", "req2"] {
        let r = row(&page.body, id);
        assert!(r.contains("flag-dead-end") && r.contains("finding"), "{r}");
    }
    let req = srv.get("/spec/req?path=rt.toml&id=req2");
    assert!(req.body.contains("Dead end over time"), "{}", req.body);
    assert!(req.body.contains("stuck after step 5"), "{}", req.body);
}

#[test]
fn a_timed_audit_whose_horizon_is_too_short_says_so() {
    let t = tempfile::tempdir().unwrap();
    // req1 needs 10 s of runs; the spec's horizon is 3 s.
    std::fs::write(
        t.path().join("short.toml"),
        "[spec]\nname = \"short\"\n\n[time]\ntick = \"1 s\"\nhorizon = \"3 s\"\n\n[[variables]]\nname = \"A\"\nsort = \"Bool\"\n[[variables]]\nname = \"C\"\nsort = \"Bool\"\n\n[[requirements]]\nid = \"req1\"\ntext = \"if A holds then !C holds for at least 10 time units\"\n[requirements.timed]\nif = \"A\"\nthen = \"(not C)\"\nfor = \"10 s\"\n\n[[requirements]]\nid = \"req2\"\ntext = \"C holds whenever A does not\"\nformula = \"(=> (not A) C)\"\n",
    )
    .unwrap();
    let srv = start(t.path());
    let v = srv.run_check("audit", "short.toml");
    assert!(
        v.contains("\"state\":\"done\"") && v.contains("\"exit\":1"),
        "{v}"
    );
    let page = srv.get("/spec?path=short.toml");
    assert!(page.body.contains("Horizon too short"), "{}", page.body);
    let r1 = row(&page.body, "req1");
    assert!(
        r1.contains("flag-horizon-too-short") && r1.contains("finding"),
        "{r1}"
    );
    assert!(!row(&page.body, "req2").contains("horizon-too-short"));
    let req = srv.get("/spec/req?path=short.toml&id=req1");
    assert!(
        req.body.contains("Horizon too short") && req.body.contains("not conclusive"),
        "{}",
        req.body
    );
}

#[test]
fn a_path_spelled_another_way_leads_to_the_same_page_and_results() {
    let t = tempfile::tempdir().unwrap();
    spec_into(t.path(), "spec.toml");
    let srv = start(t.path());
    let v = srv.run_check("audit", "./spec.toml");
    assert!(v.contains("\"state\":\"done\""), "{v}");
    for spelled in ["./spec.toml", ".//spec.toml", "spec.toml/"] {
        let r = srv.get(&format!("/spec?path={}&x=1", spelled.replace('/', "%2F")));
        assert_eq!(r.status, 303, "{spelled}: {}", r.body);
        assert_eq!(
            r.headers["location"], "/spec?path=spec.toml&x=1",
            "{spelled}"
        );
    }
    // The page under the folder's spelling shows the audit that ran.
    let page = srv.get("/spec?path=spec.toml");
    assert!(page.body.contains("id=\"consistency\""), "{}", page.body);
    // Paths out of the folder are still refused, not redirected.
    let r = srv.get("/spec?path=.%2F..%2Fspec.toml");
    assert!(r.status == 403 || r.status == 404, "{}", r.status);
}

#[test]
fn a_saved_proof_report_is_shown_only_for_the_file_it_names() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let fixtures = "crates/serve/tests/fixtures";
    for d in ["a", "b"] {
        copy(
            &format!("{fixtures}/clamp_mixed.c"),
            &dir.join(d).join("clamp.c"),
        );
    }
    let report = std::fs::read_to_string(repo().join(fixtures).join("clamp_mixed.verify.json"))
        .unwrap()
        .replace("crates/serve/tests/fixtures/clamp_mixed.c", "a/clamp.c");
    std::fs::write(dir.join("clamp.verify.json"), &report).unwrap();
    // A report run from inside b/ that names the file by its bare name, kept there.
    std::fs::write(
        dir.join("b").join("bare.verify.json"),
        report.replace("a/clamp.c", "clamp.c"),
    )
    .unwrap();
    let srv = start(dir);
    let a = srv.get("/c?path=a/clamp.c");
    assert!(
        a.body.contains("From the saved report") && a.body.contains("clamp.verify.json"),
        "{}",
        a.body
    );
    let b = srv.get("/c?path=b/clamp.c");
    assert!(
        b.body.contains("From the saved report") && b.body.contains("b/bare.verify.json"),
        "{}",
        b.body
    );
    assert!(
        !b.body.contains("\"/report?path=clamp.verify.json\""),
        "{}",
        b.body
    );
    // A third copy that no report names has no results, whatever its name ends with.
    copy(
        &format!("{fixtures}/clamp_mixed.c"),
        &dir.join("c").join("clamp.c"),
    );
    let c = srv.get("/c?path=c/clamp.c");
    assert!(
        c.body.contains("No proof results for this file yet")
            && !c.body.contains("From the saved report"),
        "{}",
        c.body
    );
}

// ---------------------------------------------------------------------------------
// Processes, signals, connections and the queue of checks.

/// A spec whose audit keeps z3 busy for about a minute: `n + 1` pigeons in `n` holes
/// (with n = 11, z3 needs about 50 s to find that they do not fit).
fn pigeons(n: usize) -> String {
    let mut out = String::from("[spec]\nname = \"pigeons\"\n\n");
    for i in 1..=n + 1 {
        for j in 1..=n {
            out.push_str(&format!(
                "[[variables]]\nname = \"p_{i}_{j}\"\nsort = \"Bool\"\n\n"
            ));
        }
    }
    for i in 1..=n + 1 {
        let holes: Vec<String> = (1..=n).map(|j| format!("p_{i}_{j}")).collect();
        out.push_str(&format!(
            "[[requirements]]\nid = \"P{i}\"\ntext = \"pigeon {i} sits in a hole\"\nformula = \"(or {})\"\n\n",
            holes.join(" ")
        ));
    }
    for j in 1..=n {
        let mut pairs = Vec::new();
        for a in 1..=n + 1 {
            for b in a + 1..=n + 1 {
                pairs.push(format!("(not (and p_{a}_{j} p_{b}_{j}))"));
            }
        }
        out.push_str(&format!(
            "[[requirements]]\nid = \"H{j}\"\ntext = \"hole {j} holds one pigeon at most\"\nformula = \"(and {})\"\n\n",
            pairs.join(" ")
        ));
    }
    out
}

/// A process as `/proc/PID/stat` shows it.
#[derive(Debug, Clone)]
struct Proc {
    pid: u32,
    ppid: u32,
    pgrp: u32,
    name: String,
    /// `Z` for a zombie (ended, not yet reaped).
    state: char,
}

fn proc_stat(pid: u32) -> Option<Proc> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = s.find('(')?;
    let close = s.rfind(')')?;
    let name = s[open + 1..close].to_string();
    let rest: Vec<&str> = s[close + 2..].split_whitespace().collect();
    Some(Proc {
        pid,
        ppid: rest.get(1)?.parse().ok()?,
        pgrp: rest.get(2)?.parse().ok()?,
        name,
        state: rest.first()?.chars().next()?,
    })
}

fn all_procs() -> Vec<Proc> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(proc_stat)
        .collect()
}

/// Every living process below `pid`.
fn descendants(pid: u32) -> Vec<Proc> {
    let all = all_procs();
    let mut out: Vec<Proc> = Vec::new();
    let mut parents = vec![pid];
    while let Some(p) = parents.pop() {
        for c in all.iter().filter(|c| c.ppid == p && c.state != 'Z') {
            parents.push(c.pid);
            out.push(c.clone());
        }
    }
    out
}

/// Waits up to `limit` for `ok`, polling every 50 ms; whether it came.
fn wait_for(limit: Duration, mut ok: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    ok()
}

/// Kills every process group in `groups` (the checks' own: never this test's).
fn kill_groups(groups: &[u32]) {
    for g in groups {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{g}")])
            .stderr(Stdio::null())
            .status();
    }
}

fn job_id(r: &Resp) -> String {
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
        .trim_start_matches("{\"id\":")
        .trim_end_matches('}')
        .to_string()
}

#[test]
fn sigint_and_sigterm_stop_every_check_and_remove_the_temporary_folder() {
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("served");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("pigeons.toml"), pigeons(11)).unwrap();
        let tmp = t.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let mut srv = launch(&dir, &[], true, &[("TMPDIR", &tmp)]);
        let server_pid = srv.child.id();
        let id = job_id(&srv.job("audit", "pigeons.toml"));
        // The check runs: vera, and the z3 it started.
        let mut seen = Vec::new();
        let running = wait_for(Duration::from_secs(20), || {
            seen = descendants(server_pid);
            seen.iter().any(|p| p.name == "z3")
        });
        let groups: Vec<u32> = seen
            .iter()
            .map(|p| p.pgrp)
            .filter(|g| *g != server_pid)
            .collect();
        assert!(running, "no z3 under the server after 20 s: {seen:?}");
        assert!(srv
            .get(&format!("/jobs/{id}"))
            .body
            .contains("\"state\":\"running\""));
        let scratch: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
        assert_eq!(scratch.len(), 1, "the server's temporary folder");

        // A page following the check's progress.
        let mut events = std::net::TcpStream::connect(&srv.host).unwrap();
        std::io::Write::write_all(
            &mut events,
            format!(
                "GET /jobs/{id}/events HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\n\r\n",
                srv.host, srv.cookie
            )
            .as_bytes(),
        )
        .unwrap();
        events
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut first = [0u8; 64];
        let n = events.read(&mut first).unwrap();
        assert!(first[..n].starts_with(b"HTTP/1.1 200"), "{:?}", &first[..n]);

        let sent_at = Instant::now();
        let sent = Command::new("kill")
            .args([format!("-{signal}"), server_pid.to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let ended = wait_for(Duration::from_secs(15), || {
            srv.child.try_wait().unwrap().is_some()
        });
        let took = sent_at.elapsed();
        if !ended {
            kill_groups(&groups);
            panic!("SIG{signal}: the server still runs after 15 s");
        }
        let status = srv.child.wait().unwrap();
        // Every process of the check is gone (an ended one may still wait to be
        // reaped by init: a zombie runs nothing). The same pid in the same process
        // group is the same process.
        let alive = |p: &Proc| proc_stat(p.pid).is_some_and(|q| q.state != 'Z' && q.pgrp == p.pgrp);
        let gone = wait_for(Duration::from_secs(5), || !seen.iter().any(alive));
        let survivors: Vec<Proc> = seen.iter().filter(|p| alive(p)).cloned().collect();
        let in_groups: Vec<Proc> = all_procs()
            .into_iter()
            .filter(|p| groups.contains(&p.pgrp) && p.state != 'Z')
            .collect();
        kill_groups(&groups);
        assert!(
            gone,
            "SIG{signal}: still running after the server ended: {survivors:?}"
        );
        assert!(in_groups.is_empty(), "SIG{signal}: {in_groups:?}");
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        // The page was told the check ended, and the stop did not wait for it.
        let mut rest = Vec::new();
        let _ = events.read_to_end(&mut rest);
        let rest = String::from_utf8_lossy(&rest);
        assert!(
            rest.contains("event: end") && rest.contains("\"state\":\"cancelled\""),
            "{rest}"
        );
        assert!(
            took < Duration::from_secs(5),
            "SIG{signal}: the stop took {took:?}"
        );
        let left: Vec<_> = std::fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            left.is_empty(),
            "SIG{signal}: the temporary folder stays: {left:?}"
        );
        let mut err = String::new();
        srv.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(!err.contains("panicked"), "{err}");
        eprintln!(
            "SIG{signal}: {} processes of the check stopped; exit {code}",
            seen.len()
        );
    }
}

#[test]
fn checks_beyond_the_limit_wait_in_a_queue_the_page_shows() {
    let t = tempfile::tempdir().unwrap();
    for n in 1..=3 {
        std::fs::write(t.path().join(format!("p{n}.toml")), pigeons(11)).unwrap();
    }
    let srv = start_with(t.path(), &["--jobs", "1"], true);
    let server_pid = srv.child.id();
    let a = job_id(&srv.job("audit", "p1.toml"));
    let b = job_id(&srv.job("audit", "p2.toml"));
    let c = job_id(&srv.job("audit", "p3.toml"));
    let state = |id: &str| -> serde_json::Value {
        serde_json::from_str(&srv.get(&format!("/jobs/{id}")).body).unwrap()
    };
    assert_eq!(state(&a)["state"], "running");
    assert_eq!(state(&b)["state"], "queued");
    assert_eq!(state(&b)["ahead"], 0);
    assert_eq!(state(&c)["state"], "queued");
    assert_eq!(state(&c)["ahead"], 1);
    assert_eq!(state(&c)["limit"], 1);
    // Starting a queued check again gives the same job.
    assert_eq!(job_id(&srv.job("audit", "p3.toml")), c);
    // The overview and the spec page show the queue.
    let o = srv.get("/").body;
    assert!(o.contains("audit running"), "{o}");
    assert!(o.contains("audit queued (0 ahead)"), "{o}");
    assert!(o.contains("audit queued (1 ahead)"), "{o}");
    let p = srv.get("/spec?path=p3.toml").body;
    assert!(p.contains("data-state=\"queued\""), "{p}");
    assert!(
        p.contains("queued: 1 check ahead (at most 1 run at once)"),
        "{p}"
    );
    // One check runs: one vera under the server.
    let veras = || {
        descendants(server_pid)
            .into_iter()
            .filter(|p| p.name == "vera" && p.ppid == server_pid)
            .count()
    };
    assert_eq!(veras(), 1);
    let csrf = srv.csrf();
    let cancel = |id: &str| {
        let r = srv.request(
            "POST",
            &format!("/jobs/{id}/cancel"),
            &[("x-vera-csrf", &csrf)],
            "",
        );
        assert_eq!(r.status, 204);
    };
    // The first ends: the next in the queue runs, the last moves up.
    cancel(&a);
    assert!(
        wait_for(Duration::from_secs(10), || state(&b)["state"] == "running"),
        "{}\n{}\n{:?}",
        state(&b),
        state(&a),
        descendants(server_pid)
    );
    assert_eq!(state(&a)["state"], "cancelled");
    assert_eq!(state(&c)["ahead"], 0);
    assert!(wait_for(Duration::from_secs(10), || veras() == 1));
    // A queued check cancelled never starts.
    cancel(&c);
    assert!(wait_for(Duration::from_secs(5), || state(&c)["state"] == "cancelled"));
    let log = state(&c)["log"].to_string();
    assert!(log.contains("cancelled while queued"), "{log}");
    cancel(&b);
    assert!(wait_for(Duration::from_secs(10), || veras() == 0));
    assert_eq!(state(&c)["state"], "cancelled");
}

#[test]
fn idle_connections_are_closed_and_cannot_lock_the_owner_out() {
    let t = tempfile::tempdir().unwrap();
    spec_into(t.path(), "spec.toml");
    // With the usual limit of 1,024 open files, which 1,100 connections would exhaust.
    let srv = start_with_open_files(t.path(), 1024);
    // Many connections that send nothing (no token needed to open them): as many as
    // this process may open, up to 1,100.
    let mut idle = Vec::new();
    while idle.len() < 1100 {
        match std::net::TcpStream::connect(&srv.host) {
            Ok(s) => idle.push(s),
            Err(_) => break,
        }
    }
    assert!(
        idle.len() > 300,
        "only {} connections could be opened",
        idle.len()
    );
    // The owner's page still answers at once.
    let started = Instant::now();
    let r = srv.get("/");
    assert_eq!(r.status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the page took {:?}",
        started.elapsed()
    );
    drop(idle);
    // A connection that sends nothing, or half a request head, is closed after the
    // server's header timeout (10 s).
    let started = Instant::now();
    let mut silent = std::net::TcpStream::connect(&srv.host).unwrap();
    let mut half = std::net::TcpStream::connect(&srv.host).unwrap();
    std::io::Write::write_all(&mut half, b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
    for s in [&mut silent, &mut half] {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
        let closed_after = started.elapsed();
        assert!(
            closed_after < Duration::from_secs(20),
            "an idle connection stayed open {closed_after:?}"
        );
    }
    assert!(started.elapsed() >= Duration::from_secs(5));
    // The server still serves.
    assert_eq!(srv.get("/").status, 200);
}

#[test]
fn each_formula_is_shown_with_its_read_back() {
    let t = tempfile::tempdir().unwrap();
    spec_into(t.path(), "spec.toml");
    let srv = start(t.path());
    // The sentence comes from the formula and the schema (vera writes it, no model).
    let spec = reqs::load(&t.path().join("spec.toml")).unwrap();
    let r = spec
        .requirements
        .iter()
        .find(|r| r.id == "R-ART-1")
        .unwrap();
    let sentence = pipeline::readback::sentence(&spec, r.formula.as_ref().unwrap());
    let escaped = sentence
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let page = srv.get("/spec?path=spec.toml");
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains(&format!("reads: {escaped}")),
        "{sentence}"
    );
    let one = srv.get("/spec/req?path=spec.toml&id=R-ART-1");
    assert!(
        one.body.contains(&format!("The formula reads: {escaped}")),
        "{}",
        one.body
    );
}
