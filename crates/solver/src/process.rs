//! A solver process: stdin for commands, a reader thread that splits stdout into
//! complete s-expressions, and a thread that keeps the tail of stderr.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much of stderr is kept for crash reports.
const STDERR_TAIL: usize = 4096;

/// The longest answer read from a solver, in bytes. A longer one (a runaway or hostile
/// process) is garbage: the reader stops instead of buffering without bound.
pub(crate) const MAX_ANSWER: usize = 64 << 20;

/// What the stdout reader thread sends.
#[derive(Debug)]
enum Msg {
    /// The text of one complete top-level s-expression or atom.
    Item(String),
    /// An answer longer than [`MAX_ANSWER`]; nothing more is read.
    TooLong,
    /// End of output (or a read error).
    Eof,
}

/// What waiting for an answer produced.
#[derive(Debug)]
pub(crate) enum Answer {
    /// One complete top-level item of text.
    Item(String),
    /// The process closed its output; the text has its exit status and stderr tail.
    Eof(String),
    /// Nothing came before the deadline.
    Timeout,
    /// An answer longer than [`MAX_ANSWER`] bytes.
    TooLong,
}

/// A running solver process.
pub(crate) struct Process {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Msg>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    eof: bool,
}

impl Process {
    /// Starts `program args...` with all three streams piped.
    pub(crate) fn spawn(program: &Path, args: &[&str]) -> std::io::Result<Process> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut err = child.stderr.take().expect("piped stderr");
        // Bounded: a process that prints without end waits for vera instead of filling
        // memory.
        let (tx, rx) = mpsc::sync_channel(1024);
        std::thread::Builder::new()
            .name("solver-stdout".into())
            .spawn(move || split_items(stdout, tx))?;
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        std::thread::Builder::new()
            .name("solver-stderr".into())
            .spawn(move || {
                let mut buf = [0u8; 1024];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                    t.extend(&buf[..n]);
                    let excess = t.len().saturating_sub(STDERR_TAIL);
                    t.drain(..excess);
                }
            })?;
        Ok(Process {
            child,
            stdin,
            rx,
            stderr,
            eof: false,
        })
    }

    /// Writes one line of text.
    pub(crate) fn send(&mut self, line: &str) -> std::io::Result<()> {
        let mut buf = String::with_capacity(line.len() + 1);
        buf.push_str(line);
        buf.push('\n');
        self.stdin.write_all(buf.as_bytes())?;
        self.stdin.flush()
    }

    /// Waits up to `limit` for the next complete item.
    pub(crate) fn read(&mut self, limit: Duration) -> Answer {
        if self.eof {
            return Answer::Eof(self.death_report());
        }
        match self.rx.recv_timeout(limit) {
            Ok(Msg::Item(s)) => Answer::Item(s),
            Ok(Msg::TooLong) => Answer::TooLong,
            Ok(Msg::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                Answer::Eof(self.death_report())
            }
            Err(RecvTimeoutError::Timeout) => Answer::Timeout,
        }
    }

    /// The exit status (waiting briefly for the process to finish) and stderr tail.
    pub(crate) fn death_report(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Ok(None) => {
                    self.kill();
                    break "closed its output and was stopped".to_string();
                }
                Err(e) => break format!("unknown exit status ({e})"),
            }
        };
        // Give the stderr thread a moment to collect the last words.
        std::thread::sleep(Duration::from_millis(10));
        let tail = self.stderr_tail();
        if tail.trim().is_empty() {
            status
        } else {
            format!("{status}; stderr: {}", tail.trim())
        }
    }

    /// The last few KB of stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        let t = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let (a, b) = t.as_slices();
        let mut v = a.to_vec();
        v.extend_from_slice(b);
        String::from_utf8_lossy(&v).into_owned()
    }

    /// Kills the process and reaps it.
    pub(crate) fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The reader thread: splits a byte stream into top-level s-expressions and atoms,
/// respecting string literals (with `""` escapes), `|quoted|` symbols and `;` comments.
fn split_items(mut out: impl Read, tx: SyncSender<Msg>) {
    let mut splitter = Splitter::default();
    let mut buf = [0u8; 8192];
    loop {
        match out.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                for item in splitter.feed(&buf[..n]) {
                    if tx.send(Msg::Item(item)).is_err() {
                        return;
                    }
                }
                if splitter.pending() > MAX_ANSWER {
                    let _ = tx.send(Msg::TooLong);
                    return;
                }
            }
        }
    }
    if let Some(rest) = splitter.finish() {
        let _ = tx.send(Msg::Item(rest));
    }
    let _ = tx.send(Msg::Eof);
}

/// Incremental s-expression splitter.
#[derive(Debug, Default)]
pub(crate) struct Splitter {
    buf: Vec<u8>,
    depth: usize,
    in_string: bool,
    in_quoted: bool,
    in_comment: bool,
}

impl Splitter {
    /// Consumes bytes and returns every item completed by them.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut items = Vec::new();
        for &b in bytes {
            if self.in_comment {
                self.in_comment = b != b'\n';
                continue;
            }
            if self.in_string {
                self.buf.push(b);
                // `""` inside a string closes and reopens it, which keeps the text intact.
                self.in_string = b != b'"';
                continue;
            }
            if self.in_quoted {
                self.buf.push(b);
                self.in_quoted = b != b'|';
                continue;
            }
            match b {
                b'"' => {
                    self.buf.push(b);
                    self.in_string = true;
                }
                b'|' => {
                    self.buf.push(b);
                    self.in_quoted = true;
                }
                b';' => {
                    if self.depth == 0 {
                        self.emit(&mut items);
                    }
                    self.in_comment = true;
                }
                b'(' => {
                    if self.depth == 0 {
                        self.emit(&mut items);
                    }
                    self.buf.push(b);
                    self.depth += 1;
                }
                b')' => {
                    self.buf.push(b);
                    if self.depth == 0 {
                        // Unbalanced: hand it on as is, the caller reports garbage.
                        self.emit(&mut items);
                    } else {
                        self.depth -= 1;
                        if self.depth == 0 {
                            self.emit(&mut items);
                        }
                    }
                }
                b if b.is_ascii_whitespace() => {
                    if self.depth == 0 {
                        self.emit(&mut items);
                    } else {
                        self.buf.push(b);
                    }
                }
                _ => self.buf.push(b),
            }
        }
        items
    }

    /// Bytes of the item being read.
    pub(crate) fn pending(&self) -> usize {
        self.buf.len()
    }

    /// The incomplete rest at end of input, if any.
    pub(crate) fn finish(&mut self) -> Option<String> {
        let mut items = Vec::new();
        self.emit(&mut items);
        items.pop()
    }

    fn emit(&mut self, items: &mut Vec<String>) {
        if !self.buf.is_empty() {
            items.push(String::from_utf8_lossy(&self.buf).into_owned());
            self.buf.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Splitter;

    #[test]
    fn splits_atoms_lists_strings_and_quoted_symbols() {
        let mut s = Splitter::default();
        let mut items = s.feed(b"success\nsat (\n  (define-fun |a b| () Int\n    5)\n");
        items.extend(s.feed(b")\n(error \"x ) \"\"y\"\" (\n z\")\n; note (\nunsat"));
        items.extend(s.finish());
        assert_eq!(
            items,
            vec![
                "success",
                "sat",
                "(\n  (define-fun |a b| () Int\n    5)\n)",
                "(error \"x ) \"\"y\"\" (\n z\")",
                "unsat"
            ]
        );
    }

    #[test]
    fn hostile_bytes_split_into_readable_items() {
        // 1 MB of random bytes (invalid UTF-8 included), fed in odd-sized chunks: every
        // item is lossily decoded text, and reading it as an answer never panics.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let bytes: Vec<u8> = (0..1 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly brackets, bars, quotes and spaces, to exercise the states.
                match x % 8 {
                    0 => b'(',
                    1 => b')',
                    2 => b' ',
                    3 => b'|',
                    4 => b'"',
                    _ => (x >> 8) as u8,
                }
            })
            .collect();
        let mut s = Splitter::default();
        let mut items = Vec::new();
        for chunk in bytes.chunks(777) {
            items.extend(s.feed(chunk));
        }
        items.extend(s.finish());
        let ctx = logic::Context::new();
        for it in &items {
            if let Ok(e) = logic::sexp::read_one(it) {
                let _ = logic::eval::parse_model(&e, &ctx);
            }
        }
        assert!(s.pending() == 0);
    }

    #[test]
    fn items_split_across_reads() {
        let mut s = Splitter::default();
        assert!(s.feed(b"(:version \"4.").is_empty());
        assert_eq!(s.feed(b"13.0\")\nsu"), vec!["(:version \"4.13.0\")"]);
        assert_eq!(s.feed(b"ccess\n"), vec!["success"]);
    }
}
