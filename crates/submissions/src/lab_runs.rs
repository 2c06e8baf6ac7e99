//! The Agent Lab runs a server made (`POST /v1/lab/runs`), kept in the submissions' database
//! (table `lab_runs`) so that the page lists and opens them after a restart: each
//! run's RunRecord and ScoreRecords as JSON, with the category of the token that made it (none
//! for an admin token). The newest [`LAB_RUNS_KEPT`] are kept.

use crate::db::{Db, DbError, now_ms};
use crate::error::SubmissionError;
use crate::store::Store;
use rusqlite::{Connection, params};

/// How many lab runs are kept (the oldest go first).
pub const LAB_RUNS_KEPT: usize = 500;

/// A lab run as kept: its RunRecord and its ScoreRecords (a JSON array), as JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptLabRun {
    /// The category of the token that made it; `None` for an admin token.
    pub category: Option<String>,
    /// The RunRecord.
    pub run: String,
    /// The ScoreRecords, a JSON array.
    pub scores: String,
}

fn insert(conn: &mut Connection, run: &KeptLabRun, kept: usize) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    tx.execute(
        "INSERT INTO lab_runs (category, run, scores, recorded_at_ms) VALUES (?1, ?2, ?3, ?4)",
        params![run.category, run.run, run.scores, now_ms()],
    )?;
    let kept = i64::try_from(kept).unwrap_or(i64::MAX);
    tx.execute(
        "DELETE FROM lab_runs WHERE seq <= (SELECT MAX(seq) FROM lab_runs) - ?1",
        params![kept],
    )?;
    tx.commit()
}

impl Db {
    /// Keeps a lab run (the oldest beyond `kept` go). On disk when this returns.
    pub fn record_lab_run(&self, run: &KeptLabRun, kept: usize) -> Result<(), DbError> {
        self.check_in_place()?;
        insert(&mut self.conn(), run, kept).map_err(|e| self.err(e))
    }

    /// The runs kept, oldest first: all of them for `None` (an admin), else `category`'s.
    pub fn lab_runs(&self, category: Option<&str>) -> Result<Vec<KeptLabRun>, DbError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT category, run, scores FROM lab_runs
                 WHERE ?1 IS NULL OR category = ?1 ORDER BY seq",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![category], |row| {
                Ok(KeptLabRun {
                    category: row.get(0)?,
                    run: row.get(1)?,
                    scores: row.get(2)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}

impl Store {
    /// Keeps a lab run on disk (the newest [`LAB_RUNS_KEPT`] are kept).
    pub async fn record_lab_run(&self, run: KeptLabRun) -> Result<(), SubmissionError> {
        self.db(move |db| db.record_lab_run(&run, LAB_RUNS_KEPT))
            .await
    }

    /// The lab runs a caller of `category` may see (`None`: every run), oldest first.
    pub async fn lab_runs(
        &self,
        category: Option<String>,
    ) -> Result<Vec<KeptLabRun>, SubmissionError> {
        self.db(move |db| db.lab_runs(category.as_deref())).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(category: Option<&str>, id: usize) -> KeptLabRun {
        KeptLabRun {
            category: category.map(str::to_owned),
            run: format!("{{\"id\": {id}}}"),
            scores: "[]".into(),
        }
    }

    #[test]
    fn lab_runs_survive_reopening_and_a_category_sees_only_its_own() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Db::open(dir.path()).unwrap();
            db.record_lab_run(&run(Some("oj"), 1), 10).unwrap();
            db.record_lab_run(&run(Some("lab"), 2), 10).unwrap();
            db.record_lab_run(&run(None, 3), 10).unwrap();
        }
        let db = Db::open(dir.path()).unwrap();
        assert_eq!(db.lab_runs(Some("oj")).unwrap(), [run(Some("oj"), 1)]);
        let all = db.lab_runs(None).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[2], run(None, 3));
    }

    #[test]
    fn only_the_newest_lab_runs_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        for i in 0..7 {
            db.record_lab_run(&run(None, i), 4).unwrap();
        }
        let kept = db.lab_runs(None).unwrap();
        assert_eq!(kept.len(), 4);
        assert_eq!(kept[0], run(None, 3));
    }
}
