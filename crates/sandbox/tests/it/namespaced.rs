//! Namespaces without a cgroup (`rootless-namespaces`): an ordinary user on a host that gives it
//! no delegated cgroup-v2 subtree (this cgroup-v1 host, or a v2 host without delegation). The
//! hostile suite runs again, in a copy of this binary started as `nobody`, under that level.

use crate::sandbox;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

/// The hostile tests that hold under this level too (the others read cgroups or the box uids).
const HOSTILE: &[&str] = &[
    "hostile::fork_bomb_under_a_process_limit_is_contained_and_killed",
    "hostile::a_file_stopped_at_the_output_cap_is_an_output_limit_even_if_sigxfsz_is_ignored",
    "hostile::writing_past_the_output_limit_is_an_output_limit",
    "hostile::personality_read_implies_exec_is_refused_and_harmless_personas_allowed",
    "hostile::tcp_to_loopback_and_to_a_public_address_fails",
    "hostile::host_secrets_and_other_boxes_are_unreadable",
    "hostile::the_supervisors_command_line_and_other_processes_are_invisible",
    "hostile::writing_outside_the_box_fails_and_inside_works",
    "hostile::a_setsid_daemon_that_outlives_its_parent_is_killed",
    "hostile::kill_minus_one_leaves_the_host_untouched",
    "hostile::io_uring_keyctl_unshare_vsock_and_ptrace_are_refused",
    "hostile::closing_stdout_is_harmless",
    "hostile::a_huge_argv_and_env_get_through",
    "hostile::a_symlink_planted_as_an_output_name_is_not_followed_by_the_host",
    "hostile::an_existing_output_file_is_emptied_and_a_hard_linked_one_replaced",
    "namespaced::inside::a_fork_bomb_never_takes_more_than_its_process_limit",
    "namespaced::inside::cpu_is_measured_from_the_whole_box_and_limited_by_rlimit_cpu",
];

/// The uid the suite runs as (`nobody`).
const NOBODY: u32 = 65534;

#[test]
fn the_hostile_suite_holds_for_an_ordinary_user_without_a_cgroup() {
    // As root with full isolation only (the suite's own prerequisite); the copy runs the tests.
    let Some(_) = sandbox() else { return };
    if verdict_sandbox::rootless::privilege() != verdict_sandbox::rootless::Privilege::Root {
        println!("skipped: starting the suite as another user needs root");
        return;
    }
    // A copy of this binary where `nobody` can run it, whatever the checkout's path allows.
    let dir = tempfile::Builder::new()
        .prefix("verdict-namespaced-")
        .tempdir()
        .expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let exe = dir.path().join("suite");
    std::fs::copy(std::env::current_exe().expect("current_exe"), &exe).expect("copy");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // (util-linux's setpriv: the groups dropped too, which std cannot do yet.)
    let out = Command::new("setpriv")
        .args([
            format!("--reuid={NOBODY}"),
            format!("--regid={NOBODY}"),
            "--clear-groups".into(),
        ])
        .arg(&exe)
        .args(HOSTILE)
        .args(["--exact", "--test-threads=2"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/tmp")
        .env("VERDICT_REQUIRE_SANDBOX", "1")
        .env("VERDICT_EXPECT_ISOLATION", "rootless-namespaces")
        .current_dir("/")
        .output()
        .expect("run the suite as nobody");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the suite failed as nobody");
    // Every test ran (a name that matched nothing would pass silently).
    let want = format!("{} passed; 0 failed", HOSTILE.len());
    assert!(stdout.contains(&want), "not every test ran: want {want}");
}

/// Limits that hold under every level, run in this suite's own run and again in the copy above
/// (where [`sandbox`] is the `rootless-namespaces` one, its level checked there).
mod inside {
    use crate::Limit::*;

    use crate::boxed;
    use verdict_sandbox::{ExitKind, LimitHit};

    #[test]
    fn a_fork_bomb_never_takes_more_than_its_process_limit() {
        let Some((sb, b)) = boxed() else { return };
        let o = b.run_fixture(sb, "forkbomb", &[], &[Processes(16), WallTimeMs(1000)]);
        assert!(o.limit_hit.is_some(), "{o:?}");
        // The host's process count never moved by more than the box's limit and this suite's
        // other tests: a fork bomb without a limit fills pid_max (32768 here) in well under
        // the second it runs.
        let o = b.run_fixture(sb, "aplusb", &[], &[]);
        assert_eq!(o.exit, ExitKind::Exited(3), "{o:?}");
    }

    #[test]
    fn cpu_is_measured_from_the_whole_box_and_limited_by_rlimit_cpu() {
        let Some((sb, b)) = boxed() else { return };
        let o = b.run_fixture(sb, "busy", &["300"], &[]);
        crate::assert_cpu_time_within(&o, 280..=400);
        // Killed at its wall limit: its CPU time still counted (the init reaps the box). It
        // spins to 200 ms of CPU and then waits, so what it used does not depend on how
        // loaded the host is.
        let o = b.run_fixture(sb, "busy", &["200", "hold"], &[WallTimeMs(3000)]);
        assert_eq!(o.limit_hit, Some(LimitHit::WallTime), "{o:?}");
        // (A starved emulated guest reached its wall limit at 195 ms once: lost time would
        // read near 0.)
        assert!(
            o.cpu_time_ms >= 150,
            "the killed box's CPU time was lost: {o:?}"
        );
        // A CPU limit is RLIMIT_CPU's, in whole seconds above it (docs/sandbox.md).
        let o = b.run_fixture(sb, "busy", &[], &[CpuTimeMs(300), WallTimeMs(10_000)]);
        assert_eq!(o.limit_hit, Some(LimitHit::CpuTime), "{o:?}");
        assert_eq!(o.isolation, sb.isolation());
    }
}
