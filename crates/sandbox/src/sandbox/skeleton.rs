//! The skeleton's mark: what a full build of the skeleton verified, so that the next
//! [`crate::Sandbox::new`] (a one-shot `judge sandbox` makes one per process) checks it with
//! three `lstat`s and one small read instead of ~40 system calls (a `mkdir` and a `stat` per
//! directory, an `lstat` per `/dev` node, a `readlink` per link, an `lstat` per toolchain dir
//! on both sides).
//!
//! The mark (`<state_dir>/root.plan`, outside the skeleton so that writing it changes nothing
//! it describes) holds the toolchain dirs it was made for, the identity of the skeleton dir,
//! of its `dev` dir and of the host directories holding the toolchain dirs (device, inode,
//! type and mode, owner, modification and change times, from `lstat`), and the binds the full
//! build planned. It is used only when all of that is still the same:
//! - Anything made, removed, renamed or replaced in the skeleton's top level or in its `dev`
//!   (a `/dev` node swapped for another device, a link retargeted, a mount point made a
//!   symlink, the `dev` dir itself replaced) changes that dir's modification time; a `chmod` or
//!   `chown` of either dir changes its change time and mode or owner; the skeleton dir swapped
//!   for another changes the inode. A toolchain dir made, removed or turned into a symlink
//!   changes its host parent's modification time, and so the plan.
//! - What the times cannot show is a change in the same clock tick as the identity was read
//!   (file times come from a coarse clock). A mark is therefore written only when the clock
//!   had passed every recorded time *before* the identity was read, and only if the identity
//!   read again after the full build is the same: every change after the first read has a
//!   later time than any recorded one.
//! - A crash leaves no mark for a half-made skeleton: the mark is written after the full build
//!   checked everything, to a temporary name and renamed over the old one.
//! - The mark itself must be a regular file (not followed if a link) owned by this uid and
//!   writable by nobody else; else it is ignored (the full build runs, and replaces it).
//!
//! Not covered, as before this mark: the mode of a `/dev` node (a `chmod` of the node changes
//! neither dir). Only root can change it (the nodes and dirs are root's, 0755, and the box sees
//! the skeleton read-only), and a mode cannot turn a node into another device; nor can it add a
//! device, which takes a new entry in `dev`.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The skeleton's identity as it was read, to compare with a mark or to write into one.
pub(super) struct Identity {
    /// The mark's text up to the plan: version, toolchain dirs, one line per checked dir.
    text: Vec<u8>,
    /// The latest modification or change time in it (`tv_sec`, `tv_nsec`).
    latest: (i64, i64),
}

/// Where the mark of `skeleton` lives (beside it, in the state dir).
pub(super) fn mark_path(skeleton: &Path) -> PathBuf {
    skeleton.with_extension("plan")
}

/// The directories whose identity the mark records: the skeleton, its `dev`, and the host
/// parents of the toolchain dirs (in order, once each).
fn checked_dirs(skeleton: &Path, toolchain_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = vec![skeleton.to_path_buf(), skeleton.join("dev")];
    for d in toolchain_dirs {
        let parent = d.parent().unwrap_or(Path::new("/")).to_path_buf();
        if !dirs.contains(&parent) {
            dirs.push(parent);
        }
    }
    dirs
}

/// Reads the identity of the skeleton (`None` when a checked dir is missing).
pub(super) fn identity(skeleton: &Path, toolchain_dirs: &[PathBuf]) -> Option<Identity> {
    let mut text = b"verdict skeleton 1\n".to_vec();
    for d in toolchain_dirs {
        line(&mut text, b"dir ", d);
    }
    let mut latest = (0, 0);
    for d in checked_dirs(skeleton, toolchain_dirs) {
        let m = d.symlink_metadata().ok()?;
        line(&mut text, b"stat ", &d);
        let mtime = (m.mtime(), m.mtime_nsec());
        let ctime = (m.ctime(), m.ctime_nsec());
        latest = latest.max(mtime).max(ctime);
        text.extend_from_slice(
            format!(
                " {} {} {:o} {} {} {}.{} {}.{}\n",
                m.dev(),
                m.ino(),
                m.mode(),
                m.uid(),
                m.gid(),
                mtime.0,
                mtime.1,
                ctime.0,
                ctime.1
            )
            .as_bytes(),
        );
    }
    Some(Identity { text, latest })
}

fn line(text: &mut Vec<u8>, tag: &[u8], path: &Path) {
    text.extend_from_slice(tag);
    text.extend_from_slice(path.as_os_str().as_bytes());
    text.push(b'\n');
}

/// The binds of a valid mark for `now` (the skeleton's identity read now), or `None`: no
/// mark, not this uid's, or made for another skeleton, other toolchain dirs or an identity
/// that changed since.
pub(super) fn check(skeleton: &Path, now: &Identity) -> Option<Vec<PathBuf>> {
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(mark_path(skeleton))
        .ok()?;
    let m = f.metadata().ok()?;
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if !m.file_type().is_file() || m.uid() != euid || m.mode() & 0o022 != 0 {
        return None;
    }
    let mut text = Vec::with_capacity(m.len() as usize + 1);
    f.read_to_end(&mut text).ok()?;
    let plan = text.strip_prefix(now.text.as_slice())?;
    plan.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.strip_prefix(b"bind ")
                .map(|p| PathBuf::from(OsStr::from_bytes(p)))
        })
        .collect()
}

/// The file-time clock now (`tv_sec`, `tv_nsec`), read before the identity a mark is made of.
pub(super) fn clock() -> (i64, i64) {
    let t = crate::boxfs::file_clock_now();
    (t.tv_sec, t.tv_nsec)
}

/// Writes the mark of a skeleton a full build just checked: `before` is its identity read
/// (at `clock_before`) before that build, `after` read after it; `binds` is the plan. Nothing
/// is written when the two differ or the clock had not passed every recorded time (see the
/// module doc); failing to write is not an error (the next sandbox builds in full again).
pub(super) fn record(
    skeleton: &Path,
    clock_before: (i64, i64),
    before: &Identity,
    after: &Identity,
    binds: &[PathBuf],
) {
    if before.text != after.text || clock_before <= after.latest {
        return;
    }
    let mut text = after.text.clone();
    for b in binds {
        line(&mut text, b"bind ", b);
    }
    let mark = mark_path(skeleton);
    let tmp = mark.with_extension(format!("plan.{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_CLOEXEC)
        .open(&tmp)
        .and_then(|mut f| f.write_all(&text))
        .and_then(|()| std::fs::rename(&tmp, &mark));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        tracing::debug!(error = %e, mark = %mark.display(), "cannot write the skeleton's mark");
    }
}
