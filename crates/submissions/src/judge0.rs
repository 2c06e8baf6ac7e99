//! Judge0's submissions (docs/compat.md), kept in the submissions' database (table
//! `judge0_submissions`) by their token, so that a token answers after a restart and one
//! that was waiting or running is run again. Each row holds the submission as JSON (the
//! server's `verdict_compat::judge0::Record`), the category of the caller that made it, and
//! whether it is still pending. The newest `kept` finished ones are kept.

use crate::db::{Db, DbError};
use crate::error::SubmissionError;
use crate::store::Store;
use rusqlite::{OptionalExtension, params};

/// A Judge0 submission as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptJudge0 {
    /// Its token.
    pub token: String,
    /// The category of the caller that made it.
    pub category: String,
    /// Whether it is waiting or running (run again at start).
    pub pending: bool,
    /// The submission, as JSON.
    pub record: String,
}

impl KeptJudge0 {
    /// The submission of a row selected as `token, category, pending, record`.
    fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<KeptJudge0> {
        Ok(KeptJudge0 {
            token: row.get(0)?,
            category: row.get(1)?,
            pending: row.get(2)?,
            record: row.get(3)?,
        })
    }
}

impl Db {
    /// Writes a Judge0 submission (a new one, or a new state of one); when it is finished, the
    /// oldest finished ones beyond `kept` go. On disk when this returns.
    pub fn put_judge0(&self, row: &KeptJudge0, kept: usize) -> Result<(), DbError> {
        self.check_in_place()?;
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        tx.execute(
            "INSERT INTO judge0_submissions (token, category, pending, record)
             VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (token) DO UPDATE SET pending = ?3, record = ?4",
            params![row.token, row.category, row.pending, row.record],
        )
        .map_err(|e| self.err(e))?;
        if !row.pending {
            let kept = i64::try_from(kept).unwrap_or(i64::MAX);
            tx.execute(
                "DELETE FROM judge0_submissions WHERE pending = 0 AND seq <=
                 (SELECT MAX(seq) FROM judge0_submissions) - ?1",
                params![kept],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// The Judge0 submissions of `tokens` (those kept), in no order.
    pub fn judge0(&self, tokens: &[String]) -> Result<Vec<KeptJudge0>, DbError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT token, category, pending, record FROM judge0_submissions
                 WHERE token = ?1",
            )
            .map_err(|e| self.err(e))?;
        let mut found = Vec::new();
        for token in tokens {
            let row = stmt
                .query_row(params![token], KeptJudge0::from_row)
                .optional()
                .map_err(|e| self.err(e))?;
            found.extend(row);
        }
        Ok(found)
    }

    /// The Judge0 submissions still waiting or running, oldest first.
    pub fn pending_judge0(&self) -> Result<Vec<KeptJudge0>, DbError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT token, category, pending, record FROM judge0_submissions
                 WHERE pending = 1 ORDER BY seq",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], KeptJudge0::from_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// A page of `category`'s Judge0 submissions, newest first (`limit` from `offset`), and
    /// how many it has.
    pub fn judge0_page(
        &self,
        category: &str,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<KeptJudge0>, u64), DbError> {
        let conn = self.conn();
        let total: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM judge0_submissions WHERE category = ?1",
                params![category],
                |row| row.get(0),
            )
            .map_err(|e| self.err(e))?;
        let mut stmt = conn
            .prepare(
                "SELECT token, category, pending, record FROM judge0_submissions
                 WHERE category = ?1 ORDER BY seq DESC LIMIT ?2 OFFSET ?3",
            )
            .map_err(|e| self.err(e))?;
        let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(
                params![category, clamp(limit), clamp(offset)],
                KeptJudge0::from_row,
            )
            .map_err(|e| self.err(e))?;
        let rows = rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?;
        Ok((rows, u64::try_from(total).unwrap_or(0)))
    }

    /// Removes a Judge0 submission; whether there was one.
    pub fn delete_judge0(&self, token: &str) -> Result<bool, DbError> {
        self.check_in_place()?;
        self.conn()
            .execute(
                "DELETE FROM judge0_submissions WHERE token = ?1",
                params![token],
            )
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }
}

impl Store {
    /// Writes a Judge0 submission (a new one, or a new state of one); when it is finished,
    /// the oldest finished ones beyond `kept` go. On disk when this returns.
    pub async fn put_judge0(&self, row: KeptJudge0, kept: usize) -> Result<(), SubmissionError> {
        self.db(move |db| db.put_judge0(&row, kept)).await
    }

    /// The Judge0 submissions of `tokens` that are kept.
    pub async fn judge0(&self, tokens: Vec<String>) -> Result<Vec<KeptJudge0>, SubmissionError> {
        self.db(move |db| db.judge0(&tokens)).await
    }

    /// The Judge0 submissions still waiting or running, oldest first.
    pub async fn pending_judge0(&self) -> Result<Vec<KeptJudge0>, SubmissionError> {
        self.db(Db::pending_judge0).await
    }

    /// A page of `category`'s Judge0 submissions, newest first, and how many it has.
    pub async fn judge0_page(
        &self,
        category: String,
        offset: u64,
        limit: u64,
    ) -> Result<(Vec<KeptJudge0>, u64), SubmissionError> {
        self.db(move |db| db.judge0_page(&category, offset, limit))
            .await
    }

    /// Removes a Judge0 submission; whether there was one.
    pub async fn delete_judge0(&self, token: String) -> Result<bool, SubmissionError> {
        self.db(move |db| db.delete_judge0(&token)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(token: &str, pending: bool) -> KeptJudge0 {
        KeptJudge0 {
            token: token.into(),
            category: "default".into(),
            pending,
            record: format!("{{\"token\": \"{token}\"}}"),
        }
    }

    #[test]
    fn judge0_tokens_survive_reopening_and_pending_ones_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Db::open(dir.path()).unwrap();
            db.put_judge0(&row("a", true), 10).unwrap();
            db.put_judge0(&row("b", true), 10).unwrap();
            db.put_judge0(&row("a", false), 10).unwrap();
        }
        let db = Db::open(dir.path()).unwrap();
        assert_eq!(
            db.judge0(&["a".into(), "x".into()]).unwrap(),
            [row("a", false)]
        );
        assert_eq!(db.pending_judge0().unwrap(), [row("b", true)]);
        let (page, total) = db.judge0_page("default", 0, 1).unwrap();
        assert_eq!((page, total), (vec![row("b", true)], 2), "newest first");
        assert!(db.judge0_page("other", 0, 10).unwrap().0.is_empty());
        assert!(db.delete_judge0("b").unwrap());
        assert!(!db.delete_judge0("b").unwrap());
    }

    #[test]
    fn only_the_newest_finished_judge0_submissions_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        db.put_judge0(&row("waiting", true), 2).unwrap();
        for i in 0..5 {
            db.put_judge0(&row(&i.to_string(), false), 2).unwrap();
        }
        let tokens: Vec<String> = ["waiting", "0", "3", "4"].map(String::from).to_vec();
        let kept: Vec<String> = db
            .judge0(&tokens)
            .unwrap()
            .into_iter()
            .map(|r| r.token)
            .collect();
        assert_eq!(kept, ["waiting", "3", "4"]);
    }
}
