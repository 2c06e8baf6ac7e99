//! The directories tests run in, handed from one finished test to the next test of the *same*
//! submission instead of being removed and made again.
//!
//! A test's directory holds its box (bind-mounted as the program's `/box`) and the files its
//! standard output and error go to. Making and removing those two directories and two files
//! for every test was the largest cost a test paid outside the sandbox on this project's ext4
//! (no journal, mounted with `discard`): each new inode is searched for past every inode the
//! group freed in the last minutes, and each freed directory block is discarded synchronously
//! (docs/speed.md, "Third pass").
//!
//! A directory is passed on only when it holds nothing but `box`, `stdout` and `stderr`, and
//! the executor ([`Executor::reset_box`]) could empty the box back to what a fresh one is; the
//! two files are truncated. Anything else (a random test's generated data, a checker's files,
//! a box with extended attributes) sends the directory to removal as before. Nothing crosses
//! submissions: the free list belongs to one submission's run and its directories go with the
//! submission's work directory.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use verdict_scripts::Executor;

/// The entries a passed-on test directory may hold.
const BOX: &str = "box";
const CAPTURES: [&str; 2] = ["stdout", "stderr"];

/// One submission's finished test directories, emptied and ready for its next test.
#[derive(Debug, Default)]
pub(crate) struct TestDirs {
    free: Mutex<Vec<PathBuf>>,
}

impl TestDirs {
    /// A finished test's emptied directory, when one is free.
    pub fn take(&self) -> Option<PathBuf> {
        self.free.lock().ok()?.pop()
    }

    /// Empties `dir` for the next test and keeps it, or gives it back (to be removed) when it
    /// holds more than a test's directory does or could not be emptied.
    pub fn give_back(&self, dir: PathBuf, executor: &dyn Executor) -> Result<(), PathBuf> {
        match empty_for_next_test(&dir, executor) {
            Ok(true) => match self.free.lock() {
                Ok(mut free) => {
                    free.push(dir);
                    Ok(())
                }
                Err(_) => Err(dir),
            },
            Ok(false) => Err(dir),
            Err(err) => {
                tracing::debug!(dir = %dir.display(), %err, "test dir not reused");
                Err(dir)
            }
        }
    }
}

/// Empties a finished test's directory: `Ok(true)` when it now holds an empty box and empty
/// captures, as a fresh directory holds nothing at all (the run makes what is missing).
fn empty_for_next_test(dir: &Path, executor: &dyn Executor) -> std::io::Result<bool> {
    let mut captures = Vec::new();
    let mut boxed = None;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let name = entry.file_name();
        if name == BOX && kind.is_dir() {
            boxed = Some(entry.path());
        } else if CAPTURES.iter().any(|c| name == *c) && kind.is_file() {
            captures.push(entry.path());
        } else {
            return Ok(false);
        }
    }
    if let Some(box_dir) = boxed
        && !executor
            .reset_box(&box_dir)
            .map_err(std::io::Error::other)?
    {
        return Ok(false);
    }
    for capture in captures {
        std::fs::File::options()
            .write(true)
            .truncate(true)
            .open(capture)?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fake executor: its boxes are emptied by the trait's own `reset_box`.
    fn executor() -> verdict_scripts::exec::fake::FakeExecutor {
        verdict_scripts::exec::fake::FakeExecutor::default()
    }

    fn test_dir(root: &Path) -> PathBuf {
        let dir = root.join("task1");
        std::fs::create_dir_all(dir.join("box/sub")).expect("mkdir");
        std::fs::write(dir.join("box/left.txt"), "state").expect("write");
        std::fs::write(dir.join("box/sub/deep"), "state").expect("write");
        std::os::unix::fs::symlink("/etc/passwd", dir.join("box/link")).expect("symlink");
        std::fs::write(dir.join("stdout"), "out").expect("write");
        std::fs::write(dir.join("stderr"), "err").expect("write");
        dir
    }

    #[test]
    fn a_finished_test_dir_is_passed_on_empty() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = test_dir(root.path());
        let dirs = TestDirs::default();
        assert_eq!(dirs.give_back(dir.clone(), &executor()), Ok(()));
        assert_eq!(dirs.take(), Some(dir.clone()));
        assert_eq!(dirs.take(), None);
        let boxed: Vec<_> = std::fs::read_dir(dir.join("box")).expect("box").collect();
        assert!(boxed.is_empty(), "{boxed:?}");
        for capture in CAPTURES {
            assert_eq!(std::fs::read(dir.join(capture)).expect("capture"), b"");
        }
        assert!(
            Path::new("/etc/passwd").exists(),
            "a symlink is removed, not followed"
        );
    }

    #[test]
    fn a_test_dir_holding_more_than_a_test_makes_is_not_passed_on() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = test_dir(root.path());
        std::fs::write(dir.join("generated.in"), "1 2").expect("write");
        let dirs = TestDirs::default();
        assert_eq!(dirs.give_back(dir.clone(), &executor()), Err(dir));
        assert_eq!(dirs.take(), None);
    }

    #[test]
    fn a_box_its_program_chmodded_is_passed_on_with_its_mode_restored() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().expect("tempdir");
        let dir = test_dir(root.path());
        std::fs::set_permissions(dir.join("box"), std::fs::Permissions::from_mode(0o1700))
            .expect("chmod");
        let dirs = TestDirs::default();
        assert_eq!(dirs.give_back(dir.clone(), &executor()), Ok(()));
        let mode = std::fs::metadata(dir.join("box"))
            .expect("stat")
            .permissions();
        assert_eq!(mode.mode() & 0o7777, 0o777);
    }
}
