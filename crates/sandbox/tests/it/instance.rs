//! Host state belongs to one instance (design #23): another sandbox, in another pid namespace,
//! never removes what a live one holds, and removes what a dead one left.

use crate::{isolated_config, sandbox, with_run_state};
use std::fs;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use verdict_sandbox::{ExitKind, Sandbox, SandboxConfig, SandboxSpec};

/// Set in the second instance this file's first test starts in another pid namespace.
const SECOND: &str = "VERDICT_TEST_SECOND_INSTANCE";

fn config(name: &str, uid_base: u32) -> SandboxConfig {
    isolated_config(name, uid_base, 2)
}

/// The directories run cgroups are made in (each v1 controller's, or the v2 one).
fn cgroup_parents(cfg: &SandboxConfig) -> Vec<PathBuf> {
    if cfg.cgroup_mount.join("memory").is_dir() {
        ["memory", "pids", "cpuacct"]
            .iter()
            .map(|c| cfg.cgroup_mount.join(c).join(&cfg.cgroup_name))
            .collect()
    } else {
        vec![cfg.cgroup_mount.join(&cfg.cgroup_name)]
    }
}

/// The run cgroups of `instance` with a process in them.
fn busy_cgroups(cfg: &SandboxConfig, instance: &str) -> Vec<PathBuf> {
    let prefix = format!("{instance}-");
    cgroup_parents(cfg)
        .iter()
        .filter_map(|p| fs::read_dir(p).ok())
        .flat_map(|rd| rd.flatten())
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .filter(|p| fs::read_to_string(p.join("cgroup.procs")).is_ok_and(|s| !s.trim().is_empty()))
        .collect()
}

fn box_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("verdict-box-")
        .tempdir()
        .expect("tempdir")
}

/// A spec of `program` with only its stdout in the box: no fixtures, which the second
/// instance would build first (and find the first instance's run over).
fn spec(dir: &Path, program: &str, args: &[&str]) -> SandboxSpec {
    SandboxSpec {
        program: program.into(),
        args: args.iter().map(Into::into).collect(),
        box_dir: dir.to_owned(),
        stdout: verdict_sandbox::StdioSpec::File("out.txt".into()),
        ..SandboxSpec::default()
    }
}

#[test]
fn a_second_instance_in_another_pid_namespace_keeps_the_first_ones_runs() {
    let cfg = config("verdict-sandbox-tests-instance", 62_300);
    if std::env::var_os(SECOND).is_some() {
        // The second instance: starting sweeps what dead instances left; then one run.
        let sb = Sandbox::new(cfg).expect("second sandbox");
        let b = box_dir();
        let o = sb.run(&spec(b.path(), "id", &["-u"])).expect("second run");
        let out = fs::read_to_string(b.path().join("out.txt")).expect("out");
        println!("second: {o:?} uid={}", out.trim());
        return;
    }
    if sandbox().is_none() {
        return;
    }
    let first = Sandbox::new(cfg.clone()).expect("first sandbox");
    let name = first.instance().name().to_string();
    let b = box_dir();
    std::thread::scope(|s| {
        let running = s.spawn(|| first.run(&spec(b.path(), "sleep", &["2"])));
        // Wait until the program is in its cgroup.
        for _ in 0..500 {
            if !busy_cgroups(&cfg, &name).is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(
            !busy_cgroups(&cfg, &name).is_empty(),
            "the first run never started"
        );
        let exe = std::env::current_exe().expect("test binary");
        let second = Command::new("unshare")
            .args(["--pid", "--fork", "--mount-proc"])
            .arg(exe)
            .args([
                "--exact",
                "instance::a_second_instance_in_another_pid_namespace_keeps_the_first_ones_runs",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SECOND, "1")
            .output()
            .expect("unshare");
        let stdout = String::from_utf8_lossy(&second.stdout);
        assert!(
            second.status.success(),
            "second instance: {stdout} {:?}",
            second.stderr
        );
        // Both instances share the uid range and its locks: the second did not take the
        // uid the first one's box runs as.
        assert!(stdout.contains("second: "), "{stdout}");
        assert!(stdout.contains("uid=62301"), "{stdout}");
        let o = running.join().expect("thread").expect("first run");
        assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
        assert_eq!(o.limit_hit, None, "{o:?}");
    });
    // Its cgroups made ahead of time are intact too.
    let o = first
        .run(&spec(b.path(), "true", &[]))
        .expect("a later run");
    assert_eq!(o.exit, ExitKind::Exited(0), "{o:?}");
}

/// What a fake instance `name` leaves: its registry files, a work root under `base` and a run
/// cgroup (a `sleep` inside it in the first hierarchy).
struct Leftovers {
    name: String,
    lock: PathBuf,
    work: PathBuf,
    cgroups: Vec<PathBuf>,
    sleeper: std::process::Child,
    /// The lock, held as a live owner holds it.
    held: Option<fs::File>,
}

fn leave(cfg: &SandboxConfig, base: &Path, name: &str) -> Leftovers {
    let registry = cfg.state_dir.join("instances");
    fs::create_dir_all(&registry).expect("registry");
    let lock = registry.join(format!("{name}.lock"));
    // Held while the leftovers are made, as their owner would: no concurrent sweep starts on
    // them half-made.
    let held = fs::File::create(&lock).expect("lock file");
    // SAFETY: flock on a descriptor we own.
    let locked = unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(locked, 0);
    let mut owned = fs::File::create(registry.join(format!("{name}.owned"))).expect("owned");
    writeln!(owned, "work {}", base.display()).expect("write owned");
    let work = base.join(name).join("sub-1-x");
    fs::create_dir_all(&work).expect("work dir");
    fs::write(work.join("input.txt"), "1 2\n").expect("work file");
    let sleeper = Command::new("sleep").arg("30").spawn().expect("sleep");
    let mut cgroups = Vec::new();
    for (i, parent) in cgroup_parents(cfg).iter().enumerate() {
        fs::create_dir_all(parent).expect("cgroup parent");
        writeln!(owned, "cgroup {}", parent.display()).expect("write owned");
        let dir = parent.join(format!("{name}-0"));
        fs::create_dir(&dir).expect("cgroup");
        if i == 0 {
            fs::write(dir.join("cgroup.procs"), sleeper.id().to_string()).expect("join");
        }
        cgroups.push(dir);
    }
    Leftovers {
        name: name.into(),
        lock,
        work,
        cgroups,
        sleeper,
        held: Some(held),
    }
}

fn fake_name(n: u8) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!("i{:015x}{n:x}", nanos >> 4)
}

#[test]
fn what_a_dead_instance_left_is_removed_and_a_live_ones_is_kept() {
    if sandbox().is_none() {
        return;
    }
    let cfg = config("verdict-sandbox-tests-leftovers", 62_320);
    let base = tempfile::tempdir().expect("base");
    let mut dead = leave(&cfg, base.path(), &fake_name(1));
    let mut live = leave(&cfg, base.path(), &fake_name(2));
    drop(dead.held.take()); // its owner died
    // Dead once nothing holds its lock: a zygote another test's sandbox forked while it was
    // held keeps an inherited copy until it has closed what it inherited.
    wait_free(&dead.lock);
    // An instance dir without any lock file (say, after a reboot emptied the registry).
    let orphan = base.path().join(fake_name(3));
    fs::create_dir_all(orphan.join("sub-2-y")).expect("orphan");

    let sb = Sandbox::new(cfg.clone()).expect("sandbox");
    let root = sb.instance().work_root(base.path()).expect("work root");
    assert!(root.ends_with(sb.instance().name()), "{}", root.display());

    // The dead one's: cgroups (and the process in them), work root, registry files: gone.
    // Another test's sandbox sharing the registry may be the one sweeping it (then this one
    // found its lock held): the lock file goes last, so its absence means the sweep is done.
    let t = std::time::Instant::now();
    while dead.lock.exists() && t.elapsed().as_secs() < 5 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let status = dead.sleeper.wait().expect("wait");
    assert!(!status.success(), "{status:?}");
    for cg in &dead.cgroups {
        assert!(!cg.exists(), "{} left", cg.display());
    }
    assert!(!dead.work.exists(), "{} left", dead.work.display());
    assert!(!dead.lock.exists(), "{} left", dead.lock.display());
    assert!(!orphan.exists(), "{} left", orphan.display());
    // The live one's: all kept, its process alive.
    assert!(live.sleeper.try_wait().expect("try_wait").is_none());
    for cg in &live.cgroups {
        assert!(cg.exists(), "{} removed", cg.display());
    }
    assert!(live.work.exists() && live.lock.exists(), "{}", live.name);

    // Dropping an instance removes its own work root and registry files.
    let lock = cfg
        .state_dir
        .join("instances")
        .join(format!("{}.lock", sb.instance().name()));
    assert!(lock.exists());
    drop(sb);
    assert!(!lock.exists() && !root.exists());

    let _ = live.sleeper.kill();
    let _ = live.sleeper.wait();
    for cg in &live.cgroups {
        let _ = fs::remove_dir(cg);
    }
    let _ = fs::remove_file(&live.lock);
    let _ = fs::remove_file(live.lock.with_extension("owned"));
}

/// Waits (up to 5 s) until nobody holds the lock file `lock`.
pub(crate) fn wait_free(lock: &Path) {
    let t = std::time::Instant::now();
    loop {
        let f = fs::File::open(lock).expect("open lock");
        // SAFETY: flock on a descriptor we own (closing it releases the lock).
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return;
        }
        assert!(t.elapsed().as_secs() < 5, "{} still held", lock.display());
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Starts an instance of `cfg` and checks that it neither took over `name`, `what`'s, nor left
/// `leftovers` of it; the new instance's sandbox.
fn assert_swept(cfg: &SandboxConfig, name: &str, leftovers: &[&Path], what: &str) -> Sandbox {
    let sb = Sandbox::new(cfg.clone()).expect("sandbox");
    assert_ne!(sb.instance().name(), name, "{what} was taken over");
    for path in leftovers {
        assert!(!path.exists(), "{what}'s {} was kept", path.display());
    }
    sb
}

#[test]
fn a_one_shot_instance_takes_over_a_clean_ones_lock_and_never_a_crashed_ones() {
    let one_shot = SandboxConfig {
        one_shot: true,
        ..config("verdict-sandbox-tests-adopt", 62_350)
    };
    let Some((state, cfg)) = with_run_state("instance", one_shot) else {
        return;
    };
    let registry = state.path().join("instances");
    // A one-shot instance that ends cleanly leaves its lock file, and nothing else.
    let sb = Sandbox::new(cfg.clone()).expect("sandbox");
    let first = sb.instance().name().to_string();
    let lock = registry.join(format!("{first}.lock"));
    let ino = fs::metadata(&lock).expect("lock").ino();
    let owned = lock.with_extension("owned");
    let owned_ino = fs::metadata(&owned).expect(".owned").ino();
    drop(sb);
    // Its lock file and .owned stay, the lock marked clean.
    assert_eq!(fs::read(&lock).expect("lock"), b"c", "not marked clean");
    assert_eq!(fs::metadata(&owned).expect(".owned").ino(), owned_ino);
    // Its zygote, let go unused, holds a copy of the lock until it has closed what it
    // inherited or exited (asynchronously): a `judge sandbox` process's has long done so
    // when the next process starts.
    wait_free(&lock);

    // The next takes them over, name and files, and marks the lock dirty while it lives.
    let owned_text = fs::read(&owned).expect(".owned");
    let sb = Sandbox::new(cfg.clone()).expect("sandbox");
    assert_eq!(sb.instance().name(), first);
    assert_eq!(fs::metadata(&lock).expect("lock").ino(), ino);
    assert_eq!(fs::read(&lock).expect("lock"), b"d", "not marked dirty");
    assert_eq!(fs::metadata(&owned).expect(".owned").ino(), owned_ino);
    assert_eq!(
        fs::read(&owned).expect(".owned"),
        owned_text,
        "lines written again"
    );
    // A second one, while the first lives, gets a name of its own.
    let other = Sandbox::new(cfg.clone()).expect("sandbox");
    assert_ne!(other.instance().name(), first);
    drop(other);
    drop(sb);
    // One left dirty (its owner died after taking it over) is swept, never taken over.
    wait_free(&lock);
    fs::write(&lock, b"d").expect("mark dirty");
    drop(assert_swept(
        &cfg,
        &first,
        &[&lock, &owned],
        "a dirty instance",
    ));

    // A dead instance that left something (its .owned lists a work root) is swept, never
    // taken over, whatever else is free.
    let base = tempfile::tempdir().expect("base");
    let crashed = leave(&cfg, base.path(), &fake_name(4));
    let Leftovers {
        name,
        lock: crashed_lock,
        work,
        cgroups,
        mut sleeper,
        held,
    } = crashed;
    drop(held);
    // Its owner is dead once nothing holds its lock: a zygote another test's sandbox forked
    // while `held` was open holds an inherited copy until it has closed what it inherited.
    wait_free(&crashed_lock);
    let sb = assert_swept(&cfg, &name, &[&crashed_lock, &work], "a crashed instance");
    for cg in &cgroups {
        assert!(!cg.exists(), "{} left", cg.display());
    }
    let _ = sleeper.wait();
    drop(sb);
}
