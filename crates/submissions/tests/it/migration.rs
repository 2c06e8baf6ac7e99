//! A database made by the schema before the `plan` column (and before the `lab_runs` table)
//! opens: it gets the column and the table, and its submissions are served as before.

use std::time::{Duration, SystemTime, UNIX_EPOCH};
use verdict_submissions::{KeptLabRun, Phase, Store, SubKey};

/// The schema as it was before the plan column (commit f0ab8f9's parent), verbatim.
const PREVIOUS_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS submissions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    category TEXT NOT NULL,
    sub_id TEXT NOT NULL,
    phase TEXT NOT NULL,
    request TEXT,
    report TEXT,
    accepted_at_ms INTEGER NOT NULL,
    finished_at_ms INTEGER,
    UNIQUE (category, sub_id)
);
CREATE INDEX IF NOT EXISTS submissions_by_sub_id ON submissions (sub_id);
CREATE INDEX IF NOT EXISTS submissions_by_finish ON submissions (finished_at_ms);
";

const REPORT: &str = r#"{"sub_type":"programming","category":"oj","prob_id":"p","sub_id":"old-1","results":[{"status":"Accepted","score":"1/1","run_time":3,"memory_used":100,"error_log":""}]}"#;

fn columns(path: &std::path::Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).expect("open");
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info('submissions')")
        .expect("prepare");
    stmt.query_map([], |row| row.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[tokio::test]
async fn a_store_from_before_the_plan_column_opens_and_serves_its_old_submissions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("submissions.sqlite3");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64;
    {
        let conn = rusqlite::Connection::open(&path).expect("open");
        conn.execute_batch(PREVIOUS_SCHEMA).expect("old schema");
        conn.execute(
            "INSERT INTO submissions (category, sub_id, phase, report, accepted_at_ms, finished_at_ms)
             VALUES ('oj', 'old-1', 'finished', ?1, ?2, ?2)",
            rusqlite::params![REPORT, now],
        )
        .expect("a finished row");
        conn.execute(
            "INSERT INTO submissions (category, sub_id, phase, request, accepted_at_ms)
             VALUES ('oj', 'old-2', 'queued', '{\"queued\": true}', ?1)",
            rusqlite::params![now],
        )
        .expect("a queued row");
    }
    assert!(!columns(&path).contains(&"plan".to_owned()));

    let (store, unfinished) =
        Store::open(dir.path(), Duration::from_secs(3600), 100).expect("the old store opens");
    assert!(
        columns(&path).contains(&"plan".to_owned()),
        "no plan column added"
    );
    // The queued one is judged again from its request, as before.
    assert_eq!(unfinished.len(), 1);
    assert_eq!(unfinished[0].key, SubKey::new("oj", "old-2"));
    assert_eq!(unfinished[0].phase, Phase::Queued);
    assert_eq!(unfinished[0].request, "{\"queued\": true}");
    // The finished one is served whole; it has no plan (the page falls back to the report).
    let old = SubKey::new("oj", "old-1");
    let entry = store.get(&old).await.expect("read").expect("still served");
    let (report, complete) = entry.snapshot();
    assert!(complete);
    assert_eq!(
        serde_json::to_value(&report).expect("JSON"),
        serde_json::from_str::<serde_json::Value>(REPORT).expect("JSON")
    );
    assert_eq!(store.plan(&old).await.expect("read"), None);
    assert_eq!(store.categories_of("old-1").await.expect("read"), ["oj"]);
    // The new table came too: lab runs can be kept in the old store.
    let run = KeptLabRun {
        category: None,
        run: "{}".into(),
        scores: "[]".into(),
    };
    store.record_lab_run(run.clone()).await.expect("a lab run");
    assert_eq!(store.lab_runs(None).await.expect("read"), [run]);
}
