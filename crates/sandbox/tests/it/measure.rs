//! Measurement accuracy and basic behaviour.

use crate::fixtures::prog;
use crate::{TestBox, run, sandbox};
use std::path::PathBuf;
use verdict_sandbox::{ExitKind, LimitHit, StdioSpec};

#[test]
fn aplusb_reads_stdin_and_writes_stdout() {
    let Some(sb) = sandbox() else { return };
    let b = TestBox::new();
    std::fs::write(b.path().join("in.txt"), "2 40\n").expect("write");
    let mut spec = b.spec(&prog("aplusb"), &[]);
    spec.stdin = StdioSpec::File(PathBuf::from("in.txt"));
    let o = run(sb, &spec);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", b.stderr());
    assert_eq!(o.limit_hit, None);
    assert_eq!(b.stdout(), "42\n");
    assert_eq!(o.output_bytes, 3);
}
