//! Replayable session transcripts.

use std::path::{Path, PathBuf};

use safefile::{Stream, StreamOptions};

/// Writes every command as sent and every answer as a one-line `; ` comment, so that running the
/// solver on the file replays the session. Notes from vera start with `;; `.
///
/// The file is written beside its path and renamed into place when the session ends, so
/// an interrupted run never leaves a transcript that looks complete; one cut by Ctrl-C
/// ends with a `;; vera: cut here: ...` line (see [`safefile::interrupt_all`]).
#[derive(Debug)]
pub(crate) struct Transcript {
    path: PathBuf,
    out: Stream,
}

impl Transcript {
    /// Creates the file: an input of the run is refused, and so is an existing file
    /// unless `force`.
    pub(crate) fn create(path: &Path, force: bool) -> Result<Transcript, safefile::SafeFileError> {
        let out = Stream::create(
            path,
            force,
            StreamOptions {
                append: false,
                cut_marker: Some(";; vera: ".into()),
            },
        )?;
        Ok(Transcript {
            path: path.to_path_buf(),
            out,
        })
    }

    /// The file written.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// A command exactly as sent.
    pub(crate) fn command(&mut self, text: &str) -> std::io::Result<()> {
        self.out.write_all(format!("{text}\n").as_bytes())
    }

    /// An answer as one `; ` comment line (line breaks inside it become spaces).
    pub(crate) fn answer(&mut self, text: &str) -> std::io::Result<()> {
        let line: String = text
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect();
        self.out.write_all(format!("; {line}\n").as_bytes())
    }

    /// A note from vera.
    pub(crate) fn note(&mut self, text: &str) -> std::io::Result<()> {
        let mut lines = String::new();
        for line in text.lines() {
            lines.push_str(";; ");
            lines.push_str(line);
            lines.push('\n');
        }
        self.out.write_all(lines.as_bytes())
    }

    /// Flushes to disk.
    /// Writes are unbuffered (a cut transcript keeps every line sent); nothing to do.
    pub(crate) fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The transcript path of pool worker `i`: `dir/stem.i.smt2`.
pub(crate) fn worker_path(base: &Path, i: usize) -> PathBuf {
    let stem = base
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "transcript".into());
    base.with_file_name(format!("{stem}.{i}.smt2"))
}

/// Every file a run with the transcript `base` may write when it has up to `workers`
/// solver processes: `base` itself, `stem.i.smt2` for each pool worker, and the
/// re-check transcript `stem.recheck.smt2` of each of those. A command checks them all
/// before it starts its work.
pub fn transcript_files(base: &Path, workers: usize) -> Vec<PathBuf> {
    let mut out = vec![base.to_path_buf(), crate::solver::recheck_path(base)];
    for i in 0..workers {
        let w = worker_path(base, i);
        out.push(crate::solver::recheck_path(&w));
        out.push(w);
    }
    out
}
