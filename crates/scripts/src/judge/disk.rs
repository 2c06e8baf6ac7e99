//! Room on the work disk (design #27): a compile or a run starts only with room to spare, and
//! one that failed while the disk was full is the host's failure (`System Error`, retryable),
//! never a verdict about the program.
//!
//! A box's writes are bounded by its output cap (each file by `RLIMIT_FSIZE`, the whole box
//! after the run), but several files under the cap, or several boxes at once, can still fill a
//! small disk. Then the next compiler's `ld` or the next program's `write` meets `ENOSPC`, and
//! its failure looks like `Compilation Error` or `Runtime Error`. The sandbox cannot tell that
//! failure from the program's own; the file system can: if the disk is short of room when a
//! step starts, or after a step that did not end cleanly, the step is the host's failure.

use crate::ScriptError;
use std::path::Path;

/// The free space (bytes) and inodes a step needs on its file system: the reserve below which a
/// step does not start, and a failed step is taken to have met a full disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskReserve {
    /// Bytes an unprivileged writer can still use.
    pub bytes: u64,
    /// Inodes an unprivileged writer can still use.
    pub inodes: u64,
}

impl Default for DiskReserve {
    fn default() -> Self {
        DiskReserve {
            bytes: 32 << 20,
            inodes: 256,
        }
    }
}

/// What the file system of a work directory has left for an unprivileged writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskRoom {
    /// Free bytes (`f_bavail * f_frsize`).
    pub bytes: u64,
    /// Free inodes (`f_favail`; `u64::MAX` where the file system does not count them).
    pub inodes: u64,
}

impl DiskRoom {
    /// Measures the file system holding `dir` (the nearest existing ancestor of it).
    pub fn of(dir: &Path) -> std::io::Result<DiskRoom> {
        let existing = dir
            .ancestors()
            .find(|a| a.exists())
            .unwrap_or_else(|| Path::new("/"));
        let st = nix::sys::statvfs::statvfs(existing).map_err(std::io::Error::from)?;
        let files = st.files() as u64;
        Ok(DiskRoom {
            bytes: (st.blocks_available() as u64).saturating_mul(st.fragment_size() as u64),
            // A file system that does not count inodes (btrfs, some tmpfs mounts) says 0 files.
            inodes: if files == 0 {
                u64::MAX
            } else {
                st.files_available() as u64
            },
        })
    }

    /// Whether this is less than `reserve` asks for.
    pub fn short_of(&self, reserve: &DiskReserve) -> bool {
        self.bytes < reserve.bytes || self.inodes < reserve.inodes
    }
}

/// `Err(ScriptError::DiskFull)` when the file system of `dir` is short of `reserve`; a file
/// system that cannot be measured is not held against the step.
pub fn check_room(
    dir: &Path,
    reserve: &DiskReserve,
    when: &'static str,
) -> Result<(), ScriptError> {
    match DiskRoom::of(dir) {
        Ok(room) if room.short_of(reserve) => {
            tracing::warn!(
                dir = %dir.display(),
                free_bytes = room.bytes,
                free_inodes = room.inodes,
                when,
                "the work disk is full"
            );
            Err(ScriptError::DiskFull {
                when,
                free_kb: room.bytes / 1024,
                free_inodes: room.inodes,
            })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disk_with_room_passes_and_an_impossible_reserve_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let nothing = DiskReserve {
            bytes: 0,
            inodes: 0,
        };
        assert!(check_room(dir.path(), &nothing, "before the run").is_ok());
        let everything = DiskReserve {
            bytes: u64::MAX,
            inodes: 0,
        };
        let err = check_room(dir.path(), &everything, "before the run").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("work disk is full"), "{text}");
        assert!(
            !text.contains(&dir.path().display().to_string()),
            "no host path in what a client reads: {text}"
        );
    }

    #[test]
    fn a_directory_not_made_yet_is_measured_by_its_parent() {
        let dir = tempfile::tempdir().unwrap();
        let room = DiskRoom::of(&dir.path().join("a/b/c")).unwrap();
        assert!(room.bytes > 0);
    }
}
