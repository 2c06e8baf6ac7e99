//! `memory_used` is the program's own memory, never the page cache or tmpfs pages of the files
//! it writes (design #24), with the box dir on disk and on tmpfs; a program whose
//! own memory passes the limit is still a memory limit, with evidence.

use crate::fixtures::prog;
use crate::{box_spec, run, sandbox};
use std::path::PathBuf;
use verdict_sandbox::{ExitKind, LimitHit};

const MIB: u64 = 1 << 20;

/// A box dir on a tmpfs mounted for it (unmounted on drop).
struct TmpfsBox {
    mount: tempfile::TempDir,
}

impl TmpfsBox {
    fn new() -> TmpfsBox {
        let mount = tempfile::tempdir().expect("tempdir");
        // mount(2), not mount(8): that one refuses a uid other than 0 even in a user namespace
        // (the rootless runs).
        let p =
            std::ffi::CString::new(mount.path().as_os_str().as_encoded_bytes()).expect("cstring");
        // SAFETY: mount with NUL-terminated strings.
        let r = unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                p.as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                c"size=1g,mode=0755".as_ptr().cast(),
            )
        };
        assert_eq!(r, 0, "mount a tmpfs: {}", std::io::Error::last_os_error());
        TmpfsBox { mount }
    }
}

impl Drop for TmpfsBox {
    fn drop(&mut self) {
        let p = std::ffi::CString::new(self.mount.path().as_os_str().as_encoded_bytes())
            .expect("cstring");
        // SAFETY: umount2 with a NUL-terminated path.
        unsafe { libc::umount2(p.as_ptr(), libc::MNT_DETACH) };
    }
}

/// A box dir on disk when there is one: the cargo target dir or `/var/tmp`, not `/tmp`, which
/// may be a tmpfs (where the binary runs elsewhere, e.g. in the cgroup-v2 guest, the first
/// that exists).
fn disk_box() -> tempfile::TempDir {
    let base = [env!("CARGO_TARGET_TMPDIR"), "/var/tmp"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    tempfile::Builder::new()
        .prefix("verdict-box-")
        .tempdir_in(base)
        .expect("tempdir")
}

/// Runs `program args` under a 64 MiB memory limit and a 200 MiB output limit in a disk box
/// and in a tmpfs box; returns each outcome with its box's stdout.
fn on_disk_and_tmpfs(
    program: &str,
    args: &[&str],
) -> Vec<(&'static str, verdict_sandbox::SandboxOutcome, String)> {
    let Some(sb) = sandbox() else {
        return Vec::new();
    };
    let disk = disk_box();
    let tmpfs = TmpfsBox::new();
    let dir = tmpfs.mount.path().join("box");
    std::fs::create_dir(&dir).expect("box dir");
    let mut outcomes = Vec::new();
    for (kind, dir) in [("disk", disk.path()), ("tmpfs", dir.as_path())] {
        let mut s = box_spec(dir, &prog(program), args);
        s.limits.memory_kb = Some(64 * 1024);
        s.limits.output_bytes = Some(200 * MIB);
        let o = run(sb, &s);
        let out = std::fs::read_to_string(dir.join("out.txt")).unwrap_or_default();
        println!("{kind}: memory_used {} KiB", o.peak_memory_kb);
        outcomes.push((kind, o, out));
    }
    outcomes
}

#[test]
fn printing_150_mib_under_a_64_mib_limit_is_not_memory() {
    for (kind, o, out) in on_disk_and_tmpfs("writer", &["157286400"]) {
        assert_eq!(o.exit, ExitKind::Exited(0), "{kind}: {o:?}");
        assert_eq!(o.limit_hit, None, "{kind}: {o:?}");
        assert_eq!(out.len(), 150 << 20, "{kind}");
        assert!(o.peak_memory_kb < 16 * 1024, "{kind}: {o:?}");
    }
}

#[test]
fn a_100_mib_scratch_file_under_a_64_mib_limit_is_not_memory() {
    for (kind, o, out) in on_disk_and_tmpfs("scratch", &["104857600"]) {
        assert_eq!(o.exit, ExitKind::Exited(0), "{kind}: {o:?}");
        assert_eq!(o.limit_hit, None, "{kind}: {o:?}");
        assert_eq!(out, "42\n", "{kind}");
        assert!(o.peak_memory_kb < 16 * 1024, "{kind}: {o:?}");
    }
}

#[test]
fn own_memory_over_the_limit_is_a_memory_limit_on_disk_and_tmpfs() {
    for (kind, o, _) in on_disk_and_tmpfs("touch", &["256"]) {
        assert_eq!(o.limit_hit, Some(LimitHit::Memory), "{kind}: {o:?}");
        assert!(o.evidence.is_some(), "{kind}: {o:?}");
        assert!(o.peak_memory_kb >= 60 * 1024, "{kind}: {o:?}");
    }
}
