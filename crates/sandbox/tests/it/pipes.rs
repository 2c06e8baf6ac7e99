//! Pipe ends as standard streams (`StdioSpec::Pipe`): the box holds the only copies on its side.

use crate::Limit::{self, CpuTimeMs, WallTimeMs};
use crate::boxed;
use std::io::{Read, Write};
use std::path::Path;
use verdict_sandbox::{ExitKind, StdioSpec, pipe};

/// The program closes its stdout and then waits for end of file on its stdin: the host must
/// see its stdout close while it still runs, which only happens when no one but the box holds
/// the pipe's write end (the supervisor's copy closed once the order was sent). Otherwise the
/// host waits for an end of file that comes only when the wall limit kills the box.
#[test]
fn a_pipe_closed_by_the_program_reaches_the_host_while_the_program_runs() {
    let Some((sb, b)) = boxed() else { return };
    let (stdin_r, stdin_w) = pipe().expect("pipe");
    let (stdout_r, stdout_w) = pipe().expect("pipe");
    let mut spec = b.spec(
        Path::new("sh"),
        &["-c", "echo hi; exec 1>&-; cat >/dev/null"],
    );
    spec.stdin = StdioSpec::Pipe(stdin_r);
    spec.stdout = StdioSpec::Pipe(stdout_w);
    Limit::set_all(&[CpuTimeMs(5000), WallTimeMs(5000)], &mut spec.limits);
    // The host keeps no copy of the box's ends: the spec holds them until the run takes them.
    let host_out = std_file(stdout_r);
    let mut host_in = std_file(stdin_w);
    std::thread::scope(|s| {
        let run = s.spawn(|| sb.run(&spec).expect("run"));
        let mut got = String::new();
        let mut out = host_out;
        out.read_to_string(&mut got).expect("read");
        assert_eq!(got, "hi\n");
        host_in.write_all(b"bye\n").expect("write");
        drop(host_in);
        let outcome = run.join().expect("thread");
        assert_eq!(outcome.limit_hit, None, "{outcome:?}");
        assert_eq!(outcome.exit, ExitKind::Exited(0), "{outcome:?}");
        assert!(outcome.ended.is_some());
    });
    // A pipe end is taken once: a second run of the same spec is refused, not run.
    assert!(sb.run(&spec).is_err());
}

/// The host end of a pipe as a file.
fn std_file(end: verdict_sandbox::PipeEnd) -> std::fs::File {
    std::fs::File::from(end.into_fd().expect("not taken"))
}

/// A spec's stop pipe: the program writes a line and then waits forever; once the host has read
/// the line it closes the stop pipe's write end, and the box is killed at once (no limit named)
/// instead of at its 10 s wall limit.
#[test]
fn closing_the_stop_pipe_kills_the_box_at_once_with_no_limit_named() {
    let Some((sb, b)) = boxed() else { return };
    let (stdout_r, stdout_w) = pipe().expect("pipe");
    let (stop_r, stop_w) = pipe().expect("pipe");
    let mut spec = b.spec(Path::new("sh"), &["-c", "echo ready; exec sleep 60"]);
    spec.stdout = StdioSpec::Pipe(stdout_w);
    spec.stop = Some(stop_r);
    Limit::set_all(&[CpuTimeMs(10_000), WallTimeMs(10_000)], &mut spec.limits);
    let mut host_out = std_file(stdout_r);
    let stop_w = std_file(stop_w);
    std::thread::scope(|s| {
        let run = s.spawn(|| sb.run(&spec).expect("run"));
        let mut line = [0u8; 6];
        host_out.read_exact(&mut line).expect("read");
        assert_eq!(&line, b"ready\n");
        drop(stop_w);
        let outcome = run.join().expect("thread");
        assert_eq!(outcome.limit_hit, None, "{outcome:?}");
        assert_eq!(outcome.exit, ExitKind::Signaled(9), "{outcome:?}");
        assert!(
            outcome.wall_time_ms < 5_000,
            "killed after {} ms",
            outcome.wall_time_ms
        );
    });
}

/// A cancel (`verdict_sandbox::Cancel`, a cancelled submission): a box spinning under a 10 s
/// limit is killed at once, with no limit named, when the switch in its spec is cancelled; a
/// run given that switch after the cancel is killed as soon as it starts.
/// Without it a cancelled submission's running box held its slot until its own limit.
#[test]
fn a_cancel_kills_the_running_box_at_once_and_every_later_one() {
    let Some((sb, b)) = boxed() else { return };
    let (stdout_r, stdout_w) = pipe().expect("pipe");
    let mut spec = b.spec(Path::new("sh"), &["-c", "echo ready; while :; do :; done"]);
    spec.stdout = StdioSpec::Pipe(stdout_w);
    Limit::set_all(&[CpuTimeMs(10_000), WallTimeMs(10_000)], &mut spec.limits);
    let cancel = verdict_sandbox::Cancel::new();
    spec.cancel = Some(cancel.clone());
    let mut host_out = std_file(stdout_r);
    std::thread::scope(|s| {
        let run = s.spawn(|| {
            let outcome = sb.run(&spec).expect("run");
            // Started after the cancel: killed at once.
            let mut later = b.spec(Path::new("sh"), &["-c", "while :; do :; done"]);
            later.limits = spec.limits.clone();
            later.cancel = spec.cancel.clone();
            (outcome, sb.run(&later).expect("run"))
        });
        let mut line = [0u8; 6];
        host_out.read_exact(&mut line).expect("read");
        assert_eq!(&line, b"ready\n");
        cancel.cancel();
        let (outcome, later) = run.join().expect("thread");
        for o in [outcome, later] {
            assert_eq!(o.limit_hit, None, "{o:?}");
            assert_eq!(o.exit, ExitKind::Signaled(9), "{o:?}");
            assert!(o.wall_time_ms < 3_000, "killed after {} ms", o.wall_time_ms);
        }
    });
}
