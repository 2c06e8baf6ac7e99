//! Supervising a run in a warm interpreter (`crate::warm`): the slot's template, a zygote that
//! became a Python interpreter once its root was ready, forks the run into a fresh box; the
//! rest of the supervision (the run cgroup, the watch, the readings) is `supervise.rs`'s.

use super::prepare::Prepared;
use super::probe::{SlotState, Zygotes};
use super::supervise::{
    RawRun, Supervisor, Watch, instant_of, readable_within, retire_zygote, slot_arena,
};
use crate::child;
use crate::warm::WarmPython;
use crate::zygote::{self, Arena, Zygote};
use crate::{SandboxError, SandboxSpec};
use std::ffi::CString;
use std::os::fd::OwnedFd;
use std::time::Instant;

/// How long a warm interpreter has to answer once its run's processes were killed.
const TEMPLATE_KILL_GRACE_MS: libc::c_int = 2000;

impl Supervisor<'_> {
    /// Hands the run to the slot's warm interpreter (making one if the slot has none for this
    /// template) and waits for its answer; on a limit, kills the run cgroup's processes and
    /// reads the answer the template then gives (`answered`: it had killed and reaped every
    /// process of the run). The template survives the run.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn serve_warm(
        &self,
        z: &Zygotes,
        slot: usize,
        spec: &SandboxSpec,
        prep: &Prepared,
        w: &Watch<'_>,
        (warm, script_args): (&WarmPython, &[std::ffi::OsString]),
        answered: &mut bool,
    ) -> Result<RawRun, SandboxError> {
        let setup = |stage: &str, source: std::io::Error| SandboxError::Setup {
            stage: stage.into(),
            source,
        };
        let (cg, mounts, cgroup_procs) = self.slot_run_parts(z, spec, prep, w)?;
        let (message, fds) = crate::warm::Order::encode(&crate::warm::OrderParts {
            script_path: &warm.script_path,
            script_args,
            envp: &prep.envp,
            ids: prep.ids,
            rlimits: &prep.rlimits,
            stdio: prep.stdio_fds(),
            cgroup_procs: &cgroup_procs,
            mounts: &mounts,
        });
        let key = warm.key(&prep.program, &prep.envp);
        let mut state = self.slot_state(z, slot);
        let SlotState {
            netns,
            arena,
            warm: template,
            ..
        } = &mut *state;
        let mut start = Instant::now();
        for attempt in 0..2 {
            if template.as_ref().is_none_or(|(k, _)| *k != key) {
                if let Some((_, old)) = template.take() {
                    retire_zygote(z, Some(old));
                }
                let arena = slot_arena(arena)?;
                let made = self.start_template(z, netns, arena, warm, prep)?;
                *template = Some((key, made));
                crate::timings::mark("warm interpreter start");
            }
            let Some((_, t)) = template.as_ref() else {
                break;
            };
            start = Instant::now();
            match t.send_message(&message, &fds) {
                Ok(()) => break,
                Err(source) if attempt == 1 => {
                    return Err(setup("send the order to the warm interpreter", source));
                }
                Err(_) => retire_zygote(z, template.take().map(|(_, t)| t)),
            }
        }
        drop(fds);
        prep.release_pipes();
        let t = template.as_ref().map(|(_, t)| t).ok_or_else(|| {
            setup(
                "start the warm interpreter",
                std::io::ErrorKind::NotFound.into(),
            )
        })?;
        let (killed_for, killed_at, cpu_wait_ns) = self.watch(t.sock(), w, start, || cg.kill_all());
        // Killed or not, the template answers once the run's processes are dead; after a kill
        // it must do so at once (a child killed before it joined its cgroup would not be: the
        // template, and its whole namespace, is then killed).
        if killed_at.is_some() && !readable_within(t.sock(), TEMPLATE_KILL_GRACE_MS) {
            retire_zygote(z, template.take().map(|(_, t)| t));
            let source = std::io::Error::from(std::io::ErrorKind::TimedOut);
            return Err(setup("stop the warm interpreter's run", source));
        }
        let reply = match t.recv() {
            Ok(r) => r,
            Err(source) => {
                retire_zygote(z, template.take().map(|(_, t)| t));
                return Err(setup("wait for the warm interpreter", source));
            }
        };
        *answered = true;
        crate::timings::mark("run");
        let seen = Instant::now();
        let status = match reply.kind {
            child::MSG_EXITED => Some(reply.status),
            _ => {
                return Err(setup(
                    &crate::warm::describe_stage(reply.stage),
                    std::io::Error::from_raw_os_error(reply.errno),
                ));
            }
        };
        Ok(RawRun {
            status: status.filter(|_| killed_at.is_none()),
            killed_for,
            wall: killed_at.unwrap_or(seen).duration_since(start),
            rusage_cpu_ms: (reply.utime_us + reply.stime_us) / 1000,
            rusage_maxrss_kb: reply.maxrss_kb,
            readings: None,
            headroom: 0,
            cpu_wait_ns,
            ended: killed_at.unwrap_or_else(|| instant_of(reply.ended_ns, seen)),
        })
    }

    /// Starts a slot's warm interpreter: a zygote (taking the slot's network namespace on its
    /// first use) that becomes the template once its root is ready.
    fn start_template(
        &self,
        z: &Zygotes,
        netns: &mut Option<OwnedFd>,
        arena: &Arena,
        warm: &WarmPython,
        prep: &Prepared,
    ) -> Result<Zygote, SandboxError> {
        if netns.is_none() {
            *netns = z.netns.as_ref().and_then(crate::netns::NetnsPool::take);
        }
        let argv = warm.template_argv(&prep.program, &self.filters.run, &z.tmp_options)?;
        let pointers = |list: &[CString]| {
            let mut v: Vec<*const libc::c_char> = list.iter().map(|c| c.as_ptr()).collect();
            v.push(std::ptr::null());
            v
        };
        let (argv_ptrs, envp_ptrs) = (pointers(&argv), pointers(&prep.envp));
        let mut boot = z.boot(netns.as_ref(), arena, self.stack_top, self.filters);
        boot.template = Some(zygote::TemplateExec {
            program: &prep.program,
            argv: &argv_ptrs,
            envp: &envp_ptrs,
        });
        let mut template = Zygote::spawn(&boot)?;
        template.wait_ready(&z.skeleton.ops)?;
        Ok(template)
    }
}
