//! The durable part of the submission store: one SQLite database (bundled, WAL, `synchronous =
//! FULL`) in the server's `data_dir`, holding every accepted submission by `(category, sub_id)`
//! from the moment it is accepted (before the client hears `202`) until its retention ends.
//!
//! A row is `queued` (accepted, its request text kept), `running` (a worker took it) or
//! `finished` (its final JudgeReport kept, the request dropped). A commit is on disk when it
//! returns, so a `kill -9` at any moment loses nothing that was acknowledged: at start the server
//! judges again, from scratch, every row not `finished` ([`Db::unfinished`]).
//!
//! Every method does blocking file I/O: call them from a blocking thread (`spawn_blocking`), never
//! from an async one. A lock file held for the life of the [`Db`] keeps a second server off the
//! same `data_dir`.

use rusqlite::{Connection, OptionalExtension, params};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where a submission is, as the store records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Accepted, waiting for a worker.
    Queued,
    /// A worker is judging it.
    Running,
    /// Its final report is in.
    Finished,
}

impl Phase {
    /// The name stored and shown (`Verdict-State`).
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Queued => "queued",
            Phase::Running => "running",
            Phase::Finished => "finished",
        }
    }

    fn parse(s: &str) -> Option<Phase> {
        match s {
            "queued" => Some(Phase::Queued),
            "running" => Some(Phase::Running),
            "finished" => Some(Phase::Finished),
            _ => None,
        }
    }
}

/// A submission's key: its token's category is its namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SubKey {
    /// The category (the tenant).
    pub category: String,
    /// The platform's id, unique within the category.
    pub sub_id: String,
}

impl SubKey {
    /// The key of `sub_id` in `category`.
    pub fn new(category: impl Into<String>, sub_id: impl Into<String>) -> SubKey {
        SubKey {
            category: category.into(),
            sub_id: sub_id.into(),
        }
    }
}

/// A submission the server accepted and has not finished, as read back at start.
#[derive(Debug, Clone)]
pub struct Unfinished {
    /// Its key.
    pub key: SubKey,
    /// The request text as accepted.
    pub request: String,
    /// `Queued`, or `Running` when a worker had started it (it was interrupted).
    pub phase: Phase,
    /// A front end's newest report so far, when one came from the broker.
    pub report: Option<String>,
}

/// A finished submission's report, as stored.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The final JudgeReport as JSON.
    pub report: String,
    /// When it finished, in ms since the Unix epoch.
    pub finished_at_ms: i64,
}

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The data dir or its lock file.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Another server holds the data dir.
    #[error("{0}: another judge-server uses this data_dir")]
    Locked(PathBuf),
    /// The data dir, its database file or its lock file was removed or replaced under the
    /// running server: a commit would go to an unlinked file and be lost at the
    /// next start, so nothing is accepted until an operator restores it and restarts.
    #[error("the data dir {dir} was removed or replaced ({what}); nothing can be stored")]
    Gone {
        /// The data dir.
        dir: PathBuf,
        /// What changed.
        what: String,
    },
    /// SQLite itself.
    #[error("submission store {path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },
}

/// The durable submission store.
#[derive(Debug)]
pub struct Db {
    conn: Mutex<Connection>,
    path: PathBuf,
    lock_path: PathBuf,
    /// The (device, inode) of the database file and of the lock file as opened.
    identity: [(u64, u64); 2],
    _lock: File,
}

/// The (device, inode) of `path`, following no link.
fn identity_of(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path)?;
    Ok((meta.dev(), meta.ino()))
}

impl DbError {
    /// Whether the store cannot take a write for a reason of the host's that may pass (a full
    /// or read-only disk, a busy database, a removed data dir): a client should retry later
    /// (503 with Retry-After) rather than read it as a failure of its request.
    pub fn is_unavailable(&self) -> bool {
        use rusqlite::ErrorCode::{
            CannotOpen, DatabaseBusy, DatabaseLocked, DiskFull, ReadOnly, SystemIoFailure,
        };
        match self {
            DbError::Gone { .. } => true,
            DbError::Sqlite {
                source: rusqlite::Error::SqliteFailure(e, _),
                ..
            } => matches!(
                e.code,
                DiskFull | ReadOnly | DatabaseBusy | DatabaseLocked | SystemIoFailure | CannotOpen
            ),
            _ => false,
        }
    }
}

/// The lab runs' table (the `lab_runs` module reads and writes it), made if missing: a store from
/// before it gets it at the next start. Every table is made here, so the database depends on
/// no module above it.
const LAB_RUNS_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS lab_runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    category TEXT,
    run TEXT NOT NULL,
    scores TEXT NOT NULL,
    recorded_at_ms INTEGER NOT NULL
);
";

/// Judge0's submissions (the `judge0` module reads and writes them), made if missing.
const JUDGE0_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS judge0_submissions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    token TEXT NOT NULL UNIQUE,
    category TEXT NOT NULL,
    pending INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS judge0_by_pending ON judge0_submissions (pending);
";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS submissions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    category TEXT NOT NULL,
    sub_id TEXT NOT NULL,
    phase TEXT NOT NULL,
    request TEXT,
    report TEXT,
    plan TEXT,
    accepted_at_ms INTEGER NOT NULL,
    finished_at_ms INTEGER,
    UNIQUE (category, sub_id)
);
CREATE INDEX IF NOT EXISTS submissions_by_sub_id ON submissions (sub_id);
CREATE INDEX IF NOT EXISTS submissions_by_finish ON submissions (finished_at_ms);
";

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Db {
    /// Opens (creating) the store in `dir`: `dir/submissions.sqlite3`, locked by
    /// `dir/judge-server.lock` for as long as the `Db` lives.
    pub fn open(dir: &Path) -> Result<Db, DbError> {
        let io = |action, path: &Path| {
            let path = path.to_owned();
            move |source| DbError::Io {
                action,
                path,
                source,
            }
        };
        std::fs::create_dir_all(dir).map_err(io("create", dir))?;
        let lock_path = dir.join("judge-server.lock");
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io("open", &lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(DbError::Locked(lock_path)),
            Err(std::fs::TryLockError::Error(e)) => return Err(io("lock", &lock_path)(e)),
        }
        let path = dir.join("submissions.sqlite3");
        let sqlite = |source| DbError::Sqlite {
            path: path.clone(),
            source,
        };
        let conn = Connection::open(&path).map_err(sqlite)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(sqlite)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sqlite)?;
        conn.execute_batch(SCHEMA).map_err(sqlite)?;
        conn.execute_batch(LAB_RUNS_SCHEMA).map_err(sqlite)?;
        conn.execute_batch(JUDGE0_SCHEMA).map_err(sqlite)?;
        // A store made before the plan column: add it (kept plans start with the next accept).
        let has_plan = conn
            .prepare("SELECT 1 FROM pragma_table_info('submissions') WHERE name = 'plan'")
            .and_then(|mut stmt| stmt.exists([]))
            .map_err(sqlite)?;
        if !has_plan {
            conn.execute_batch("ALTER TABLE submissions ADD COLUMN plan TEXT")
                .map_err(sqlite)?;
        }
        let identity = [
            identity_of(&path).map_err(io("stat", &path))?,
            identity_of(&lock_path).map_err(io("stat", &lock_path))?,
        ];
        Ok(Db {
            conn: Mutex::new(conn),
            path,
            lock_path,
            identity,
            _lock: lock,
        })
    }

    /// Checks that the database and lock files are still the ones opened: a data
    /// dir removed (`rm -rf`) or replaced under the server would take every later commit to an
    /// unlinked file, acknowledged and then lost at the next start.
    pub fn check_in_place(&self) -> Result<(), DbError> {
        for (path, opened) in [&self.path, &self.lock_path].into_iter().zip(self.identity) {
            let what = match identity_of(path) {
                Ok(now) if now == opened => continue,
                Ok(_) => format!("{} is another file now", path.display()),
                Err(e) => format!("{}: {e}", path.display()),
            };
            return Err(DbError::Gone {
                dir: self.path.parent().unwrap_or(&self.path).to_owned(),
                what,
            });
        }
        Ok(())
    }

    pub(crate) fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn err(&self, source: rusqlite::Error) -> DbError {
        DbError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Records an accepted submission (`queued`, with its request text and its plan, which
    /// outlives the request), replacing a finished one with the same key (a rejudge). On disk
    /// when this returns.
    pub fn accept(&self, key: &SubKey, request: &str) -> Result<(), DbError> {
        self.check_in_place()?;
        let plan = crate::plan::plan_of(request);
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        tx.execute(
            "DELETE FROM submissions WHERE category = ?1 AND sub_id = ?2",
            params![key.category, key.sub_id],
        )
        .map_err(|e| self.err(e))?;
        tx.execute(
            "INSERT INTO submissions (category, sub_id, phase, request, plan, accepted_at_ms)
             VALUES (?1, ?2, 'queued', ?3, ?4, ?5)",
            params![key.category, key.sub_id, request, plan, now_ms()],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }

    /// A worker took the submission.
    pub fn start(&self, key: &SubKey) -> Result<(), DbError> {
        self.conn()
            .execute(
                "UPDATE submissions SET phase = 'running'
                 WHERE category = ?1 AND sub_id = ?2 AND phase = 'queued'",
                params![key.category, key.sub_id],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// The final report is in: kept until its retention ends; the request text is dropped.
    pub fn finish(&self, key: &SubKey, report: &str, finished_at_ms: i64) -> Result<(), DbError> {
        self.conn()
            .execute(
                "UPDATE submissions SET phase = 'finished', report = ?3, request = NULL,
                 finished_at_ms = ?4 WHERE category = ?1 AND sub_id = ?2",
                params![key.category, key.sub_id, report, finished_at_ms],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// A front end's record of a report consumed from the broker: the final one finishes the
    /// submission (as [`Db::finish`]), one so far marks it `running` and keeps the report. A
    /// submission not known here (another front end accepted it) is added; a finished one is
    /// left as it is (a redelivered submission's reports come again). On disk when this returns;
    /// whether a row changed.
    pub fn record_report(
        &self,
        key: &SubKey,
        report: &str,
        finished_at_ms: Option<i64>,
    ) -> Result<bool, DbError> {
        let phase = if finished_at_ms.is_some() {
            "finished"
        } else {
            "running"
        };
        self.conn()
            .execute(
                "INSERT INTO submissions
                   (category, sub_id, phase, report, accepted_at_ms, finished_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (category, sub_id) DO UPDATE SET
                   phase = excluded.phase, report = excluded.report,
                   finished_at_ms = excluded.finished_at_ms,
                   request = CASE WHEN excluded.phase = 'finished' THEN NULL ELSE request END
                 WHERE phase != 'finished'",
                params![
                    key.category,
                    key.sub_id,
                    phase,
                    report,
                    now_ms(),
                    finished_at_ms
                ],
            )
            .map(|changed| changed > 0)
            .map_err(|e| self.err(e))
    }

    /// Forgets a submission accepted and never started (a front end could not hand it to the
    /// broker, so the client was told it was not accepted).
    pub fn withdraw(&self, key: &SubKey) -> Result<(), DbError> {
        self.conn()
            .execute(
                "DELETE FROM submissions WHERE category = ?1 AND sub_id = ?2 AND phase = 'queued'",
                params![key.category, key.sub_id],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// Every submission accepted and not finished, in the order they were accepted.
    pub fn unfinished(&self) -> Result<Vec<Unfinished>, DbError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT category, sub_id, request, phase, report FROM submissions
                 WHERE phase != 'finished' ORDER BY seq",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |row| {
                Ok(Unfinished {
                    key: SubKey::new(row.get::<_, String>(0)?, row.get::<_, String>(1)?),
                    request: row.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    phase: Phase::parse(&row.get::<_, String>(3)?).unwrap_or(Phase::Queued),
                    report: row.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The report of a finished submission, if it is kept.
    pub fn finished(&self, key: &SubKey) -> Result<Option<Finished>, DbError> {
        self.conn()
            .query_row(
                "SELECT report, finished_at_ms FROM submissions
                 WHERE category = ?1 AND sub_id = ?2 AND phase = 'finished'",
                params![key.category, key.sub_id],
                |row| {
                    Ok(Finished {
                        report: row.get(0)?,
                        finished_at_ms: row.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// The plan kept for `key` (see [`crate::plan_of`]), if any.
    pub fn plan(&self, key: &SubKey) -> Result<Option<String>, DbError> {
        self.conn()
            .query_row(
                "SELECT plan FROM submissions WHERE category = ?1 AND sub_id = ?2",
                params![key.category, key.sub_id],
                |row| row.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|e| self.err(e))
    }

    /// The categories that hold a submission `sub_id`.
    pub fn categories_of(&self, sub_id: &str) -> Result<Vec<String>, DbError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT category FROM submissions WHERE sub_id = ?1 ORDER BY category")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([sub_id], |row| row.get(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Forgets finished submissions that finished before `before_ms`, then the oldest finished
    /// ones beyond `max_retained`; how many went.
    pub fn sweep(&self, before_ms: i64, max_retained: usize) -> Result<usize, DbError> {
        let conn = self.conn();
        let expired = conn
            .execute(
                "DELETE FROM submissions WHERE phase = 'finished' AND finished_at_ms < ?1",
                [before_ms],
            )
            .map_err(|e| self.err(e))?;
        let excess = conn
            .execute(
                "DELETE FROM submissions WHERE seq IN (
                   SELECT seq FROM submissions WHERE phase = 'finished'
                   ORDER BY finished_at_ms DESC, seq DESC LIMIT -1 OFFSET ?1)",
                [i64::try_from(max_retained).unwrap_or(i64::MAX)],
            )
            .map_err(|e| self.err(e))?;
        Ok(expired + excess)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submission_goes_from_queued_to_finished_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let key = SubKey::new("alpha", "s1");
        {
            let db = Db::open(dir.path()).unwrap();
            db.accept(&key, "{\"x\": 1}").unwrap();
            db.accept(&SubKey::new("beta", "s1"), "{}").unwrap();
            db.start(&key).unwrap();
        }
        let db = Db::open(dir.path()).unwrap();
        let open = db.unfinished().unwrap();
        assert_eq!(open.len(), 2);
        assert_eq!(open[0].key, key);
        assert_eq!(open[0].phase, Phase::Running);
        assert_eq!(open[0].request, "{\"x\": 1}");
        assert_eq!(open[1].phase, Phase::Queued);
        assert_eq!(db.categories_of("s1").unwrap(), ["alpha", "beta"]);
        db.finish(&key, "{\"report\": 1}", 5).unwrap();
        assert_eq!(db.unfinished().unwrap().len(), 1);
        assert_eq!(
            db.finished(&key).unwrap().unwrap().report,
            "{\"report\": 1}"
        );
        assert!(db.finished(&SubKey::new("beta", "s1")).unwrap().is_none());
    }

    #[test]
    fn reports_from_the_broker_are_recorded_once_finished() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        let mine = SubKey::new("oj", "mine");
        db.accept(&mine, "{\"request\": 1}").unwrap();
        assert!(db.record_report(&mine, "{\"so_far\": 1}", None).unwrap());
        // Another front end's submission, first seen in a report.
        let theirs = SubKey::new("oj", "theirs");
        db.record_report(&theirs, "{\"so_far\": 2}", None).unwrap();
        let open = db.unfinished().unwrap();
        assert_eq!(open.len(), 2);
        assert_eq!(open[0].phase, Phase::Running);
        assert_eq!(open[0].request, "{\"request\": 1}");
        assert_eq!(open[0].report.as_deref(), Some("{\"so_far\": 1}"));
        assert_eq!(open[1].key, theirs);
        assert_eq!(open[1].report.as_deref(), Some("{\"so_far\": 2}"));
        db.record_report(&theirs, "{\"final\": 1}", Some(7))
            .unwrap();
        // A redelivered submission's reports come again: the first final one stays.
        assert!(!db.record_report(&theirs, "{\"so_far\": 3}", None).unwrap());
        db.record_report(&theirs, "{\"final\": 2}", Some(9))
            .unwrap();
        let kept = db.finished(&theirs).unwrap().unwrap();
        assert_eq!(
            (kept.report.as_str(), kept.finished_at_ms),
            ("{\"final\": 1}", 7)
        );
        assert_eq!(db.unfinished().unwrap().len(), 1);
        // Withdrawn only while queued.
        db.withdraw(&mine).unwrap();
        assert_eq!(db.unfinished().unwrap().len(), 1);
        let fresh = SubKey::new("oj", "fresh");
        db.accept(&fresh, "{}").unwrap();
        db.withdraw(&fresh).unwrap();
        assert_eq!(db.unfinished().unwrap().len(), 1);
    }

    #[test]
    fn a_second_server_cannot_open_the_same_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let _first = Db::open(dir.path()).unwrap();
        assert!(matches!(Db::open(dir.path()), Err(DbError::Locked(_))));
    }

    #[test]
    fn sweep_drops_expired_then_the_oldest_beyond_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        for i in 0..5 {
            let key = SubKey::new("c", format!("s{i}"));
            db.accept(&key, "{}").unwrap();
            db.finish(&key, "{}", 100 + i).unwrap();
        }
        db.accept(&SubKey::new("c", "open"), "{}").unwrap();
        assert_eq!(db.sweep(101, 10).unwrap(), 1);
        assert_eq!(db.sweep(0, 2).unwrap(), 2);
        assert!(db.finished(&SubKey::new("c", "s2")).unwrap().is_none());
        assert!(db.finished(&SubKey::new("c", "s4")).unwrap().is_some());
        assert_eq!(db.unfinished().unwrap().len(), 1);
    }
}
