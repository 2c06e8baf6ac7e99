//! A submission's tests share emptied directories (crate `test_dirs`): every test still starts
//! in a box holding only what the judge placed, with the mode a fresh box has.

use crate::common::{judge, runtime};
use verdict_contracts::{JudgeStatus, parse_submission};

/// Fails its test when the box shows what an earlier test did, then leaves a file, nested
/// directories and a closed mode behind (the box is its own while it runs).
const LITTERING_PROGRAM: &str = r#"#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
int main(void) {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    struct stat st;
    if (stat(".", &st) != 0 || (st.st_mode & 07777) != 0777) {
        printf("box mode %o\n", (unsigned)(st.st_mode & 07777));
        return 0;
    }
    DIR *d = opendir(".");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, "left") || !strcmp(e->d_name, "sub")) {
            printf("left over: %s\n", e->d_name);
            return 0;
        }
    }
    FILE *f = fopen("left", "w");
    if (f) { fputs("state", f); fclose(f); }
    mkdir("sub", 0700);
    mkdir("sub/deeper", 0700);
    chmod(".", 0700);
    printf("%lld\n", a + b);
    fputs("some stderr\n", stderr);
    return 0;
}
"#;

#[test]
fn every_test_starts_in_a_clean_box_though_tests_share_directories() {
    let Some(judge) = judge() else { return };
    let tests = 12;
    let mut tasks =
        vec![serde_json::json!({"check_script": "compile", "time_limit": 10000, "depends_on": -1})];
    let mut data = Vec::new();
    for k in 0..tests {
        tasks.push(
            serde_json::json!({"check_script": "standard", "run_script": "standard",
            "compare_script": "diff-ign-space", "testcase_id": k, "depends_on": 0,
            "depends_cond": "ACCEPTED", "time_limit": 1000, "memory_limit": 65536}),
        );
        data.push(serde_json::json!({
            "inputs": [{"type": "text", "name": "testdata.in", "text": format!("{k} 1\n")}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": format!("{}\n", k + 1)}]}));
    }
    let submission = serde_json::json!({"sub_type": "programming", "category": "it",
        "prob_id": "test-dirs", "sub_id": "test-dirs-1", "updated_at": 1,
        "judge_tasks": tasks, "test_data": data,
        "submission": {"type": "source_code", "language": "c",
            "source_files": [{"type": "text", "name": "main.c", "text": LITTERING_PROGRAM}]}});
    let submission = parse_submission(&submission.to_string()).expect("valid");
    let report = runtime().block_on(judge.judge(submission));
    for (index, result) in report.results.iter().enumerate() {
        assert_eq!(
            result.status,
            JudgeStatus::Accepted,
            "task {index}: {}",
            result.error_log
        );
    }
}
