//! The skeleton's mark: a sandbox takes the skeleton an earlier one checked without checking
//! it again, and any change to it since is found and repaired.

use crate::{isolated_config, with_run_state};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;
use verdict_sandbox::{Sandbox, SandboxConfig};

/// Makes sandboxes until one leaves the skeleton's mark (the first ones make the skeleton or
/// run in the clock tick of their changes: no mark then); returns the mark's inode.
fn marked(cfg: &SandboxConfig, mark: &Path) -> u64 {
    for _ in 0..200 {
        drop(Sandbox::new(cfg.clone()).expect("sandbox"));
        if let Ok(m) = mark.symlink_metadata() {
            return m.ino();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("no mark at {}", mark.display());
}

fn null_is_null(dev: &Path) -> bool {
    dev.join("null").symlink_metadata().is_ok_and(|m| {
        m.file_type().is_char_device()
            && m.rdev() == libc::makedev(1, 3)
            && m.mode() & 0o777 == 0o666
    })
}

#[test]
fn a_skeleton_changed_after_its_mark_is_checked_and_repaired() {
    let config = isolated_config("verdict-sandbox-tests-skeleton", 62_340, 1);
    let Some((state, cfg)) = with_run_state("skeleton", config) else {
        return;
    };
    let root = state.path().join("root");
    let dev = root.join("dev");
    let mark = state.path().join("root.plan");

    // Unchanged: the mark is taken as it is (a full check would write it anew).
    let ino = marked(&cfg, &mark);
    drop(Sandbox::new(cfg.clone()).expect("sandbox"));
    assert_eq!(
        mark.symlink_metadata().expect("mark").ino(),
        ino,
        "mark rewritten"
    );

    // A /dev node swapped for another device.
    std::fs::remove_file(dev.join("null")).expect("rm null");
    let c = std::ffi::CString::new(dev.join("null").into_os_string().into_encoded_bytes())
        .expect("path");
    // SAFETY: mknod with a NUL-terminated path.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 8)) };
    assert_eq!(made, 0, "mknod");
    drop(Sandbox::new(cfg.clone()).expect("sandbox"));
    assert!(null_is_null(&dev), "dev/null not repaired");

    // A /dev link retargeted.
    marked(&cfg, &mark);
    std::fs::remove_file(dev.join("fd")).expect("rm fd");
    std::os::unix::fs::symlink("/etc", dev.join("fd")).expect("symlink");
    drop(Sandbox::new(cfg.clone()).expect("sandbox"));
    assert_eq!(
        std::fs::read_link(dev.join("fd")).expect("fd link"),
        Path::new("/proc/self/fd")
    );

    // The skeleton's top made writable by all, and /dev given to another owner.
    marked(&cfg, &mark);
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    std::os::unix::fs::lchown(&dev, Some(62_341), Some(62_341)).expect("chown");
    drop(Sandbox::new(cfg.clone()).expect("sandbox"));
    let m = root.symlink_metadata().expect("root");
    assert_eq!(m.mode() & 0o7777, 0o755, "root's mode not repaired");
    let m = dev.symlink_metadata().expect("dev");
    assert_eq!((m.uid(), m.gid()), (0, 0), "dev's owner not repaired");

    // A mark writable by others is not trusted: a change no identity shows (a node's mode,
    // which only root can make) is repaired by the full check then.
    marked(&cfg, &mark);
    std::fs::set_permissions(dev.join("zero"), std::fs::Permissions::from_mode(0o600))
        .expect("chmod zero");
    std::fs::set_permissions(&mark, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    drop(Sandbox::new(cfg.clone()).expect("sandbox"));
    let m = dev.join("zero").symlink_metadata().expect("zero");
    assert_eq!(m.mode() & 0o777, 0o666, "dev/zero not repaired");
    assert!(null_is_null(&dev));
}
