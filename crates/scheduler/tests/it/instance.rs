//! A judge's work dirs belong to its sandbox instance (design #23): the work dirs a dead judge
//! left (interrupted submissions' `sub-<id>-*`) are removed when the next one starts.

use verdict_scheduler::{Judge, JudgeConfig};

#[test]
fn a_starting_judge_removes_the_work_dirs_a_dead_judge_left() {
    if crate::common::judge().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path().join("work");
    // What a judge killed mid-submission left: its instance's dir with a submission's work dir
    // in it, and no live lock (its registry entry is gone too, as after a reboot).
    let dead = work.join("i00000000deadbeef");
    std::fs::create_dir_all(dead.join("sub-42-abc/run-1")).expect("leftover");
    std::fs::write(dead.join("sub-42-abc/run-1/input.txt"), "1 2\n").expect("leftover file");
    let judge = Judge::new(JudgeConfig {
        work_dir: work.clone(),
        cache_dir: dir.path().join("cache"),
        ..JudgeConfig::default()
    })
    .expect("judge");
    assert!(!dead.exists(), "a dead judge's work dirs were left");
    let own = judge.work_root().to_path_buf();
    assert_eq!(
        own.parent(),
        Some(work.as_path()),
        "its work root is not in the work dir"
    );
    assert!(own.is_dir(), "no work root of its own at {}", own.display());
    drop(judge);
    assert!(!own.exists(), "a dropped judge left its work root");
}
