//! Host-side access to box directories that never follows a path the sandbox could have planted.
//!
//! Everything is resolved with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//! RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)` from a descriptor of the box directory, which is
//! itself opened with `O_NOFOLLOW`: a symlink planted by the program (say `output.txt ->
//! /etc/passwd`), a `..` or a mount crossing makes the call fail instead of reaching the host.

use crate::SandboxError;
use std::ffi::{CStr, CString};
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use crate::sys;

const RESOLVE: u64 = sys::RESOLVE_BENEATH
    | sys::RESOLVE_NO_SYMLINKS
    | sys::RESOLVE_NO_MAGICLINKS
    | sys::RESOLVE_NO_XDEV;

fn io_err(op: &'static str, path: &Path, source: std::io::Error) -> SandboxError {
    SandboxError::Io {
        op,
        path: path.to_owned(),
        source,
    }
}

fn cstr(path: &Path) -> Result<CString, SandboxError> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| SandboxError::BadPath {
        path: path.to_owned(),
        reason: "contains a NUL byte".into(),
    })
}

/// Checks that `rel` is a plain relative path (no root, no `..`).
pub(crate) fn check_relative(rel: &Path) -> Result<(), SandboxError> {
    let ok = !rel.as_os_str().is_empty()
        && rel
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if ok {
        Ok(())
    } else {
        Err(SandboxError::BadPath {
            path: rel.to_owned(),
            reason: "must be relative to the box without `..`".into(),
        })
    }
}

/// Opens the box directory itself (not following a symlink in its last component).
pub(crate) fn open_box(box_dir: &Path) -> Result<OwnedFd, SandboxError> {
    let c = cstr(box_dir)?;
    // SAFETY: c is a valid NUL-terminated path.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io_err(
            "open box dir",
            box_dir,
            std::io::Error::last_os_error(),
        ));
    }
    // SAFETY: fd is a freshly opened descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// openat2 beneath `dir` with no symlink following.
pub(crate) fn open_beneath(
    dir: RawFd,
    rel: &Path,
    flags: i32,
    mode: u32,
) -> std::io::Result<OwnedFd> {
    let c = CString::new(rel.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: c is NUL-terminated.
    let fd = unsafe { sys::openat2(dir, c.as_ptr(), flags | libc::O_CLOEXEC, mode, RESOLVE) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd is a freshly opened descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Opens a regular file of the box for reading, without following any symlink the sandboxed
/// program could have planted; FIFOs, devices and directories are refused.
pub fn open_box_file(box_dir: &Path, relative_name: &Path) -> Result<File, SandboxError> {
    check_relative(relative_name)?;
    let full = box_dir.join(relative_name);
    let dir = open_box(box_dir)?;
    let fd = open_beneath(
        dir.as_raw_fd(),
        relative_name,
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY,
        0,
    )
    .map_err(|e| io_err("open box file", &full, e))?;
    let file = File::from(fd);
    let meta = file
        .metadata()
        .map_err(|e| io_err("stat box file", &full, e))?;
    if !meta.file_type().is_file() {
        return Err(SandboxError::BadPath {
            path: full,
            reason: "not a regular file".into(),
        });
    }
    Ok(file)
}

/// Reads a regular file of the box (at most `max_bytes`, else [`SandboxError::FileTooLarge`]),
/// never following a symlink the sandboxed program could have planted.
pub fn read_box_file(
    box_dir: &Path,
    relative_name: &Path,
    max_bytes: u64,
) -> Result<Vec<u8>, SandboxError> {
    let file = open_box_file(box_dir, relative_name)?;
    let full = box_dir.join(relative_name);
    let mut buf = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| io_err("read box file", &full, e))?;
    if buf.len() as u64 > max_bytes {
        return Err(SandboxError::FileTooLarge {
            path: full,
            limit: max_bytes,
        });
    }
    Ok(buf)
}

/// Opens `name` beneath `pfd` for writing if it is a regular file with no other link, and
/// empties it: the same as a fresh file for the program, without the unlink and create that
/// cost a journal update each on ext4. Anything else (nothing there, a symlink, a FIFO, a
/// directory, a file also linked elsewhere) is `None`: the caller replaces it.
fn empty_existing_file(pfd: RawFd, name: &CString) -> Option<OwnedFd> {
    // O_NONBLOCK: a FIFO must not block the open (it is refused below anyway).
    let flags = libc::O_WRONLY | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW;
    // SAFETY: name is NUL-terminated; nothing is followed (RESOLVE_NO_SYMLINKS, O_NOFOLLOW).
    let fd = unsafe { sys::openat2(pfd, name.as_ptr(), flags | libc::O_CLOEXEC, 0, RESOLVE) };
    if fd < 0 {
        return None;
    }
    // SAFETY: fd is a freshly opened descriptor owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
    // SAFETY: stat is plain old data, filled by fstat on a descriptor we own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat writes into a live stat of the right type.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } < 0 {
        return None;
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || st.st_nlink != 1 {
        return None;
    }
    // SAFETY: fcntl on a descriptor we own (back to blocking writes).
    let ok = (st.st_size == 0 || truncate_to_empty(fd.as_raw_fd()).is_ok())
        && unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, 0) } == 0;
    ok.then_some(fd)
}

/// Empties the regular file open as `fd` for the program to write, as a new file would be.
///
/// On ext4 a truncation to 0 marks the file so that the next close of any descriptor of it
/// writes its data out at once (`auto_da_alloc`, meant for programs that rewrite a file in
/// place); the truncation after that frees the blocks it got, and a disk mounted with `discard`
/// discards them synchronously. A run's output file reused run after run paid both, 120-160 us
/// a run here (a loop of truncate, write 2 bytes, close: 140-186 us against 22-24 us). So the
/// mark is spent here, on a descriptor of our own opened and closed again (through
/// `/proc/self/fd`: the same file, whatever its path holds now), and the program's output
/// stays in the page cache like a new file's. Empty files are not truncated at all.
pub(crate) fn truncate_to_empty(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: ftruncate on a descriptor the caller owns.
    if unsafe { libc::ftruncate(fd, 0) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if let Ok(own) = CString::new(format!("/proc/self/fd/{fd}")) {
        // SAFETY: a NUL-terminated path; the descriptor is closed at once.
        let spent = unsafe { libc::open(own.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        if spent >= 0 {
            // SAFETY: spent was just opened here and is owned by nobody else.
            unsafe { libc::close(spent) };
        }
    }
    Ok(())
}

/// Creates (replacing whatever is there, symlink or hard link included) a file beneath `dir`
/// for the sandbox to write into; an existing regular file with a single link is emptied.
pub(crate) fn create_output_beneath(dir: RawFd, rel: &Path) -> std::io::Result<OwnedFd> {
    let (parent, name) = match (rel.parent(), rel.file_name()) {
        (Some(p), Some(n)) => (p, n),
        _ => return Err(std::io::Error::from_raw_os_error(libc::EINVAL)),
    };
    let parent_fd;
    let pfd = if parent.as_os_str().is_empty() {
        dir
    } else {
        parent_fd = open_beneath(dir, parent, libc::O_PATH | libc::O_DIRECTORY, 0)?;
        parent_fd.as_raw_fd()
    };
    let cname = CString::new(name.as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    if let Some(fd) = empty_existing_file(pfd, &cname) {
        return Ok(fd);
    }
    // SAFETY: cname is NUL-terminated; unlinkat never follows a symlink in the last component.
    let r = unsafe { libc::unlinkat(pfd, cname.as_ptr(), 0) };
    if r < 0 && sys::errno() != libc::ENOENT {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: cname is NUL-terminated.
    let fd = unsafe {
        libc::openat(
            pfd,
            cname.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o644 as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd is a freshly opened descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn remove_contents(dir: OwnedFd, path: &Path, dev: u64) -> Result<(), SandboxError> {
    let mut d = nix::dir::Dir::from_fd(dir).map_err(|e| io_err("read dir", path, e.into()))?;
    let dfd = d.as_raw_fd();
    let mut names: Vec<(CString, bool)> = Vec::new();
    for entry in d.iter() {
        let entry = entry.map_err(|e| io_err("read dir", path, e.into()))?;
        let name = entry.file_name();
        if name.to_bytes() == b"." || name.to_bytes() == b".." {
            continue;
        }
        let is_dir = matches!(entry.file_type(), Some(nix::dir::Type::Directory));
        names.push((name.to_owned(), is_dir));
    }
    for (name, is_dir) in names {
        let child = path.join(std::ffi::OsStr::from_bytes(name.to_bytes()));
        if is_dir {
            remove_dir_at(dfd, &name, &child, dev)?;
            continue;
        }
        // SAFETY: name is NUL-terminated; unlinkat removes a symlink itself, not its target.
        if unsafe { libc::unlinkat(dfd, name.as_ptr(), 0) } < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EISDIR) {
                return Err(io_err("remove file", &child, e));
            }
            // The type was unknown from readdir: a directory after all.
            remove_dir_at(dfd, &name, &child, dev)?;
        }
    }
    Ok(())
}

/// Empties and removes the directory `name` in `dfd` (`child` on the host), refusing one on
/// another device (a mount point inside the box) and never following a symlink.
fn remove_dir_at(dfd: RawFd, name: &CStr, child: &Path, dev: u64) -> Result<(), SandboxError> {
    // SAFETY: name is NUL-terminated; O_NOFOLLOW|O_DIRECTORY refuses a symlink.
    let fd = unsafe {
        libc::openat(
            dfd,
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd >= 0 {
        // SAFETY: fd is freshly opened and owned here.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        let st = nix::sys::stat::fstat(&owned).map_err(|e| io_err("stat", child, e.into()))?;
        if st.st_dev as u64 != dev {
            return Err(SandboxError::BadPath {
                path: child.to_owned(),
                reason: "a mount point inside the box".into(),
            });
        }
        remove_contents(owned, child, dev)?;
    }
    // SAFETY: name is NUL-terminated.
    if unsafe { libc::unlinkat(dfd, name.as_ptr(), libc::AT_REMOVEDIR) } < 0 {
        return Err(io_err("remove dir", child, std::io::Error::last_os_error()));
    }
    Ok(())
}

/// The time file timestamps are taken from (the kernel's coarse real-time clock), for
/// [`scan_written`].
pub(crate) fn file_clock_now() -> libc::timespec {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the live timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
    ts
}

/// The most directory entries [`scan_written`] looks at, and how deep it goes.
const SCAN_ENTRIES: usize = 4096;
const SCAN_DEPTH: usize = 8;

/// What the program wrote in its box dir, found by one walk after the run.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// A regular file modified during the run and longer than the cap: a file that reached
    /// `RLIMIT_FSIZE` (`cap + 1`), whose write failed with EFBIG even if the program ignored
    /// SIGXFSZ. Its path relative to the box and its size.
    pub capped: Option<(PathBuf, u64)>,
    /// Bytes allocated to the regular files modified during the run (on a tmpfs box dir, the
    /// pages its cgroup is charged for).
    pub bytes: u64,
}

/// The regular files already in a box dir when its run starts whose modification time is not
/// before `since` (placed by the caller in the clock tick the run starts in: the file clock is
/// coarse, so their time can equal `since`). [`scan_written`] does not count them as written
/// by the program unless their size or time changed. Usually empty.
#[derive(Debug, Default)]
pub(crate) struct Placed(Vec<(u64, i64, i64, i64)>);

impl Placed {
    fn holds(&self, st: &libc::stat) -> bool {
        self.0
            .contains(&(st.st_ino, st.st_size, st.st_mtime, st.st_mtime_nsec))
    }
}

/// Walks the box dir `dir` before its run for the files [`Placed`] keeps.
pub(crate) fn scan_placed(dir: &OwnedFd, since: libc::timespec) -> Placed {
    let mut placed = Placed::default();
    walk_modified(dir, since, &mut |_, st| {
        placed
            .0
            .push((st.st_ino, st.st_size, st.st_mtime, st.st_mtime_nsec));
    });
    placed
}

/// Walks the box dir `dir` once for the regular files modified since `since`, but for the
/// unchanged ones of `placed`. Follows no symlink and stays on the box's file system; looks at
/// most at [`SCAN_ENTRIES`] entries, [`SCAN_DEPTH`] levels deep. Only after the run: no process
/// of the box is left to change the tree meanwhile.
pub(crate) fn scan_written(
    dir: &OwnedFd,
    cap: u64,
    since: libc::timespec,
    placed: &Placed,
) -> Written {
    let mut written = Written::default();
    walk_modified(dir, since, &mut |path, st| {
        if placed.holds(st) {
            return;
        }
        written.bytes = written
            .bytes
            .saturating_add((st.st_blocks.max(0) as u64).saturating_mul(512));
        if written.capped.is_none() && st.st_size as u64 > cap {
            written.capped = Some((path.to_path_buf(), st.st_size as u64));
        }
    });
    written
}

/// Calls `on_file` with the path (relative to `dir`) and status of each regular file under
/// `dir` modified since `since`, within the walk's bounds.
fn walk_modified(
    dir: &OwnedFd,
    since: libc::timespec,
    on_file: &mut dyn FnMut(&Path, &libc::stat),
) {
    let Ok(st) = nix::sys::stat::fstat(dir) else {
        return;
    };
    let mut budget = SCAN_ENTRIES;
    let mut walk = Walk {
        since,
        dev: st.st_dev,
        budget: &mut budget,
        on_file,
    };
    walk.dir(dir.as_raw_fd(), Path::new(""), 0);
}

struct Walk<'a> {
    since: libc::timespec,
    dev: u64,
    budget: &'a mut usize,
    on_file: &'a mut dyn FnMut(&Path, &libc::stat),
}

impl Walk<'_> {
    fn dir(&mut self, parent: RawFd, rel: &Path, depth: usize) {
        // SAFETY: "." is NUL-terminated; opens a new description of the directory to read.
        let fd = unsafe {
            libc::openat(
                parent,
                c".".as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return;
        }
        // SAFETY: fd is freshly opened and owned here.
        let Ok(mut d) = nix::dir::Dir::from_fd(unsafe { OwnedFd::from_raw_fd(fd) }) else {
            return;
        };
        let dfd = d.as_raw_fd();
        let mut subdirs = Vec::new();
        for entry in d.iter() {
            let Ok(entry) = entry else { break };
            let name = entry.file_name();
            if name.to_bytes() == b"." || name.to_bytes() == b".." {
                continue;
            }
            if *self.budget == 0 {
                return;
            }
            *self.budget -= 1;
            // SAFETY: dfd is the descriptor of `d`, open for this whole loop.
            let dir = unsafe { std::os::fd::BorrowedFd::borrow_raw(dfd) };
            let Ok(st) =
                nix::sys::stat::fstatat(dir, name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW)
            else {
                continue;
            };
            let kind = st.st_mode & libc::S_IFMT;
            let child = rel.join(std::ffi::OsStr::from_bytes(name.to_bytes()));
            let modified =
                (st.st_mtime, st.st_mtime_nsec) >= (self.since.tv_sec, self.since.tv_nsec);
            if kind == libc::S_IFREG && modified {
                (self.on_file)(&child, &st);
            } else if kind == libc::S_IFDIR && st.st_dev == self.dev && depth < SCAN_DEPTH {
                subdirs.push((name.to_owned(), child));
            }
        }
        for (name, child) in subdirs {
            // SAFETY: name is NUL-terminated; O_NOFOLLOW|O_DIRECTORY refuses a symlink.
            let fd = unsafe {
                libc::openat(
                    dfd,
                    name.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                )
            };
            if fd < 0 {
                continue;
            }
            // SAFETY: fd is freshly opened and owned here.
            let sub = unsafe { OwnedFd::from_raw_fd(fd) };
            self.dir(sub.as_raw_fd(), &child, depth + 1);
        }
    }
}

/// Removes a box directory and everything in it without following any symlink inside it and
/// without crossing into another file system.
pub fn remove_box_dir(box_dir: &Path) -> Result<(), SandboxError> {
    let fd = match open_box(box_dir) {
        Ok(fd) => fd,
        Err(SandboxError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let st = nix::sys::stat::fstat(&fd).map_err(|e| io_err("stat", box_dir, e.into()))?;
    remove_contents(fd, box_dir, st.st_dev as u64)?;
    std::fs::remove_dir(box_dir).map_err(|e| io_err("remove dir", box_dir, e))
}

/// Empties a finished run's box so that another run of the same submission can have it, and
/// says whether it may: `Ok(false)` (the box left as it was, for [`remove_box_dir`]) when the
/// box itself carries state a fresh one lacks, which its owner (the run's user) could have set:
/// extended attributes or ACLs, or inode flags (casefolding, encryption, ...) other than those
/// its parent passes to a new directory. Otherwise everything in it is removed (never
/// following a symlink, never crossing a file system), its mode goes back to 0777 and (as
/// root) its owner to root, as the judge makes a fresh box. Call it only once every process of
/// the run is gone (a run's processes are all killed before [`crate::Sandbox::run`] returns).
pub fn reset_box_dir(box_dir: &Path) -> Result<bool, SandboxError> {
    let fd = open_box(box_dir)?;
    // SAFETY: a null buffer of size 0 only asks for the size of the attribute list.
    let listed = unsafe { libc::flistxattr(fd.as_raw_fd(), std::ptr::null_mut(), 0) };
    if listed != 0 {
        let unsupported =
            listed < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EOPNOTSUPP);
        if !unsupported {
            return Ok(false);
        }
    }
    let parent = box_dir.parent().unwrap_or(Path::new("/"));
    let parent_fd = open_box(parent)?;
    if inode_flags(fd.as_raw_fd()) != inode_flags(parent_fd.as_raw_fd()) {
        return Ok(false);
    }
    nix::sys::stat::fchmod(&fd, nix::sys::stat::Mode::from_bits_truncate(0o777))
        .map_err(|e| io_err("chmod", box_dir, e.into()))?;
    if nix::unistd::geteuid().is_root() {
        nix::unistd::fchown(&fd, Some(0.into()), Some(0.into()))
            .map_err(|e| io_err("chown", box_dir, e.into()))?;
    }
    let st = nix::sys::stat::fstat(&fd).map_err(|e| io_err("stat", box_dir, e.into()))?;
    remove_contents(fd, box_dir, st.st_dev as u64)?;
    Ok(true)
}

/// A directory's inode flags (`FS_IOC_GETFLAGS`), or the error number where it has none.
fn inode_flags(fd: RawFd) -> Result<u32, i32> {
    let mut flags: libc::c_long = 0;
    // SAFETY: FS_IOC_GETFLAGS writes one int into `flags`, which is larger.
    let r = unsafe { libc::ioctl(fd, libc::FS_IOC_GETFLAGS, &mut flags) };
    if r < 0 {
        return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
    }
    Ok(flags as u32)
}

/// `box_dir/rel` if `path` is relative, else `path`; and the part beneath `box_dir` if any.
pub(crate) fn split_box_path(box_dir: &Path, path: &Path) -> (PathBuf, Option<PathBuf>) {
    if path.is_relative() {
        return (box_dir.join(path), Some(path.to_owned()));
    }
    match path.strip_prefix(box_dir) {
        Ok(rel) if !rel.as_os_str().is_empty() => (path.to_owned(), Some(rel.to_owned())),
        _ => (path.to_owned(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn read_box_file_refuses_planted_symlinks() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("ok.txt"), b"fine").expect("write");
        symlink("/etc/passwd", dir.path().join("out.txt")).expect("symlink");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        symlink("/etc", dir.path().join("link")).expect("symlink");
        assert_eq!(
            read_box_file(dir.path(), Path::new("ok.txt"), 10).expect("read"),
            b"fine"
        );
        assert!(read_box_file(dir.path(), Path::new("out.txt"), 1 << 20).is_err());
        assert!(read_box_file(dir.path(), Path::new("link/passwd"), 1 << 20).is_err());
        assert!(read_box_file(dir.path(), Path::new("../x"), 10).is_err());
        assert!(read_box_file(dir.path(), Path::new("/etc/passwd"), 10).is_err());
        assert!(matches!(
            read_box_file(dir.path(), Path::new("ok.txt"), 2),
            Err(SandboxError::FileTooLarge { .. })
        ));
        assert!(read_box_file(dir.path(), Path::new("sub"), 10).is_err());
    }

    /// Sets the extended attribute `name` on `path`.
    fn set_xattr(path: &Path, name: &str) -> std::io::Result<()> {
        let p = CString::new(path.as_os_str().as_bytes()).expect("path");
        let n = CString::new(name).expect("name");
        // SAFETY: both strings are NUL-terminated; the value is 1 readable byte.
        let r = unsafe { libc::setxattr(p.as_ptr(), n.as_ptr(), b"1".as_ptr().cast(), 1, 0) };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// A host directory holding `keep` ("host"), and a box (in a directory of its own) holding
    /// nested files and symlinks to that directory and to `keep`, at its top and deeper.
    fn box_with_links_out() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("keep"), b"host").expect("write");
        let root = tempfile::tempdir().expect("tempdir");
        let box_dir = root.path().join("box");
        std::fs::create_dir_all(box_dir.join("sub/deeper")).expect("mkdir");
        std::fs::write(box_dir.join("sub/deeper/f"), b"x").expect("write");
        std::fs::write(box_dir.join("left"), b"x").expect("write");
        symlink(outside.path(), box_dir.join("out")).expect("symlink");
        symlink(outside.path(), box_dir.join("sub/out")).expect("symlink");
        symlink(outside.path().join("keep"), box_dir.join("keep")).expect("symlink");
        (outside, root, box_dir)
    }

    #[test]
    fn a_reset_box_is_empty_root_owned_and_open_and_a_planted_symlink_is_not_followed() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let (outside, _root, box_dir) = box_with_links_out();
        std::fs::set_permissions(&box_dir, std::fs::Permissions::from_mode(0o2700)).expect("chmod");
        assert!(reset_box_dir(&box_dir).expect("reset"));
        assert_eq!(std::fs::read_dir(&box_dir).expect("read").count(), 0);
        let meta = std::fs::metadata(&box_dir).expect("stat");
        assert_eq!(meta.permissions().mode() & 0o7777, 0o777);
        if nix::unistd::geteuid().is_root() {
            assert_eq!((meta.uid(), meta.gid()), (0, 0));
        }
        assert_eq!(
            std::fs::read(outside.path().join("keep")).expect("read"),
            b"host"
        );
    }

    #[test]
    fn a_box_with_extended_attributes_is_not_reset() {
        let root = tempfile::tempdir().expect("tempdir");
        let box_dir = root.path().join("box");
        std::fs::create_dir(&box_dir).expect("mkdir");
        std::fs::write(box_dir.join("left"), b"x").expect("write");
        if let Err(e) = set_xattr(&box_dir, "user.verdict-test") {
            // A file system without user attributes cannot carry this state either.
            assert_eq!(e.raw_os_error(), Some(libc::EOPNOTSUPP), "{e}");
            return;
        }
        assert!(!reset_box_dir(&box_dir).expect("reset"));
        assert!(
            box_dir.join("left").exists(),
            "a refused box is left as it was"
        );
    }

    #[test]
    fn read_box_file_refuses_fifos_without_blocking() {
        let dir = tempfile::tempdir().expect("tempdir");
        nix::unistd::mkfifo(
            &dir.path().join("fifo"),
            nix::sys::stat::Mode::from_bits_truncate(0o644),
        )
        .expect("mkfifo");
        assert!(read_box_file(dir.path(), Path::new("fifo"), 10).is_err());
    }

    #[test]
    fn remove_box_dir_does_not_follow_symlinks() {
        let (outside, _parent, b) = box_with_links_out();
        remove_box_dir(&b).expect("remove");
        assert!(!b.exists());
        assert!(outside.path().join("keep").exists());
        remove_box_dir(&b).expect("removing a missing box is fine");
    }

    #[test]
    fn a_truncated_output_is_empty_and_takes_what_the_program_writes() {
        use std::io::Write;
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("out.txt");
        std::fs::write(&p, "the last run's output\n").expect("write");
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .expect("open");
        truncate_to_empty(f.as_raw_fd()).expect("truncate");
        assert_eq!(std::fs::read(&p).expect("read"), b"");
        f.write_all(b"3\n").expect("write");
        drop(f);
        assert_eq!(std::fs::read(&p).expect("read"), b"3\n");
    }

    #[test]
    fn create_output_replaces_a_planted_symlink() {
        let outside = tempfile::tempdir().expect("tempdir");
        let target = outside.path().join("victim");
        std::fs::write(&target, b"precious").expect("write");
        let b = tempfile::tempdir().expect("tempdir");
        symlink(&target, b.path().join("out")).expect("symlink");
        let d = open_box(b.path()).expect("open");
        let fd = create_output_beneath(d.as_raw_fd(), Path::new("out")).expect("create");
        drop(fd);
        assert_eq!(std::fs::read(&target).expect("read"), b"precious");
        assert!(
            b.path()
                .join("out")
                .symlink_metadata()
                .expect("meta")
                .is_file()
        );
    }

    #[test]
    fn split_box_path_recognises_paths_in_the_box() {
        let b = Path::new("/srv/box1");
        assert_eq!(
            split_box_path(b, Path::new("out.txt")),
            (
                PathBuf::from("/srv/box1/out.txt"),
                Some(PathBuf::from("out.txt"))
            )
        );
        assert_eq!(
            split_box_path(b, Path::new("/srv/box1/a/o")),
            (PathBuf::from("/srv/box1/a/o"), Some(PathBuf::from("a/o")))
        );
        assert_eq!(
            split_box_path(b, Path::new("/tmp/x")),
            (PathBuf::from("/tmp/x"), None)
        );
    }
}
