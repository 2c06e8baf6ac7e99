//! Agent process trees: every agent the `command` runner starts leads a process group of its
//! own, and the whole group is killed (`killpg(SIGKILL)`) when the run ends, whichever way:
//! the agent exited (anything it left running dies with it), it timed out, or the run was
//! dropped (cancelled, abandoned by the engine). A registry of the live groups lets
//! [`kill_all_agents`] stop every agent of this process at once (`judge lab` on SIGINT, SIGTERM
//! or SIGHUP).
//!
//! A process group does not hold a process that leaves it (`setsid`, `setpgid`: a double-forked
//! daemon). Every agent is therefore also started with [`AGENT_TAG_VAR`] in its environment, which
//! its descendants inherit: after the group is killed, the processes of this user that still carry
//! the run's tag are killed too (a scan of `/proc/*/environ`). A process that leaves the group
//! *and* drops or rewrites that variable escapes both; only a cgroup holds every descendant
//! whatever it does (see `docs/agent-lab.md`).

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The environment variable that tags every process of an agent's tree
/// (`<judge pid>-<random>.<sequence number>`).
pub const AGENT_TAG_VAR: &str = "VERDICT_LAB_AGENT";

/// The live agent groups (group id -> tag); `closed` once [`kill_all_agents`] ran.
struct Live {
    groups: BTreeMap<i32, String>,
    closed: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    groups: BTreeMap::new(),
    closed: false,
});
static NEXT_TAG: AtomicU64 = AtomicU64::new(0);

fn live() -> std::sync::MutexGuard<'static, Live> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The tag prefix of this process's agents: its pid, for people, and a random part, so that
/// the orphans of an earlier process with the same pid are not taken for ours.
fn own_prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        // The last 12 hex digits of a UUIDv7 are random.
        let id = uuid::Uuid::now_v7().simple().to_string();
        format!("{}-{}.", std::process::id(), &id[20..])
    })
}

/// A new tag for an agent about to start.
pub(crate) fn new_tag() -> String {
    format!(
        "{}{}",
        own_prefix(),
        NEXT_TAG.fetch_add(1, Ordering::Relaxed)
    )
}

/// The lab is stopping ([`kill_all_agents`] ran): no agent may start.
#[derive(Debug)]
pub(crate) struct Stopping;

/// One live agent tree: its process group and its tag. Dropping it kills the tree.
#[derive(Debug)]
pub(crate) struct AgentTree {
    pgid: i32,
    tag: String,
}

impl AgentTree {
    /// Registers the tree of an agent just spawned as the leader of its own process group
    /// (`pid` is the group id). When the lab is stopping, the group is killed at once and
    /// `Stopping` returned.
    pub(crate) fn register(pid: u32, tag: String) -> Result<AgentTree, Stopping> {
        let pgid = i32::try_from(pid).map_err(|_| Stopping)?;
        let mut live = live();
        if live.closed {
            drop(live);
            kill_tree(pgid, &tag);
            return Err(Stopping);
        }
        live.groups.insert(pgid, tag.clone());
        Ok(AgentTree { pgid, tag })
    }

    /// Kills the whole tree (once: later calls and the drop do nothing). Called right after the
    /// leader is reaped, the group id is still in use while any member lives; once all are gone
    /// it could be reused only after the pids wrap around, and this kill follows at once.
    pub(crate) fn kill(&self) {
        let registered = live().groups.remove(&self.pgid).is_some();
        if registered {
            kill_tree(self.pgid, &self.tag);
        }
    }
}

impl Drop for AgentTree {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `killpg(SIGKILL)` the group, then the tagged processes that left it. The scan of `/proc`
/// (a few ms) runs on a blocking thread when called from the async runtime.
fn kill_tree(pgid: i32, tag: &str) {
    // ESRCH: the group is already gone.
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    let tag = tag.to_owned();
    let scan = move || sweep(|value| value == tag.as_bytes());
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(scan)),
        Err(_) => scan(),
    }
}

/// Kills every live agent tree of this process (each process group, then every process still
/// tagged by one of this process's agents) and refuses new agents from then on: for a command
/// that is stopping (`judge lab` on SIGINT, SIGTERM or SIGHUP). Returns how many trees were
/// live.
pub fn kill_all_agents() -> usize {
    let groups = {
        let mut live = live();
        live.closed = true;
        std::mem::take(&mut live.groups)
    };
    for pgid in groups.keys() {
        let _ = killpg(Pid::from_raw(*pgid), Signal::SIGKILL);
    }
    let prefix = own_prefix();
    sweep(|value| value.starts_with(prefix.as_bytes()));
    groups.len()
}

/// SIGKILLs every process (other than this one) whose environment has [`AGENT_TAG_VAR`] with a
/// value that `matches`; processes whose environment cannot be read (another user's) are left.
fn sweep(matches: impl Fn(&[u8]) -> bool) {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return;
    };
    let me = std::process::id();
    let key = format!("{AGENT_TAG_VAR}=");
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let tagged = environ
            .split(|b| *b == 0)
            .filter_map(|var| var.strip_prefix(key.as_bytes()))
            .any(&matches);
        if tagged && let Ok(pid) = i32::try_from(pid) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}
