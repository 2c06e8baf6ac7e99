//! verdict-sandbox: runs one untrusted command isolated, limited and measured.
//!
//! Everything in verdict that runs user code goes through [`Sandbox::run`]: compilers,
//! submissions, comparators, generators, valgrind, gtest binaries, oracle harnesses. A
//! [`SandboxSpec`] goes in (program, argv, env, box dir, stdio files, limits, extra mounts); a
//! [`SandboxOutcome`] comes out (exit code or signal, CPU and wall time, peak memory, bytes
//! written, the limit hit with its evidence, and the isolation actually used). The outcome is
//! data: judge statuses are decided elsewhere. A program that hit a limit is `Ok(outcome)`;
//! `Err(SandboxError)` means the sandbox itself could not do its job (System Error).
//!
//! # Quick start
//!
//! ```no_run
//! # fn main() -> Result<(), verdict_sandbox::SandboxError> {
//! use verdict_sandbox::{Sandbox, SandboxConfig, SandboxLimits, SandboxSpec, StdioSpec};
//!
//! // Once per process: probes cgroups and namespaces, prepares the private root (needs root;
//! // falls back to rlimits only, and says so, unless `require_isolation` is set).
//! let sandbox = Sandbox::new(SandboxConfig::default())?;
//!
//! // The caller makes the box directory (as root) and puts the inputs there.
//! let box_dir = std::path::PathBuf::from("/var/lib/verdict/boxes/1");
//! std::fs::create_dir_all(&box_dir).expect("box dir");
//! std::fs::write(box_dir.join("in.txt"), "1 2\n").expect("input");
//!
//! let outcome = sandbox.run(&SandboxSpec {
//!     program: "python3".into(),                  // looked up in the box's PATH
//!     args: vec!["-c".into(), "print(sum(map(int, input().split())))".into()],
//!     box_dir: box_dir.clone(),                   // /box inside, the working directory
//!     stdin: StdioSpec::File("in.txt".into()),    // relative: inside the box
//!     stdout: StdioSpec::File("out.txt".into()),
//!     stderr: StdioSpec::Null,
//!     limits: SandboxLimits {
//!         cpu_time_ms: Some(1000),
//!         memory_kb: Some(256 * 1024),
//!         processes: Some(16),
//!         output_bytes: Some(1 << 20),
//!         ..SandboxLimits::default()
//!     },
//!     ..SandboxSpec::default()
//! })?;
//! println!("{outcome:?}");
//!
//! // Read outputs without following anything the program planted, then clean up.
//! let out = verdict_sandbox::read_box_file(&box_dir, "out.txt".as_ref(), 1 << 20)?;
//! assert_eq!(out, b"3\n");
//! verdict_sandbox::remove_box_dir(&box_dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! # Mechanisms
//!
//! - **Process structure.** Each slot has a *zygote* (see `zygote/`): a helper `clone3`d
//!   once into `CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS` and the slot's network
//!   namespace, which builds the private root, `pivot_root`s into it and then serves the slot's
//!   runs one at a time. For a run the parent prepares everything (CStrings, argv/envp arrays,
//!   rlimits, opened stdio and cgroup files, and a detached mount tree of the box dir made with
//!   `open_tree(OPEN_TREE_CLONE)`), writes the order into memory shared with the zygote and
//!   sends the descriptors over a socket. The zygote attaches the box at `/box`
//!   (`move_mount`) and starts the program (pid 2: `ns_last_pid` is reset before each run;
//!   posix_spawn-style, `CLONE_VM | CLONE_VFORK` on a stack mapped once, so no address space is
//!   copied). When the program exits, the zygote (pid 1) kills every other process of the
//!   namespace (setsid daemons included), reaps them all and answers with the wait status and
//!   rusage; then it unmounts the run's mounts and readies a fresh IPC namespace and a fresh
//!   `/tmp` for the next run. The program is not pid 1, so its signals behave normally
//!   (`abort()` is SIGABRT). Nothing allocates between fork and exec: the zygote and the
//!   program's last steps only make system calls on prepared data and report failures as
//!   fixed-size records.
//!   Killing a box kills its zygote (pid 1: the kernel kills the whole namespace); the slot makes
//!   a new one on its next run. A zygote whose supervisor dies reads end-of-file, kills
//!   everything and exits.
//! - **Private root.** A skeleton directory (`<state_dir>/root`) with one mount point per
//!   toolchain dir is bound onto itself; the toolchain dirs (`/usr`, `/etc`, `/opt`, ...) are
//!   bound read-only, nosuid, nodev (`mount_setattr` recursive), symlinked ones (`/bin ->
//!   usr/bin`) are symlinks in the skeleton; a procfs of the pid namespace at `/proc`; a `/dev`
//!   with `null`, `zero`, `full`, `random`, `urandom` and the `fd`/`stdin`/`stdout`/`stderr`
//!   links (made once in the skeleton, whose mount is the box's only one without `nodev`); then
//!   the skeleton is remounted read-only and `pivot_root` detaches the host's tree. Per run: the
//!   box dir read-write at `/box`, a private tmpfs `/tmp` (charged to the box's memory) and the
//!   spec's extra mounts, all gone when the run ends. Nothing else of the host is visible, no
//!   other box.
//! - **Network.** An empty network namespace: no interface is up, not even loopback. Each
//!   uid slot keeps one (made by a background thread) for all its runs, which never overlap:
//!   an unprivileged box can change nothing in it (no interface, route, sysctl or firewall
//!   rule) and its sockets die with its processes, so nothing passes from one run to the next.
//!   A one-shot sandbox ([`SandboxConfig::one_shot`]) enters its slot's namespace pinned at
//!   `<state_dir>/netns/uid-N`, on the same grounds, across processes.
//! - **Privileges.** Each concurrent run takes a slot: uid/gid `uid_base + slot` (locked with
//!   `flock` on `<state_dir>/locks/uid-N`, so several processes sharing a uid range never share a
//!   uid), no supplementary groups, no capabilities (dropped by the uid change),
//!   `PR_SET_NO_NEW_PRIVS`, a cleared environment (`PATH`, `HOME=/box`, `LANG=C.UTF-8`,
//!   `ONLINE_JUDGE=1` plus the spec's variables), every signal disposition reset.
//! - **seccomp.** A targeted denylist, loaded last: io_uring, keyctl/add_key/request_key,
//!   ptrace and process_vm_*, every mount and namespace call (and `clone` with a `CLONE_NEW*`
//!   flag; `clone3` is `ENOSYS` so libc falls back to `clone`), bpf, perf_event_open, kexec,
//!   module loading, AF_VSOCK sockets and a few admin calls. A foreign ABI (i386, x32) is killed
//!   or refused.
//! - **cgroups.** Detected once: v2 when the cgroup mount is a cgroup2 with the `memory` and
//!   `pids` controllers (`memory.max`, `memory.swap.max = 0`, `pids.max`, `cpu.stat`,
//!   `memory.peak`, `memory.events`, `pids.events`, `cgroup.kill`), else v1 `memory`, `pids` and
//!   `cpuacct` hierarchies (`memory.limit_in_bytes` and `memory.memsw.limit_in_bytes`,
//!   `pids.max`, `cpuacct.usage`, `memory.max_usage_in_bytes`, `memory.oom_control`,
//!   `pids.events`). Every run gets a memory cgroup (v2: a cgroup) no process ever joined
//!   before, under `<cgroup_name>/`, which the program joins before exec (the zygote's mount
//!   work is not charged to it; on v1 through `tasks`, which spares it an RCU grace period) and
//!   which is removed afterwards. A background thread makes a few empty ones ahead of time and
//!   removes used ones (killing stragglers), so neither `mkdir` nor `rmdir` is on a run's path
//!   (a one-shot sandbox makes and removes its one itself). On v1 a slot keeps its `pids` and
//!   `cpuacct` cgroups across its runs (empty between them, counters reset per run) as long
//!   as each run ends cleanly; dropping the [`Sandbox`] removes them and the ready ones.
//!   Without a usable cgroup (or without root or namespaces) the sandbox falls back to rlimits,
//!   `RLIMIT_NPROC` per box uid and `wait4` rusage, and every outcome says
//!   [`IsolationLevel::RlimitOnly`]: it never pretends. An ordinary user's judge without a
//!   delegated cgroup keeps the namespaces, the private root and seccomp with those limits
//!   ([`IsolationLevel::RootlessNamespaces`]).
//! - **Time.** CPU time is the cgroup's (user+sys of every process), polled with a period that
//!   shrinks as the limit nears (at most 100 ms, down to 1 ms: the box cannot burn more than
//!   `ncpu` CPU-ms per ms), so the box is killed within a few ms of its CPU limit; `RLIMIT_CPU`
//!   (limit + 1 s) is a backstop. There is always a wall limit (spec, else `2 x cpu + 1 s`,
//!   else the config's default). The supervisor `poll`s the zygote's socket for its answer; no
//!   SIGCHLD handler is installed.
//! - **Cancel.** A run whose spec holds a [`Cancel`] ([`SandboxSpec::cancel`]) is killed at
//!   once when it is cancelled (a cancelled submission), as on a limit but with none named.
//! - **Output.** stdout and stderr go to files opened by the host (never by a path the program
//!   controls: an existing regular file of that name with no other link is emptied through a
//!   descriptor opened without following anything, any other entry is unlinked and the file
//!   created `O_EXCL`);
//!   `RLIMIT_FSIZE = limit + 1` bounds every file the program writes, so a file that reaches
//!   `limit + 1` bytes, a SIGXFSZ or a stdout+stderr total over the limit is
//!   [`LimitHit::Output`], never a runtime error or a memory limit.
//! - **Memory.** Limited on resident memory by the cgroup, never by `RLIMIT_AS` (JVM, Go and
//!   Node reserve far more address space than they use). The peak is the program's own memory:
//!   the cgroup's peak less the file pages (page cache, tmpfs) still charged at the end, never
//!   less than the largest `ru_maxrss`; without a cgroup, `ru_maxrss`. A memory limit is
//!   reported from the cgroup's `oom_kill` counter (or an own peak over the limit), never
//!   inferred from a SIGKILL; on a tmpfs box dir the cgroup allows room for written files and
//!   the supervisor enforces the limit on own memory (see docs/sandbox.md).
//! - **Instances.** Each [`Sandbox`] holds an [`Instance`]: a host-unique name and an `flock`
//!   on `<state_dir>/instances/<name>.lock` held for its life. Its run cgroups and the work
//!   roots it hands out ([`Instance::work_root`]) carry the name; at start, what belongs to an
//!   instance whose lock is free (it died) is removed, and nothing else: ownership is never
//!   judged from `/proc`, which another pid namespace sees differently.
//! - **Host-side file access.** [`read_box_file`], [`open_box_file`] and [`remove_box_dir`]
//!   resolve with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV)` from the box
//!   dir's descriptor: a symlink planted as `out.txt -> /etc/passwd` is refused, not followed.
//!
//! # For callers
//!
//! - The box dir must be absolute and made by the caller; the sandbox chowns it (not its
//!   contents) to the run's uid. Put inputs there readable by others (0644). Inside, it is
//!   `/box` ([`BOX_PATH`]); use relative paths in argv.
//! - Programs: a bare name is looked up in [`BOX_ENV_PATH`]; a path inside the box dir (host
//!   path or relative) is run from `/box`; any other absolute path must lie in a toolchain dir
//!   or a `read_only_mounts` entry, which are visible at the same path (e.g. a cached executable
//!   dir, `/root/.pyenv/versions/2.7.18`).
//! - `processes` counts processes and threads of the program (JVMs need 32 or more).

#[cfg(feature = "bench")]
pub mod bench;
mod boxfs;
mod cancel;
mod cgroup;
mod child;
mod classify;
mod config;
mod error;
pub mod heap;
mod instance;
mod netns;
mod outcome;
mod pipe;
pub mod rootless;
mod sandbox;
mod seccomp;
mod spec;
mod sys;
pub mod timings;
mod warm;
mod zygote;

pub use boxfs::{open_box_file, read_box_file, remove_box_dir, reset_box_dir};
pub use cancel::Cancel;
pub use config::SandboxConfig;
pub use error::SandboxError;
pub use instance::Instance;
pub use outcome::{ExitKind, IsolationLevel, LimitHit, SandboxOutcome};
pub use pipe::{PipeEnd, pipe};
pub use sandbox::{BOX_ENV_PATH, BOX_PATH, Sandbox};
pub use spec::{SandboxLimits, SandboxSpec, StdioSpec};
pub use warm::WarmPython;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Sandbox>();
    }
}
