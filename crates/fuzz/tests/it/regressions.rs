//! Inputs fuzzing found, each kept under the name of what it guards.

use verdict_fuzz::{check_one, target};

fn holds(target_name: &str, input: &[u8]) {
    let t = target(target_name).expect("target exists");
    if let Err(what) = check_one(t, input) {
        panic!("{target_name}: {what}");
    }
}

#[test]
fn deep_json_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    holds("submission", deep.as_bytes());
    holds("lab-tasks", deep.as_bytes());
}

#[test]
fn deeply_nested_tool_xml_is_an_error_not_a_stack_overflow() {
    // Found by fuzzing gtest-xml: `Stream::subtree` recursed once per nested element.
    for (name, root) in [
        ("gtest-xml", "testsuites"),
        ("valgrind-xml", "valgrindoutput"),
        ("static-analysis", "results"),
    ] {
        let deep = format!(
            "<{root}>{}{}</{root}>",
            "<a>".repeat(50_000),
            "</a>".repeat(50_000)
        );
        holds(name, deep.as_bytes());
    }
}

#[test]
fn an_input_map_index_cannot_ask_for_gigabytes() {
    // Found by fuzzing data-path (and by hand): `set` padded `a[100000000]`.
    holds("data-path", b"input.a[100000000]");
    holds("data-path", b"a[18446744073709551615]");
}
