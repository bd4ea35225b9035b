//! Running headless Chromium in tests (shared: `crates/vera/tests` includes this file
//! with `#[path]`).
//!
//! Chromium is required: `scripts/setup` installs Debian's `chromium`, and the tests
//! fail when it is missing. Set `VERA_CHROMIUM` to use another binary. Chromium runs as
//! root in CI, hence `--no-sandbox`; each run gets a fresh temporary profile.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one Chromium run may take.
const TIMEOUT: Duration = Duration::from_secs(120);

pub fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("VERA_CHROMIUM") {
        return PathBuf::from(p);
    }
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "chromium not found on PATH: run scripts/setup (it installs Debian's chromium), \
         or set VERA_CHROMIUM to a Chromium binary"
    );
}

/// Runs Chromium headless on `page` with `args`, returning its standard output.
pub fn run_chromium(profile: &Path, page: &Path, args: &[&str]) -> String {
    let out_path = profile.with_extension("stdout");
    let err_path = profile.with_extension("stderr");
    let mut child = Command::new(chromium())
        .arg("--headless")
        .arg("--no-sandbox")
        .arg("--disable-gpu")
        .arg("--no-first-run")
        .arg("--disable-extensions")
        .arg("--disable-background-networking")
        .arg("--disable-dev-shm-usage")
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium took longer than {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap();
    assert!(
        status.success(),
        "chromium failed ({status}):\n{}",
        std::fs::read_to_string(&err_path).unwrap_or_default()
    );
    stdout
}
