//! Progress bars on standard error for long work: the model's batches (`llm::Observer`)
//! and the dense-time audit's stages (`reqs::progress::Observer`). indicatif draws
//! nothing when standard error is not a terminal, so logs and tests see none.

use std::sync::Mutex;

/// One bar at a time: a new stage or batch replaces the last one.
#[derive(Default)]
pub struct Bar {
    bar: Mutex<Option<indicatif::ProgressBar>>,
}

impl Bar {
    fn start(&self, stage: &str, total: usize, template: &str) {
        let b = indicatif::ProgressBar::new(total as u64);
        b.set_style(indicatif::ProgressStyle::with_template(template).expect("valid template"));
        b.set_prefix(stage.to_string());
        // Redrawn every second, so the time spent shows while a step takes long.
        b.enable_steady_tick(std::time::Duration::from_secs(1));
        if let Some(old) = self.lock().replace(b) {
            old.finish_and_clear();
        }
    }

    fn set(&self, done: usize, note: String) {
        if let Some(b) = self.lock().as_ref() {
            b.set_position(done as u64);
            b.set_message(note);
        }
    }

    fn finish(&self) {
        if let Some(b) = self.lock().take() {
            b.finish_and_clear();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<indicatif::ProgressBar>> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.finish();
    }
}

impl llm::Observer for Bar {
    fn batch_started(&self, stage: &str, total: usize) {
        self.start(
            stage,
            total,
            "{prefix} {bar:30} {pos}/{len} {msg} eta {eta}",
        );
    }
    fn request_finished(&self, p: &llm::Progress<'_>) {
        self.set(p.done, format!("({} cached)", p.cached));
    }
    fn batch_finished(&self, _stage: &str, _stats: &llm::Stats) {
        self.finish();
    }
}

impl reqs::progress::Observer for Bar {
    fn stage(&self, name: &str, total: usize) {
        self.start(name, total, "{prefix} {bar:30} {pos}/{len} {msg} {elapsed}");
    }
    fn step(&self, done: usize, note: &str) {
        self.set(done, note.to_string());
    }
}
