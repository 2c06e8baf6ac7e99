//! `judge doctor`: what isolation this host gives the sandbox, as which user, and how to get
//! what it lacks (docs/sandbox.md, "Without root").

use super::config::print_json;
use serde::Serialize;
use std::process::ExitCode;
use verdict_sandbox::rootless::{self, Entered, Privilege};
use verdict_sandbox::{IsolationLevel, Sandbox, SandboxConfig};

/// Arguments of `judge doctor`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One thing the sandbox checks, as found here.
#[derive(Debug, Serialize)]
struct Check {
    /// What is checked.
    name: &'static str,
    /// Whether this host has it.
    ok: bool,
    /// What was found.
    found: String,
    /// How to get it, when missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

/// The whole answer.
#[derive(Debug, Serialize)]
struct Report {
    /// The isolation a sandbox started now gets.
    isolation: IsolationLevel,
    /// Why it is not full isolation (empty when it is).
    lacks: Vec<String>,
    /// Whether python function suites run from a warm interpreter per slot (docs/sandbox.md,
    /// "A warm interpreter"): full isolation with long-lived zygotes and a uid per box.
    warm_interpreters: bool,
    checks: Vec<Check>,
}

/// Probes the host as `judge run` would (after [`rootless::enter_user_namespace`], which
/// `main` calls) and prints what it offers and how to get the rest.
#[allow(clippy::print_stdout)]
pub fn run(args: Args, entered: &Entered) -> anyhow::Result<ExitCode> {
    let privilege = rootless::privilege();
    let config = SandboxConfig::default();
    let mut checks = Vec::new();
    let euid = rootless::euid();
    checks.push(Check {
        name: "privilege",
        ok: privilege.namespaces(),
        found: match (&privilege, entered) {
            (Privilege::Root, _) => "root".into(),
            (Privilege::UserNamespace { .. }, Entered::UserNamespace { .. }) => {
                format!("uid {euid}, in a user namespace of its own (rootless)")
            }
            (Privilege::UserNamespace { .. }, _) => {
                format!("uid {euid}, privileged in a user namespace (a rootless container)")
            }
            (Privilege::None, Entered::Refused(why)) => {
                format!("uid {euid}, no user namespace: {why}")
            }
            (Privilege::None, _) => format!("uid {euid}, no user namespace"),
        },
        fix: (!privilege.namespaces()).then(|| {
            "allow user namespaces for ordinary users (sysctl user.max_user_namespaces > 0; \
             Debian: kernel.unprivileged_userns_clone=1; Ubuntu 24.04: \
             kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile), or run as root"
                .into()
        }),
    });
    let box_uids = privilege.box_uids(config.uid_base, config.max_boxes);
    checks.push(Check {
        name: "a uid per box",
        ok: box_uids,
        found: match (&privilege, entered) {
            (Privilege::Root, _) => format!("uids {}.. (root)", config.uid_base),
            (_, _) if box_uids => format!(
                "uids {}..{} mapped from subordinate ids",
                config.uid_base,
                config.uid_base + config.max_boxes
            ),
            (
                _,
                Entered::UserNamespace {
                    why_not: Some(w), ..
                },
            ) => {
                format!("every box runs as uid {euid}: {w}")
            }
            _ => format!("every box runs as uid {euid}"),
        },
        fix: (!box_uids).then(rootless::box_ids_advice),
    });
    let cgroup = cgroup_check(&privilege);
    checks.push(cgroup);
    let seccomp = std::path::Path::new("/proc/sys/kernel/seccomp/actions_avail").exists();
    checks.push(Check {
        name: "seccomp",
        ok: seccomp,
        found: if seccomp { "available" } else { "missing" }.into(),
        fix: (!seccomp).then(|| "a kernel built with CONFIG_SECCOMP_FILTER".into()),
    });
    checks.push(rlimit_check(&config));
    let (isolation, lacks, warm_interpreters) = match Sandbox::new(config) {
        Ok(sb) => (
            sb.isolation(),
            sb.lacks().to_vec(),
            sb.has_warm_interpreters(),
        ),
        Err(e) => (IsolationLevel::RlimitOnly, vec![e.to_string()], false),
    };
    let report = Report {
        isolation,
        lacks,
        warm_interpreters,
        checks,
    };
    if args.json {
        print_json(&report, true)?;
        return Ok(ExitCode::SUCCESS);
    }
    let level = serde_json::to_value(report.isolation)?;
    println!("isolation: {}", level.as_str().unwrap_or("?"));
    for why in &report.lacks {
        println!("  lacks: {why}");
    }
    println!(
        "warm interpreters: {}",
        match report.warm_interpreters {
            true => "yes (python function suites fork from a template per slot)",
            false => "no (each python function suite starts its interpreter)",
        }
    );
    for c in &report.checks {
        println!(
            "{:<4} {:<14} {}",
            if c.ok { "ok" } else { "no" },
            c.name,
            c.found
        );
        if let Some(fix) = &c.fix {
            println!("     {:<14} to get it: {fix}", "");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The hard limits a box's limits are clamped to (without `CAP_SYS_RESOURCE` in the host's user
/// namespace the kernel refuses to raise them); ok when none would lower a box's defaults.
fn rlimit_check(config: &SandboxConfig) -> Check {
    if rootless::may_raise_hard_limits() {
        return Check {
            name: "rlimits",
            ok: true,
            found: "any limit (CAP_SYS_RESOURCE)".into(),
            fix: None,
        };
    }
    let mut ok = true;
    let found: Vec<String> = rootless::hard_limits()
        .into_iter()
        .map(|(name, hard)| {
            // Open files are never unlimited: enough for a box's default is enough.
            ok &= match name {
                "RLIMIT_NOFILE" => hard.is_none_or(|h| h >= u64::from(config.default_open_files)),
                _ => hard.is_none(),
            };
            match hard {
                None => format!("{name} unlimited"),
                Some(h) => format!("{name} {h}"),
            }
        })
        .collect();
    Check {
        name: "rlimits",
        ok,
        found: format!(
            "hard limits {} (a box's limit above one is clamped to it, and its outcome's \
             rlimits_clamped says so)",
            found.join(", ")
        ),
        fix: (!ok).then(|| {
            "raise the judge's hard limits before it starts (LimitNOFILE=, LimitSTACK=, \
             LimitFSIZE=, LimitCPU= in its systemd unit; ulimit -H; /etc/security/limits.conf), \
             or run it as root"
                .into()
        }),
    }
}

/// Where this process's cgroup is and whether the sandbox may make its run cgroups there.
fn cgroup_check(privilege: &Privilege) -> Check {
    let v2 = std::fs::read_to_string("/proc/self/mounts")
        .unwrap_or_default()
        .lines()
        .any(|l| l.split_whitespace().nth(1) == Some("/sys/fs/cgroup") && l.contains(" cgroup2 "));
    let fix_v2 = "run it where the memory and pids controllers are delegated to it: as root, a \
                  systemd unit with Delegate=yes (deploy/judge-server.service); as a user, \
                  systemd-run --user --scope -p Delegate=yes judge ..., or a cgroup directory \
                  an administrator chowned to this user with +memory +pids in its parent's \
                  cgroup.subtree_control";
    if !v2 && *privilege == Privilege::Root {
        return Check {
            name: "cgroup",
            ok: true,
            found: "cgroup v1 (root)".into(),
            fix: None,
        };
    }
    if !v2 {
        return Check {
            name: "cgroup",
            ok: false,
            found: "cgroup v1 (root only; without root the sandbox needs cgroup v2)".into(),
            fix: Some(format!(
                "run as root, or boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2), then {fix_v2}"
            )),
        };
    }
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let rel = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .unwrap_or("/")
        .to_string();
    let dir = std::path::Path::new("/sys/fs/cgroup").join(rel.trim_start_matches('/'));
    let controllers = std::fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
    let has = |c: &str| controllers.split_whitespace().any(|x| x == c);
    // Opened for writing (nothing written): whether this user may move processes and enable
    // controllers there.
    let open_w = |f: &str| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join(f))
            .is_ok()
    };
    let writable = open_w("cgroup.procs") && open_w("cgroup.subtree_control");
    let ok = has("memory") && has("pids") && writable;
    Check {
        name: "cgroup",
        ok,
        found: format!(
            "cgroup v2, {} ({}; controllers: {})",
            dir.display(),
            if writable {
                "writable"
            } else {
                "not writable by this user"
            },
            controllers.trim()
        ),
        fix: (!ok).then(|| fix_v2.into()),
    }
}
