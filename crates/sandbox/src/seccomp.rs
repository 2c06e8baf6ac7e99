//! The seccomp filter: a targeted denylist (as isolate has), not a brittle allowlist.
//!
//! Built once as classic BPF before any fork; the listed calls are found by a binary search on
//! the system call number. A long-lived zygote loads the policy less the calls it makes between
//! runs once, and each program adds a small filter refusing those right before `execve`
//! ([`Filters`]); a program with no filtered zygote loads the whole policy.
//! Denied: io_uring, the kernel keyring, AF_VSOCK sockets, ptrace and cross-process memory
//! access, every mount/namespace call (and `clone` with a `CLONE_NEW*` flag), bpf, perf events,
//! kexec, module loading and a few admin calls. `clone3` gets `ENOSYS` so that libc falls back
//! to `clone`, whose flags can be inspected. `personality` is allowed only with the harmless
//! personas Docker's default profile allows (so never `READ_IMPLIES_EXEC`, which would make
//! every readable mapping executable, or `ADDR_NO_RANDOMIZE`). A foreign ABI (i386 `int 0x80`,
//! x32) kills the process or is refused.

/// One classic BPF instruction (`struct sock_filter`).
pub(crate) type Insn = libc::sock_filter;

const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const BPF_JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const BPF_JSET_K: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K

const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const RET_ALLOW: u32 = 0x7fff_0000;

const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const OFF_ARG0_LO: u32 = 16;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// x32 system calls are numbered from here on x86_64.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

const AF_VSOCK: u32 = 40;

/// The `personality(2)` arguments a box may pass, as Docker's default profile allows them:
/// `PER_LINUX`, `PER_LINUX32`, `UNAME26`, `PER_LINUX32 | UNAME26`, and the query `0xffffffff`.
/// The kernel reads the argument as an `unsigned int`, so its low word is all that counts.
const HARMLESS_PERSONAS: [u32; 5] = [0x0, 0x8, 0x2_0000, 0x2_0008, 0xffff_ffff];

/// The `CLONE_NEW*` flags (and `CLONE_NEWTIME`'s low-word alias) a box may not use.
const CLONE_NS_MASK: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWCGROUP) as u32;

fn stmt(code: u16, k: u32) -> Insn {
    Insn {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> Insn {
    Insn { code, jt, jf, k }
}

/// The system calls refused with `EPERM`.
pub(crate) fn denied_syscalls() -> Vec<libc::c_long> {
    let mut v = vec![
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_userfaultfd,
        libc::SYS_acct,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_reboot,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_quotactl,
        libc::SYS_syslog,
        libc::SYS_fanotify_init,
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([libc::SYS_iopl, libc::SYS_ioperm, libc::SYS_lookup_dcookie]);
    v
}

/// What the filter does with one system call number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Eperm,
    Enosys,
    /// `socket`: refused for `AF_VSOCK`.
    SocketFamily,
    /// `clone`: refused with a `CLONE_NEW*` flag.
    CloneFlags,
    /// `personality`: allowed only with one of [`HARMLESS_PERSONAS`].
    Persona,
}

/// The leaf of a call refused with EPERM when the low half of its first argument passes
/// `test` against `k` (`BPF_JEQ_K`: equals it; `BPF_JSET_K`: shares a bit with it), allowed
/// otherwise.
fn refused_by_arg0(nr: u32, test: u16, k: u32) -> Vec<Insn> {
    vec![
        jump(BPF_JEQ_K, nr, 0, 4),
        stmt(BPF_LD_W_ABS, OFF_ARG0_LO),
        jump(test, k, 0, 1),
        stmt(BPF_RET_K, RET_ERRNO | libc::EPERM as u32),
        stmt(BPF_RET_K, RET_ALLOW),
    ]
}

/// The instructions of one leaf entry; every path ends in a `RET`. The accumulator holds the
/// system call number on entry.
fn leaf(nr: u32, action: Action) -> Vec<Insn> {
    let eperm = RET_ERRNO | libc::EPERM as u32;
    match action {
        Action::Eperm => vec![jump(BPF_JEQ_K, nr, 0, 1), stmt(BPF_RET_K, eperm)],
        Action::Enosys => vec![
            jump(BPF_JEQ_K, nr, 0, 1),
            stmt(BPF_RET_K, RET_ERRNO | libc::ENOSYS as u32),
        ],
        Action::SocketFamily => refused_by_arg0(nr, BPF_JEQ_K, AF_VSOCK),
        Action::CloneFlags => refused_by_arg0(nr, BPF_JSET_K, CLONE_NS_MASK),
        Action::Persona => {
            let n = HARMLESS_PERSONAS.len() as u8;
            // nr? -> load arg0 -> one JEQ per persona jumping to the final ALLOW -> EPERM.
            let mut p = vec![
                jump(BPF_JEQ_K, nr, 0, n + 3),
                stmt(BPF_LD_W_ABS, OFF_ARG0_LO),
            ];
            for (i, &persona) in HARMLESS_PERSONAS.iter().enumerate() {
                p.push(jump(BPF_JEQ_K, persona, n - i as u8, 0));
            }
            p.push(stmt(BPF_RET_K, eperm));
            p.push(stmt(BPF_RET_K, RET_ALLOW));
            p
        }
    }
}

/// A binary search over `entries` (sorted by number): a few `JEQ`s at the leaves, `JGE`s
/// above. Every path ends in a `RET` (allow when no entry matches). A system call is decided
/// in about log2(n) + 4 steps instead of up to 2n: faster for the program, and much faster to
/// load, since the kernel evaluates the filter for every system call number when it is
/// installed (to cache the always-allowed ones).
fn search(entries: &[(u32, Action)]) -> Vec<Insn> {
    if entries.len() <= 4 {
        let mut p: Vec<Insn> = entries.iter().flat_map(|&(nr, a)| leaf(nr, a)).collect();
        p.push(stmt(BPF_RET_K, RET_ALLOW));
        return p;
    }
    let mid = entries.len() / 2;
    let below = search(&entries[..mid]);
    let above = search(&entries[mid..]);
    // Jump offsets are 8 bits: the lower half must fit (it does by far for this list).
    let skip = u8::try_from(below.len()).expect("seccomp subtree too long for a BPF jump");
    let mut p = vec![jump(BPF_JGE_K, entries[mid].0, skip, 0)];
    p.extend(below);
    p.extend(above);
    p
}

/// The denied calls a zygote itself makes between runs: attaching a run's mounts, undoing
/// them, a fresh IPC namespace and `/tmp`, entering an order's network namespace.
const ZYGOTE_CALLS: [libc::c_long; 5] = [
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_move_mount,
    libc::SYS_unshare,
    libc::SYS_setns,
];

/// The start of every filter: a foreign ABI kills the process, an x32 call is refused, and the
/// accumulator is left holding the system call number.
fn prologue() -> Vec<Insn> {
    let mut p = vec![
        stmt(BPF_LD_W_ABS, OFF_ARCH),
        jump(BPF_JEQ_K, AUDIT_ARCH, 1, 0),
        stmt(BPF_RET_K, RET_KILL_PROCESS),
        stmt(BPF_LD_W_ABS, OFF_NR),
    ];
    #[cfg(target_arch = "x86_64")]
    p.extend([
        jump(BPF_JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(BPF_RET_K, RET_ERRNO | libc::EPERM as u32),
    ]);
    p
}

/// A filter deciding `entries` (any order) and allowing every other call.
fn filter_of(mut entries: Vec<(u32, Action)>) -> Vec<Insn> {
    entries.sort_unstable_by_key(|e| e.0);
    entries.dedup_by_key(|e| e.0);
    let mut p = prologue();
    p.extend(search(&entries));
    p
}

/// Builds the filter program: the whole policy in one filter.
pub(crate) fn build_filter() -> Vec<Insn> {
    filter_of(policy(|_| true))
}

/// The policy's entries, with the denied calls `keep` keeps.
fn policy(keep: impl Fn(libc::c_long) -> bool) -> Vec<(u32, Action)> {
    let mut entries: Vec<(u32, Action)> = denied_syscalls()
        .into_iter()
        .filter(|&nr| keep(nr))
        .map(|nr| (nr as u32, Action::Eperm))
        .collect();
    entries.push((libc::SYS_clone3 as u32, Action::Enosys));
    entries.push((libc::SYS_socket as u32, Action::SocketFamily));
    entries.push((libc::SYS_clone as u32, Action::CloneFlags));
    entries.push((libc::SYS_personality as u32, Action::Persona));
    entries
}

/// The box's policy as the filters that carry it (built once, before any fork).
///
/// A program loads its filter between its fork and its `execve`, on the run's path; the kernel
/// converts and compiles the filter at each load (~35 us for the whole policy here, ~11 us for
/// a filter of five calls stacked on another). So a long-lived zygote loads most of the policy
/// once, for itself and every program it starts (filters are inherited): everything but the
/// calls it makes between runs ([`ZYGOTE_CALLS`]). Each program then adds a small filter
/// refusing just those. The kernel applies every filter of a process and takes the strictest
/// answer, so a program is refused exactly what the whole policy refuses, as the
/// `stacked_filters_decide_every_call_as_the_whole_policy_does` test checks.
#[derive(Debug)]
pub(crate) struct Filters {
    /// The whole policy, for a program nothing filtered before it (a one-shot zygote's, which
    /// would gain nothing from loading a policy once, or an rlimit-only box's).
    pub whole: Vec<Insn>,
    /// The policy without [`ZYGOTE_CALLS`], loaded once by a long-lived zygote.
    pub zygote: Vec<Insn>,
    /// [`ZYGOTE_CALLS`] refused: what each program of a filtered zygote loads.
    pub run: Vec<Insn>,
}

impl Filters {
    /// Builds the three filters.
    pub(crate) fn new() -> Filters {
        Filters {
            whole: build_filter(),
            zygote: filter_of(policy(|nr| !ZYGOTE_CALLS.contains(&nr))),
            run: filter_of(
                ZYGOTE_CALLS
                    .iter()
                    .map(|&nr| (nr as u32, Action::Eperm))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny classic-BPF interpreter for the subset the filter uses.
    fn run(prog: &[Insn], arch: u32, nr: u32, arg0: u64) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_ne_bytes());
        data[4..8].copy_from_slice(&arch.to_ne_bytes());
        data[16..24].copy_from_slice(&arg0.to_ne_bytes());
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let i = prog[pc];
            pc += 1;
            match i.code {
                BPF_LD_W_ABS => {
                    let o = i.k as usize;
                    acc = u32::from_ne_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]]);
                }
                BPF_JEQ_K | BPF_JGE_K | BPF_JSET_K => {
                    let hit = match i.code {
                        BPF_JEQ_K => acc == i.k,
                        BPF_JGE_K => acc >= i.k,
                        _ => acc & i.k != 0,
                    };
                    pc += usize::from(if hit { i.jt } else { i.jf });
                }
                BPF_RET_K => return i.k,
                other => panic!("unexpected opcode {other}"),
            }
        }
    }

    #[test]
    fn filter_denies_the_listed_calls_and_allows_the_rest() {
        let p = build_filter();
        let eperm = RET_ERRNO | libc::EPERM as u32;
        assert_eq!(
            run(&p, AUDIT_ARCH, libc::SYS_io_uring_setup as u32, 0),
            eperm
        );
        assert_eq!(run(&p, AUDIT_ARCH, libc::SYS_keyctl as u32, 0), eperm);
        assert_eq!(run(&p, AUDIT_ARCH, libc::SYS_unshare as u32, 0), eperm);
        assert_eq!(run(&p, AUDIT_ARCH, libc::SYS_read as u32, 0), RET_ALLOW);
        assert_eq!(run(&p, AUDIT_ARCH, libc::SYS_execve as u32, 0), RET_ALLOW);
        assert_eq!(
            run(&p, AUDIT_ARCH, libc::SYS_clone3 as u32, 0),
            RET_ERRNO | libc::ENOSYS as u32
        );
        assert_eq!(run(&p, AUDIT_ARCH, 0xdead, 0), RET_ALLOW);
    }

    #[test]
    fn filter_inspects_socket_family_and_clone_flags() {
        let p = build_filter();
        let eperm = RET_ERRNO | libc::EPERM as u32;
        let sock = libc::SYS_socket as u32;
        assert_eq!(run(&p, AUDIT_ARCH, sock, u64::from(AF_VSOCK)), eperm);
        assert_eq!(run(&p, AUDIT_ARCH, sock, libc::AF_INET as u64), RET_ALLOW);
        let clone = libc::SYS_clone as u32;
        assert_eq!(run(&p, AUDIT_ARCH, clone, libc::SIGCHLD as u64), RET_ALLOW);
        assert_eq!(
            run(
                &p,
                AUDIT_ARCH,
                clone,
                (libc::CLONE_NEWUSER | libc::SIGCHLD) as u64
            ),
            eperm
        );
    }

    #[test]
    fn personality_allows_only_harmless_personas() {
        let p = build_filter();
        let eperm = RET_ERRNO | libc::EPERM as u32;
        let nr = libc::SYS_personality as u32;
        for persona in HARMLESS_PERSONAS {
            assert_eq!(run(&p, AUDIT_ARCH, nr, u64::from(persona)), RET_ALLOW);
        }
        // READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, and either with PER_LINUX32.
        for persona in [0x40_0000u64, 0x4_0000, 0x40_0008, 0x1] {
            assert_eq!(run(&p, AUDIT_ARCH, nr, persona), eperm, "{persona:#x}");
        }
    }

    #[test]
    fn filter_kills_foreign_abis() {
        let p = build_filter();
        assert_eq!(run(&p, 0x4000_0003, 1, 0), RET_KILL_PROCESS);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            run(&p, AUDIT_ARCH, X32_SYSCALL_BIT | 1, 0),
            RET_ERRNO | libc::EPERM as u32
        );
    }

    /// The straightforward linear filter, as a reference for the search tree.
    fn linear_reference() -> Vec<Insn> {
        let mut p = prologue();
        for nr in denied_syscalls() {
            p.extend(leaf(nr as u32, Action::Eperm));
        }
        p.extend(leaf(libc::SYS_clone3 as u32, Action::Enosys));
        p.extend(leaf(libc::SYS_socket as u32, Action::SocketFamily));
        p.extend(leaf(libc::SYS_clone as u32, Action::CloneFlags));
        p.extend(leaf(libc::SYS_personality as u32, Action::Persona));
        p.push(stmt(BPF_RET_K, RET_ALLOW));
        p
    }

    /// Calls `check(arch, nr, arg0)` for every call number below 1024 and the x32 range, with
    /// both ABIs and each argument value the policy inspects.
    fn for_every_call(mut check: impl FnMut(u32, u32, u64)) {
        let args = [
            0,
            u64::from(AF_VSOCK),
            libc::AF_INET as u64,
            libc::SIGCHLD as u64,
            (libc::CLONE_NEWUSER | libc::SIGCHLD) as u64,
            (libc::CLONE_NEWNET | libc::CLONE_VM) as u64,
            (libc::CLONE_NEWIPC | libc::CLONE_VM) as u64,
            0x40_0000,
            0x2_0008,
            0xffff_ffff,
        ];
        #[cfg(target_arch = "x86_64")]
        let extra = [X32_SYSCALL_BIT, X32_SYSCALL_BIT | 1, u32::MAX];
        #[cfg(not(target_arch = "x86_64"))]
        let extra = [u32::MAX];
        for nr in (0..1024).chain(extra) {
            for &a in &args {
                for arch in [AUDIT_ARCH, 0x4000_0003] {
                    check(arch, nr, a);
                }
            }
        }
    }

    #[test]
    fn the_search_tree_decides_every_call_as_the_linear_list_does() {
        let tree = build_filter();
        let reference = linear_reference();
        for_every_call(|arch, nr, a| {
            assert_eq!(
                run(&tree, arch, nr, a),
                run(&reference, arch, nr, a),
                "nr {nr} arg {a:#x} arch {arch:#x}"
            );
        });
        // Every path is short: a handful of steps, not one per listed call.
        let steps = |nr: u32| {
            let mut n = 0;
            let mut pc = 0usize;
            loop {
                let i = tree[pc];
                n += 1;
                pc += 1;
                match i.code {
                    BPF_RET_K => return n,
                    BPF_JEQ_K | BPF_JGE_K | BPF_JSET_K => {
                        let acc = if pc <= 2 { AUDIT_ARCH } else { nr };
                        let hit = match i.code {
                            BPF_JEQ_K => acc == i.k,
                            BPF_JGE_K => acc >= i.k,
                            _ => acc & i.k != 0,
                        };
                        pc += usize::from(if hit { i.jt } else { i.jf });
                    }
                    _ => {}
                }
            }
        };
        assert!((0..512).all(|nr| steps(nr) <= 24), "a path is too long");
    }

    /// What the kernel answers for a process with `filters` (oldest first): the strictest
    /// action wins, and of equal actions the newest filter's.
    fn run_stacked(filters: &[&[Insn]], arch: u32, nr: u32, arg0: u64) -> u32 {
        let action = |ret: u32| (ret & 0xffff_0000) as i32;
        let mut answer = RET_ALLOW;
        for f in filters.iter().rev() {
            let ret = run(f, arch, nr, arg0);
            if action(ret) < action(answer) {
                answer = ret;
            }
        }
        answer
    }

    #[test]
    fn stacked_filters_decide_every_call_as_the_whole_policy_does() {
        let filters = Filters::new();
        for_every_call(|arch, nr, a| {
            assert_eq!(
                run_stacked(&[&filters.zygote, &filters.run], arch, nr, a),
                run(&filters.whole, arch, nr, a),
                "nr {nr} arg {a:#x} arch {arch:#x}"
            );
        });
        // The zygote's own filter lets it make its calls between runs, and refuses the rest.
        let eperm = RET_ERRNO | libc::EPERM as u32;
        for nr in ZYGOTE_CALLS {
            assert_eq!(run(&filters.zygote, AUDIT_ARCH, nr as u32, 0), RET_ALLOW);
            assert_eq!(run(&filters.run, AUDIT_ARCH, nr as u32, 0), eperm);
        }
        let ptrace = libc::SYS_ptrace as u32;
        assert_eq!(run(&filters.zygote, AUDIT_ARCH, ptrace, 0), eperm);
        // Each program's own filter is a small fraction of the whole.
        assert!(filters.run.len() * 4 < filters.whole.len());
    }

    #[test]
    fn filter_jumps_stay_in_range() {
        let p = build_filter();
        assert!(p.len() < 200);
        assert_eq!(p.last().map(|i| i.k), Some(RET_ALLOW));
    }
}
