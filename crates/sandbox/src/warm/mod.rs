//! A warm interpreter per slot: a Python template started once in the slot's box and forked
//! for each run into a fresh box (as Android's zygote does for apps), so that a run of a short
//! Python script pays a `fork`, not an interpreter's start.
//!
//! The template is the slot's second zygote: made like the first (the same namespaces, private
//! root, network namespace and seccomp filter), it exec's `python3` with `template.py` in place
//! of its order loop, stays root in the box and runs only trusted code (its imports and the
//! compiled script). For each run the supervisor does what it does for a zygote's run (a fresh
//! run cgroup with the run's limits, the box dir as a detached mount tree, the stdio files) and
//! sends an [`Order`] with those descriptors. The template's child makes the same box a
//! zygote's program gets (fresh mount and IPC namespaces and `/tmp`, the box at `/box`, the
//! run cgroups, the box uid and gid, `no_new_privs`, the program's seccomp filter) before any
//! of the run's code; the template then kills and reaps whatever the run left and answers with
//! the zygote's [`crate::zygote::Reply`]. Limits and measurement stay the supervisor's: on a
//! limit it kills the run cgroup's processes, and the template survives for the next run.
//! `docs/sandbox.md` ("A warm interpreter") has the why and what differs for the program.

use crate::SandboxError;
use crate::child::RunMount;
use crate::child::{MSG_EXITED, MSG_SETUP_FAILED};
use crate::seccomp::Insn;
use serde::Serialize;
use std::ffi::{CString, OsString};
use std::hash::{Hash, Hasher};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;

/// The template's source (run with `python3 <flags> -c`).
const TEMPLATE: &str = include_str!("template.py");

/// The stages a template's child reports a failure at, by index.
pub(crate) const STAGES: &[&str] = &[
    "unshare",
    "tmp",
    "mount",
    "chdir",
    "cgroup",
    "stdio",
    "rlimit",
    "ids",
    "no_new_privs",
    "seccomp",
];

/// How a run of a Python script may be served by a warm interpreter: its interpreter's flags
/// and the script itself, which the template compiles once and each run executes as
/// `__main__` (`sys.argv` then holds `script_path` and the run's arguments after it).
///
/// The run's [`crate::SandboxSpec`] is the cold run's: `program` the interpreter and `args`
/// `flags`, `script_path`, then the script's arguments. Where the sandbox has no warm
/// interpreter (see [`crate::Sandbox::run_warm`]), the spec is run as it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WarmPython {
    /// The interpreter's options before the script (`-s`, `-B`, ...): the template starts with
    /// them, so the modules they load at start (the site module) are loaded once, in it.
    pub flags: Vec<OsString>,
    /// The script's path in the box, relative to it (its `__file__` is under `/box`).
    pub script_path: String,
    /// The script's source.
    pub script: String,
    /// Modules the template imports once (those the script imports, so that a run finds them
    /// loaded).
    pub preload: Vec<String>,
}

impl WarmPython {
    /// The arguments of `args` after the interpreter's flags and the script, when `args` is
    /// a cold run of this script.
    pub(crate) fn script_args<'a>(&self, args: &'a [OsString]) -> Option<&'a [OsString]> {
        let rest = args.strip_prefix(self.flags.as_slice())?;
        let (script, rest) = rest.split_first()?;
        (script.as_bytes() == self.script_path.as_bytes()).then_some(rest)
    }

    /// The identity of a template: runs with the same interpreter, script and environment
    /// (the template starts with it: its encoding and locale) share one.
    pub(crate) fn key(&self, interpreter: &CString, envp: &[CString]) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        interpreter.hash(&mut hasher);
        envp.hash(&mut hasher);
        self.hash(&mut hasher);
        hasher.finish()
    }

    /// The template's argv: the interpreter, its flags, `-c` the template, its configuration,
    /// the script and the modules to preload.
    pub(crate) fn template_argv(
        &self,
        interpreter: &CString,
        run_filter: &[Insn],
        tmp_options: &std::ffi::CStr,
    ) -> Result<Vec<CString>, SandboxError> {
        let filter: String = run_filter
            .iter()
            .flat_map(|i| {
                let mut b = [0u8; 8];
                b[..2].copy_from_slice(&i.code.to_ne_bytes());
                b[2] = i.jt;
                b[3] = i.jf;
                b[4..].copy_from_slice(&i.k.to_ne_bytes());
                b
            })
            .map(|b| format!("{b:02x}"))
            .collect();
        let config = serde_json::json!({
            "filter": filter,
            "tmp_options": tmp_options.to_string_lossy(),
            "script_path": self.script_path,
            "stages": STAGES,
            "ready": crate::zygote::MSG_READY,
            "exited": MSG_EXITED,
            "setup_failed": MSG_SETUP_FAILED,
        });
        let arg = |s: &[u8]| {
            CString::new(s).map_err(|_| SandboxError::BadPath {
                path: self.script_path.clone().into(),
                reason: "the warm interpreter's arguments hold a NUL byte".into(),
            })
        };
        let mut argv = vec![interpreter.clone()];
        for flag in &self.flags {
            argv.push(arg(flag.as_bytes())?);
        }
        argv.push(arg(b"-c")?);
        argv.push(arg(TEMPLATE.as_bytes())?);
        argv.push(arg(config.to_string().as_bytes())?);
        argv.push(arg(self.script.as_bytes())?);
        argv.push(arg(self.preload.join(",").as_bytes())?);
        Ok(argv)
    }
}

/// One run for a template: what a zygote's order holds, as JSON beside its descriptors.
#[derive(Debug, Serialize)]
pub(crate) struct Order {
    /// `sys.argv`: the script's path, then its arguments.
    argv: Vec<String>,
    /// The environment, as pairs.
    env: Vec<(String, String)>,
    /// The box uid and gid (none: the template's own).
    ids: Option<(u32, u32)>,
    /// `(resource, soft, hard)`.
    rlimits: Vec<(u32, u64, u64)>,
    /// `["attach", target, descriptor index]` or `["mkdir", path]`.
    mounts: Vec<serde_json::Value>,
    /// Descriptor indexes of the run cgroups' `cgroup.procs`.
    cgroups: Vec<usize>,
}

/// What a prepared run gives an [`Order`].
pub(crate) struct OrderParts<'a> {
    pub script_path: &'a str,
    pub script_args: &'a [OsString],
    pub envp: &'a [CString],
    pub ids: Option<(u32, u32)>,
    pub rlimits: &'a [(u32, libc::rlimit)],
    pub stdio: [RawFd; 3],
    pub cgroup_procs: &'a [RawFd],
    pub mounts: &'a [RunMount],
}

impl Order {
    /// The order's JSON and its descriptors: stdio, the cgroups', then the mount trees.
    pub(crate) fn encode(parts: &OrderParts<'_>) -> (Vec<u8>, Vec<RawFd>) {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let mut fds: Vec<RawFd> = parts.stdio.to_vec();
        let mut cgroups = Vec::new();
        for &fd in parts.cgroup_procs {
            cgroups.push(fds.len());
            fds.push(fd);
        }
        let mut mounts = Vec::new();
        for m in parts.mounts {
            match m {
                RunMount::Attach { tree, target } => {
                    mounts.push(serde_json::json!([
                        "attach",
                        text(target.as_bytes()),
                        fds.len()
                    ]));
                    fds.push(tree.as_raw_fd());
                }
                RunMount::Mkdir { path } => {
                    mounts.push(serde_json::json!(["mkdir", text(path.as_bytes())]));
                }
            }
        }
        let order = Order {
            argv: std::iter::once(parts.script_path.to_owned())
                .chain(parts.script_args.iter().map(|a| text(a.as_bytes())))
                .collect(),
            env: parts
                .envp
                .iter()
                .filter_map(|kv| {
                    let kv = text(kv.as_bytes());
                    kv.split_once('=')
                        .map(|(k, v)| (k.to_owned(), v.to_owned()))
                })
                .collect(),
            ids: parts.ids,
            rlimits: parts
                .rlimits
                .iter()
                .map(|(res, lim)| (*res, lim.rlim_cur, lim.rlim_max))
                .collect(),
            mounts,
            cgroups,
        };
        let bytes = serde_json::to_vec(&order).unwrap_or_default();
        (bytes, fds)
    }
}

/// A stage of a template's child, for an error.
pub(crate) fn describe_stage(stage: u32) -> String {
    let name = STAGES.get(stage as usize).copied().unwrap_or("unknown");
    format!("the warm interpreter's run ({name})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warm() -> WarmPython {
        WarmPython {
            flags: vec!["-s".into()],
            script_path: ".verdict/h.py".into(),
            script: "print(1)".into(),
            preload: vec![],
        }
    }

    #[test]
    fn only_a_cold_run_of_the_same_script_is_served_warm() {
        let w = warm();
        let args: Vec<OsString> = vec!["-s".into(), ".verdict/h.py".into(), "a".into()];
        assert_eq!(w.script_args(&args), Some(&args[2..]));
        let other: Vec<OsString> = vec!["-s".into(), "other.py".into()];
        assert_eq!(w.script_args(&other), None);
        let flags: Vec<OsString> = vec!["-I".into(), ".verdict/h.py".into()];
        assert_eq!(w.script_args(&flags), None);
    }

    #[test]
    fn the_template_knows_every_stage_its_child_names() {
        for stage in STAGES {
            assert!(
                TEMPLATE.contains(&format!("\"{stage}\"")),
                "template.py never names {stage}"
            );
        }
    }

    #[test]
    fn an_order_numbers_its_descriptors_stdio_cgroups_then_trees() {
        let rl = libc::rlimit {
            rlim_cur: 5,
            rlim_max: u64::MAX,
        };
        let env = [CString::new("A=b=c").unwrap()];
        let (bytes, fds) = Order::encode(&OrderParts {
            script_path: ".verdict/h.py",
            script_args: &["x".into()],
            envp: &env,
            ids: Some((1, 2)),
            rlimits: &[(7, rl)],
            stdio: [10, 11, 12],
            cgroup_procs: &[20, 21],
            mounts: &[RunMount::Mkdir {
                path: CString::new("/tmp/a").unwrap(),
            }],
        });
        assert_eq!(fds, vec![10, 11, 12, 20, 21]);
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["argv"], serde_json::json!([".verdict/h.py", "x"]));
        assert_eq!(v["env"], serde_json::json!([["A", "b=c"]]));
        assert_eq!(v["cgroups"], serde_json::json!([3, 4]));
        assert_eq!(v["rlimits"], serde_json::json!([[7, 5, u64::MAX]]));
        assert_eq!(v["mounts"], serde_json::json!([["mkdir", "/tmp/a"]]));
    }
}
