//! The on-disk, content-addressed answer cache (SQLite).
//!
//! One row per request key ([`crate::request_key`]): provider, model, the full request
//! (sample index included) and the raw response. Each answer is committed on its own as
//! soon as it arrives, so a run that is killed keeps everything that finished. The
//! database is in WAL mode with a busy timeout, so several processes (or several
//! clients in one process) can read and write it at once.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{LlmError, Result};
use crate::types::{Request, Response};

/// How the client uses the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheMode {
    /// Answer from the cache when possible, store every new answer (the default).
    #[default]
    Use,
    /// Never answer from the cache, but store (overwrite) every new answer (`--refresh`).
    Refresh,
    /// Neither read nor write (`--no-cache`).
    Off,
}

impl CacheMode {
    /// Reads `use`, `refresh` or `off` (also `no-cache`).
    pub fn parse(s: &str) -> Option<CacheMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "use" | "on" | "" => Some(CacheMode::Use),
            "refresh" => Some(CacheMode::Refresh),
            "off" | "no-cache" | "none" => Some(CacheMode::Off),
            _ => None,
        }
    }
    /// Whether answers are looked up.
    pub fn reads(self) -> bool {
        self == CacheMode::Use
    }
    /// Whether answers are stored.
    pub fn writes(self) -> bool {
        self != CacheMode::Off
    }
}

/// A handle on the cache database.
pub struct Cache {
    conn: Mutex<Connection>,
    path: Option<PathBuf>,
}

fn db_err(e: rusqlite::Error) -> LlmError {
    LlmError::Cache(e.to_string())
}

/// How long an operation waits for another connection's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// WAL mode, relaxed syncing (WAL keeps it safe against crashes) and the table.
fn prepare(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.execute(SCHEMA, [])?;
    Ok(())
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS answers (
    key      TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model    TEXT NOT NULL,
    sample   INTEGER NOT NULL,
    request  TEXT NOT NULL,
    response TEXT NOT NULL,
    created  INTEGER NOT NULL
)";

impl Cache {
    /// Opens (creating if needed, with its parent directories) the cache at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Cache> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| LlmError::Cache(format!("cannot create {}: {e}", dir.display())))?;
        }
        let conn = Connection::open(path)
            .map_err(|e| LlmError::Cache(format!("cannot open {}: {e}", path.display())))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(db_err)?;
        // Switching to WAL and creating the table take locks for which SQLite does not
        // always call the busy handler (another connection may be mid-switch or running
        // WAL recovery), so a busy answer here is retried until the same deadline.
        let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
        let mut pause = Duration::from_millis(2);
        loop {
            match prepare(&conn) {
                Ok(()) => break,
                Err(e) if is_busy(&e) && std::time::Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(100));
                }
                Err(e) => return Err(db_err(e)),
            }
        }
        Ok(Cache {
            conn: Mutex::new(conn),
            path: Some(path.to_path_buf()),
        })
    }

    /// A cache in memory (tests).
    pub fn in_memory() -> Result<Cache> {
        let conn = Connection::open_in_memory().map_err(db_err)?;
        conn.execute(SCHEMA, []).map_err(db_err)?;
        Ok(Cache {
            conn: Mutex::new(conn),
            path: None,
        })
    }

    /// The database file, if on disk.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The stored answer for `key`, if any.
    pub fn get(&self, key: &str) -> Result<Option<Response>> {
        let text: Option<String> = self
            .conn()
            .query_row("SELECT response FROM answers WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(db_err)?;
        match text {
            None => Ok(None),
            Some(t) => serde_json::from_str(&t)
                .map(Some)
                .map_err(|e| LlmError::Cache(format!("entry {key} is unreadable: {e}"))),
        }
    }

    /// Stores (or replaces) the answer for `key`; committed before it returns.
    pub fn put(
        &self,
        key: &str,
        provider: &str,
        model: &str,
        request: &Request,
        response: &Response,
    ) -> Result<()> {
        let req = serde_json::to_string(request).expect("a request serializes");
        let resp = serde_json::to_string(response).expect("a response serializes");
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO answers (key, provider, model, sample, request, response, created)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![key, provider, model, request.sample, req, resp, now as i64],
            )
            .map_err(db_err)?;
        Ok(())
    }

    /// Number of stored answers.
    pub fn len(&self) -> Result<usize> {
        self.conn()
            .query_row("SELECT COUNT(*) FROM answers", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(db_err)
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
}
