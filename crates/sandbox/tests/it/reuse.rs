//! A slot's runs share its zygote (namespaces and private root made once): nothing may pass
//! from one run to the next, and a killed or vanished zygote must not stop the slot.

use crate::fixtures::{self, prog};
use crate::{TestBox, boxed, isolated_config, run, sandbox};
use std::time::Duration;
use verdict_sandbox::{ExitKind, LimitHit, Sandbox};

/// A sandbox of its own with one slot, so that every run of a test goes through one zygote.
fn one_slot(uid_base: u32, name: &str) -> Option<Sandbox> {
    slots(1, uid_base, name)
}

/// A sandbox of its own with two slots.
fn two_slots(uid_base: u32, name: &str) -> Option<Sandbox> {
    slots(2, uid_base, name)
}

fn slots(max_boxes: u32, uid_base: u32, name: &str) -> Option<Sandbox> {
    sandbox()?;
    Some(Sandbox::new(isolated_config(name, uid_base, max_boxes)).expect("sandbox"))
}

/// Children of this test's thread (its sandboxes' zygotes; each test runs on its own thread).
fn my_children() -> Vec<i32> {
    std::fs::read_to_string("/proc/thread-self/children")
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

#[test]
fn nothing_passes_from_one_run_to_the_next() {
    let Some(sb) = one_slot(62_200, "verdict-sandbox-tests-reuse") else {
        return;
    };
    // Outside /tmp: each run's fresh tmpfs would hide a leftover mount there anyway.
    let secret_dir = tempfile::tempdir_in("/var/tmp").expect("tempdir");
    std::fs::write(secret_dir.path().join("secret"), "x").expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(secret_dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let secret = secret_dir.path().join("secret");
    let secret = secret.to_str().expect("utf-8 path");

    let first = TestBox::new();
    let mut spec = first.spec(&prog("leaver"), &["leave", secret]);
    spec.read_only_mounts.push(secret_dir.path().to_owned());
    let o = run(&sb, &spec);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", first.stderr());
    assert_eq!(first.stdout().trim(), "pid=2 mount=1");
    let zygote = my_children();
    assert_eq!(zygote.len(), 1, "one zygote serves the slot: {zygote:?}");
    // The zygote readies the next run (unmounts, a fresh /tmp) just after answering: count
    // once its mount table has settled (longer pauses on a slow, emulated CPU).
    let mounts = || {
        let count = || {
            std::fs::read_to_string(format!("/proc/{}/mountinfo", zygote[0]))
                .expect("mountinfo")
                .lines()
                .count()
        };
        let mut last = count();
        loop {
            std::thread::sleep(Duration::from_millis(20 + crate::slack_ms() / 5));
            let now = count();
            if now == last {
                return now;
            }
            last = now;
        }
    };
    let between_runs = mounts();

    // Same slot, same zygote: a fresh /tmp, IPC namespace and pid numbering, and the first
    // run's extra mount is gone.
    let second = TestBox::new();
    let o = run(&sb, &second.spec(&prog("leaver"), &["look", secret]));
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", second.stderr());
    assert_eq!(
        second.stdout().trim(),
        "pid=2 tmp=0 shm=0 msg=0 mount=0",
        "something of the first run reached the second"
    );
    assert_eq!(my_children(), zygote, "one zygote serves the slot");
    assert_eq!(mounts(), between_runs, "a run left a mount behind");
}

#[test]
fn a_killed_box_or_a_vanished_zygote_does_not_stop_the_slot() {
    let Some(sb) = one_slot(62_210, "verdict-sandbox-tests-respawn") else {
        return;
    };
    let b = TestBox::new();
    std::fs::write(b.path().join("in.txt"), "2 3\n").expect("write");
    let aplusb = |sb: &Sandbox| {
        let mut spec = b.spec(&prog("aplusb"), &[]);
        spec.stdin = verdict_sandbox::StdioSpec::File("in.txt".into());
        let o = run(sb, &spec);
        assert_eq!(o.exit, ExitKind::Exited(0), "{}", b.stderr());
        assert_eq!(b.stdout(), "5\n");
    };
    aplusb(&sb);
    let first = my_children();
    assert_eq!(first.len(), 1, "{first:?}");

    // A wall-time kill takes the zygote with the box; the next run gets a new one.
    let mut spec = b.spec(&prog("sleeper"), &[]);
    spec.limits.wall_time_ms = Some(100);
    let o = run(&sb, &spec);
    assert_eq!(o.limit_hit, Some(LimitHit::WallTime));
    aplusb(&sb);
    let second = my_children();
    assert_eq!(second.len(), 1, "{second:?}");
    assert_ne!(first, second);

    // A zygote killed from outside between runs is replaced on the next run.
    // SAFETY: kill has no memory-safety preconditions; the pid is our own unreaped child.
    unsafe { libc::kill(second[0], libc::SIGKILL) };
    std::thread::sleep(Duration::from_millis(50));
    aplusb(&sb);
    let third = my_children();
    assert_eq!(third.len(), 1, "{third:?}");
    assert_ne!(second, third);

    // Dropping the sandbox ends its zygote and reaps it.
    drop(sb);
    assert!(my_children().is_empty(), "{:?}", my_children());
    assert!(!std::path::Path::new(&format!("/proc/{}", third[0])).exists());
    let _ = fixtures::dir();
}

#[test]
fn warm_starts_each_slots_zygote_once_and_runs_use_them() {
    let Some(sb) = two_slots(62_400, "verdict-sandbox-tests-warm") else {
        return;
    };
    assert_eq!(sb.warm(5).expect("warm"), 2, "one zygote per slot, no more");
    assert_eq!(sb.warm(2).expect("warm again"), 0, "the zygotes are kept");
    let b = TestBox::new();
    let out = b.run_fixture(&sb, "exitcode", &["0"], &[]);
    assert_eq!(out.exit, ExitKind::Exited(0), "{out:?}");
    assert_eq!(
        sb.warm(2).expect("warm after a run"),
        0,
        "the run used a warm zygote"
    );
}

#[test]
fn a_slots_kept_cpu_counter_reports_only_each_runs_own_cpu() {
    let Some(sb) = one_slot(62_220, "verdict-sandbox-tests-keptcpu") else {
        return;
    };
    let b = TestBox::new();
    let o = b.run_fixture(&sb, "busy", &["300"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
    assert!(o.cpu_time_ms >= 290, "{o:?}");
    // The same slot's next run, in the same cpuacct cgroup (v1): its own CPU only.
    let o = b.run_fixture(&sb, "exitcode", &["0"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
    assert!(
        o.cpu_time_ms < 100,
        "the earlier run's CPU was counted again: {o:?}"
    );
}

#[test]
fn a_slots_kept_pids_cgroup_reports_only_each_runs_own_limit_events() {
    let Some(sb) = one_slot(62_230, "verdict-sandbox-tests-keptpids") else {
        return;
    };
    let b = TestBox::new();
    let threads = |limit: u32| {
        let mut spec = b.spec(&prog("threads"), &["20"]);
        spec.limits.processes = Some(limit);
        let o = run(&sb, &spec);
        assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
        (b.stdout().trim().to_string(), o.limit_hit)
    };
    assert_eq!(threads(8), ("7".into(), Some(LimitHit::Processes)));
    // The next run of the slot hits no limit: the earlier run's events are not its own.
    let mut spec = b.spec(&prog("exitcode"), &["0"]);
    spec.limits.processes = Some(8);
    let o = run(&sb, &spec);
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
    assert_eq!(
        o.limit_hit, None,
        "an earlier run's pids limit event: {o:?}"
    );
    // Each run gets its own process limit, changed or not.
    assert_eq!(threads(12), ("11".into(), Some(LimitHit::Processes)));
    assert_eq!(threads(12), ("11".into(), Some(LimitHit::Processes)));
    assert_eq!(threads(8), ("7".into(), Some(LimitHit::Processes)));
    assert_eq!(threads(32), ("20".into(), None));
}

#[test]
fn earlier_runs_of_a_slot_show_in_no_tmp_inode_or_sysv_id_number() {
    let Some(sb) = one_slot(62_240, "verdict-sandbox-tests-numbers") else {
        return;
    };
    let b = TestBox::new();
    let look = |sb: &Sandbox| {
        let o = b.run_fixture(sb, "numbers", &["look"], &[]);
        assert_eq!(o.exit, ExitKind::Exited(0), "{o:?} {}", b.stderr());
        b.stdout().trim().to_string()
    };
    let first = look(&sb);
    // A run that leaves /tmp and the IPC namespace looking untouched (an unnamed O_TMPFILE
    // changes neither the directory's times nor statfs; a removed segment is in no count)
    // still moved their counters on: the next run must get a fresh /tmp and IPC namespace.
    let o = b.run_fixture(&sb, "numbers", &["hide"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
    assert_eq!(look(&sb), first, "an earlier run shows in the numbers");
}

/// An output file that is already empty is opened as it is, one with data is emptied, both
/// in the box and outside it: truncating an empty file on ext4 makes the program's close write
/// its data out at once, and the next truncation discard those blocks.
#[test]
fn an_empty_output_file_is_not_truncated_and_a_full_one_is() {
    use std::time::{Duration, SystemTime};
    let Some((sb, b)) = boxed() else { return };
    let outside = tempfile::tempdir().expect("tempdir");
    let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for (stdout, empty) in [
        (b.path().join("out.txt"), true),
        (outside.path().join("stdout"), true),
        (b.path().join("out.txt"), false),
        (outside.path().join("stdout"), false),
    ] {
        let old: &[u8] = if empty {
            b""
        } else {
            b"an earlier run's output"
        };
        std::fs::write(&stdout, old).expect("write");
        std::fs::File::options()
            .write(true)
            .open(&stdout)
            .and_then(|f| f.set_modified(past))
            .expect("set mtime");
        let mut spec = b.spec(&prog("writer"), &["0"]);
        spec.stdout = verdict_sandbox::StdioSpec::File(stdout.clone());
        let o = run(sb, &spec);
        assert_eq!(o.exit, ExitKind::Exited(0), "{stdout:?}");
        assert_eq!(std::fs::read(&stdout).expect("read"), b"", "{stdout:?}");
        let modified = std::fs::metadata(&stdout)
            .and_then(|m| m.modified())
            .expect("mtime");
        assert_eq!(
            modified == past,
            empty,
            "{stdout:?} (empty before: {empty})"
        );
    }
}

/// Signals the host process ignores are not inherited by the program, on a zygote's first run
/// or any later one: the zygote sets every signal to its default when it starts and ignores
/// SIGPIPE alone, which each program's last steps set back (execve keeps ignored signals).
#[test]
fn a_program_starts_with_every_signal_at_its_default() {
    // The zygote is forked from this process when the sandbox starts its slot: ignore two
    // signals first (SIGPIPE is ignored by the Rust runtime already).
    // SAFETY: SIG_IGN for two signals the test binary does not use.
    let previous =
        [libc::SIGHUP, libc::SIGUSR2].map(|s| (s, unsafe { libc::signal(s, libc::SIG_IGN) }));
    let Some(sb) = one_slot(62_500, "verdict-sandbox-tests-signals") else {
        return;
    };
    for round in 0..2 {
        let b = TestBox::new();
        let o = b.run_fixture(&sb, "dispositions", &[], &[]);
        assert_eq!(
            o.exit,
            ExitKind::Exited(0),
            "run {round}: not at their default: {}",
            b.stdout()
        );
    }
    for (sig, handler) in previous {
        // SAFETY: restores what `signal` returned above.
        unsafe { libc::signal(sig, handler) };
    }
}
