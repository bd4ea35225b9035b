//! Browser tests: real headless Chromium over the DevTools protocol
//! (`support/devtools.rs`).

#[path = "support/devtools.rs"]
mod devtools;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use devtools::Browser;

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
