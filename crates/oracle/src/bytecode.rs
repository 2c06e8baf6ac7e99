//! The python function harness compiled once per interpreter, so that a suite's interpreter
//! runs its bytecode instead of compiling ~270 lines at every start (~1.2 ms of a ~9 ms run:
//! docs/oracle.md, "Start-up").
//!
//! Trust: the bytecode runs as the harness, whose records the oracle believes, so only the
//! judge makes it. The interpreter, outside any box and isolated (`-I -S`: no environment
//! variables, no `site`, no `.pth` code), compiles the harness source it reads on stdin and
//! writes the `.pyc` on stdout; no box ever writes where it is kept. It is kept in memory and,
//! as root, in `<state_dir>/oracle/` (the sandbox's state dir, root's alone like the skeleton
//! root beside it), read back only from a directory and file owned by this user that nobody
//! else may write. The key is the harness source, the interpreter command and the interpreter
//! file's identity (device, inode, size, modification time): an upgraded interpreter is a new
//! key, so its magic number always matches. The interpreter is found as the toolchain probes
//! find it ([`verdict_scripts::toolchain::find_program`]). Whatever fails (no such interpreter, a
//! python without `MAGIC_NUMBER`, a directory that is not ours) and the suite runs the source.

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Compiles the source read on stdin as the harness file named by `sys.argv[1]` and writes the
/// `.pyc` (magic number, 12 bytes of flags and source stamp, which running a `.pyc` file
/// directly skips, then the marshalled code) on stdout.
const COMPILE: &str = "import sys, marshal\n\
code = compile(sys.stdin.buffer.read(), sys.argv[1], 'exec', dont_inherit=True)\n\
magic = sys.modules['_frozen_importlib_external'].MAGIC_NUMBER\n\
sys.stdout.buffer.write(magic + bytes(12) + marshal.dumps(code))\n";

/// The longest a compilation may take before it is given up (the source runs instead).
const COMPILE_TIMEOUT: Duration = Duration::from_secs(10);

/// What this process compiled or read back, by key (`None`: the source runs).
type Compiled = HashMap<String, Option<Arc<[u8]>>>;

/// The harness compiled by `command`'s interpreter, with `file` (the harness's name in the
/// box) as its code's file name; `state_dir` is the executor's (`None`: kept in memory only).
/// `None`: run the source.
pub(crate) fn harness(
    command: &[String],
    source: &str,
    file: &str,
    state_dir: Option<&Path>,
) -> Option<Arc<[u8]>> {
    let interpreter = verdict_scripts::toolchain::find_program(command.first()?)?;
    let meta = fs::metadata(&interpreter).ok()?;
    let key = key(command, source, file, &interpreter, &meta);
    static MEMORY: OnceLock<Mutex<Compiled>> = OnceLock::new();
    // Held while compiling: concurrent suites of a new interpreter wait for one compilation.
    let mut memory = MEMORY
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(known) = memory.get(&key) {
        return known.clone();
    }
    let dir = state_dir.and_then(kept_dir);
    let made = dir.as_deref().and_then(|d| read_kept(d, &key)).or_else(|| {
        let made: Arc<[u8]> = compile(&interpreter, command, source, file)?.into();
        if let Some(d) = &dir {
            keep(d, &key, &made);
        }
        Some(made)
    });
    memory.insert(key, made.clone());
    made
}

fn key(
    command: &[String],
    source: &str,
    file: &str,
    interpreter: &Path,
    meta: &fs::Metadata,
) -> String {
    let mut h = blake3::Hasher::new();
    for part in command.iter().map(String::as_bytes).chain([
        source.as_bytes(),
        file.as_bytes(),
        interpreter.as_os_str().as_encoded_bytes(),
    ]) {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    for n in [
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime() as u64,
        meta.mtime_nsec() as u64,
    ] {
        h.update(&n.to_le_bytes());
    }
    h.finalize().to_hex()[..32].to_owned()
}

/// `<state_dir>/oracle`, made if missing, when this process is root and the directory is its
/// own and writable by nobody else; `None` otherwise (kept in memory only).
fn kept_dir(state_dir: &Path) -> Option<PathBuf> {
    let euid = euid();
    if euid != 0 {
        return None;
    }
    let dir = state_dir.join("oracle");
    let _ = fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir);
    fs::symlink_metadata(&dir)
        .is_ok_and(|m| m.is_dir() && ours(&m, euid))
        .then_some(dir)
}

/// This process's effective uid.
fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Owned by `euid` and writable by nobody else.
fn ours(meta: &fs::Metadata, euid: u32) -> bool {
    meta.uid() == euid && meta.mode() & 0o022 == 0
}

fn kept_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("harness-{key}.pyc"))
}

/// The kept `.pyc` for `key` in `dir`, if it is a regular file of ours that looks like one.
fn read_kept(dir: &Path, key: &str) -> Option<Arc<[u8]>> {
    let mut f = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
        .open(kept_path(dir, key))
        .ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() || !ours(&meta, euid()) {
        return None;
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).ok()?;
    looks_like_pyc(&bytes).then(|| bytes.into())
}

/// Keeps `bytes` for `key` in `dir` (written aside, then renamed: never seen half-written).
fn keep(dir: &Path, key: &str, bytes: &[u8]) {
    let aside = dir.join(format!(".harness-{key}.{}.tmp", std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
        .open(&aside)
        .and_then(|mut f| f.write_all(bytes));
    if written
        .and_then(|()| fs::rename(&aside, kept_path(dir, key)))
        .is_err()
    {
        let _ = fs::remove_file(&aside);
    }
}

/// A CPython `.pyc`: a magic number ending in `\r\n`, 12 more header bytes, then code.
fn looks_like_pyc(bytes: &[u8]) -> bool {
    bytes.len() > 16 && &bytes[2..4] == b"\r\n"
}

/// Compiles `source` with `interpreter` (run with `command`'s arguments, isolated).
fn compile(interpreter: &Path, command: &[String], source: &str, file: &str) -> Option<Vec<u8>> {
    let mut child = Command::new(interpreter)
        .args(&command[1..])
        .args(["-I", "-S", "-c", COMPILE, file])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let mut stdout = child.stdout.take()?;
    // The source and the code fit in the pipes' buffers many times over, but read on a
    // thread anyway: nothing here can wait on the other end.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let wrote = stdin.write_all(source.as_bytes());
    drop(stdin);
    let status = verdict_scripts::toolchain::wait_within(&mut child, COMPILE_TIMEOUT);
    let out = reader.join().ok()?.ok()?;
    (wrote.is_ok() && status?.success() && looks_like_pyc(&out)).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn what_is_not_an_interpreter_compiles_nothing() {
        let command = ["false".to_owned()];
        assert_eq!(
            compile(Path::new("/bin/false"), &command, "x = 1\n", "h.py"),
            None
        );
        assert!(verdict_scripts::toolchain::find_program("no-such-interpreter-here").is_none());
    }

    #[test]
    fn a_kept_file_is_read_back_only_when_ours_and_written_by_nobody_else() {
        let dir = tempfile::tempdir().expect("dir");
        let pyc = b"\xa7\r\r\n0123456789abcdefcode".to_vec();
        keep(dir.path(), "k", &pyc);
        let path = kept_path(dir.path(), "k");
        assert_eq!(
            fs::metadata(&path).expect("kept").permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(read_kept(dir.path(), "k").as_deref(), Some(&pyc[..]));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o620)).expect("chmod");
        assert_eq!(read_kept(dir.path(), "k"), None, "group-writable");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).expect("chmod");
        if euid() == 0 {
            std::os::unix::fs::chown(&path, Some(65534), None).expect("chown");
            assert_eq!(read_kept(dir.path(), "k"), None, "another user's");
            std::os::unix::fs::chown(&path, Some(0), None).expect("chown");
        }
        fs::write(&path, b"not a pyc").expect("write");
        assert_eq!(read_kept(dir.path(), "k"), None, "not a .pyc");
        let link = kept_path(dir.path(), "l");
        std::os::unix::fs::symlink(&path, &link).expect("symlink");
        assert_eq!(read_kept(dir.path(), "l"), None, "a symlink");
    }
}
