//! Preparing a run, before anything is started: the box directory, the stdio files, the
//! program's path as the box sees it, argv and envp, the rlimits, and a zygote's mounts.
//! Everything the program's last steps use is made here, so that nothing allocates between
//! fork and exec.

use super::probe::{Executor, skeleton_mountpoint};
use crate::boxfs::{self, create_output_beneath, open_beneath, open_box, split_box_path};
use crate::child::RunMount;
use crate::error::cstring;
use crate::zygote;
use crate::{SandboxConfig, SandboxError, SandboxSpec, StdioSpec, sys};
use std::ffi::{CString, OsString};
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Where the box directory appears inside the private root (the program's working directory).
pub const BOX_PATH: &str = "/box";

/// The `PATH` of every box.
pub const BOX_ENV_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// A resource limit as `setrlimit` takes it.
pub(super) type Rlimit = (libc::__rlimit_resource_t, libc::rlimit);

/// Everything a run needs besides its executor, prepared from the spec.
pub(super) struct Prepared {
    /// The box directory, opened (and chowned to the run's uid).
    pub box_fd: OwnedFd,
    /// stdin, stdout, stderr, opened by the host (or pipe ends taken from the spec).
    pub stdio: [Stdio; 3],
    /// The program's path as execve must see it.
    pub program: CString,
    pub argv: Vec<CString>,
    pub envp: Vec<CString>,
    pub rlimits: Vec<Rlimit>,
    /// The limits lowered to the judge's own hard limits (see [`crate::rootless::clamp_rlimits`]).
    pub rlimits_clamped: Vec<String>,
    /// The run's uid and gid (root only).
    pub ids: Option<(u32, u32)>,
    /// The output limit in bytes (the spec's or the global cap).
    pub output_cap: u64,
    /// The process/thread limit.
    pub processes: u32,
    /// The wall-clock limit in ms.
    pub wall_ms: u64,
    /// Whether the box dir is on a tmpfs, whose file pages the run's memory holds (see
    /// `supervise`).
    pub box_on_tmpfs: bool,
}

impl Prepared {
    /// Prepares `spec` for `executor`, as `ids` (the slot's uid and gid, when root).
    pub(super) fn new(
        config: &SandboxConfig,
        executor: &Executor,
        spec: &SandboxSpec,
        ids: Option<(u32, u32)>,
    ) -> Result<Prepared, SandboxError> {
        // The box directory.
        if !spec.box_dir.is_absolute() {
            return Err(SandboxError::BadPath {
                path: spec.box_dir.clone(),
                reason: "the box dir must be absolute".into(),
            });
        }
        let box_fd = open_box(&spec.box_dir)?;
        let box_on_tmpfs = nix::sys::statfs::fstatfs(&box_fd)
            .is_ok_and(|s| s.filesystem_type() == nix::sys::statfs::TMPFS_MAGIC);
        if let Some((uid, gid)) = ids {
            nix::unistd::fchown(&box_fd, Some(uid.into()), Some(gid.into()))
                .map_err(|e| SandboxError::io("chown box dir", &spec.box_dir, e.into()))?;
        }

        // Standard streams, opened here so the program never names a host path.
        let stdin = open_stdio(spec, &spec.stdin, &box_fd, false)?;
        let stdout = open_stdio(spec, &spec.stdout, &box_fd, true)?;
        let stderr = match (&spec.stdout, &spec.stderr, &stdout) {
            (StdioSpec::File(a), StdioSpec::File(b), Stdio::File(out)) if a == b => {
                Stdio::File(out.try_clone().map_err(|e| SandboxError::io("dup", a, e))?)
            }
            (StdioSpec::Pipe(a), StdioSpec::Pipe(b), Stdio::Pipe(out)) if a.same(b) => {
                let dup = match out.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                    Some(fd) => Some(
                        fd.try_clone()
                            .map_err(|e| SandboxError::io("dup", Path::new("pipe"), e))?,
                    ),
                    None => None,
                };
                Stdio::Pipe(std::sync::Mutex::new(dup))
            }
            _ => open_stdio(spec, &spec.stderr, &box_fd, true)?,
        };

        let limits = &spec.limits;
        let output_cap = limits.output_bytes.unwrap_or(config.global_output_cap);
        // `pids.max` refuses a value above the kernel's own bound (EINVAL): a limit no run can
        // reach is no limit, so it is clamped to the most pids the kernel hands out.
        let processes = limits
            .processes
            .unwrap_or(config.default_processes)
            .min(kernel_pid_max());
        let wall_ms = limits
            .wall_time_ms
            .unwrap_or_else(|| match limits.cpu_time_ms {
                Some(c) => 2 * c + 1000,
                None => config.default_wall_time_ms,
            });

        // Program, argv, envp.
        let program = resolve_program(config, executor, spec, &box_fd)?;
        let argv0 = spec.program.as_os_str().as_bytes();
        let mut argv = vec![
            CString::new(argv0)
                .map_err(|_| SandboxError::Nul(spec.program.display().to_string()))?,
        ];
        for a in &spec.args {
            argv.push(
                CString::new(a.as_bytes())
                    .map_err(|_| SandboxError::Nul(a.to_string_lossy().into_owned()))?,
            );
        }
        let home = match executor.boxed() {
            true => BOX_PATH.to_string(),
            false => spec.box_dir.display().to_string(),
        };
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), BOX_ENV_PATH.into()),
            ("HOME".into(), home),
            ("LANG".into(), "C.UTF-8".into()),
            ("ONLINE_JUDGE".into(), "1".into()),
        ];
        for (k, v) in &spec.env {
            if k.is_empty() || k.contains('=') {
                return Err(SandboxError::Nul(format!("bad environment name {k:?}")));
            }
            env.retain(|(ek, _)| ek != k);
            env.push((k.clone(), v.clone()));
        }
        let envp = env
            .iter()
            .map(|(k, v)| {
                CString::new(format!("{k}={v}")).map_err(|_| SandboxError::Nul(k.clone()))
            })
            .collect::<Result<Vec<_>, _>>()?;

        // rlimits (never RLIMIT_AS: managed runtimes reserve far more address space than RSS).
        let lim = |v: u64| libc::rlimit {
            rlim_cur: v,
            rlim_max: v,
        };
        let mut rlimits = vec![
            (libc::RLIMIT_CORE, lim(0)),
            (libc::RLIMIT_FSIZE, lim(output_cap.saturating_add(1))),
            (
                libc::RLIMIT_NOFILE,
                lim(u64::from(
                    limits.open_files.unwrap_or(config.default_open_files),
                )),
            ),
            (
                libc::RLIMIT_STACK,
                lim(limits
                    .stack_kb
                    .map_or(libc::RLIM_INFINITY, |k| k.saturating_mul(1024))),
            ),
            (libc::RLIMIT_MEMLOCK, lim(64 << 10)),
            (libc::RLIMIT_MSGQUEUE, lim(0)),
        ];
        if let Some(cpu) = limits.cpu_time_ms {
            let secs = cpu.div_ceil(1000) + 1;
            rlimits.push((
                libc::RLIMIT_CPU,
                libc::rlimit {
                    rlim_cur: secs,
                    rlim_max: secs + 1,
                },
            ));
        }
        // Without a pids cgroup, the box uid's process count is the only limit; in fresh
        // namespaces without a uid of its own, the box has a user namespace of its own, where
        // its init counts too.
        match (executor, ids) {
            (Executor::Zygote(_), _) => {}
            (_, Some(_)) => rlimits.push((libc::RLIMIT_NPROC, lim(u64::from(processes)))),
            (Executor::Namespaced(_), None) => rlimits.push((
                libc::RLIMIT_NPROC,
                lim(u64::from(processes).saturating_add(1)),
            )),
            (Executor::RlimitOnly, None) => {}
        }
        // Without root a limit above the judge's own hard limit cannot be set: clamped, and said.
        let rlimits_clamped = crate::rootless::clamp_rlimits(&mut rlimits);
        Ok(Prepared {
            box_fd,
            stdio: [stdin, stdout, stderr],
            program,
            argv,
            envp,
            rlimits,
            rlimits_clamped,
            ids,
            output_cap,
            processes,
            wall_ms,
            box_on_tmpfs,
        })
    }

    /// The stdio descriptors, for the program (-1 for a pipe end already released).
    pub(super) fn stdio_fds(&self) -> [RawFd; 3] {
        self.stdio.each_ref().map(|s| match s {
            Stdio::File(f) => f.as_raw_fd(),
            Stdio::Pipe(p) => p
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .map_or(-1, AsRawFd::as_raw_fd),
        })
    }

    /// Closes the supervisor's copies of the run's pipe ends, once the box holds its own (the
    /// order was sent, or the rlimit-only init was cloned): the other side then sees the pipe
    /// close when the box is done with it, not when this run's supervision ends.
    pub(super) fn release_pipes(&self) {
        for s in &self.stdio {
            if let Stdio::Pipe(p) = s {
                drop(p.lock().unwrap_or_else(|e| e.into_inner()).take());
            }
        }
    }

    /// Bytes written to the stdout and stderr files so far (once if they are the same file).
    pub(super) fn output_bytes(&self, spec: &SandboxSpec) -> u64 {
        let size = |f: &File| {
            f.metadata()
                .map(|m| if m.file_type().is_file() { m.len() } else { 0 })
                .unwrap_or(0)
        };
        let size = |s: &Stdio| match s {
            Stdio::File(f) => size(f),
            Stdio::Pipe(_) => 0,
        };
        let [_, stdout, stderr] = &self.stdio;
        let same = matches!((&spec.stdout, &spec.stderr), (StdioSpec::File(a), StdioSpec::File(b)) if a == b);
        if same {
            size(stdout)
        } else {
            size(stdout) + size(stderr)
        }
    }
}

/// A standard stream of a prepared run.
pub(super) enum Stdio {
    /// A file the supervisor opened (or `/dev/null`).
    File(File),
    /// A pipe end taken from the spec, released once the box holds it.
    Pipe(std::sync::Mutex<Option<OwnedFd>>),
}

fn open_stdio(
    spec: &SandboxSpec,
    s: &StdioSpec,
    box_fd: &OwnedFd,
    write: bool,
) -> Result<Stdio, SandboxError> {
    let path = match s {
        StdioSpec::Null => {
            let f = std::fs::OpenOptions::new()
                .read(!write)
                .write(write)
                .open("/dev/null")
                .map_err(|e| SandboxError::io("open", Path::new("/dev/null"), e))?;
            return Ok(Stdio::File(f));
        }
        StdioSpec::Pipe(end) => {
            let fd = end.take().ok_or_else(|| SandboxError::BadPath {
                path: spec.box_dir.clone(),
                reason: "a pipe end given as a standard stream was taken by an earlier run".into(),
            })?;
            return Ok(Stdio::Pipe(std::sync::Mutex::new(Some(fd))));
        }
        StdioSpec::File(p) => p,
    };
    open_stdio_file(spec, path, box_fd, write).map(Stdio::File)
}

fn open_stdio_file(
    spec: &SandboxSpec,
    path: &Path,
    box_fd: &OwnedFd,
    write: bool,
) -> Result<File, SandboxError> {
    let (full, rel) = split_box_path(&spec.box_dir, path);
    let fd = match (rel, write) {
        (Some(rel), true) => {
            boxfs::check_relative(&rel)?;
            create_output_beneath(box_fd.as_raw_fd(), &rel)
                .map_err(|e| SandboxError::io("create output", &full, e))?
        }
        (Some(rel), false) => {
            boxfs::check_relative(&rel)?;
            let fd = open_beneath(
                box_fd.as_raw_fd(),
                &rel,
                libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY,
                0,
            )
            .map_err(|e| SandboxError::io("open input", &full, e))?;
            let f = File::from(fd);
            let meta = f
                .metadata()
                .map_err(|e| SandboxError::io("stat input", &full, e))?;
            if !meta.file_type().is_file() {
                return Err(SandboxError::BadPath {
                    path: full,
                    reason: "stdin must be a regular file".into(),
                });
            }
            // Back to blocking reads for the program.
            // SAFETY: fcntl on a descriptor we own.
            unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETFL, 0) };
            return Ok(f);
        }
        (None, write) => {
            let mut o = std::fs::OpenOptions::new();
            if write {
                o.write(true).create(true);
            } else {
                o.read(true);
            }
            use std::os::unix::fs::OpenOptionsExt;
            o.custom_flags(libc::O_NOFOLLOW | libc::O_NOCTTY);
            let what = if write { "create output" } else { "open input" };
            let file = o
                .open(&full)
                .map_err(|e| SandboxError::io(what, &full, e))?;
            if write {
                empty_output(&file).map_err(|e| SandboxError::io("empty output", &full, e))?;
            }
            return Ok(file);
        }
    };
    Ok(File::from(fd))
}

/// Empties an output file opened without `O_TRUNC`, unless it is empty already (see
/// [`crate::boxfs::truncate_to_empty`] for why neither `O_TRUNC` nor a plain truncation).
fn empty_output(file: &File) -> std::io::Result<()> {
    if file.metadata()?.len() != 0 {
        crate::boxfs::truncate_to_empty(file.as_raw_fd())?;
    }
    Ok(())
}

/// The program path as execve must see it.
fn resolve_program(
    config: &SandboxConfig,
    executor: &Executor,
    spec: &SandboxSpec,
    box_fd: &OwnedFd,
) -> Result<CString, SandboxError> {
    let p = &spec.program;
    let bytes = p.as_os_str().as_bytes();
    let not_found = || SandboxError::ProgramNotFound(p.clone());
    if bytes.is_empty() {
        return Err(not_found());
    }
    if !bytes.contains(&b'/') {
        for dir in BOX_ENV_PATH.split(':') {
            let cand = Path::new(dir).join(p);
            if is_executable_file(&cand) {
                return cstring(cand.as_os_str().as_bytes(), &cand);
            }
        }
        return Err(not_found());
    }
    let (host, rel) = split_box_path(&spec.box_dir, p);
    if let Some(rel) = rel {
        // Inside the box: check without following planted symlinks.
        boxfs::check_relative(&rel).map_err(|_| not_found())?;
        let fd =
            open_beneath(box_fd.as_raw_fd(), &rel, libc::O_PATH, 0).map_err(|_| not_found())?;
        let meta = File::from(fd).metadata().map_err(|_| not_found())?;
        if !meta.file_type().is_file() {
            return Err(not_found());
        }
        let inside: OsString = match executor.boxed() {
            true => {
                let mut s = OsString::from(BOX_PATH);
                s.push("/");
                s.push(rel.as_os_str());
                s
            }
            false => host.into_os_string(),
        };
        return cstring(inside.as_bytes(), p);
    }
    if !host.exists() {
        return Err(not_found());
    }
    if executor.boxed() && !visible(config, &host, spec) {
        return Err(SandboxError::BadPath {
            path: host,
            reason: "not inside the box, a toolchain dir or a mount of the spec".into(),
        });
    }
    cstring(host.as_os_str().as_bytes(), p)
}

/// Whether a host path is visible in a box of `spec` (a toolchain dir or a mount of the spec).
fn visible(config: &SandboxConfig, host: &Path, spec: &SandboxSpec) -> bool {
    config
        .toolchain_dirs
        .iter()
        .chain(spec.read_only_mounts.iter())
        .chain(spec.writable_mounts.iter())
        .any(|d| host.starts_with(d))
}

fn is_executable_file(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The mounts a zygote makes for this run: the box at `/box` and the spec's mounts at their
/// own paths (its `/tmp` is fresh already).
pub(super) fn run_mounts(
    config: &SandboxConfig,
    skeleton: &Path,
    spec: &SandboxSpec,
    box_fd: RawFd,
) -> Result<Vec<RunMount>, SandboxError> {
    let c = |p: &Path| cstring(p.as_os_str().as_bytes(), p);
    let tree = |fd: RawFd, attrs: u64, path: &Path| {
        zygote::detached_tree(fd, attrs).map_err(|e| SandboxError::io("clone the mount", path, e))
    };
    let rw = sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV;
    let ro = rw | sys::MOUNT_ATTR_RDONLY;
    let mut mounts = vec![RunMount::Attach {
        tree: tree(box_fd, rw, &spec.box_dir)?,
        target: CString::from(c"/box"),
    }];
    for (dirs, attrs) in [(&spec.read_only_mounts, ro), (&spec.writable_mounts, rw)] {
        for d in dirs {
            let dir = File::open(d)
                .ok()
                .filter(|f| f.metadata().is_ok_and(|m| m.is_dir()))
                .ok_or_else(|| SandboxError::BadPath {
                    path: d.clone(),
                    reason: "a mount must be an existing directory".into(),
                })?;
            if attrs == ro && config.toolchain_dirs.iter().any(|t| d.starts_with(t)) {
                continue; // already visible read-only
            }
            let target = if let Ok(under) = d.strip_prefix("/tmp") {
                // Inside the box's own /tmp (a tmpfs): make the mount point there.
                if under.as_os_str().is_empty() {
                    return Err(SandboxError::BadPath {
                        path: d.clone(),
                        reason: "the box has a /tmp of its own: mount a directory under it".into(),
                    });
                }
                boxfs::check_relative(under)?;
                let mut p = PathBuf::from("/tmp");
                for comp in under.components() {
                    p.push(comp);
                    mounts.push(RunMount::Mkdir { path: c(&p)? });
                }
                p
            } else {
                skeleton_mountpoint(skeleton, d)?;
                d.clone()
            };
            mounts.push(RunMount::Attach {
                tree: tree(dir.as_raw_fd(), attrs, d)?,
                target: c(&target)?,
            });
        }
    }
    if mounts.len() > zygote::MAX_MOUNTS {
        return Err(SandboxError::BadPath {
            path: spec.box_dir.clone(),
            reason: format!("more than {} mounts in one run", zygote::MAX_MOUNTS),
        });
    }
    Ok(mounts)
}

/// The most processes the kernel can have (`/proc/sys/kernel/pid_max`, read once), or
/// `PID_MAX_LIMIT` (2^22, the most `pids.max` takes on 64-bit) when it cannot be read.
pub(crate) fn kernel_pid_max() -> u32 {
    static PID_MAX: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PID_MAX.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1 << 22)
    })
}
