"""verdict's warm interpreter: a Python template that a slot's zygote becomes (it exec's this
in place of itself, pid 1 of the box's namespaces, root in them, in the private root, under
the zygote's seccomp filter). It runs only trusted code: it imports the modules it was told
to, compiles the script every run executes, then serves one order at a time from the
supervisor on descriptor 3 (a SOCK_SEQPACKET socket):

- an order is one message, JSON (argv, env, ids, rlimits, mounts, cgroups) with descriptors:
  stdin, stdout, stderr, then the run cgroups' `cgroup.procs`, then the mount trees;
- per order it forks; the child makes the run's box exactly as a zygote's program gets it
  (fresh mount and IPC namespaces, a fresh tmpfs on /tmp, the box attached at /box, the run
  cgroups, a new session, its stdio, rlimits, the box's uid and gid, no_new_privs, the
  program's seccomp filter, every other descriptor closed), then runs the script as __main__;
- the template waits for the child, kills every other process of its pid namespace (as the
  zygote does: daemons included), reaps them all and answers with the zygote's reply record
  (wait status, rusage, when the child ended).

Each run sees the modules of a fresh interpreter and the preloaded ones, nothing of the
template's own (they are taken out of its `sys.modules`), and a `__main__` of its own.

The interpreter's flags are the cold run's (e.g. `-s -B`): without `-S` the site module is
imported here, once, and every run finds it loaded (`exit`, `quit`, the installed packages'
paths), as a cold run of the same flags does.

Usage: python3 FLAGS -c SOURCE CONFIG_JSON SCRIPT_SOURCE PRELOAD (see crates/sandbox/src/warm/mod.rs).
"""

import sys

for name in sys.argv[3].split(","):
    if name:
        __import__(name)
# What a run's sys.modules holds: a fresh interpreter's and the preloaded modules.
KEEP = frozenset(sys.modules)

import ctypes
import gc
import json
import os
import resource
import socket
import struct
import time

config = json.loads(sys.argv[1])
script_source = sys.argv[2]
del sys.argv[1:]
ModuleType = type(sys)

SOCK = 3
REPLY = struct.Struct("=IIiiQQQQ")
STAGES = config["stages"]
CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
MS_NOSUID, MS_NODEV = 2, 4
AT_FDCWD, MOVE_MOUNT_F_EMPTY_PATH, SYS_MOVE_MOUNT = -100, 4, 429
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 1, 38, 22, 2
PR_SET_DUMPABLE = 4
INFINITY = (1 << 64) - 1

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


filter_bytes = bytes.fromhex(config["filter"])
filter_buffer = ctypes.create_string_buffer(filter_bytes, len(filter_bytes))
fprog = SockFprog(len(filter_bytes) // 8, ctypes.addressof(filter_buffer))
tmp_options = config["tmp_options"].encode()
script_path = config["script_path"]
script_dir = os.path.dirname(os.path.join("/box", script_path))
script = compile(script_source, script_path, "exec")


class SetupFailed(Exception):
    def __init__(self, stage, errno):
        super().__init__(stage)
        self.stage, self.errno = stage, errno


def check(r, stage):
    if r < 0:
        raise SetupFailed(stage, ctypes.get_errno())


def step(stage, call, *args):
    try:
        return call(*args)
    except OSError as e:
        raise SetupFailed(stage, e.errno or 0) from None


def become_the_run(order, fds):
    """The child's steps before any of the run's code, in the zygote's order (child.rs:
    program_main); raises SetupFailed naming the stage."""
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    check(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, tmp_options), "tmp")
    for mount in order["mounts"]:
        if mount[0] == "attach":
            target, fd = mount[1].encode(), fds[mount[2]]
            check(libc.syscall(SYS_MOVE_MOUNT, fd, b"", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH), "mount")
        else:
            try:
                os.mkdir(mount[1], 0o755)
            except FileExistsError:
                pass
            except OSError as e:
                raise SetupFailed("mount", e.errno or 0) from None
    step("chdir", os.chdir, "/box")
    for i in order["cgroups"]:
        step("cgroup", os.write, fds[i], b"0")
    os.setsid()
    for i in range(3):
        step("stdio", os.dup2, fds[i], i)
    for res, soft, hard in order["rlimits"]:
        soft = resource.RLIM_INFINITY if soft == INFINITY else soft
        hard = resource.RLIM_INFINITY if hard == INFINITY else hard
        step("rlimit", resource.setrlimit, res, (soft, hard))
    if order["ids"] is not None:
        uid, gid = order["ids"]
        step("ids", os.setgroups, [])
        step("ids", os.setresgid, gid, gid, gid)
        step("ids", os.setresuid, uid, uid, uid)
        libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
        # (A uid change made it non-dumpable, which an execve would undo: as a fresh program.)
        libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0), "seccomp")


def child(order, fds, status_w):
    try:
        become_the_run(order, fds)
    except SetupFailed as e:
        os.write(status_w, ("%d %d" % (STAGES.index(e.stage), e.errno)).encode())
        os._exit(127)
    # Nothing of the template's stays open: the socket, the order's descriptors, the status pipe.
    os.closerange(3, 1 << 20)
    os.environ.clear()
    for key, value in order["env"]:
        os.environ[key] = value
    sys.argv = order["argv"]
    sys.path[0] = script_dir
    for name in [m for m in sys.modules if m not in KEEP]:
        del sys.modules[name]
    main = ModuleType("__main__")
    main.__file__ = os.path.join("/box", script_path)
    sys.modules["__main__"] = main
    status = 0
    try:
        exec(script, main.__dict__)
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - the script's own failure, as a fresh interpreter's
        import traceback

        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(status & 0xFF)


def serve(order, fds):
    status_r, status_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(status_r)
        child(order, fds, status_w)
    os.close(status_w)
    for fd in fds:
        os.close(fd)
    utime = stime = 0.0
    maxrss = 0
    _, status, usage = os.wait4(pid, 0)
    ended = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    utime, stime, maxrss = usage.ru_utime, usage.ru_stime, usage.ru_maxrss
    # pid 1 of the namespace: everything the run left (daemons included) dies here.
    try:
        os.kill(-1, 9)
    except OSError:
        pass
    while True:
        try:
            _, _, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        utime, stime = utime + usage.ru_utime, stime + usage.ru_stime
        maxrss = max(maxrss, usage.ru_maxrss)
    failed = os.read(status_r, 64)
    os.close(status_r)
    us = lambda secs: int(secs * 1e6)  # noqa: E731
    if failed:
        stage, errno = (int(x) for x in failed.split())
        return REPLY.pack(config["setup_failed"], stage, errno, 0, 0, 0, 0, 0)
    return REPLY.pack(config["exited"], 0, 0, status, us(utime), us(stime), maxrss, ended)


def main():
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    sock = socket.socket(fileno=SOCK)
    gc.collect()
    gc.freeze()
    sock.send(REPLY.pack(config["ready"], 0, 0, 0, 0, 0, 0, 0))
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 20, 64)
        except InterruptedError:
            continue
        except OSError:
            break
        if not msg:
            break
        try:
            order = json.loads(msg)
        except ValueError:
            for fd in fds:
                os.close(fd)
            break
        sock.send(serve(order, fds))
    try:
        os.kill(-1, 9)
    except OSError:
        pass
    os._exit(0)


main()
