//! A sandbox without root: the process enters a user namespace of its own, in which it holds
//! every capability over the namespaces it makes, and the sandbox then works as it does for
//! root (docs/sandbox.md, "Without root").
//!
//! [`enter_user_namespace`] is called first thing in `main` (a process with threads cannot
//! enter a user namespace): the judge's uid and gid are mapped to themselves, so files keep
//! their owner and the programs it starts hold no capability; with `newuidmap`/`newgidmap` and
//! ranges in `/etc/subuid` and `/etc/subgid`, [`BOX_IDS`] ids from those ranges are mapped
//! from [`crate::SandboxConfig`]'s default `uid_base` on, so that each box gets a uid of its
//! own as under root. [`privilege`] tells the sandbox which of these it got, whoever entered
//! the namespace (this module, `unshare`, a rootless container).

use std::io::Write;
use std::path::{Path, PathBuf};

/// How many subordinate ids are mapped for boxes (from the default `uid_base`).
pub const BOX_IDS: u32 = 4096;

/// What a user without root does to give each box a uid of its own: the one advice the
/// sandbox's warning and `judge doctor` both give, with the same number of ids
/// (docs/sandbox.md, "Without root").
pub fn box_ids_advice() -> String {
    format!(
        "install newuidmap/newgidmap (Debian package uidmap) and give this user a range of at \
         least {BOX_IDS} ids in /etc/subuid and /etc/subgid (usermod --add-subuids \
         100000-165535 --add-subgids 100000-165535 USER)"
    )
}

/// What this process may do to isolate boxes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Privilege {
    /// Root in the host's user namespace: everything, as it always was.
    Root,
    /// Every capability in a user namespace of its own (not the host's).
    UserNamespace {
        /// The ids mapped into it besides this process's own: `(first, count)` ranges of
        /// uids inside the namespace that are also mapped gids.
        box_ids: Vec<(u32, u32)>,
    },
    /// Neither: an ordinary user's process.
    None,
}

impl Privilege {
    /// Whether the sandbox can make namespaces and mounts.
    pub fn namespaces(&self) -> bool {
        !matches!(self, Privilege::None)
    }

    /// Whether `count` boxes from uid `base` on each get a uid of their own.
    pub fn box_uids(&self, base: u32, count: u32) -> bool {
        match self {
            Privilege::Root => true,
            Privilege::UserNamespace { box_ids } => box_ids.iter().any(|&(first, n)| {
                first <= base && base as u64 + count as u64 <= first as u64 + n as u64
            }),
            Privilege::None => false,
        }
    }
}

/// This process's effective uid (in its user namespace).
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// One line of `/proc/self/uid_map` or `gid_map`: (inside, outside, count).
type MapLine = (u32, u32, u32);

fn read_map(path: &str) -> Vec<MapLine> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace().map(|x| x.parse::<u32>().ok());
            Some((f.next()??, f.next()??, f.next()??))
        })
        .collect()
}

/// The capability's number (linux/capability.h).
const CAP_SYS_ADMIN: u32 = 21;

/// Whether this process holds `CAP_SYS_ADMIN` in its user namespace (effective set).
fn has_sys_admin() -> bool {
    has_cap(CAP_SYS_ADMIN)
}

/// Whether this process holds capability `cap` in its user namespace (effective set).
fn has_cap(cap: u32) -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        })
        .is_some_and(|caps| caps & (1 << cap) != 0)
}

/// What this process may do, from its user namespace's maps and its capabilities.
pub fn privilege() -> Privilege {
    let uids = read_map("/proc/self/uid_map");
    let initial = uids == [(0, 0, u32::MAX)];
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if initial {
        return match euid {
            0 => Privilege::Root,
            _ => Privilege::None,
        };
    }
    if !has_sys_admin() {
        return Privilege::None;
    }
    let gids = read_map("/proc/self/gid_map");
    // SAFETY: getegid has no preconditions.
    let egid = unsafe { libc::getegid() };
    let mut box_ids = Vec::new();
    for &(inside, _, count) in &uids {
        if (inside..=inside.saturating_add(count - 1)).contains(&euid) && count == 1 {
            continue;
        }
        // The part of this uid range that is also a mapped gid range.
        for &(g_inside, _, g_count) in &gids {
            if (g_inside..=g_inside.saturating_add(g_count - 1)).contains(&egid) && g_count == 1 {
                continue;
            }
            let lo = inside.max(g_inside);
            let hi = (inside as u64 + count as u64).min(g_inside as u64 + g_count as u64);
            if (lo as u64) < hi {
                box_ids.push((lo, (hi - lo as u64) as u32));
            }
        }
    }
    Privilege::UserNamespace { box_ids }
}

/// What [`enter_user_namespace`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entered {
    /// Nothing: the process is root, or already privileged in a user namespace.
    AlreadyPrivileged,
    /// A user namespace with this process's uid and gid mapped to themselves, and with
    /// [`BOX_IDS`] subordinate ids for boxes when `newuidmap` allowed (the reason when not).
    UserNamespace {
        /// Whether subordinate ids were mapped for boxes.
        box_ids: bool,
        /// Why not, when they were not.
        why_not: Option<String>,
    },
    /// The kernel or the host refused; the sandbox then has no namespaces.
    Refused(String),
}

/// Enters a user namespace (and a mount namespace it owns) when this process is an ordinary
/// user's; does nothing for root or a process already privileged in a user namespace, or when
/// `VERDICT_ROOTLESS=0`. Call it before any thread is started: the kernel refuses a process
/// with threads.
pub fn enter_user_namespace() -> Entered {
    if privilege() != Privilege::None {
        return Entered::AlreadyPrivileged;
    }
    if std::env::var_os("VERDICT_ROOTLESS").is_some_and(|v| v == "0") {
        return Entered::Refused("VERDICT_ROOTLESS=0".into());
    }
    // SAFETY: getuid and getgid have no preconditions.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let base = crate::SandboxConfig::default().uid_base;
    let sub = subordinate_ids(uid, gid, base);
    let helper = match &sub {
        Ok((u, g)) => MapHelper::start(uid, gid, base, *u, *g).map_err(|e| e.to_string()),
        Err(e) => Err(e.clone()),
    };
    // SAFETY: unshare has no memory preconditions; it fails (EINVAL) in a process with threads.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } < 0 {
        let e = std::io::Error::last_os_error();
        return Entered::Refused(format!(
            "unshare(CLONE_NEWUSER): {e}{}",
            match e.raw_os_error() {
                Some(libc::EPERM) | Some(libc::ENOSPC) =>
                    " (user namespaces are disabled for ordinary users: user.max_user_namespaces, kernel.unprivileged_userns_clone or an AppArmor or SELinux policy)",
                Some(libc::EINVAL) => " (the process already has threads)",
                _ => "",
            }
        ));
    }
    let why_not = match helper {
        Ok(h) => h.finish().err(),
        Err(e) => Some(e),
    };
    if why_not.is_some() {
        let maps = [
            ("/proc/self/setgroups", "deny".to_string()),
            ("/proc/self/uid_map", format!("{uid} {uid} 1")),
            ("/proc/self/gid_map", format!("{gid} {gid} 1")),
        ];
        for (path, text) in maps {
            let r = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|mut f| f.write_all(text.as_bytes()));
            if let Err(e) = r {
                return Entered::Refused(format!("write {path}: {e}"));
            }
        }
    }
    Entered::UserNamespace {
        box_ids: why_not.is_none(),
        why_not,
    }
}

/// The first subordinate uid and gid ranges of this user with at least [`BOX_IDS`] ids, and
/// the helpers that map them; why not when there are none.
fn subordinate_ids(uid: u32, gid: u32, base: u32) -> Result<(u32, u32), String> {
    if (base..base + BOX_IDS).contains(&uid) || (base..base + BOX_IDS).contains(&gid) {
        return Err(format!(
            "this uid or gid lies in the boxes' range {base}..{}",
            base + BOX_IDS
        ));
    }
    for helper in ["newuidmap", "newgidmap"] {
        if find_program(helper).is_none() {
            return Err(format!("no {helper} (Debian package uidmap)"));
        }
    }
    let name = user_name(uid);
    let range = |file: &str, id: u32| -> Result<u32, String> {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        text.lines()
            .filter_map(|l| {
                let mut f = l.trim().split(':');
                Some((
                    f.next()?,
                    f.next()?.parse::<u32>().ok()?,
                    f.next()?.parse::<u32>().ok()?,
                ))
            })
            .find(|&(who, _, count)| {
                (who == id.to_string() || Some(who) == name.as_deref()) && count >= BOX_IDS
            })
            .map(|(_, first, _)| first)
            .ok_or_else(|| format!("no range of {BOX_IDS} ids for this user in {file}"))
    };
    Ok((range("/etc/subuid", uid)?, range("/etc/subgid", gid)?))
}

/// The login name of `uid` (from the password database), if any.
fn user_name(uid: u32) -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let mut f = l.split(':');
        let name = f.next()?;
        let id = f.nth(1)?.parse::<u32>().ok()?;
        (id == uid).then(|| name.to_string())
    })
}

/// `name` found in `PATH` (or the usual system dirs).
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/bin", "/usr/sbin", "/bin", "/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A child forked before `unshare`, still in the host's user namespace, that runs
/// `newuidmap` and `newgidmap` on this process once it has unshared.
struct MapHelper {
    /// The helper's pid; 0 once reaped.
    pid: libc::pid_t,
    /// Our end of its pipe: a byte says "map now"; closing it, "never mind".
    go: Option<std::fs::File>,
}

impl MapHelper {
    fn start(
        uid: u32,
        gid: u32,
        base: u32,
        sub_uid: u32,
        sub_gid: u32,
    ) -> std::io::Result<MapHelper> {
        use std::os::fd::FromRawFd;
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        let count = BOX_IDS.to_string();
        let args = |id: u32, sub: u32| {
            [
                parent.to_string(),
                id.to_string(),
                id.to_string(),
                "1".into(),
                base.to_string(),
                sub.to_string(),
                count.clone(),
            ]
        };
        let (uid_args, gid_args) = (args(uid, sub_uid), args(gid, sub_gid));
        let mut pipe = [0; 2];
        // SAFETY: pipe2 writes two descriptors into the array.
        if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the caller has no threads (enter_user_namespace's contract), so the child may
        // use the allocator and std freely; it never returns.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: the child's own descriptors; _exit ends it.
            unsafe {
                libc::close(pipe[1]);
                let mut b = [0u8; 1];
                let ok = libc::read(pipe[0], b.as_mut_ptr().cast(), 1) == 1
                    && run_quiet("newuidmap", &uid_args)
                    && run_quiet("newgidmap", &gid_args);
                libc::_exit(if ok { 0 } else { 1 });
            }
        }
        // SAFETY: closing the child's end and owning ours.
        unsafe { libc::close(pipe[0]) };
        // SAFETY: pipe[1] is ours alone from here on.
        let go = unsafe { std::fs::File::from_raw_fd(pipe[1]) };
        Ok(MapHelper { pid, go: Some(go) })
    }

    /// Tells the helper to map the ids (this process has unshared) and waits for it.
    fn finish(mut self) -> Result<(), String> {
        if let Some(mut go) = self.go.take() {
            let _ = go.write_all(b"g");
        }
        self.wait()
    }

    fn wait(&mut self) -> Result<(), String> {
        if self.pid == 0 {
            return Err("newuidmap: already waited for".into());
        }
        let pid = std::mem::take(&mut self.pid);
        let mut status = 0;
        // SAFETY: waiting for our own child.
        while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
            if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return Err("newuidmap: lost its helper".into());
            }
        }
        match libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            true => Ok(()),
            false => Err(
                "newuidmap or newgidmap refused the ranges of /etc/subuid and /etc/subgid".into(),
            ),
        }
    }
}

impl Drop for MapHelper {
    /// A helper never told to map (the `unshare` failed) reads end-of-file and exits: reaped.
    fn drop(&mut self) {
        self.go = None;
        if self.pid != 0 {
            let _ = self.wait();
        }
    }
}

fn run_quiet(program: &str, args: &[String]) -> bool {
    std::process::Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The capability's number (linux/capability.h).
const CAP_SYS_RESOURCE: u32 = 24;

/// Whether this process may set a hard resource limit above its own: `CAP_SYS_RESOURCE` in the
/// host's user namespace (the kernel checks it there, so a user namespace of its own never
/// gives it).
pub fn may_raise_hard_limits() -> bool {
    read_map("/proc/self/uid_map") == [(0, 0, u32::MAX)] && has_cap(CAP_SYS_RESOURCE)
}

/// The resources whose hard limit a box's limit is clamped to, with their names.
pub const CLAMPED_RESOURCES: [(libc::__rlimit_resource_t, &str); 4] = [
    (libc::RLIMIT_NOFILE, "RLIMIT_NOFILE"),
    (libc::RLIMIT_STACK, "RLIMIT_STACK"),
    (libc::RLIMIT_FSIZE, "RLIMIT_FSIZE"),
    (libc::RLIMIT_CPU, "RLIMIT_CPU"),
];

/// This process's hard limit of `resource` (`RLIM_INFINITY` when unlimited or unreadable).
pub fn hard_limit(resource: libc::__rlimit_resource_t) -> u64 {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: getrlimit writes one rlimit into `r`.
    match unsafe { libc::getrlimit(resource, &mut r) } {
        0 => r.rlim_max,
        _ => libc::RLIM_INFINITY,
    }
}

/// This process's hard limits of [`CLAMPED_RESOURCES`], by name (`None`: unlimited).
pub fn hard_limits() -> Vec<(&'static str, Option<u64>)> {
    CLAMPED_RESOURCES
        .iter()
        .map(|&(res, name)| {
            let hard = hard_limit(res);
            (name, (hard != libc::RLIM_INFINITY).then_some(hard))
        })
        .collect()
}

/// The hard limits a box's limits must stay under here (`None`: none, this process may raise
/// them), read once per process.
fn ceilings() -> Option<&'static [(libc::__rlimit_resource_t, u64)]> {
    static CEILINGS: std::sync::OnceLock<Option<Vec<(libc::__rlimit_resource_t, u64)>>> =
        std::sync::OnceLock::new();
    CEILINGS
        .get_or_init(|| {
            (!may_raise_hard_limits()).then(|| {
                CLAMPED_RESOURCES
                    .iter()
                    .map(|&(res, _)| (res, hard_limit(res)))
                    .collect()
            })
        })
        .as_deref()
}

/// Lowers each of `rlimits` that exceeds this process's hard limit to it (without root the
/// kernel refuses to raise a hard limit, and the box would not start), and says which, e.g.
/// `RLIMIT_NOFILE 4096 clamped to the judge's hard limit 1024`.
pub(crate) fn clamp_rlimits(
    rlimits: &mut [(libc::__rlimit_resource_t, libc::rlimit)],
) -> Vec<String> {
    match ceilings() {
        Some(ceilings) => clamp_to(rlimits, ceilings),
        None => Vec::new(),
    }
}

/// [`clamp_rlimits`] against the given hard limits.
fn clamp_to(
    rlimits: &mut [(libc::__rlimit_resource_t, libc::rlimit)],
    ceilings: &[(libc::__rlimit_resource_t, u64)],
) -> Vec<String> {
    let mut notes = Vec::new();
    for (res, lim) in rlimits.iter_mut() {
        let Some(&(_, hard)) = ceilings.iter().find(|(r, _)| r == res) else {
            continue;
        };
        if lim.rlim_max <= hard {
            continue;
        }
        let name = CLAMPED_RESOURCES
            .iter()
            .find(|(r, _)| r == res)
            .map_or("?", |(_, n)| n);
        let shown = |v: u64| match v {
            libc::RLIM_INFINITY => "unlimited".to_string(),
            v => v.to_string(),
        };
        notes.push(format!(
            "{name} {} clamped to the judge's hard limit {}",
            shown(lim.rlim_max),
            shown(hard)
        ));
        lim.rlim_max = hard;
        lim.rlim_cur = lim.rlim_cur.min(hard);
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_ids_advice_names_the_ids_it_maps() {
        let advice = box_ids_advice();
        assert!(
            advice.contains(&format!("at least {BOX_IDS} ids")),
            "{advice}"
        );
    }

    fn lim(cur: u64, max: u64) -> libc::rlimit {
        libc::rlimit {
            rlim_cur: cur,
            rlim_max: max,
        }
    }

    #[test]
    fn a_limit_above_the_hard_limit_is_clamped_and_named() {
        let mut rl = vec![
            (libc::RLIMIT_NOFILE, lim(4096, 4096)),
            (
                libc::RLIMIT_STACK,
                lim(libc::RLIM_INFINITY, libc::RLIM_INFINITY),
            ),
            (libc::RLIMIT_CPU, lim(3, 4)),
            (libc::RLIMIT_CORE, lim(0, 0)),
        ];
        let ceilings = [
            (libc::RLIMIT_NOFILE, 1024),
            (libc::RLIMIT_STACK, 8 << 20),
            (libc::RLIMIT_CPU, libc::RLIM_INFINITY),
        ];
        let notes = clamp_to(&mut rl, &ceilings);
        assert_eq!(rl[0].1.rlim_cur, 1024);
        assert_eq!(rl[0].1.rlim_max, 1024);
        assert_eq!(rl[1].1.rlim_max, 8 << 20);
        assert_eq!(rl[2].1.rlim_max, 4, "under the ceiling: kept");
        assert_eq!(
            notes,
            [
                "RLIMIT_NOFILE 4096 clamped to the judge's hard limit 1024",
                "RLIMIT_STACK unlimited clamped to the judge's hard limit 8388608"
            ]
        );
    }
}
