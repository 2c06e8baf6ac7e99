//! The host's own faults are never a verdict about the program (design #27): a full
//! work disk, a work dir removed from under the judge, a read-only disk, a `proc_limit` above
//! what the kernel can give. Real disks (tmpfs mounts made full or read-only), real programs.

use crate::common::{judge_request, judge_with, statuses};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use verdict_contracts::JudgeStatus;
use verdict_testkit::submission::SubmissionJson;

const APLUSB_CPP: &str =
    "#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<std::endl;}\n";

fn aplusb(sub_id: &str, proc_limit: i64) -> Value {
    SubmissionJson::a_plus_b(sub_id)
        .category("host-faults")
        .program("cpp", "main.cpp", APLUSB_CPP)
        .test("1 2\n", "3\n")
        .limit("memory_limit", 262_144)
        .limit("file_limit", 1024)
        .limit("proc_limit", proc_limit)
        .build()
}

/// A tmpfs of `size_mb` MiB mounted on a fresh directory, unmounted on drop; `None` (with
/// `skipped:` printed) where this process cannot mount, a failure under
/// `VERDICT_REQUIRE_SANDBOX=1`.
pub(crate) struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    pub(crate) fn mount(size_mb: u64) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().expect("temp dir");
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size_mb}m"), "tmpfs"])
            .arg(dir.path())
            .status();
        match status {
            Ok(s) if s.success() => Some(Tmpfs { dir }),
            other => {
                verdict_testkit::skip_or_fail("a tmpfs cannot be mounted", format!("{other:?}"))
            }
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Remounts it read-only (`true`) or read-write.
    pub(crate) fn set_read_only(&self, read_only: bool) {
        let mode = if read_only {
            "remount,ro"
        } else {
            "remount,rw"
        };
        let status = std::process::Command::new("mount")
            .args(["-o", mode])
            .arg(self.path())
            .status()
            .expect("mount");
        assert!(status.success(), "remount {mode}");
    }

    /// Fills it with one file until the disk says no more, then gives back `room` bytes (what
    /// a program that stopped just under its own cap leaves); returns the file.
    fn fill(&self, room: u64) -> PathBuf {
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).expect("filler");
        let block = vec![0u8; 1 << 16];
        loop {
            match file.write(&block) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
                Err(e) => panic!("filling the tmpfs: {e}"),
            }
        }
        let len = file.metadata().expect("filler").len();
        file.set_len(len.saturating_sub(room))
            .expect("give room back");
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.path())
            .status();
    }
}

#[test]
fn a_full_work_disk_is_a_system_error_never_a_compilation_error() {
    let Some(disk) = Tmpfs::mount(128) else {
        return;
    };
    let work_dir = disk.path().join("work");
    let Some((judge, _dirs)) = judge_with(|c| verdict_scheduler::JudgeConfig { work_dir, ..c })
    else {
        return;
    };
    // A few KiB: the sources fit, the compiler's temporaries and the linker's output do not.
    let filler = disk.fill(16 << 10);
    let report = judge_request(&judge, &aplusb("full-disk-1", 8));
    assert_eq!(
        statuses(&report),
        [
            JudgeStatus::SystemError,
            JudgeStatus::DependencyNotSatisfied
        ],
        "a correct program judged on a full disk: {report:#?}"
    );
    let log = &report.results[0].error_log;
    assert!(log.contains("work disk is full"), "{log}");
    assert!(log.contains("retry"), "the client is told to retry: {log}");
    std::fs::remove_file(filler).expect("free the disk");
    let report = judge_request(&judge, &aplusb("full-disk-2", 8));
    assert_eq!(
        statuses(&report),
        [JudgeStatus::Accepted, JudgeStatus::Accepted],
        "the same program once the disk has room: {report:#?}"
    );
}

#[test]
fn a_removed_work_dir_is_made_again_and_counted() {
    let Some((judge, dirs)) = judge_with(|c| c) else {
        return;
    };
    let work_dir = dirs.path().join("work");
    std::fs::remove_dir_all(&work_dir).expect("remove the work dir");
    let report = judge_request(&judge, &aplusb("removed-work-1", 8));
    assert_eq!(
        statuses(&report),
        [JudgeStatus::Accepted, JudgeStatus::Accepted],
        "{report:#?}"
    );
    assert_eq!(judge.host_faults().work_dir_recreated, 1);
    let report = judge_request(&judge, &aplusb("removed-work-2", 8));
    assert_eq!(
        statuses(&report),
        [JudgeStatus::Accepted, JudgeStatus::Accepted]
    );
    assert_eq!(
        judge.host_faults().work_dir_recreated,
        1,
        "counted once per removal"
    );
}

#[test]
fn a_read_only_work_disk_is_a_system_error_naming_no_host_path() {
    let Some(disk) = Tmpfs::mount(64) else {
        return;
    };
    let work_dir = disk.path().join("work");
    let Some((judge, dirs)) = judge_with(|c| verdict_scheduler::JudgeConfig {
        work_dir: work_dir.clone(),
        ..c
    }) else {
        return;
    };
    disk.set_read_only(true);
    let report = judge_request(&judge, &aplusb("read-only-1", 8));
    disk.set_read_only(false);
    assert_eq!(
        statuses(&report),
        [JudgeStatus::SystemError, JudgeStatus::SystemError],
        "{report:#?}"
    );
    for result in &report.results {
        let log = &result.error_log;
        assert!(log.contains("<work>"), "{log}");
        for host in [disk.path(), dirs.path()] {
            assert!(
                !log.contains(&host.display().to_string()),
                "the client reads no host path: {log}"
            );
        }
    }
}

#[test]
fn a_proc_limit_above_the_kernels_pid_max_is_clamped_not_a_system_error() {
    let Some((judge, _dirs)) = judge_with(|c| c) else {
        return;
    };
    let pid_max: i64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1 << 22);
    // Above pid_max and above the 2^22 the kernel's pids.max takes at most.
    let report = judge_request(&judge, &aplusb("pid-max-1", (pid_max + 1).max(1 << 23)));
    assert_eq!(
        statuses(&report),
        [JudgeStatus::Accepted, JudgeStatus::Accepted],
        "{report:#?}"
    );
}
