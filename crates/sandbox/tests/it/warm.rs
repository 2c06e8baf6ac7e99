//! A warm interpreter (`Sandbox::run_warm`): each run is a fork of a Python template made
//! once per slot, in a box as fresh as a cold run's. What the script sees, what passes from
//! one run to the next (nothing), limits, and a run that turns on the template.

use crate::{TestBox, sandbox};
use std::path::Path;
use verdict_sandbox::{ExitKind, LimitHit, Sandbox, SandboxOutcome, SandboxSpec, WarmPython};

const PYTHON: &str = "/usr/bin/python3";

/// A sandbox of its own with one slot: every run of a test goes through one template; `None`
/// (the test skipped) without a sandbox or without python3.
fn one_slot(name: &str) -> Option<Sandbox> {
    sandbox()?;
    let sb = Sandbox::new(crate::isolated_config(name, 62_600, 1)).expect("sandbox");
    // As root (this host, the cgroup-v2 guest's root runs) runs are served warm; rootless they
    // run cold, and every check below holds the same.
    let rootless =
        std::env::var("VERDICT_EXPECT_ISOLATION").is_ok_and(|l| l.starts_with("rootless"));
    assert_eq!(
        sb.has_warm_interpreters(),
        !rootless,
        "who serves warm runs"
    );
    python().then_some(sb)
}

/// The interpreter's flags: as the oracle runs python3 (the site module, no user site, no
/// bytecode written).
const FLAGS: [&str; 2] = ["-s", "-B"];

/// The script every run executes: it runs the code given as its first argument.
fn warm() -> WarmPython {
    WarmPython {
        flags: FLAGS.map(Into::into).to_vec(),
        script_path: ".verdict/run.py".into(),
        script: "import sys\nexec(compile(sys.argv[1], 'code', 'exec'))\n".into(),
        preload: vec!["os".into()],
    }
}

/// A cold run of the script with `code`, in `b`.
fn spec(b: &TestBox, code: &str) -> SandboxSpec {
    let mut spec = b.spec(
        Path::new(PYTHON),
        &[FLAGS[0], FLAGS[1], ".verdict/run.py", code],
    );
    spec.read_only_mounts.clear();
    spec.env = vec![("PYTHONIOENCODING".into(), "utf-8".into())];
    spec.limits.wall_time_ms = Some(10_000);
    spec.limits.cpu_time_ms = Some(10_000);
    spec.limits.memory_kb = Some(256 * 1024);
    spec
}

/// A fresh box with the script in place.
fn script_box() -> TestBox {
    let b = TestBox::new();
    std::fs::create_dir_all(b.path().join(".verdict")).expect("mkdir");
    std::fs::write(b.path().join(".verdict/run.py"), warm().script).expect("script");
    b
}

/// Runs `code` in a fresh box with the script in place, warm or cold.
fn run_script(sb: &Sandbox, code: &str, warm_run: bool) -> (TestBox, SandboxOutcome) {
    let b = script_box();
    let o = match warm_run {
        true => sb.run_warm(&warm(), &spec(&b, code)).expect("a warm run"),
        false => sb.run(&spec(&b, code)).expect("a cold run"),
    };
    println!("{o:?}\n{}", b.stderr());
    (b, o)
}

/// Whether python3 is there (the language suite requires it where it must be).
fn python() -> bool {
    Path::new(PYTHON).exists()
}

#[test]
fn a_warm_run_sees_what_a_cold_run_of_the_same_script_sees() {
    let Some(sb) = one_slot("verdict-sandbox-tests-warm-same") else {
        return;
    };
    let code = r#"
import os, sys
open("written.txt", "w").write("w")
print(sys.argv[1:2] == [sys.argv[1]], os.getcwd(), os.getuid() != 0, os.environ.get("PYTHONIOENCODING"),
      sorted(os.listdir("/tmp")), os.path.exists("/box/.verdict/run.py"), __file__ if "__file__" in dir() else "")
sys.stdout.flush()
sys.exit(3)
"#;
    let mut seen = Vec::new();
    for warm_run in [false, true] {
        let (b, o) = run_script(&sb, code, warm_run);
        assert_eq!(o.exit, ExitKind::Exited(3), "{o:?}: {}", b.stderr());
        assert_eq!(o.limit_hit, None);
        assert!(b.path().join("written.txt").exists());
        seen.push(b.stdout());
    }
    assert_eq!(seen[0], seen[1], "a warm run sees what a cold one does");
    assert!(
        seen[1].starts_with("True /box True utf-8 [] True"),
        "{}",
        seen[1]
    );
}

/// interpreters ran without the site module (`exit()` a NameError). A warm run
/// has it as a cold run does, imported once by the template, not by the run.
#[test]
fn a_warm_run_has_the_site_module_imported_once_and_ends_by_exit_as_a_cold_run() {
    let Some(sb) = one_slot("verdict-sandbox-tests-warm-site") else {
        return;
    };
    let code = r#"
import sys
print("site" in sys.modules, callable(quit), sys.flags.no_user_site, sys.flags.dont_write_bytecode)
sys.stdout.flush()
exit(3)
"#;
    for warm_run in [false, true] {
        let (b, o) = run_script(&sb, code, warm_run);
        assert_eq!(o.exit, ExitKind::Exited(3), "{o:?}: {}", b.stderr());
        assert_eq!(b.stdout(), "True True 1 1\n", "warm: {warm_run}");
    }
}

#[test]
fn nothing_passes_from_one_warm_run_to_the_next_nor_reaches_the_template() {
    let Some(sb) = one_slot("verdict-sandbox-tests-warm-leaks") else {
        return;
    };
    // The first run leaves a /tmp file, a SysV segment and a daemon, and turns on its parent
    // (the template, pid 1 here): kill, ptrace by /proc, a new namespace, a mount.
    let leave = r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
open("/tmp/left", "w").write("x")
print("shm", libc.shmget(0x5eed, 4096, 0o1666) >= 0)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        import time
        time.sleep(60)
    os._exit(0)
def tried(f):
    try:
        f()
        return "done"
    except OSError as e:
        return e.strerror
print("kill", tried(lambda: os.kill(os.getppid(), 9)))
print("mem", tried(lambda: open("/proc/%d/mem" % os.getppid(), "rb").read(1)))
print("unshare", libc.unshare(0x20000) == 0)
print("mount", libc.mount(b"none", b"/box", b"tmpfs", 0, None) == 0)
"#;
    let (first, o) = run_script(&sb, leave, true);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", first.stderr());
    let out = first.stdout();
    assert!(out.contains("shm True"), "{out}");
    assert!(out.contains("kill Operation not permitted"), "{out}");
    assert!(!out.contains("mem done"), "{out}");
    assert!(out.contains("unshare False"), "{out}");
    assert!(out.contains("mount False"), "{out}");

    let look = r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
procs = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
print("tmp", os.listdir("/tmp"), "shm", libc.shmget(0x5eed, 4096, 0o666) >= 0, "procs", procs)
"#;
    let (second, o) = run_script(&sb, look, true);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", second.stderr());
    assert_eq!(
        second.stdout().trim(),
        "tmp [] shm False procs []",
        "something of the first run reached the second (or the template is visible)"
    );
}

#[test]
fn a_warm_run_is_held_to_its_limits_and_the_template_serves_the_next() {
    let Some(sb) = one_slot("verdict-sandbox-tests-warm-limits") else {
        return;
    };
    let b = script_box();
    let mut looping = spec(&b, "while True:\n    pass\n");
    looping.limits.cpu_time_ms = Some(300);
    looping.limits.wall_time_ms = Some(3_000 + crate::slack_ms());
    let o = sb.run_warm(&warm(), &looping).expect("a warm run");
    assert_eq!(o.limit_hit, Some(LimitHit::CpuTime), "{o:?}");
    assert!(o.cpu_time_ms >= 300, "{o:?}");

    let (_, o) = run_script(
        &sb,
        "x = bytearray(512 * 1024 * 1024)\nprint(len(x))\n",
        true,
    );
    assert_eq!(o.limit_hit, Some(LimitHit::Memory), "{o:?}");

    // The template survived both: the next run is served.
    let (b, o) = run_script(&sb, "print('next')\n", true);
    assert_eq!(o.exit, ExitKind::Exited(0), "{}", b.stderr());
    assert_eq!(b.stdout().trim(), "next");
}
