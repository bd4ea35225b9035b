//! Driving headless Chromium over the DevTools protocol in tests (`chromiumoxide`).
//!
//! The API is synchronous: [`Browser`] owns a tokio runtime and blocks on each call.
//! Every wait has a timeout, and every failure says the page's current URL and the
//! first 2000 characters of its `document.body.innerText`.
//!
//! Chromium is required, found as in `crates/report/tests/support/chromium.rs`
//! (`VERA_CHROMIUM`, else `chromium` on PATH); when it is missing the test fails and
//! says to run `scripts/setup`. Each launch gets a fresh temporary profile (Chromium's
//! SingletonLock refuses two instances on one profile), runs as root with
//! `--no-sandbox`, and is killed when the [`Browser`] is dropped.

#![allow(dead_code)]

#[path = "../../../report/tests/support/chromium.rs"]
mod chromium;

use std::path::Path;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::page::ScreenshotParams;
use futures::StreamExt;
use serde_json::Value;

/// How long one DevTools request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// How long any one call into the DevTools client may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long [`Page::goto`] and [`Page::click_nav`] wait for the new page.
pub const NAV_TIMEOUT: Duration = Duration::from_secs(15);
/// How long the single-shot helpers wait for their element to appear.
pub const ELEMENT_TIMEOUT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(50);

/// A headless Chromium with its own temporary profile, killed on drop.
pub struct Browser {
    rt: tokio::runtime::Runtime,
    inner: Option<chromiumoxide::Browser>,
    handler: Option<tokio::task::JoinHandle<()>>,
    _profile: tempfile::TempDir,
}

/// One tab of a [`Browser`].
pub struct Page<'b> {
    browser: &'b Browser,
    inner: chromiumoxide::Page,
}

impl Browser {
    /// Starts Chromium (panics with the reason when it cannot).
    pub fn launch() -> Browser {
        let exe = chromium::chromium();
        assert!(
            exe.is_file(),
            "Chromium binary {} does not exist: run scripts/setup (it installs Debian's \
             chromium), or set VERA_CHROMIUM to a Chromium binary",
            exe.display()
        );
        let profile = tempfile::Builder::new()
            .prefix("vera-chromium-profile")
            .tempdir()
            .expect("temporary Chromium profile");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let config = chromiumoxide::BrowserConfig::builder()
            .chrome_executable(&exe)
            .user_data_dir(profile.path())
            .no_sandbox()
            .window_size(1280, 900)
            .viewport(None)
            .request_timeout(REQUEST_TIMEOUT)
            .launch_timeout(Duration::from_secs(30))
            .args([
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-crash-reporter",
            ])
            .build()
            .expect("Chromium configuration");
        let (inner, mut handler) = rt
            .block_on(chromiumoxide::Browser::launch(config))
            .unwrap_or_else(|e| {
                panic!(
                    "Chromium ({}) did not start: {e}. Run scripts/setup (it installs \
                     Debian's chromium), or set VERA_CHROMIUM to a Chromium binary",
                    exe.display()
                )
            });
        // The handler drives the DevTools connection; it must be polled all along.
        let handler = rt.spawn(async move {
            while let Some(event) = handler.next().await {
                if event.is_err() {
                    // A malformed message or a closed connection: keep going until
                    // the stream ends (it ends when Chromium is gone).
                    continue;
                }
            }
        });
        Browser {
            rt,
            inner: Some(inner),
            handler: Some(handler),
            _profile: profile,
        }
    }

    fn browser(&self) -> &chromiumoxide::Browser {
        self.inner.as_ref().expect("browser is running")
    }

    /// Runs `f` to its end, or says that `what` got no answer in [`CALL_TIMEOUT`].
    fn call<F: std::future::Future>(&self, what: &str, f: F) -> Result<F::Output, String> {
        self.rt
            .block_on(async { tokio::time::timeout(CALL_TIMEOUT, f).await })
            .map_err(|_| format!("{what}: no answer from Chromium in {CALL_TIMEOUT:?}"))
    }

    /// Opens a new tab on `about:blank`.
    pub fn new_page(&self) -> Page<'_> {
        let inner = self
            .call("opening a new tab", self.browser().new_page("about:blank"))
            .and_then(|r| r.map_err(|e| e.to_string()))
            .unwrap_or_else(|e| panic!("opening a new tab: {e}"));
        Page {
            browser: self,
            inner,
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(mut inner) = self.inner.take() {
            self.rt.block_on(async {
                if inner.kill().await.is_some() {
                    let _ = tokio::time::timeout(Duration::from_secs(5), inner.wait()).await;
                }
            });
        }
        if let Some(h) = self.handler.take() {
            h.abort();
        }
    }
}

impl Page<'_> {
    /// Evaluates `js` (an expression; a promise is awaited) and returns its value as JSON
    /// (`null` for `undefined`). Panics on a JavaScript exception.
    pub fn eval(&self, js: &str) -> Value {
        self.try_eval(js)
            .unwrap_or_else(|e| self.fail(&format!("evaluating `{js}` failed: {e}")))
    }

    /// Like [`Page::eval`] but returns the error (the page may be navigating).
    pub fn try_eval(&self, js: &str) -> Result<Value, String> {
        // No context id: Chromium uses the main frame's current context, so this works
        // right after a navigation too.
        let params = EvaluateParams::builder()
            .expression(js)
            .return_by_value(true)
            .await_promise(true)
            .build()
            .map_err(|e| e.to_string())?;
        let resp = self
            .browser
            .call(&format!("evaluating `{js}`"), self.inner.execute(params))?
            .map_err(|e| e.to_string())?;
        let result = &resp.result;
        if let Some(ex) = &result.exception_details {
            let what = ex
                .exception
                .as_ref()
                .and_then(|o| o.description.clone())
                .unwrap_or_else(|| ex.text.clone());
            return Err(format!("JavaScript exception: {what}"));
        }
        Ok(result.result.value.clone().unwrap_or(Value::Null))
    }

    /// The page's current URL.
    pub fn url(&self) -> String {
        match self.try_eval("location.href") {
            Ok(Value::String(s)) => s,
            _ => self
                .browser
                .call("reading the URL", self.inner.url())
                .ok()
                .and_then(|r| r.ok())
                .flatten()
                .unwrap_or_else(|| "(unknown)".into()),
        }
    }

    /// The page's URL and the start of its text, for failure messages.
    pub fn describe(&self) -> String {
        let text = match self.try_eval("document.body ? document.body.innerText : ''") {
            Ok(Value::String(s)) => s.chars().take(2000).collect::<String>(),
            Ok(v) => v.to_string(),
            Err(e) => format!("(could not read the page's text: {e})"),
        };
        format!(
            "page URL: {}\n--- page text (first 2000 characters) ---\n{text}\n---",
            self.url()
        )
    }

    /// Panics with `msg` and the page's URL and text.
    pub fn fail(&self, msg: &str) -> ! {
        panic!("{msg}\n{}", self.describe())
    }

    /// Navigates to `url` and waits until the document has loaded.
    pub fn goto(&self, url: &str) {
        let res = self
            .browser
            .rt
            .block_on(async { tokio::time::timeout(NAV_TIMEOUT, self.inner.goto(url)).await });
        match res {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => self.fail(&format!("navigating to {url} failed: {e}")),
            Err(_) => self.fail(&format!("navigating to {url} took over {NAV_TIMEOUT:?}")),
        }
        self.wait_loaded(Instant::now() + NAV_TIMEOUT, &format!("loading {url}"));
    }

    fn wait_loaded(&self, deadline: Instant, what: &str) {
        loop {
            if let Ok(Value::Bool(true)) = self.try_eval("document.readyState === 'complete'") {
                return;
            }
            if Instant::now() > deadline {
                self.fail(&format!("{what}: the document did not finish loading"));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Polls until `js` evaluates to `true` (errors while navigating count as false).
    pub fn wait_until(&self, js: &str, timeout: Duration, what: &str) {
        let deadline = Instant::now() + timeout;
        loop {
            let last_err = match self.try_eval(js) {
                Ok(Value::Bool(true)) => return,
                Ok(_) => None,
                Err(e) => Some(e),
            };
            if Instant::now() > deadline {
                let err = last_err
                    .map(|e| format!(" (last evaluation error: {e})"))
                    .unwrap_or_default();
                self.fail(&format!(
                    "timed out after {timeout:?} waiting for {what}{err}"
                ));
            }
            std::thread::sleep(POLL);
        }
    }

    /// Polls until an element matches `css`.
    pub fn wait_for(&self, css: &str, timeout: Duration) {
        self.wait_until(
            &format!("document.querySelector({}) !== null", js_str(css)),
            timeout,
            &format!("an element matching `{css}`"),
        );
    }

    /// Whether an element matches `css` now.
    pub fn exists(&self, css: &str) -> bool {
        self.eval(&format!("document.querySelector({}) !== null", js_str(css))) == Value::Bool(true)
    }

    /// How many elements match `css` now.
    pub fn count(&self, css: &str) -> usize {
        self.eval(&format!(
            "document.querySelectorAll({}).length",
            js_str(css)
        ))
        .as_u64()
        .unwrap_or_else(|| self.fail(&format!("counting `{css}`"))) as usize
    }

    /// Clicks the element matching `css` with a real mouse event at its centre
    /// (scrolled into view first). Waits up to [`ELEMENT_TIMEOUT`] for the element.
    pub fn click(&self, css: &str) {
        self.wait_for(css, ELEMENT_TIMEOUT);
        let res = self.browser.call(&format!("clicking `{css}`"), async {
            // Input events reach only the tab in front (a background tab never
            // answers them).
            self.inner.bring_to_front().await?;
            let el = self.inner.find_element(css).await?;
            el.click().await?;
            Ok::<_, chromiumoxide::error::CdpError>(())
        });
        if let Err(e) = res.and_then(|r| r.map_err(|e| e.to_string())) {
            self.fail(&format!("clicking `{css}` failed: {e}"));
        }
    }

    /// Clicks `css` and waits until the click has loaded a new document (a link or a
    /// form submission).
    pub fn click_nav(&self, css: &str) {
        self.wait_for(css, ELEMENT_TIMEOUT);
        self.eval("window.__devtoolsOldDocument = true");
        self.click(css);
        self.wait_until(
            "window.__devtoolsOldDocument !== true && document.readyState === 'complete'",
            NAV_TIMEOUT,
            &format!("a new page after clicking `{css}`"),
        );
    }

    /// Sets the value of the input or textarea matching `css` and fires `input` and
    /// `change` events, as typing would.
    pub fn set_value(&self, css: &str, text: &str) {
        self.wait_for(css, ELEMENT_TIMEOUT);
        let js = format!(
            "(() => {{ const el = document.querySelector({}); el.focus(); el.value = {}; \
             el.dispatchEvent(new Event('input', {{bubbles: true}})); \
             el.dispatchEvent(new Event('change', {{bubbles: true}})); return el.value; }})()",
            js_str(css),
            js_str(text)
        );
        let got = self.eval(&js);
        if got.as_str() != Some(text) {
            self.fail(&format!("`{css}` holds {got} after setting it to {text:?}"));
        }
    }

    /// The `innerText` of the element matching `css` (waits up to [`ELEMENT_TIMEOUT`]).
    pub fn text(&self, css: &str) -> String {
        self.wait_for(css, ELEMENT_TIMEOUT);
        match self.eval(&format!(
            "document.querySelector({}).innerText",
            js_str(css)
        )) {
            Value::String(s) => s,
            v => self.fail(&format!("innerText of `{css}` is {v}")),
        }
    }

    /// An attribute of the element matching `css` (waits up to [`ELEMENT_TIMEOUT`]).
    pub fn attr(&self, css: &str, name: &str) -> Option<String> {
        self.wait_for(css, ELEMENT_TIMEOUT);
        match self.eval(&format!(
            "document.querySelector({}).getAttribute({})",
            js_str(css),
            js_str(name)
        )) {
            Value::String(s) => Some(s),
            Value::Null => None,
            v => self.fail(&format!("attribute {name} of `{css}` is {v}")),
        }
    }

    /// Saves a PNG of the whole page (beyond the window) to `path`.
    pub fn screenshot(&self, path: &Path) {
        let params = ScreenshotParams::builder().full_page(true).build();
        let png = self
            .browser
            .call("taking a screenshot", self.inner.screenshot(params))
            .and_then(|r| r.map_err(|e| e.to_string()))
            .unwrap_or_else(|e| self.fail(&format!("screenshot failed: {e}")));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, png)
            .unwrap_or_else(|e| panic!("writing the screenshot {}: {e}", path.display()));
    }
}

/// `s` as a JavaScript string literal.
pub fn js_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Panics unless `path` holds a PNG (magic bytes) of at least `min_bytes`; returns its
/// width and height.
pub fn check_png(path: &Path, min_bytes: usize) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is not a PNG",
        path.display()
    );
    assert!(
        bytes.len() >= min_bytes,
        "{} has only {} bytes",
        path.display(),
        bytes.len()
    );
    assert_eq!(&bytes[12..16], b"IHDR", "{}: no IHDR chunk", path.display());
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}
