//! Putting files into a box: every name is checked to stay inside it.

use crate::ScriptError;
use std::path::{Component, Path, PathBuf};

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

/// Text for a log: lossy UTF-8, cut to `max` bytes on a character boundary with a note.
pub fn log_text(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.len() <= max {
        return text.into_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n... ({} more bytes)", &text[..end], text.len() - end)
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
        assert!(cut.starts_with("éé"));
        assert!(cut.contains("more bytes"));
    }
}
