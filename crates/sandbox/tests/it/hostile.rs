//! Hostile programs: each must fail to harm the host or other boxes, and be reported for what it did.

use crate::Limit::*;
use crate::fixtures::prog;
use crate::{TestBox, boxed, run, sandbox};
use std::path::{Path, PathBuf};
use verdict_sandbox::{ExitKind, LimitHit, SandboxSpec, StdioSpec};

#[test]
fn fork_bomb_under_a_process_limit_is_contained_and_killed() {
    let Some((sb, b)) = boxed() else { return };
    let o = b.run_fixture(
        sb,
        "forkbomb",
        &[],
        &[Processes(16), CpuTimeMs(500), WallTimeMs(1000)],
    );
    assert!(o.limit_hit.is_some(), "{o:?}");
    assert!(no_box_processes_left(sb), "fork bomb processes survived");
}

#[test]
fn a_file_stopped_at_the_output_cap_is_an_output_limit_even_if_sigxfsz_is_ignored() {
    let Some((sb, b)) = boxed() else { return };
    // It ignores SIGXFSZ, its write at the cap fails with EFBIG, it says so and exits 0.
    let o = b.run_fixture(sb, "efbig", &["2147483648"], &[OutputBytes(1 << 20)]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
    assert_eq!(b.stdout(), "write failed: File too large\n");
    assert_eq!(o.limit_hit, Some(LimitHit::Output), "{o:?}");
    assert!(
        o.evidence.as_deref().is_some_and(|e| e.contains("big.bin")),
        "{o:?}"
    );
    // A file of exactly the cap is fine.
    let o = b.run_fixture(sb, "efbig", &["1048576"], &[OutputBytes(1 << 20)]);
    assert_eq!(b.stdout(), "done\n");
    assert_eq!(o.limit_hit, None, "{o:?}");
}

#[test]
fn a_file_placed_before_the_run_in_its_clock_tick_is_not_output() {
    let Some((sb, b)) = boxed() else { return };
    // A binary placed by the caller in the tick the run starts in carries the run's start
    // time; a time in the future stands for that tick here, deterministically.
    let placed = b.path().join("big.bin");
    std::fs::write(&placed, vec![b'x'; 4096]).expect("write");
    // Writable by the box's uid, for the second run.
    std::fs::set_permissions(&placed, std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .expect("chmod");
    let future = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&placed)
        .and_then(|f| f.set_modified(future))
        .expect("set the time");
    let o = b.run_fixture(sb, "exitcode", &["0"], &[OutputBytes(1024)]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
    assert_eq!(o.limit_hit, None, "{o:?}");
    // The same file rewritten by the program past the cap is still its output.
    let o = b.run_fixture(sb, "efbig", &["4096"], &[OutputBytes(1024)]);
    assert_eq!(o.limit_hit, Some(LimitHit::Output), "{o:?}");
}

#[test]
fn writing_past_the_output_limit_is_an_output_limit() {
    let Some((sb, b)) = boxed() else { return };
    let o = b.run_fixture(sb, "writer", &["1000000"], &[OutputBytes(100_000)]);
    assert_eq!(o.limit_hit, Some(LimitHit::Output), "{o:?}");
    assert!(o.output_bytes <= 100_001, "{}", o.output_bytes);
    let len = std::fs::metadata(b.path().join("out.txt"))
        .expect("stat")
        .len();
    assert!(len <= 100_001);
    // Exactly at the limit is fine.
    let o = b.run_fixture(sb, "writer", &["100000"], &[OutputBytes(100_000)]);
    assert_eq!(o.limit_hit, None, "{o:?}");
    assert_eq!(o.exit, ExitKind::Exited(0));
}

#[test]
fn personality_read_implies_exec_is_refused_and_harmless_personas_allowed() {
    let Some((sb, b)) = boxed() else { return };
    // READ_IMPLIES_EXEC would make every readable mapping executable.
    let o = b.run_fixture(sb, "persona", &["0x400000"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
    assert_eq!(b.stdout().trim(), "refused");
    let o = b.run_fixture(sb, "persona", &["0xffffffff"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
    assert_eq!(b.stdout().trim(), "allowed");
}

#[test]
fn tcp_to_loopback_and_to_a_public_address_fails() {
    let Some(sb) = sandbox() else { return };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port().to_string();
    let b = TestBox::new();
    let o = b.run_fixture(sb, "tcp", &["127.0.0.1", &port], &[]);
    assert_eq!(o.exit, ExitKind::Exited(1), "{}", b.stdout());
    assert!(!b.stdout().contains("connected"));
    let o = b.run_fixture(sb, "tcp", &["1.1.1.1", "80"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(1));
    assert!(b.stderr().contains("unreachable"), "{}", b.stderr());
}

#[test]
fn host_secrets_and_other_boxes_are_unreadable() {
    let Some(sb) = sandbox() else { return };
    let other = TestBox::new();
    std::fs::write(other.path().join("secret.txt"), "other box").expect("write");
    let b = TestBox::new();
    let secret = other.path().join("secret.txt");
    for path in [
        Path::new("/etc/shadow"),
        Path::new("/root/.bashrc"),
        Path::new("/root/.profile"),
        Path::new("/home"),
        secret.as_path(),
        Path::new("/proc/1/environ"),
        Path::new("/sys/kernel/notes"),
    ] {
        let o = b.run_fixture(sb, "catfile", &[path.to_str().expect("utf8")], &[]);
        assert_eq!(
            o.exit,
            ExitKind::Exited(1),
            "{} was readable: {}",
            path.display(),
            b.stdout()
        );
    }
    // The toolchain is readable.
    let o = b.run_fixture(sb, "catfile", &["/etc/hostname"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0));
}

#[test]
fn the_supervisors_command_line_and_other_processes_are_invisible() {
    let Some((sb, b)) = boxed() else { return };
    // pid 1 of the box is the zygote, a fork of this process: its command line (which may
    // carry a token) must not be readable, nor may any process of another uid be listed.
    let o = run(sb, &b.spec(Path::new("/bin/cat"), &["/proc/1/cmdline"]));
    assert_eq!(o.exit, ExitKind::Exited(1), "{}", b.stdout());
    assert_eq!(b.stdout(), "");
    let o = run(sb, &b.spec(Path::new("/bin/ls"), &["/proc"]));
    assert_eq!(o.exit, ExitKind::Exited(0));
    let pids: Vec<String> = b
        .stdout()
        .lines()
        .filter(|l| l.chars().all(|c| c.is_ascii_digit()))
        .map(String::from)
        .collect();
    assert_eq!(pids, ["2"], "only the program itself is visible");
}

#[test]
fn writing_outside_the_box_fails_and_inside_works() {
    let Some((sb, b)) = boxed() else { return };
    for path in [
        "/etc/verdict-pwned",
        "/usr/verdict-pwned",
        "/verdict-pwned",
        "/proc/verdict",
        "/dev/verdict",
    ] {
        let o = b.run_fixture(sb, "writefile", &[path], &[]);
        assert_eq!(o.exit, ExitKind::Exited(1), "{path} was writable");
        assert!(!Path::new(path).exists());
    }
    let fixtures = crate::fixtures::dir().join("pwned");
    let o = b.run_fixture(sb, "writefile", &[fixtures.to_str().expect("utf8")], &[]);
    assert_eq!(
        o.exit,
        ExitKind::Exited(1),
        "a read-only mount was writable"
    );
    let o = b.run_fixture(sb, "writefile", &["made-here.txt"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", b.stderr());
    assert!(b.path().join("made-here.txt").exists());
    let o = b.run_fixture(sb, "writefile", &["/tmp/scratch"], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", b.stderr());
}

#[test]
fn a_setsid_daemon_that_outlives_its_parent_is_killed() {
    let Some((sb, b)) = boxed() else { return };
    crate::assert_the_daemon_dies_with_its_box(sb, &b);
    assert!(no_box_processes_left(sb));
}

#[test]
fn kill_minus_one_leaves_the_host_untouched() {
    let Some(sb) = sandbox() else { return };
    let mut bystander = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("spawn");
    let b = TestBox::new();
    let o = b.run_fixture(sb, "killall", &[], &[]);
    // The program kills at most itself (pid 1 of the box is its init).
    assert!(
        matches!(o.exit, ExitKind::Exited(0) | ExitKind::Signaled(9)),
        "{o:?}"
    );
    assert!(
        bystander.try_wait().expect("try_wait").is_none(),
        "the host process was killed"
    );
    let _ = bystander.kill();
    let _ = bystander.wait();
}

#[test]
fn io_uring_keyctl_unshare_vsock_and_ptrace_are_refused() {
    let Some((sb, b)) = boxed() else { return };
    let o = b.run_fixture(sb, "syscalls", &[], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", b.stderr());
    let out = b.stdout();
    for call in ["io_uring_setup", "keyctl", "unshare", "vsock", "ptrace"] {
        assert!(
            out.contains(&format!("{call}=-1 errno=1\n")),
            "{call} not refused: {out}"
        );
    }
}

#[test]
fn closing_stdout_is_harmless() {
    let Some((sb, b)) = boxed() else { return };
    let o = b.run_fixture(sb, "closeout", &[], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0));
    assert_eq!(o.limit_hit, None);
}

#[test]
fn a_huge_argv_and_env_get_through() {
    let Some((sb, b)) = boxed() else { return };
    let big = "a".repeat(100_000);
    let args: Vec<&str> = std::iter::repeat_n(big.as_str(), 10).collect();
    let mut spec = b.spec(&prog("argsize"), &args);
    spec.env = (0..100)
        .map(|i| (format!("V{i}"), "b".repeat(1000)))
        .collect();
    let o = run(sb, &spec);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", b.stderr());
    let first = b.stdout().lines().next().unwrap_or_default().to_string();
    let f: Vec<u64> = first.split(' ').filter_map(|s| s.parse().ok()).collect();
    assert_eq!(f[0], 11);
    assert!(f[1] >= 1_000_000);
    assert_eq!(f[2], 104);
    // Too big for execve (E2BIG) is a typed error, not a crash.
    let huge: Vec<String> = (0..200).map(|_| "c".repeat(200_000)).collect();
    let mut spec = b.spec(&prog("argsize"), &[]);
    spec.args = huge.into_iter().map(Into::into).collect();
    assert!(sb.run(&spec).is_err());
}

#[test]
fn a_symlink_planted_as_an_output_name_is_not_followed_by_the_host() {
    let Some((sb, b)) = boxed() else { return };
    let o = b.run_fixture(sb, "planter", &[], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0));
    assert!(
        b.path()
            .join("answer.txt")
            .symlink_metadata()
            .expect("meta")
            .file_type()
            .is_symlink()
    );
    assert!(verdict_sandbox::read_box_file(b.path(), Path::new("answer.txt"), 1 << 20).is_err());
    // The next run writes its stdout to that name: the link is replaced, /etc/passwd untouched.
    let before = std::fs::read("/etc/passwd").expect("passwd");
    let mut spec: SandboxSpec = b.spec(&prog("writer"), &["10"]);
    spec.stdout = StdioSpec::File(PathBuf::from("answer.txt"));
    let o = run(sb, &spec);
    assert_eq!(o.exit, ExitKind::Exited(0));
    assert_eq!(std::fs::read("/etc/passwd").expect("passwd"), before);
    assert_eq!(
        verdict_sandbox::read_box_file(b.path(), Path::new("answer.txt"), 100).expect("read"),
        b"xxxxxxxxxx"
    );
    // Removing the box does not follow planted links either.
    let o = b.run_fixture(sb, "planter", &[], &[]);
    assert_eq!(o.exit, ExitKind::Exited(0));
    let copy = b.path().to_owned();
    verdict_sandbox::remove_box_dir(&copy).expect("remove");
    assert!(Path::new("/etc/passwd").exists());
}

/// No process runs as a box uid of this sandbox, and no cgroup of this process is left.
pub fn no_box_processes_left(sb: &verdict_sandbox::Sandbox) -> bool {
    let cfg = sb.config();
    let range = cfg.uid_base..cfg.uid_base + cfg.max_boxes;
    let mut ok = true;
    for _ in 0..50 {
        ok = true;
        for entry in std::fs::read_dir("/proc").expect("proc").flatten() {
            let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
                continue;
            };
            let uid: Option<u32> = status
                .lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|u| u.parse().ok());
            if uid.is_some_and(|u| range.contains(&u)) {
                ok = false;
            }
        }
        if ok {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    ok
}

#[test]
fn an_existing_output_file_is_emptied_and_a_hard_linked_one_replaced() {
    let Some((sb, b)) = boxed() else { return };
    let mut spec: SandboxSpec = b.spec(&prog("writer"), &["3"]);
    spec.stdout = StdioSpec::File(PathBuf::from("answer.txt"));
    // A longer regular file there: the program's output replaces it entirely.
    std::fs::write(b.path().join("answer.txt"), "old contents, longer").expect("write");
    let o = run(sb, &spec);
    assert_eq!(o.exit, ExitKind::Exited(0));
    assert_eq!(o.output_bytes, 3);
    assert_eq!(
        std::fs::read(b.path().join("answer.txt")).expect("read"),
        b"xxx"
    );
    // A name hard-linked to another file: that file is left alone.
    let other = TestBox::new();
    let keep = other.path().join("keep.txt");
    std::fs::write(&keep, "keep me").expect("write");
    std::fs::remove_file(b.path().join("answer.txt")).expect("rm");
    std::fs::hard_link(&keep, b.path().join("answer.txt")).expect("link");
    let o = run(sb, &spec);
    assert_eq!(o.exit, ExitKind::Exited(0));
    assert_eq!(std::fs::read(&keep).expect("read"), b"keep me");
    assert_eq!(
        std::fs::read(b.path().join("answer.txt")).expect("read"),
        b"xxx"
    );
    // A FIFO there neither blocks the host nor is written through.
    std::fs::remove_file(b.path().join("answer.txt")).expect("rm");
    let fifo = std::ffi::CString::new(b.path().join("answer.txt").as_os_str().as_encoded_bytes())
        .expect("cstring");
    // SAFETY: mkfifo with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o666) }, 0);
    let o = run(sb, &spec);
    assert_eq!(o.exit, ExitKind::Exited(0));
    assert_eq!(
        std::fs::read(b.path().join("answer.txt")).expect("read"),
        b"xxx"
    );
}

/// The run cgroups of the instance `instance` under `cgroup_name` in each v1 controller (or
/// the v2 parent).
fn my_cgroups(cfg: &verdict_sandbox::SandboxConfig, instance: &str) -> Vec<PathBuf> {
    let prefix = format!("{instance}-");
    let mut found = Vec::new();
    for ctl in ["memory", "pids", "cpuacct", ""] {
        let parent = cfg.cgroup_mount.join(ctl).join(&cfg.cgroup_name);
        let Ok(rd) = std::fs::read_dir(&parent) else {
            continue;
        };
        found.extend(
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .filter(|e| e.path().is_dir())
                .map(|e| e.path()),
        );
    }
    found
}

/// Whether a run cgroup was never joined by any process (fresh counters: no CPU time, no
/// memory ever charged).
fn never_used(dir: &Path) -> bool {
    let read = |f: &str| {
        std::fs::read_to_string(dir.join(f))
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
    };
    let procs_empty =
        std::fs::read_to_string(dir.join("cgroup.procs")).is_ok_and(|s| s.trim().is_empty());
    procs_empty
        && read("cpuacct.usage").is_none_or(|v| v == 0)
        && read("memory.max_usage_in_bytes").is_none_or(|v| v == 0)
        && std::fs::read_to_string(dir.join("cpu.stat"))
            .map_or(true, |s| s.lines().next() == Some("usage_usec 0"))
}

#[test]
fn after_runs_no_cgroup_of_this_process_is_left() {
    let Some((sb, b)) = boxed() else { return };
    b.run_fixture(sb, "exitcode", &["0"], &[]);
    // Used cgroups are removed in the background; the pool keeps at most 2 fresh ones ready
    // per hierarchy. Concurrent tests may hold a cgroup right now: wait for them to finish.
    let mut left = Vec::new();
    for _ in 0..300 {
        left = my_cgroups(sb.config(), sb.instance().name())
            .into_iter()
            .filter(|p| !never_used(p))
            .collect::<Vec<_>>();
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // A cgroup with processes belongs to a concurrent test's box; a used one that nobody runs
    // in any more must be gone moments later.
    let done: Vec<_> = left
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p.join("cgroup.procs")).is_ok_and(|s| s.trim().is_empty())
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    // On v1 each slot keeps its `pids` and `cpuacct` cgroups between its runs: at most one per
    // slot in each of those hierarchies stays; the memory cgroups go.
    let (kept, stray): (Vec<_>, Vec<_>) = done.into_iter().filter(|p| p.exists()).partition(|p| {
        ["pids", "cpuacct"]
            .iter()
            .any(|c| p.parent().and_then(Path::parent) == Some(&sb.config().cgroup_mount.join(c)))
    });
    assert!(stray.is_empty(), "stray cgroups {stray:?}");
    for c in ["pids", "cpuacct"] {
        let parent = sb.config().cgroup_mount.join(c);
        let n = kept
            .iter()
            .filter(|p| p.parent().and_then(Path::parent) == Some(&parent))
            .count();
        assert!(
            n <= sb.config().max_boxes as usize,
            "{n} kept {c} cgroups: {kept:?}"
        );
    }
}

#[test]
fn a_dropped_sandbox_leaves_no_cgroup() {
    if sandbox().is_none() {
        return;
    }
    let config = crate::isolated_config("verdict-sandbox-tests-drop", 62_100, 2);
    let sb = verdict_sandbox::Sandbox::new(config.clone()).expect("sandbox");
    let b = TestBox::new();
    for _ in 0..3 {
        let o = b.run_fixture(&sb, "exitcode", &["0"], &[]);
        assert_eq!(o.exit, ExitKind::Exited(0));
    }
    let instance = sb.instance().name().to_string();
    drop(sb);
    let left = my_cgroups(&config, &instance);
    assert!(
        left.is_empty(),
        "cgroups left by a dropped sandbox: {left:?}"
    );
}
