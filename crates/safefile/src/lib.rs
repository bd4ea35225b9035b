//! File safety for every file vera reads or writes.
//!
//! Three rules, kept in one place so that every command follows them:
//!
//! - **Inputs are never written over.** Every file vera reads through [`read_text`] or
//!   [`read_bytes`], and every path named by [`register_input`], is remembered by its
//!   identity (device and inode on Unix), so a hard link, a symbolic link or `./a` versus
//!   `a` cannot trick an output into replacing an input. Not even `--force` allows that.
//! - **Existing files are replaced only when asked.** An output that already exists is
//!   refused unless the caller passes `force` (the command line's `--force`).
//! - **Writes are atomic.** Whole files go to a temporary file in the same folder and are
//!   renamed into place ([`write_atomic`]); files written as the work goes (transcripts,
//!   cassettes) are a [`Stream`] that is renamed into place when it is finished. An
//!   interrupted run leaves the old file (or none), never a truncated one that looks
//!   complete; [`interrupt_all`] finishes every open stream with a marker line that says
//!   it was cut.
//!
//! Reads are bounded ([`MAX_INPUT_BYTES`]): a device such as `/dev/zero` or an enormous
//! file is an error, not unbounded memory.
//!
//! *Process-wide state:* the set of input identities and the list of open streams are
//! global to the process, because a command's inputs are read and its outputs opened in
//! different crates.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// The largest file vera reads as input (64 MiB).
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Why a file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SafeFileError {
    /// The output is one of the command's inputs.
    #[error(
        "{} is an input of this command; vera never writes over its input, not even with --force",
        .path.display()
    )]
    IsInput {
        /// The output path as given.
        path: PathBuf,
    },
    /// The output exists and `force` was not given.
    #[error(
        "{} already exists; choose another file, or pass --force to replace it",
        .path.display()
    )]
    Exists {
        /// The output path as given.
        path: PathBuf,
    },
    /// The output names a directory.
    #[error("{} is a directory, not a file", .path.display())]
    IsDirectory {
        /// The path as given.
        path: PathBuf,
    },
    /// The output names something that is not a regular file (a device, a pipe, a
    /// socket, a symbolic link): replacing it by renaming would destroy it.
    #[error(
        "{} is {what}, not a regular file; vera writes its outputs as regular files only (name the file itself, or leave out the option to print)",
        .path.display()
    )]
    NotRegular {
        /// The path as given.
        path: PathBuf,
        /// What it is, e.g. "a symbolic link".
        what: &'static str,
    },
    /// The output's folder does not exist.
    #[error("cannot write {}: the folder {} does not exist", .path.display(), .folder.display())]
    NoFolder {
        /// The path as given.
        path: PathBuf,
        /// Its folder.
        folder: PathBuf,
    },
    /// The input is larger than the limit.
    #[error("{} is larger than {limit} bytes, more than vera reads", .path.display())]
    TooLarge {
        /// The path as given.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// The input is not UTF-8 text.
    #[error("{}:{line}:{column}: not UTF-8 text (a binary file?)", .path.display())]
    NotUtf8 {
        /// The path as given.
        path: PathBuf,
        /// 1-based line of the first invalid byte.
        line: usize,
        /// 1-based byte column of the first invalid byte.
        column: usize,
    },
    /// The input is UTF-16 text where UTF-8 is read.
    #[error(
        "{} is UTF-16 text{}; vera reads UTF-8: convert it first, e.g. `iconv -f {} -t UTF-8 {} > converted{}`",
        .path.display(),
        if *.bom { "" } else { " (without a byte-order mark)" },
        .encoding,
        .path.display(),
        .path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default()
    )]
    Utf16 {
        /// The path as given.
        path: PathBuf,
        /// `UTF-16LE` or `UTF-16BE`.
        encoding: &'static str,
        /// Whether it starts with a byte-order mark.
        bom: bool,
    },
    /// Reading failed.
    #[error("cannot read {}: {error}", .path.display())]
    Read {
        /// The path as given.
        path: PathBuf,
        /// The operating system's error (in the message, so not also a `source`:
        /// an error chain would print it twice).
        error: io::Error,
    },
    /// Writing failed.
    #[error("cannot write {}: {error}", .path.display())]
    Write {
        /// The path as given.
        path: PathBuf,
        /// The operating system's error (in the message, so not also a `source`:
        /// an error chain would print it twice).
        error: io::Error,
    },
}

/// Result with [`SafeFileError`].
pub type Result<T> = std::result::Result<T, SafeFileError>;

/// The identity of a file: device and inode on Unix, the canonical path elsewhere.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileId(Inner);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Inner {
    #[cfg(unix)]
    Unix { dev: u64, ino: u64 },
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

impl FileId {
    /// The identity of the file `path` names (following symbolic links), if it exists.
    pub fn of(path: &Path) -> Option<FileId> {
        let md = fs::metadata(path).ok()?;
        Some(Self::from_metadata(path, &md))
    }

    #[cfg(unix)]
    fn from_metadata(_path: &Path, md: &fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId(Inner::Unix {
            dev: md.dev(),
            ino: md.ino(),
        })
    }

    #[cfg(not(unix))]
    fn from_metadata(path: &Path, _md: &fs::Metadata) -> FileId {
        FileId(Inner::Path(
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        ))
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

static INPUTS: Mutex<Vec<FileId>> = Mutex::new(Vec::new());

/// Remembers `path` as an input of this run, if it exists (a missing input is reported
/// by whoever reads it). Directories count too: nothing is written over a directory.
pub fn register_input(path: &Path) {
    if let Some(id) = FileId::of(path) {
        let mut inputs = lock(&INPUTS);
        if !inputs.contains(&id) {
            inputs.push(id);
        }
    }
}

/// Whether `path` names a file registered as an input.
pub fn is_input(path: &Path) -> bool {
    FileId::of(path).is_some_and(|id| lock(&INPUTS).contains(&id))
}

/// Checks that `path` may be written: not an input (never), not a directory, not
/// anything but a regular file (a device, a pipe or a symbolic link would be destroyed by
/// the rename that replaces it), in a folder that exists, and not an existing file
/// unless `force`.
pub fn check_output(path: &Path, force: bool) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(link) = fs::symlink_metadata(path) else {
        // Nothing there yet: its folder must exist, or the write fails after the work.
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !fs::metadata(folder).is_ok_and(|m| m.is_dir()) {
            return Err(SafeFileError::NoFolder {
                path: path.to_path_buf(),
                folder: folder.to_path_buf(),
            });
        }
        return Ok(());
    };
    // Through a symbolic link: an input behind it is reported as an input.
    if let Ok(md) = fs::metadata(path) {
        if lock(&INPUTS).contains(&FileId::from_metadata(path, &md)) {
            return Err(SafeFileError::IsInput {
                path: path.to_path_buf(),
            });
        }
        if md.is_dir() {
            return Err(SafeFileError::IsDirectory {
                path: path.to_path_buf(),
            });
        }
    }
    let t = link.file_type();
    let what = if t.is_symlink() {
        Some("a symbolic link")
    } else if t.is_char_device() || t.is_block_device() {
        Some("a device")
    } else if t.is_fifo() {
        Some("a named pipe")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        None
    };
    if let Some(what) = what {
        return Err(SafeFileError::NotRegular {
            path: path.to_path_buf(),
            what,
        });
    }
    if !force {
        return Err(SafeFileError::Exists {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

static PLANNED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// [`check_output`] for an output the command will write when its work is done, and
/// remembers it: the inputs a command reads as it goes (the headers the preprocessor
/// opens, a file found beside another) are known only later, and [`check_planned`]
/// tells as soon as one of them is a planned output. The write itself checks again
/// ([`write_atomic`], [`Stream::create`]), so an input found at any time is never
/// written over.
pub fn plan_output(path: &Path, force: bool) -> Result<()> {
    check_output(path, force)?;
    let mut planned = lock(&PLANNED);
    if !planned.iter().any(|p| p == path) {
        planned.push(path.to_path_buf());
    }
    Ok(())
}

/// Refuses, before more work is done, a planned output ([`plan_output`]) that has since
/// become an input.
pub fn check_planned() -> Result<()> {
    let planned = lock(&PLANNED).clone();
    match planned.into_iter().find(|p| is_input(p)) {
        Some(path) => Err(SafeFileError::IsInput { path }),
        None => Ok(()),
    }
}

/// Reads at most `limit` bytes of `path` (and remembers it as an input). Works on regular
/// files, pipes and devices alike; more than `limit` bytes is an error.
pub fn read_bytes_limited(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let read_err = |error| SafeFileError::Read {
        path: path.to_path_buf(),
        error,
    };
    let file = File::open(path).map_err(read_err)?;
    let md = file.metadata().map_err(read_err)?;
    if md.is_dir() {
        return Err(SafeFileError::Read {
            path: path.to_path_buf(),
            error: io::Error::other("it is a directory"),
        });
    }
    if md.is_file() && md.len() > limit {
        return Err(SafeFileError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    register_input(path);
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() as u64 > limit {
        return Err(SafeFileError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(bytes)
}

/// Reads `path` whole, up to [`MAX_INPUT_BYTES`].
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    read_bytes_limited(path, MAX_INPUT_BYTES)
}

/// Reads `path` as UTF-8 text, up to [`MAX_INPUT_BYTES`]; invalid UTF-8 is an error that
/// names the line and column of the first bad byte.
pub fn read_text(path: &Path) -> Result<String> {
    read_text_limited(path, MAX_INPUT_BYTES)
}

/// The UTF-16 encoding of `bytes`, if they look like UTF-16 text: a byte-order mark
/// (`FF FE` little-endian, `FE FF` big-endian; then `true`), or, without one, text whose
/// first characters are ASCII with a zero byte beside each (then `false`).
pub fn utf16_encoding(bytes: &[u8]) -> Option<(&'static str, bool)> {
    match bytes {
        [0xFF, 0xFE, ..] => return Some(("UTF-16LE", true)),
        [0xFE, 0xFF, ..] => return Some(("UTF-16BE", true)),
        _ => {}
    }
    let pairs: Vec<&[u8]> = bytes.chunks_exact(2).take(32).collect();
    if pairs.len() < 2 {
        return None;
    }
    let ascii = |b: u8| b == b'\t' || b == b'\n' || b == b'\r' || (0x20..0x7f).contains(&b);
    if pairs.iter().all(|p| p[1] == 0 && ascii(p[0])) {
        Some(("UTF-16LE", false))
    } else if pairs.iter().all(|p| p[0] == 0 && ascii(p[1])) {
        Some(("UTF-16BE", false))
    } else {
        None
    }
}

/// Reads `path` (bounded, remembered as an input) as UTF-8 bytes: a UTF-16 file with a
/// byte-order mark is decoded, and its encoding returned; UTF-16 without a mark (which
/// cannot be told apart from binary for sure) is an error that says how to convert it.
/// Any other content comes back as it is, for the caller to check.
pub fn read_bytes_as_utf8(path: &Path) -> Result<(Vec<u8>, Option<&'static str>)> {
    let bytes = read_bytes(path)?;
    match utf16_encoding(&bytes) {
        None => Ok((bytes, None)),
        Some((encoding, false)) => Err(SafeFileError::Utf16 {
            path: path.to_path_buf(),
            encoding,
            bom: false,
        }),
        Some((encoding, true)) => {
            let units = bytes[2..].chunks(2).map(|p| {
                let pair = [p[0], p.get(1).copied().unwrap_or(0)];
                if encoding == "UTF-16LE" {
                    u16::from_le_bytes(pair)
                } else {
                    u16::from_be_bytes(pair)
                }
            });
            let text: std::result::Result<String, _> = char::decode_utf16(units).collect();
            match text {
                Ok(t) if bytes.len() % 2 == 0 => Ok((t.into_bytes(), Some(encoding))),
                _ => Err(SafeFileError::Utf16 {
                    path: path.to_path_buf(),
                    encoding,
                    bom: true,
                }),
            }
        }
    }
}

/// [`read_text`] with a chosen limit.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String> {
    let bytes = read_bytes_limited(path, limit)?;
    if let Some((encoding, bom)) = utf16_encoding(&bytes) {
        return Err(SafeFileError::Utf16 {
            path: path.to_path_buf(),
            encoding,
            bom,
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        let column = good.len() - good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) + 1;
        SafeFileError::NotUtf8 {
            path: path.to_path_buf(),
            line,
            column,
        }
    })
}

fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Random letters and digits in a temporary file's name.
const TEMP_RANDOM: usize = 6;

/// Whether `file_name` is the name of a temporary file [`write_atomic`] or a [`Stream`]
/// makes beside its target: `.NAME.XXXXXX.tmp`, with six random letters or digits.
/// One that is still there after its writer is gone (a `kill -9` between the write and
/// the rename) is garbage; nothing else in a folder is a temporary file of vera's.
pub fn is_temp_name(file_name: &str) -> bool {
    let Some(rest) = file_name
        .strip_prefix('.')
        .and_then(|r| r.strip_suffix(".tmp"))
    else {
        return false;
    };
    match rest.rsplit_once('.') {
        Some((target, random)) => {
            !target.is_empty()
                && random.len() == TEMP_RANDOM
                && random.bytes().all(|b| b.is_ascii_alphanumeric())
        }
        None => false,
    }
}

/// A temporary file beside `path`, named after it, that is not deleted on drop.
fn temp_beside(path: &Path) -> io::Result<(File, PathBuf)> {
    let dir = folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .rand_bytes(TEMP_RANDOM)
        .suffix(".tmp")
        .tempfile_in(dir)?;
    let (file, tmp_path) = tmp.keep().map_err(|e| e.error)?;
    // tempfile creates files readable by the owner only; an output is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o777);
        let _ = fs::set_permissions(&tmp_path, fs::Permissions::from_mode(mode));
    }
    Ok((file, tmp_path))
}

/// Writes `bytes` to `path` atomically (a temporary file in the same folder, synced, then
/// renamed over `path`) after [`check_output`].
pub fn write_atomic(path: &Path, bytes: &[u8], force: bool) -> Result<()> {
    check_output(path, force)?;
    let write_err = |error| SafeFileError::Write {
        path: path.to_path_buf(),
        error,
    };
    let (mut file, tmp) = temp_beside(path).map_err(write_err)?;
    let done = file
        .write_all(bytes)
        .and_then(|_| file.sync_all())
        .and_then(|_| fs::rename(&tmp, path));
    if let Err(e) = done {
        let _ = fs::remove_file(&tmp);
        return Err(write_err(e));
    }
    Ok(())
}

/// How a [`Stream`] starts and how it marks an interruption.
#[derive(Debug, Clone, Default)]
pub struct StreamOptions {
    /// Keep the existing file's content and append to it (needs `force` when it exists).
    pub append: bool,
    /// Written before the reason when the stream is cut ([`interrupt_all`], or a panic):
    /// for example `";; vera: "` for an SMT-LIB transcript. `None`: no marker line.
    pub cut_marker: Option<String>,
}

#[derive(Debug)]
struct StreamState {
    file: Option<File>,
    tmp: PathBuf,
    path: PathBuf,
    cut_marker: Option<String>,
}

impl StreamState {
    /// Writes the cut marker (if any) and renames the file into place; idempotent.
    fn close(&mut self, cut: Option<&str>) -> io::Result<()> {
        let Some(mut file) = self.file.take() else {
            return Ok(());
        };
        if let (Some(reason), Some(prefix)) = (cut, self.cut_marker.as_deref()) {
            let line: String = reason.chars().filter(|c| !c.is_control()).collect();
            writeln!(file, "{prefix}cut here: {line}")?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&self.tmp, &self.path)
    }
}

static OPEN_STREAMS: Mutex<Vec<Weak<Mutex<StreamState>>>> = Mutex::new(Vec::new());

/// A file written as the work goes (a transcript, a cassette): written to a temporary file
/// beside its path and renamed into place by [`Stream::finish`] (or on drop). Writes go
/// straight to the file, unbuffered, so a cut stream keeps everything written before it.
#[derive(Debug)]
pub struct Stream {
    state: Arc<Mutex<StreamState>>,
    path: PathBuf,
}

impl Stream {
    /// Opens a stream that will become `path`, after [`check_output`].
    pub fn create(path: &Path, force: bool, options: StreamOptions) -> Result<Stream> {
        check_output(path, force)?;
        let write_err = |error| SafeFileError::Write {
            path: path.to_path_buf(),
            error,
        };
        let dir = folder_of(path);
        fs::create_dir_all(dir).map_err(write_err)?;
        let (mut file, tmp) = temp_beside(path).map_err(write_err)?;
        if options.append && path.exists() {
            let copied = File::open(path).and_then(|mut old| io::copy(&mut old, &mut file));
            if let Err(e) = copied {
                let _ = fs::remove_file(&tmp);
                return Err(write_err(e));
            }
        }
        let state = Arc::new(Mutex::new(StreamState {
            file: Some(file),
            tmp,
            path: path.to_path_buf(),
            cut_marker: options.cut_marker,
        }));
        let mut open = lock(&OPEN_STREAMS);
        open.retain(|w| w.strong_count() > 0);
        open.push(Arc::downgrade(&state));
        Ok(Stream {
            state,
            path: path.to_path_buf(),
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `bytes`; after the stream was cut this is an error.
    pub fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        let mut st = lock(&self.state);
        match st.file.as_mut() {
            Some(f) => f.write_all(bytes),
            None => Err(io::Error::other("the output was already closed")),
        }
    }

    /// Renames the finished file into place.
    pub fn finish(self) -> Result<()> {
        let path = self.path.clone();
        let r = lock(&self.state).close(None);
        r.map_err(|error| SafeFileError::Write { path, error })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let cut = std::thread::panicking().then_some("vera stopped on an internal error");
        let _ = lock(&self.state).close(cut);
    }
}

/// Cuts every open stream: writes its marker line with `reason` and renames it into place.
/// Meant for a Ctrl-C handler, just before the process exits. Returns the paths closed.
pub fn interrupt_all(reason: &str) -> Vec<PathBuf> {
    let streams: Vec<_> = lock(&OPEN_STREAMS)
        .drain(..)
        .filter_map(|w| w.upgrade())
        .collect();
    let mut closed = Vec::new();
    for s in streams {
        let mut st = lock(&s);
        if st.file.is_some() && st.close(Some(reason)).is_ok() {
            closed.push(st.path.clone());
        }
    }
    closed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_temporary_files_made_here_and_only_they_have_a_temporary_name() {
        let dir = tempfile::tempdir().unwrap();
        for target in ["spec.toml", "a.b", ".hidden", "x y.json"] {
            let (_, tmp) = temp_beside(&dir.path().join(target)).unwrap();
            let name = tmp.file_name().unwrap().to_str().unwrap();
            assert!(is_temp_name(name), "{name}");
            fs::remove_file(&tmp).unwrap();
        }
        for other in [
            "spec.toml",
            ".spec.toml.tmp",
            "spec.toml.abc123.tmp",
            ".spec.toml.abc12.tmp",
            ".spec.toml.abc1234.tmp",
            ".spec.toml.abc-12.tmp",
            "..abc123.tmp",
            ".notes.tmp",
        ] {
            assert!(!is_temp_name(other), "{other}");
        }
    }

    #[test]
    fn output_over_an_input_is_refused_through_a_hard_link_even_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("spec.toml");
        fs::write(&input, "x").unwrap();
        let link = dir.path().join("link.toml");
        fs::hard_link(&input, &link).unwrap();
        assert_eq!(read_text(&input).unwrap(), "x");
        let err = write_atomic(&link, b"y", true).unwrap_err();
        assert!(matches!(err, SafeFileError::IsInput { .. }), "{err}");
        let dotted = dir.path().join(".").join("spec.toml");
        assert!(matches!(
            check_output(&dotted, true),
            Err(SafeFileError::IsInput { .. })
        ));
        assert_eq!(fs::read_to_string(&input).unwrap(), "x");
        // The inputs are process-wide and remembered by device and inode: were the
        // file removed, a file another test makes next could get its inode and be
        // refused as an input (`existing_output_needs_force_and_is_replaced_atomically`
        // failed so once in CI).
        std::mem::forget(dir);
    }

    #[test]
    fn a_planned_output_read_later_is_refused_before_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let header = dir.path().join("later.h");
        fs::write(&header, "int x;").unwrap();
        plan_output(&header, true).unwrap();
        check_planned().unwrap();
        // Read through another spelling of the same file.
        register_input(&dir.path().join(".").join("later.h"));
        assert!(matches!(
            check_planned(),
            Err(SafeFileError::IsInput { .. })
        ));
        assert!(matches!(
            write_atomic(&header, b"report", true),
            Err(SafeFileError::IsInput { .. })
        ));
        assert_eq!(fs::read_to_string(&header).unwrap(), "int x;");
        // The inputs are process-wide: the file stays, so that no other test's new
        // file gets its inode and counts as an input.
        std::mem::forget(dir);
    }

    #[test]
    fn existing_output_needs_force_and_is_replaced_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        fs::write(&out, "old").unwrap();
        assert!(matches!(
            write_atomic(&out, b"new", false),
            Err(SafeFileError::Exists { .. })
        ));
        assert_eq!(fs::read_to_string(&out).unwrap(), "old");
        write_atomic(&out, b"new", true).unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "new");
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn appending_stream_keeps_the_old_content() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("c.jsonl");
        fs::write(&out, "{\"a\":1}\n").unwrap();
        let opts = StreamOptions {
            append: true,
            cut_marker: None,
        };
        assert!(Stream::create(&out, false, opts.clone()).is_err());
        let s = Stream::create(&out, true, opts).unwrap();
        s.write_all(b"{\"b\":2}\n").unwrap();
        drop(s);
        assert_eq!(fs::read_to_string(&out).unwrap(), "{\"a\":1}\n{\"b\":2}\n");
    }

    #[test]
    fn utf16_is_named_as_such_and_decoded_when_it_has_a_mark() {
        let dir = tempfile::tempdir().unwrap();
        let le = dir.path().join("le.txt");
        let mut bytes = vec![0xFF, 0xFE];
        for u in "R-1: Pümp\n".encode_utf16() {
            bytes.extend(u.to_le_bytes());
        }
        fs::write(&le, &bytes).unwrap();
        let (utf8, enc) = read_bytes_as_utf8(&le).unwrap();
        assert_eq!(
            (String::from_utf8(utf8).unwrap().as_str(), enc),
            ("R-1: Pümp\n", Some("UTF-16LE"))
        );
        let err = read_text(&le).unwrap_err().to_string();
        assert!(err.contains("le.txt is UTF-16 text; vera reads UTF-8: convert it first, e.g. `iconv -f UTF-16LE -t UTF-8"), "{err}");
        let be = dir.path().join("be.toml");
        let bytes: Vec<u8> = "[spec]\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        fs::write(&be, &bytes).unwrap();
        let err = read_bytes_as_utf8(&be).unwrap_err().to_string();
        assert!(
            err.contains("is UTF-16 text (without a byte-order mark)"),
            "{err}"
        );
        assert!(err.contains("iconv -f UTF-16BE"), "{err}");
        // Binary is not UTF-16.
        assert_eq!(utf16_encoding(b"\x7fELF\x02\x01\x01\x00\x00"), None);
        std::mem::forget(dir);
    }

    #[test]
    fn reads_are_bounded_and_located() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        fs::write(&big, vec![b'a'; 100]).unwrap();
        assert!(matches!(
            read_text_limited(&big, 10),
            Err(SafeFileError::TooLarge { .. })
        ));
        let bin = dir.path().join("bin");
        fs::write(&bin, b"ok\nab\xffc").unwrap();
        match read_text(&bin) {
            Err(SafeFileError::NotUtf8 { line, column, .. }) => assert_eq!((line, column), (2, 3)),
            other => panic!("{other:?}"),
        }
        #[cfg(unix)]
        assert!(matches!(
            read_text_limited(Path::new("/dev/zero"), 1 << 16),
            Err(SafeFileError::TooLarge { .. })
        ));
        // `bin` was read, so it is an input for the rest of the process: it stays, so
        // that no other test's new file gets its inode (see below).
        std::mem::forget(dir);
    }
}
