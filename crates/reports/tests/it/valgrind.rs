use crate::{assert_contains, box_dir, fixture};
use verdict_reports::{MemoryReport, ReportError, memory_score, parse_valgrind_xml};

fn parse(name: &str) -> MemoryReport {
    parse_valgrind_xml(&fixture(&format!("valgrind/{name}.xml")), box_dir()).unwrap()
}

fn kinds(r: &MemoryReport) -> Vec<&str> {
    r.errors.iter().map(|e| e.kind.as_str()).collect()
}

#[test]
fn clean_program_has_no_errors() {
    let r = parse("clean");
    assert_eq!(r.tool, "valgrind-3.19.0");
    assert_eq!(r.error_count, 0);
    assert!(r.errors.is_empty());
    assert_eq!(memory_score(r.error_count).to_string(), "1/1");
}

#[test]
fn leaks_report_bytes_blocks_and_the_allocation_site() {
    let r = parse("leak");
    // Two definitely-lost records; the indirect block is folded into the first, the
    // still-reachable global is not reported with the default leak kinds.
    assert_eq!(kinds(&r), ["Leak_DefinitelyLost", "Leak_DefinitelyLost"]);
    assert_eq!(r.error_count, 2);
    assert_eq!(r.errors[0].bytes_leaked, Some(64));
    assert_eq!(r.errors[0].blocks_leaked, Some(1));
    assert_eq!(r.errors[1].bytes_leaked, Some(100));
    assert!(
        r.errors[0]
            .what
            .starts_with("64 (32 direct, 32 indirect) bytes in 1 blocks are definitely lost")
    );
    let site = &r.errors[0].stack[1];
    assert_eq!(site.function.as_deref(), Some("leak_list"));
    assert_eq!(site.file.as_deref(), Some("vg_leak.c"));
    assert_eq!(site.line, Some(13));
    assert_eq!(site.object.as_deref(), Some("vg_leak"));
    assert_eq!(r.errors[0].stack[0].function.as_deref(), Some("malloc"));
    assert_eq!(r.errors[0].stack[0].file, None);
    assert_eq!(memory_score(r.error_count).to_string(), "8/10");
    insta::assert_json_snapshot!("valgrind_leak", r);
}

#[test]
fn invalid_write_and_read() {
    let r = parse("invalid");
    assert_eq!(kinds(&r), ["InvalidWrite", "InvalidRead"]);
    assert_eq!(r.error_count, 2);
    assert_eq!(
        r.errors[0].what.lines().next(),
        Some("Invalid write of size 4")
    );
    assert_contains(
        &r.errors[0].what,
        "0 bytes after a block of size 16 alloc'd",
    );
    assert_eq!(r.errors[0].stack[0].line, Some(7));
    assert_eq!(r.errors[1].stack[0].line, Some(8));
    assert_eq!(r.errors[0].bytes_leaked, None);
    insta::assert_json_snapshot!("valgrind_invalid", r);
}

#[test]
fn uninitialised_values() {
    let r = parse("uninit");
    assert_eq!(r.error_count, 5);
    assert!(
        r.errors.iter().all(|e| e.kind.starts_with("Uninit")),
        "{:?}",
        kinds(&r)
    );
    assert!(r.errors.iter().all(|e| {
        e.what
            .contains("Uninitialised value was created by a stack allocation")
    }));
    // The first one is the `if (*px > 3)` in main.
    let top = &r.errors[0].stack[0];
    assert_eq!((top.function.as_deref(), top.line), (Some("main"), Some(7)));
    assert_eq!(memory_score(r.error_count).to_string(), "5/10");
}

#[test]
fn double_free_and_free_of_a_stack_address() {
    let r = parse("free");
    assert_eq!(kinds(&r), ["InvalidFree", "InvalidFree"]);
    assert_eq!(r.error_count, 2);
    let lines: Vec<Option<u32>> = r.errors.iter().map(|e| e.stack[1].line).collect();
    assert_eq!(lines, [Some(7), Some(9)]);
}

#[test]
fn valgrind_killed_mid_run_is_a_truncated_report() {
    let err = parse_valgrind_xml(&fixture("valgrind/killed.xml"), box_dir()).unwrap_err();
    assert!(
        matches!(err, ReportError::Truncated { ref element, .. } if element == "valgrindoutput"),
        "{err}"
    );
}

#[test]
fn program_killed_by_sigsegv_under_valgrind_still_has_a_complete_report() {
    assert_eq!(fixture("valgrind/segv.exit").trim(), "139");
    let r = parse("segv");
    // valgrind closes the document (with a <fatal_signal> element) before re-raising.
    assert_eq!(kinds(&r), ["InvalidRead"]);
    assert_eq!(r.error_count, 1);
    assert_contains(
        &r.errors[0].what,
        "Address 0x0 is not stack'd, malloc'd or (recently) free'd",
    );
    assert_eq!(r.errors[0].stack[0].line, Some(7));
}
