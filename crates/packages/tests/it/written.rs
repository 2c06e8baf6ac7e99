//! Packages the tests write as the specification lays them out, where no registry carries a
//! real one (no tool publishes a 2025-09 scoring package yet: problemtools reads the legacy
//! grader's keys, BAPCtools refuses `max_score` and `score_aggregation`). Also used by
//! bins/judge's tests (`#[path]`).

#![allow(dead_code)]

use std::path::Path;

/// Writes `text` to `dir/name`, making its directories.
pub fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A 2025-09 scoring problem ("echo the integer"), graded by "Result aggregation": `secret`
/// keeps its defaults (at most 100, `sum`) over three test data groups:
///
/// | group | `test_group.yaml` | inputs |
/// |---|---|---|
/// | `secret/1_small` | `max_score: 30`, `require_pass: sample` (pass-fail, the default) | 1, 2, 3 |
/// | `secret/2_negative` | `max_score: 30`, `score_aggregation: min` | -1, -2 |
/// | `secret/3_large` | `max_score: 40`, `score_aggregation: sum`, `require_pass: [secret/1_small]` | 1000, -1000, 100000, 7 (10 each) |
///
/// References and their scores: `accepted/echo.py` 100; `partially_accepted/abs.py` (prints
/// `|x|`) 30 + 0 + 30 = 60; `partially_accepted/small_only.py` (prints `x` when `|x| < 10`,
/// else 0) 30 + 30 + 10 = 70; `partially_accepted/needs_small.py` (wrong on 1..3 only)
/// 0 + 30 + 0 = 30, its 40 in `3_large` withheld by `require_pass`; `wrong_answer/constant.py` 0;
/// `run_time_error/crash.py`.
pub fn scoring_2025(dir: &Path) {
    let w = |name: &str, text: &str| write(dir, name, text);
    w(
        "problem.yaml",
        "problem_format_version: 2025-09\ntype: scoring\nname: Echo the integer\n\
         limits:\n  time_limit: 2\n",
    );
    w("data/sample/1.in", "5\n");
    w("data/sample/1.ans", "5\n");
    w("data/sample/test_group.yaml", "full_feedback: true\n");
    let groups: [(&str, &str, &[i64]); 3] = [
        (
            "1_small",
            "max_score: 30\nrequire_pass: sample\n",
            &[1, 2, 3],
        ),
        (
            "2_negative",
            "max_score: 30\nscore_aggregation: min\n",
            &[-1, -2],
        ),
        (
            "3_large",
            "max_score: 40\nscore_aggregation: sum\nrequire_pass: [secret/1_small]\n",
            &[1000, -1000, 100000, 7],
        ),
    ];
    for (group, yaml, inputs) in groups {
        w(&format!("data/secret/{group}/test_group.yaml"), yaml);
        for (i, x) in inputs.iter().enumerate() {
            w(&format!("data/secret/{group}/{i:02}.in"), &format!("{x}\n"));
            w(
                &format!("data/secret/{group}/{i:02}.ans"),
                &format!("{x}\n"),
            );
        }
    }
    w(
        "input_validators/validate.py",
        "import sys, re\ntext = sys.stdin.read()\n\
         sys.exit(42 if re.fullmatch(r'-?[0-9]+\\n', text) else 43)\n",
    );
    w("submissions/accepted/echo.py", "print(int(input()))\n");
    w(
        "submissions/partially_accepted/abs.py",
        "print(abs(int(input())))\n",
    );
    w(
        "submissions/partially_accepted/small_only.py",
        "x = int(input())\nprint(x if abs(x) < 10 else 0)\n",
    );
    w(
        "submissions/partially_accepted/needs_small.py",
        "x = int(input())\nprint(0 if 1 <= x <= 3 else x)\n",
    );
    w("submissions/wrong_answer/constant.py", "print(42)\n");
    w(
        "submissions/run_time_error/crash.py",
        "x = int(input())\nraise SystemExit(3)\n",
    );
}
