//! Replayable session transcripts.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes every command as sent and every answer as a one-line `; ` comment, so that running the
/// solver on the file replays the session. Notes from vera start with `;; `.
#[derive(Debug)]
pub(crate) struct Transcript {
    path: PathBuf,
    out: BufWriter<File>,
}

impl Transcript {
    /// Creates (or truncates) the file.
    pub(crate) fn create(path: &Path) -> std::io::Result<Transcript> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        Ok(Transcript {
            path: path.to_path_buf(),
            out: BufWriter::new(File::create(path)?),
        })
    }

    /// The file written.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// A command exactly as sent.
    pub(crate) fn command(&mut self, text: &str) -> std::io::Result<()> {
        writeln!(self.out, "{text}")
    }

    /// An answer as one `; ` comment line (line breaks inside it become spaces).
    pub(crate) fn answer(&mut self, text: &str) -> std::io::Result<()> {
        let line: String = text
            .chars()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect();
        writeln!(self.out, "; {line}")
    }

    /// A note from vera.
    pub(crate) fn note(&mut self, text: &str) -> std::io::Result<()> {
        for line in text.lines() {
            writeln!(self.out, ";; {line}")?;
        }
        Ok(())
    }

    /// Flushes to disk.
    pub(crate) fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
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
