//! The sandbox behind the seam: `Sandbox` implements [`Executor`], and the seam's requests and
//! outcomes become the sandbox's and back (moves of small structs, nothing copied on a run's
//! path but the warm script's order). The one file of the seam that names the sandbox's run
//! types; the judge's steps in `judge/`, `interactive/` and `multipass.rs` are the sandbox's
//! side of `run`, `compile` and `run_interactive` (docs/architecture.md, "The execution seam").

use super::{
    CancelToken, CompileRequest, ExecError, Executor, ExitKind, IsolationLevel, LimitHit, Limits,
    ProcessSpec, RunOutcome, Stream, WarmScript,
};
use crate::ScriptError;
use crate::interactive::pair::{InteractiveOutput, InteractiveRequest, run_interactive};
use crate::judge::compile::{CompileOutcome, compile};
use crate::judge::disk::{DiskReserve, check_room};
use crate::judge::run::{RunOutput, RunRequest, run_program};
use std::path::Path;
use verdict_sandbox::{
    Sandbox, SandboxError, SandboxLimits, SandboxOutcome, SandboxSpec, StdioSpec, WarmPython,
};

/// The sandbox as the executor: each compile and run starts only with the work disk's reserve
/// free, and a failed compile or any run that ends with the disk short of it is the host's
/// failure, not the program's (see [`crate::judge::disk`]).
impl Executor for Sandbox {
    fn run(
        &self,
        cancel: &CancelToken,
        request: &RunRequest<'_>,
        run_dir: &Path,
    ) -> Result<RunOutput, ScriptError> {
        let reserve = DiskReserve::default();
        check_room(run_dir, &reserve, "before the run")?;
        let output = run_program(self, cancel, request, run_dir)?;
        // Any run: a program that ignores a failed write can still exit 0 with a short output.
        check_room(run_dir, &reserve, "after the run")?;
        Ok(output)
    }

    fn run_interactive(
        &self,
        cancel: &CancelToken,
        request: &InteractiveRequest<'_>,
        run_dir: &Path,
    ) -> Result<InteractiveOutput, ScriptError> {
        run_interactive(self, cancel, request, run_dir)
    }

    fn run_spec(&self, cancel: &CancelToken, spec: ProcessSpec) -> Result<RunOutcome, ExecError> {
        let spec = cancel.applied_to(SandboxSpec::from(spec));
        Ok(Sandbox::run(self, &spec)?.into())
    }

    fn has_warm_interpreters(&self) -> bool {
        Sandbox::has_warm_interpreters(self)
    }

    fn run_warm_python(
        &self,
        cancel: &CancelToken,
        warm: &WarmScript,
        spec: ProcessSpec,
    ) -> Result<RunOutcome, ExecError> {
        let spec = cancel.applied_to(SandboxSpec::from(spec));
        let warm = WarmPython::from(warm);
        Ok(Sandbox::run_warm(self, &warm, &spec)?.into())
    }

    fn state_dir(&self) -> Option<&Path> {
        Some(&Sandbox::config(self).state_dir)
    }

    fn warm(&self, slots: usize) -> Result<(), ExecError> {
        Ok(Sandbox::warm(self, slots).map(drop)?)
    }

    fn isolation(&self) -> Option<(IsolationLevel, &[String])> {
        Some((Sandbox::isolation(self).into(), Sandbox::lacks(self)))
    }

    fn compile(
        &self,
        cancel: &CancelToken,
        request: &CompileRequest<'_>,
    ) -> Result<CompileOutcome, ScriptError> {
        let reserve = DiskReserve::default();
        check_room(request.build_dir, &reserve, "before the compile")?;
        let outcome = compile(self, cancel, request)?;
        if matches!(outcome, CompileOutcome::Failed { .. }) {
            check_room(request.build_dir, &reserve, "when the compile failed")?;
        }
        Ok(outcome)
    }
}

impl From<SandboxError> for ExecError {
    fn from(error: SandboxError) -> ExecError {
        ExecError::Environment(Box::new(error))
    }
}

impl From<SandboxOutcome> for RunOutcome {
    fn from(outcome: SandboxOutcome) -> RunOutcome {
        RunOutcome {
            exit: outcome.exit.into(),
            cpu_time_ms: outcome.cpu_time_ms,
            wall_time_ms: outcome.wall_time_ms,
            peak_memory_kb: outcome.peak_memory_kb,
            output_bytes: outcome.output_bytes,
            limit_hit: outcome.limit_hit.map(Into::into),
            evidence: outcome.evidence,
            isolation: outcome.isolation.into(),
            cpu_wait_ms: outcome.cpu_wait_ms,
            rlimits_clamped: outcome.rlimits_clamped,
            ended: outcome.ended,
        }
    }
}

impl From<verdict_sandbox::ExitKind> for ExitKind {
    fn from(exit: verdict_sandbox::ExitKind) -> ExitKind {
        match exit {
            verdict_sandbox::ExitKind::Exited(code) => ExitKind::Exited(code),
            verdict_sandbox::ExitKind::Signaled(signal) => ExitKind::Signaled(signal),
        }
    }
}

impl From<verdict_sandbox::LimitHit> for LimitHit {
    fn from(limit: verdict_sandbox::LimitHit) -> LimitHit {
        match limit {
            verdict_sandbox::LimitHit::CpuTime => LimitHit::CpuTime,
            verdict_sandbox::LimitHit::WallTime => LimitHit::WallTime,
            verdict_sandbox::LimitHit::Memory => LimitHit::Memory,
            verdict_sandbox::LimitHit::Output => LimitHit::Output,
            verdict_sandbox::LimitHit::Processes => LimitHit::Processes,
        }
    }
}

impl From<verdict_sandbox::IsolationLevel> for IsolationLevel {
    fn from(level: verdict_sandbox::IsolationLevel) -> IsolationLevel {
        use verdict_sandbox::IsolationLevel as Sandboxed;
        match level {
            Sandboxed::FullCgroupV1 => IsolationLevel::FullCgroupV1,
            Sandboxed::FullCgroupV2 => IsolationLevel::FullCgroupV2,
            Sandboxed::RootlessCgroupV2 => IsolationLevel::RootlessCgroupV2,
            Sandboxed::RootlessCgroupV2OneUid => IsolationLevel::RootlessCgroupV2OneUid,
            Sandboxed::RootlessNamespaces => IsolationLevel::RootlessNamespaces,
            Sandboxed::RlimitOnly => IsolationLevel::RlimitOnly,
        }
    }
}

impl From<ProcessSpec> for SandboxSpec {
    fn from(spec: ProcessSpec) -> SandboxSpec {
        SandboxSpec {
            program: spec.program,
            args: spec.args,
            env: spec.env,
            box_dir: spec.box_dir,
            stdin: spec.stdin.into(),
            stdout: spec.stdout.into(),
            stderr: spec.stderr.into(),
            limits: spec.limits.into(),
            read_only_mounts: spec.read_only_mounts,
            writable_mounts: spec.writable_mounts,
            stop: None,
            cancel: None,
        }
    }
}

impl From<Stream> for StdioSpec {
    fn from(stream: Stream) -> StdioSpec {
        match stream {
            Stream::Null => StdioSpec::Null,
            Stream::File(path) => StdioSpec::File(path),
        }
    }
}

impl From<Limits> for SandboxLimits {
    fn from(limits: Limits) -> SandboxLimits {
        SandboxLimits {
            cpu_time_ms: limits.cpu_time_ms,
            wall_time_ms: limits.wall_time_ms,
            memory_kb: limits.memory_kb,
            output_bytes: limits.output_bytes,
            processes: limits.processes,
            open_files: limits.open_files,
            stack_kb: limits.stack_kb,
        }
    }
}

impl From<&WarmScript> for WarmPython {
    fn from(warm: &WarmScript) -> WarmPython {
        WarmPython {
            flags: warm.flags.clone(),
            script_path: warm.script_path.clone(),
            script: warm.script.clone(),
            preload: warm.preload.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_process_spec_reaches_the_sandbox_with_every_field() {
        let limits = Limits {
            cpu_time_ms: Some(1),
            wall_time_ms: Some(2),
            memory_kb: Some(3),
            output_bytes: Some(4),
            processes: Some(5),
            open_files: Some(6),
            stack_kb: Some(7),
        };
        let cancel = CancelToken::new();
        let spec = cancel.applied_to(SandboxSpec::from(ProcessSpec {
            program: PathBuf::from("python3"),
            args: vec!["-c".into(), "pass".into()],
            env: vec![("A".into(), "b".into())],
            box_dir: PathBuf::from("/w/box"),
            stdin: Stream::File(PathBuf::from("/w/in")),
            stdout: Stream::File(PathBuf::from("/w/out")),
            stderr: Stream::Null,
            limits,
            read_only_mounts: vec![PathBuf::from("/ro")],
            writable_mounts: vec![PathBuf::from("/rw")],
        }));
        assert_eq!(spec.program, PathBuf::from("python3"));
        assert_eq!(spec.args, ["-c", "pass"]);
        assert_eq!(spec.env, [("A".to_owned(), "b".to_owned())]);
        assert_eq!(spec.box_dir, PathBuf::from("/w/box"));
        assert!(matches!(&spec.stdin, StdioSpec::File(p) if p == Path::new("/w/in")));
        assert!(matches!(&spec.stdout, StdioSpec::File(p) if p == Path::new("/w/out")));
        assert!(matches!(spec.stderr, StdioSpec::Null));
        // Named field by field: a field added to either side fails to compile here.
        let SandboxLimits {
            cpu_time_ms,
            wall_time_ms,
            memory_kb,
            output_bytes,
            processes,
            open_files,
            stack_kb,
        } = spec.limits;
        let sizes = (memory_kb, output_bytes, stack_kb);
        assert_eq!((cpu_time_ms, wall_time_ms), (Some(1), Some(2)));
        assert_eq!(sizes, (Some(3), Some(4), Some(7)));
        assert_eq!((processes, open_files), (Some(5), Some(6)));
        assert_eq!(spec.read_only_mounts, [PathBuf::from("/ro")]);
        assert_eq!(spec.writable_mounts, [PathBuf::from("/rw")]);
        assert!(spec.stop.is_none());
        // The call's token reaches the run: cancelling it cancels the run's switch.
        cancel.cancel();
        assert!(spec.cancel.is_some_and(|c| c.is_cancelled()));
    }

    #[test]
    fn a_sandbox_outcome_comes_back_with_its_usage_limit_and_evidence() {
        let outcome = RunOutcome::from(SandboxOutcome {
            exit: verdict_sandbox::ExitKind::Signaled(9),
            cpu_time_ms: 11,
            wall_time_ms: 12,
            peak_memory_kb: 13,
            output_bytes: 14,
            limit_hit: Some(verdict_sandbox::LimitHit::Memory),
            evidence: Some("oom_kill 1".into()),
            isolation: verdict_sandbox::IsolationLevel::RootlessCgroupV2OneUid,
            cpu_wait_ms: Some(15),
            rlimits_clamped: vec!["RLIMIT_NOFILE".into()],
            ended: None,
        });
        assert_eq!(outcome.exit, ExitKind::Signaled(9));
        assert_eq!(
            (
                outcome.cpu_time_ms,
                outcome.wall_time_ms,
                outcome.peak_memory_kb
            ),
            (11, 12, 13)
        );
        assert_eq!((outcome.output_bytes, outcome.cpu_wait_ms), (14, Some(15)));
        assert_eq!(outcome.limit_hit, Some(LimitHit::Memory));
        assert_eq!(outcome.evidence.as_deref(), Some("oom_kill 1"));
        assert_eq!(outcome.isolation, IsolationLevel::RootlessCgroupV2OneUid);
        assert_eq!(outcome.rlimits_clamped, ["RLIMIT_NOFILE"]);
    }

    #[test]
    fn the_seams_isolation_levels_keep_the_sandboxs_wire_names() {
        use verdict_sandbox::IsolationLevel as Sandboxed;
        for level in [
            Sandboxed::FullCgroupV1,
            Sandboxed::FullCgroupV2,
            Sandboxed::RootlessCgroupV2,
            Sandboxed::RootlessCgroupV2OneUid,
            Sandboxed::RootlessNamespaces,
            Sandboxed::RlimitOnly,
        ] {
            assert_eq!(
                serde_json::to_value(IsolationLevel::from(level)).ok(),
                serde_json::to_value(level).ok()
            );
        }
    }
}
