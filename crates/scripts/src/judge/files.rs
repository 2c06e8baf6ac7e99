//! Putting files into a box: every name is checked to stay inside it.

use crate::ScriptError;
use std::path::{Component, Path, PathBuf};
use verdict_contracts::STDOUT_ASSET;

/// The files of one test on the host: its standard input, input files and expected outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestFiles {
    /// The file fed as standard input (`testdata.in`), if any.
    pub stdin: Option<PathBuf>,
    /// Every input file, placed in the box under its name (`testdata.in` included).
    pub inputs: Vec<BoxFile>,
    /// Expected outputs: `testdata.out` is compared with stdout, others with the files the
    /// program wrote.
    pub expected: Vec<(String, PathBuf)>,
}

impl TestFiles {
    /// Whether an expected output is compared with standard output.
    pub fn is_stdout(name: &str) -> bool {
        name == STDOUT_ASSET
    }
}

/// A host file to place into a box under a relative name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxFile {
    /// The relative path inside the box.
    pub name: String,
    /// The host file holding the content.
    pub source: PathBuf,
}

/// The path of `name` under `dir`, or an error when the name is absolute or has `..`.
pub fn join_inside(dir: &Path, name: &str) -> Result<PathBuf, ScriptError> {
    let rel = Path::new(name);
    let clean = !name.is_empty()
        && !name.contains('\0')
        && rel
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !clean {
        return Err(ScriptError::BadName(name.to_owned()));
    }
    Ok(dir.join(rel))
}

/// Places each file into `dir` under its name: a hard link when possible (the judge's own files
/// are root-owned and read-only for boxes), else a copy.
pub fn place_files(dir: &Path, files: &[BoxFile]) -> Result<(), ScriptError> {
    for file in files {
        let path = join_inside(dir, &file.name)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ScriptError::io("create", parent, e))?;
        }
        link_or_copy(&file.source, &path)?;
    }
    Ok(())
}

/// Makes a finished build immutable for boxes: owned by root (when we are root) and without
/// write permission, so a program cannot change the build that later tests share through hard
/// links. Symbolic links are left alone (they are never linked into boxes).
pub fn seal_tree(dir: &Path) -> Result<(), ScriptError> {
    use std::os::unix::fs::PermissionsExt;
    let entries = std::fs::read_dir(dir).map_err(|e| ScriptError::io("read", dir, e))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            seal_tree(&path)?;
        }
        let _ = std::os::unix::fs::lchown(&path, Some(0), Some(0));
        let mode = entry
            .metadata()
            .map_err(|e| ScriptError::io("stat", &path, e))?
            .permissions()
            .mode();
        let sealed = if kind.is_dir() {
            0o755
        } else {
            mode & 0o555 | 0o444
        };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(sealed))
            .map_err(|e| ScriptError::io("chmod", &path, e))?;
    }
    Ok(())
}

/// Links a sealed directory tree into `to` (hard links, or copies across file systems).
///
/// Hard links matter beyond speed: copying an executable opens it for writing, and a sandbox
/// cloned meanwhile by another thread would inherit that descriptor until its own exec, so the
/// copy could not be executed ("Text file busy").
pub fn link_tree(from: &Path, to: &Path) -> Result<(), ScriptError> {
    std::fs::create_dir_all(to).map_err(|e| ScriptError::io("create", to, e))?;
    let entries = std::fs::read_dir(from).map_err(|e| ScriptError::io("read", from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| ScriptError::io("read", from, e))?;
        let kind = entry
            .file_type()
            .map_err(|e| ScriptError::io("stat", entry.path(), e))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            link_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            link_or_copy(&entry.path(), &target)?;
        }
    }
    Ok(())
}

/// A hard link of `from` at `to`, or a copy when linking is impossible.
fn link_or_copy(from: &Path, to: &Path) -> Result<(), ScriptError> {
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).map_err(|e| ScriptError::io("copy", from, e))?;
    }
    Ok(())
}

/// Makes every directory under `dir` (and `dir`) writable by the box's user, so that compilers
/// and programs can write into the directories the judge created (e.g. Java package dirs).
pub fn open_up_dirs(dir: &Path) -> Result<(), ScriptError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777))
        .map_err(|e| ScriptError::io("chmod", dir, e))?;
    let entries = std::fs::read_dir(dir).map_err(|e| ScriptError::io("read", dir, e))?;
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            open_up_dirs(&entry.path())?;
        }
    }
    Ok(())
}

/// Reads at most `max` bytes of a host file the judge wrote (stdout/stderr captures).
pub fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, ScriptError> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ScriptError::io("open", path, e)),
    };
    let mut out = Vec::new();
    file.take(max)
        .read_to_end(&mut out)
        .map_err(|e| ScriptError::io("read", path, e))?;
    Ok(out)
}

/// The most of a failed comparator's (validator's, interactor's) stderr read for its message:
/// its end, where a crash says why.
pub(crate) const STDERR_TAIL: u64 = 4096;

/// The last `max` bytes of the file at `path` (none when it does not exist), and whether it
/// had more before them.
pub fn read_tail(path: &Path, max: u64) -> Result<(Vec<u8>, bool), ScriptError> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), false)),
        Err(e) => return Err(ScriptError::io("open", path, e)),
    };
    let len = file
        .metadata()
        .map_err(|e| ScriptError::io("read", path, e))?
        .len();
    let start = len.saturating_sub(max);
    file.seek(SeekFrom::Start(start))
        .map_err(|e| ScriptError::io("read", path, e))?;
    let mut out = Vec::new();
    file.take(max)
        .read_to_end(&mut out)
        .map_err(|e| ScriptError::io("read", path, e))?;
    Ok((out, start > 0))
}

/// A capture read up to a cap, and how long the file really was (so a cut can say how much it
/// left out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    /// The first bytes of the file, at most the cap.
    pub bytes: Vec<u8>,
    /// The file's whole length in bytes (at least `bytes.len()`).
    pub total: u64,
}

impl std::ops::Deref for Capture {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Capture {
    /// The capture as log text of at most `max` bytes, saying how many bytes were left out.
    pub fn excerpt(&self, max: usize) -> String {
        cut_text(&self.bytes, self.total, max)
    }
}

/// Reads at most `max` bytes of a host file the judge wrote, and its whole length.
pub fn read_capture(path: &Path, max: u64) -> Result<Capture, ScriptError> {
    let bytes = read_capped(path, max)?;
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let total = total.max(bytes.len() as u64);
    Ok(Capture { bytes, total })
}

/// Text for a log: lossy UTF-8, cut to `max` bytes on a character boundary with a note saying
/// how many of the bytes were left out.
pub fn log_text(bytes: &[u8], max: usize) -> String {
    cut_text(bytes, bytes.len() as u64, max)
}

/// `bytes` (the start of something `total` bytes long) as text of at most `max` bytes, cut on
/// a character boundary, with `... (N more bytes not shown, T bytes in all)` when anything is left out.
pub fn cut_text(bytes: &[u8], total: u64, max: usize) -> String {
    let total = total.max(bytes.len() as u64);
    if bytes.len() <= max && total == bytes.len() as u64 {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut end = max.min(bytes.len());
    // Back up over at most three continuation bytes to a UTF-8 boundary.
    let mut back = 0;
    while end > 0 && end < bytes.len() && back < 3 && bytes[end] & 0xC0 == 0x80 {
        end -= 1;
        back += 1;
    }
    if back == 3 && end < bytes.len() && bytes[end] & 0xC0 == 0x80 {
        end += 3; // not UTF-8 here: cut at the byte limit
    }
    let left_out = total - end as u64;
    format!(
        "{}\n... ({left_out} more bytes not shown, {total} bytes in all)",
        String::from_utf8_lossy(&bytes[..end])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_the_box_are_refused() {
        let dir = Path::new("/box");
        for bad in ["/etc/passwd", "../x", "a/../../x", "", "a\0b"] {
            assert!(join_inside(dir, bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            join_inside(dir, "cn/org/Main.java").unwrap(),
            Path::new("/box/cn/org/Main.java")
        );
    }

    #[test]
    fn log_text_is_cut_on_a_char_boundary() {
        let s = "é".repeat(10);
        let cut = log_text(s.as_bytes(), 5);
        assert!(cut.starts_with("éé\n"), "{cut}");
        assert!(
            cut.ends_with("(16 more bytes not shown, 20 bytes in all)"),
            "{cut}"
        );
    }

    #[test]
    fn a_cut_capture_counts_what_the_file_had_not_what_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, vec![b'x'; 503_000]).unwrap();
        let capture = read_capture(&path, 16 * 1024 + 1).unwrap();
        assert_eq!(capture.len(), 16 * 1024 + 1);
        assert_eq!(capture.total, 503_000);
        let text = capture.excerpt(16 * 1024);
        assert!(
            text.ends_with(&format!(
                "... ({} more bytes not shown, 503000 bytes in all)",
                503_000 - 16 * 1024
            )),
            "{}",
            &text[16 * 1024..]
        );
        // Nothing cut: no note.
        std::fs::write(&path, b"short").unwrap();
        assert_eq!(read_capture(&path, 100).unwrap().excerpt(100), "short");
        assert_eq!(
            read_capture(&dir.path().join("missing"), 10).unwrap(),
            Capture::default()
        );
    }
}
