//! verdict's built-in `icpc-default` comparison against the ICPC / Kattis default output
//! validator's own test cases (`tests/fixtures/default_validator/`, from problemtools): the
//! same verdict for every case.

use std::path::Path;
use verdict_compare::{CompareVerdict, DefaultValidator};

#[test]
fn the_built_in_default_validator_agrees_with_problemtools_on_its_own_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/default_validator");
    let mut cases = 0;
    for entry in std::fs::read_dir(&root).expect("fixtures") {
        let dir = entry.expect("entry").path();
        if !dir.is_dir() {
            continue;
        }
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap_or_default();
        let flags: Vec<String> = String::from_utf8_lossy(&read("args.txt"))
            .split_ascii_whitespace()
            .map(str::to_owned)
            .collect();
        let expected = String::from_utf8_lossy(&read("expected_exit_code.txt"))
            .trim()
            .to_owned();
        let validator = DefaultValidator::from_flags(&flags).expect("problemtools' flags");
        let outcome = validator
            .compare_readers(&read("user.out")[..], &read("judge.ans")[..])
            .expect("compare");
        let got = match outcome.verdict {
            CompareVerdict::Accepted => "42",
            CompareVerdict::WrongAnswer => "43",
            other => panic!("{}: {other:?}", dir.display()),
        };
        assert_eq!(got, expected, "{}: {}", dir.display(), outcome.message);
        cases += 1;
    }
    assert!(cases >= 20, "only {cases} cases found");
}
