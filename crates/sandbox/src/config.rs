//! Sandbox-wide configuration: toolchain dirs, global caps, uid range, cgroup name.

use std::path::PathBuf;

/// Configuration of a [`crate::Sandbox`], fixed at [`crate::Sandbox::new`].
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Host directories visible read-only at the same path in every box (toolchains, `/etc`).
    /// Missing ones are skipped; symlinks (e.g. `/bin -> usr/bin`) are recreated as symlinks.
    pub toolchain_dirs: Vec<PathBuf>,
    /// Output cap in bytes used when a spec has no `output_bytes` limit.
    pub global_output_cap: u64,
    /// First uid (and gid) of the boxes; box `i` runs as `uid_base + i`.
    pub uid_base: u32,
    /// How many boxes may run at once (the size of the uid range).
    pub max_boxes: u32,
    /// Fail in [`crate::Sandbox::new`] instead of falling back to rlimits only.
    pub require_isolation: bool,
    /// Name of the parent cgroup made in each hierarchy (e.g. `/sys/fs/cgroup/memory/verdict`).
    pub cgroup_name: String,
    /// Where cgroup hierarchies are mounted.
    pub cgroup_mount: PathBuf,
    /// Host directory for the sandbox's own state (the skeleton root, uid lock files).
    pub state_dir: PathBuf,
    /// Process/thread cap used when a spec has no `processes` limit.
    pub default_processes: u32,
    /// Open-files cap used when a spec has no `open_files` limit.
    pub default_open_files: u32,
    /// Wall-clock limit in ms used when a spec has neither a wall nor a CPU limit.
    pub default_wall_time_ms: u64,
    /// Size of each box's private `/tmp` (a tmpfs charged to the box's memory) in bytes.
    pub tmp_size: u64,
    /// The sandbox serves one run and is then dropped (`judge sandbox`): nothing is made for
    /// later runs. No network-namespace or cgroup pool and no background thread; the zygote
    /// that serves the run is started by [`crate::Sandbox::new`] (its `clone3` is the
    /// namespace probe), builds the box's root while the run is prepared, serves one order and
    /// exits on its own, unwaited. More runs still work, each with a zygote of its own.
    ///
    /// As root, it leaves its instance's registry files and (cgroup v1) its empty `pids` and
    /// `cpuacct` cgroups for the next one-shot sandbox of the same `state_dir` to take over;
    /// any sandbox that is not one-shot removes them. Before removing a `state_dir` of your own
    /// (a test's temporary one), start and drop a sandbox that is not one-shot on it, or those
    /// cgroups stay (empty) until the next boot.
    pub one_shot: bool,
}

/// `/run/verdict` for root (also root in a user namespace, as in a rootless container); an
/// ordinary user's `$XDG_RUNTIME_DIR/verdict`, or `verdict-<uid>` in the temp dir.
fn default_state_dir() -> PathBuf {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if euid == 0 {
        return PathBuf::from("/run/verdict");
    }
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d).join("verdict"),
        _ => std::env::temp_dir().join(format!("verdict-{euid}")),
    }
}

impl Default for SandboxConfig {
    fn default() -> Self {
        let mut toolchain_dirs: Vec<PathBuf> = ["/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc"]
            .iter()
            .map(PathBuf::from)
            .collect();
        if std::path::Path::new("/opt").is_dir() {
            toolchain_dirs.push(PathBuf::from("/opt"));
        }
        SandboxConfig {
            toolchain_dirs,
            global_output_cap: 256 << 20,
            uid_base: 60_000,
            max_boxes: 64,
            require_isolation: false,
            cgroup_name: "verdict".into(),
            cgroup_mount: PathBuf::from("/sys/fs/cgroup"),
            state_dir: default_state_dir(),
            default_processes: 256,
            default_open_files: 1024,
            default_wall_time_ms: 600_000,
            tmp_size: 256 << 20,
            one_shot: false,
        }
    }
}
