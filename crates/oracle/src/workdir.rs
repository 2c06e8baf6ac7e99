//! The oracle's temporary directories and the files it puts into and reads back from a box.

use super::OracleError;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use verdict_contracts::Asset;
use verdict_contracts::oracle::check_file_name;

/// A temporary directory holding a box (`box/`, the program's working directory) and the
/// oracle's own files beside it (`io/`: stdin, stdout, stderr captures); removed on drop.
#[derive(Debug)]
pub(crate) struct WorkDir {
    dir: tempfile::TempDir,
}

impl WorkDir {
    /// Makes a fresh work directory under `parent` (the system's temp dir when `None`).
    pub(crate) fn new(parent: Option<&Path>) -> Result<Self, OracleError> {
        let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let dir = tempfile::Builder::new()
            .prefix("verdict-oracle-")
            .tempdir_in(&parent)
            .map_err(|e| OracleError::io("create temp dir in", &parent, e))?;
        for sub in ["box", "io"] {
            let path = dir.path().join(sub);
            std::fs::create_dir(&path).map_err(|e| OracleError::io("create", &path, e))?;
        }
        open_dir(&dir.path().join("box"))?;
        Ok(WorkDir { dir })
    }

    /// The box: the sandboxed program's working directory.
    pub(crate) fn box_dir(&self) -> PathBuf {
        self.dir.path().join("box")
    }

    /// A file of the oracle's own, outside the box.
    pub(crate) fn io(&self, name: &str) -> PathBuf {
        self.dir.path().join("io").join(name)
    }
}

fn open_dir(path: &Path) -> Result<(), OracleError> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777))
        .map_err(|e| OracleError::io("chmod", path, e))
}

/// Writes `content` to `box_dir/name` (a checked relative name), readable and writable by the
/// box's user, creating parent directories.
pub(crate) fn write_box_file(
    box_dir: &Path,
    name: &str,
    content: &[u8],
) -> Result<(), OracleError> {
    check_file_name(name).map_err(|m| OracleError::suite("source_files", m))?;
    let path = box_dir.join(name);
    let mut dir = path.parent();
    let mut made = Vec::new();
    while let Some(d) = dir {
        if d == box_dir || d.exists() {
            break;
        }
        made.push(d.to_path_buf());
        dir = d.parent();
    }
    for d in made.iter().rev() {
        std::fs::create_dir(d).map_err(|e| OracleError::io("create", d, e))?;
        open_dir(d)?;
    }
    std::fs::write(&path, content).map_err(|e| OracleError::io("write", &path, e))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666))
        .map_err(|e| OracleError::io("chmod", &path, e))
}

/// Writes the deliverable's source files into the box (only inline `text` assets are supported).
pub(crate) fn write_sources(box_dir: &Path, sources: &[Asset]) -> Result<(), OracleError> {
    for (i, asset) in sources.iter().enumerate() {
        let Some(text) = &asset.text else {
            return Err(OracleError::suite(
                &format!("source_files[{i}]"),
                "only text assets (inline `text`) are supported by the oracle",
            ));
        };
        write_box_file(box_dir, &asset.name, text.as_bytes())?;
    }
    Ok(())
}

/// Reads at most `max` bytes of a host file the oracle owns (a missing file reads as empty);
/// the flag says whether the file was longer.
pub(crate) fn read_capped(path: &Path, max: u64) -> Result<(Vec<u8>, bool), OracleError> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), false)),
        Err(e) => return Err(OracleError::io("open", path, e)),
    };
    let mut out = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| OracleError::io("read", path, e))?;
    let cut = out.len() as u64 > max;
    out.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    Ok((out, cut))
}

/// Text of captured bytes: lossy UTF-8, with a note when the capture was cut.
pub(crate) fn text_of((bytes, cut): (Vec<u8>, bool)) -> String {
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if cut {
        text.push_str("\n[... cut: larger than the capture limit]");
    }
    text
}

/// Regular files under `box_dir` (relative names, sorted), skipping `skip`; symlinks and other
/// special files are never followed; at most `limit` names.
pub(crate) fn list_files(box_dir: &Path, skip: &dyn Fn(&str) -> bool, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(box_dir.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
            if kind.is_dir() {
                stack.push((entry.path(), format!("{name}/")));
            } else if kind.is_file() && !skip(&name) {
                out.push(name);
            }
        }
    }
    out.sort();
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_go_inside_the_box_only() {
        let work = WorkDir::new(None).unwrap();
        let b = work.box_dir();
        write_box_file(&b, "d/é.txt", b"x").unwrap();
        assert_eq!(std::fs::read(b.join("d/é.txt")).unwrap(), b"x");
        assert!(write_box_file(&b, "../escape", b"x").is_err());
        assert!(write_box_file(&b, "/abs", b"x").is_err());
        assert_eq!(list_files(&b, &|_| false, 10), ["d/é.txt"]);
        assert!(list_files(&b, &|n| n.starts_with("d/"), 10).is_empty());
    }

    #[test]
    fn captures_are_capped() {
        let work = WorkDir::new(None).unwrap();
        let p = work.io("out");
        std::fs::write(&p, "abcdef").unwrap();
        assert_eq!(read_capped(&p, 3).unwrap(), (b"abc".to_vec(), true));
        assert_eq!(read_capped(&p, 6).unwrap(), (b"abcdef".to_vec(), false));
        assert_eq!(
            read_capped(&work.io("missing"), 6).unwrap(),
            (Vec::new(), false)
        );
        assert!(text_of((b"abc".to_vec(), true)).starts_with("abc\n[... cut"));
    }
}
