//! Ctrl-C. One handler for the whole process: the first press runs the command's own
//! cancel action when it has one (LLM batches finish the requests in flight and keep what
//! is done); otherwise, and on a second press, every file being written is cut with a
//! marker line and renamed into place ([`safefile::interrupt_all`]) and vera exits with
//! status 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

type Action = Box<dyn Fn() + Send>;

static ON_FIRST: Mutex<Option<(String, Action)>> = Mutex::new(None);
static PRESSED: AtomicBool = AtomicBool::new(false);

/// Installs the handler (once per process).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        let first = !PRESSED.swap(true, Ordering::SeqCst);
        if first {
            let guard = ON_FIRST.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((what, action)) = guard.as_ref() {
                eprintln!("\ninterrupted: {what}");
                action();
                return;
            }
        }
        let cut = safefile::interrupt_all("interrupted (Ctrl-C)");
        eprintln!();
        for p in cut {
            eprintln!(
                "interrupted: {} is incomplete and ends with a marker",
                p.display()
            );
        }
        eprintln!("interrupted");
        std::process::exit(130);
    });
}

/// What the first Ctrl-C does instead of stopping at once (`what` is printed).
pub fn on_first_interrupt(what: &str, action: impl Fn() + Send + 'static) {
    *ON_FIRST.lock().unwrap_or_else(|p| p.into_inner()) =
        Some((what.to_string(), Box::new(action)));
}
