//! The rlimit-only fallback: works, limits what it can, and says so in every outcome.

use crate::Limit::*;
use crate::TestBox;
use std::path::PathBuf;
use std::sync::OnceLock;
use verdict_sandbox::{IsolationLevel, Sandbox, SandboxConfig};

fn fallback() -> Option<&'static Sandbox> {
    crate::sandbox()?;
    static SB: OnceLock<Sandbox> = OnceLock::new();
    Some(SB.get_or_init(|| {
        Sandbox::new(SandboxConfig {
            cgroup_mount: PathBuf::from("/nonexistent-cgroup-mount"),
            uid_base: 62_100,
            max_boxes: 4,
            ..SandboxConfig::default()
        })
        .expect("fallback sandbox")
    }))
}

#[test]
fn without_cgroups_the_sandbox_falls_back_and_says_so() {
    let Some(sb) = fallback() else { return };
    // Root without a cgroup has nothing else; an ordinary user keeps its namespaces.
    let want = match verdict_sandbox::rootless::privilege() {
        verdict_sandbox::rootless::Privilege::Root => IsolationLevel::RlimitOnly,
        _ => IsolationLevel::RootlessNamespaces,
    };
    assert_eq!(sb.isolation(), want);
    let strict = Sandbox::new(SandboxConfig {
        cgroup_mount: PathBuf::from("/nonexistent-cgroup-mount"),
        require_isolation: true,
        ..SandboxConfig::default()
    });
    assert!(matches!(
        strict,
        Err(verdict_sandbox::SandboxError::IsolationUnavailable(_))
    ));
    let b = TestBox::new();
    let o = b.run_aplusb(sb, "20 22\n");
    assert_eq!(o.isolation, want);
    assert_eq!(b.stdout(), "42\n");
}

#[test]
fn fallback_contains_a_fork_bomb_and_kills_daemons() {
    let Some(sb) = fallback() else { return };
    let b = TestBox::new();
    let o = b.run_fixture(sb, "forkbomb", &[], &[Processes(16), WallTimeMs(500)]);
    assert!(o.limit_hit.is_some(), "{o:?}");
    crate::assert_the_daemon_dies_with_its_box(sb, &b);
}

#[test]
fn fallback_measures_cpu_from_rusage() {
    let Some(sb) = fallback() else { return };
    let b = TestBox::new();
    let o = b.run_fixture(sb, "busy", &["300"], &[]);
    crate::assert_cpu_time_within(&o, 280..=330);
}
