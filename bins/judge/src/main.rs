//! `judge`: the command-line front door of verdict. It parses arguments, reads files and
//! composes the library crates; every decision lives in a crate.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// verdict: a judge and evaluation engine.
#[derive(Debug, Parser)]
#[command(name = "judge", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands, each `Variant(module)` with its doc comment (its about), and from the same
/// list: the deferred builder of each one's arguments ([`command`]) and, for the tests, the
/// eager enum the help of the deferred one must equal.
macro_rules! subcommands {
    ($($(#[$doc:meta])* $variant:ident($module:ident),)*) => {
        /// The subcommands. `defer`: a subcommand's arguments are built only when it is the one
        /// being parsed or shown in full (see [`command`]).
        #[derive(Debug, Subcommand)]
        #[command(defer = true)]
        enum Command {
            $($(#[$doc])* $variant(cmd::$module::Args),)*
        }

        /// The same subcommands built eagerly: what `judge` was before `defer` (tests only).
        #[cfg(test)]
        #[derive(Debug, Subcommand)]
        enum Eager {
            $($(#[$doc])* $variant(cmd::$module::Args),)*
        }

        /// Each subcommand's name and the builder of its arguments: the `Args`' own about
        /// (its doc comment), which the derive's deferred builder applies last, is replaced
        /// by the subcommand's again, as an eager build leaves it.
        const DEFERRED: &[(&str, fn(clap::Command) -> clap::Command)] = &[$((
            stringify!($module),
            |sub: clap::Command| {
                let about = sub.get_about().cloned();
                let long_about = sub.get_long_about().cloned();
                let sub = <cmd::$module::Args as clap::Args>::augment_args(sub);
                let sub = match about {
                    Some(a) => sub.about(a),
                    None => sub.about(None::<&'static str>),
                };
                match long_about {
                    Some(a) => sub.long_about(a),
                    None => sub.long_about(None::<&'static str>),
                }
            },
        ),)*];
    };
}

subcommands! {
    /// Judge one Submission (file or `-`) and print its JudgeReport.
    Run(run),
    /// List the languages of the contract: ready or missing here, with versions and install hints.
    Languages(languages),
    /// Judge a deliverable against a Task Oracle suite and print the report.
    Oracle(oracle),
    /// Judge code samples against a public dataset (HumanEval, MBPP, LiveCodeBench, APPS, ...).
    Eval(eval),
    /// Judge a batch (one problem, many candidates); stream one NDJSON line per candidate.
    Batch(batch),
    /// A problem package's reference submissions as Submissions; `verify DIR` judges and checks them.
    Package(package),
    /// Write one JSON Schema per top-level wire type into a directory.
    Schema(schema),
    /// Run one command in the sandbox and print its outcome as JSON.
    Sandbox(sandbox),
    /// Run Agent Lab tasks (JSON or JSON Lines), append RunRecords and ScoreRecords, summarise.
    Lab(lab),
    /// Write Agent Lab runs and scores as one self-contained HTML report (`-o report.html`).
    View(view),
    /// Say what isolation this host gives the sandbox, as which user, and how to get the rest.
    Doctor(doctor),
}

/// The command line, each subcommand's arguments deferred: a one-shot `judge sandbox` builds
/// the arguments of `sandbox` alone, not those of all the others (~0.15 ms of the process's start,
/// docs/speed.md); `judge --help` needs only names and abouts. Help, errors and completions are
/// those of the eager build (the tests compare them).
fn command() -> clap::Command {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    for (name, deferred) in DEFERRED {
        cmd = cmd.mut_subcommand(name, |sub| sub.defer(*deferred));
    }
    cmd
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VERDICT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = {
        use clap::FromArgMatches;
        let mut matches = command().get_matches();
        Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.format(&mut command()).exit())
    };
    // An ordinary user's judge enters a user namespace of its own before any thread starts,
    // where the sandbox can isolate boxes as root does (docs/sandbox.md, "Without root").
    let entered = match &cli.command {
        Command::Run(_)
        | Command::Eval(_)
        | Command::Batch(_)
        | Command::Oracle(_)
        | Command::Sandbox(_)
        | Command::Lab(_)
        | Command::Doctor(_) => verdict_sandbox::rootless::enter_user_namespace(),
        _ => verdict_sandbox::rootless::Entered::AlreadyPrivileged,
    };
    if let verdict_sandbox::rootless::Entered::Refused(why) = &entered {
        tracing::debug!(%why, "no user namespace");
    }
    let result = match cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Languages(args) => cmd::languages::run(args),
        Command::Oracle(args) => cmd::oracle::run(args),
        Command::Package(args) => cmd::package::run(args),
        Command::Eval(args) => cmd::eval::run(args),
        Command::Batch(args) => cmd::batch::run(args),
        Command::Schema(args) => cmd::schema::run(args),
        Command::Sandbox(args) => cmd::sandbox::run(args),
        Command::Lab(args) => cmd::lab::run(args),
        Command::View(args) => cmd::view::run(args),
        Command::Doctor(args) => cmd::doctor::run(args, &entered),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            cmd::report_error(&err);
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    /// `judge` with its subcommands built eagerly, as before `defer`.
    #[derive(Debug, Parser)]
    #[command(name = "judge", version, about)]
    struct EagerCli {
        #[command(subcommand)]
        command: Eager,
    }

    fn help_of(cmd: clap::Command, argv: &[&str]) -> String {
        let err = cmd.try_get_matches_from(argv).expect_err("help exits");
        assert_eq!(err.kind(), clap::error::ErrorKind::DisplayHelp, "{argv:?}");
        err.to_string()
    }

    #[test]
    fn deferred_subcommands_print_the_help_of_eager_ones() {
        let names: Vec<String> = EagerCli::command()
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        assert_eq!(names.len(), DEFERRED.len(), "{names:?}");
        for (name, _) in DEFERRED {
            assert!(
                names.iter().any(|n| n == name),
                "{name} is not a subcommand"
            );
            for flag in ["--help", "-h"] {
                let argv = ["judge", name, flag];
                let want = help_of(EagerCli::command(), &argv);
                assert_eq!(help_of(command(), &argv), want, "judge {name} {flag}");
            }
        }
        for argv in [
            &["judge", "--help"][..],
            &["judge", "-h"],
            &["judge", "help", "sandbox"],
        ] {
            assert_eq!(
                help_of(command(), argv),
                help_of(EagerCli::command(), argv),
                "{argv:?}"
            );
        }
    }

    #[test]
    fn deferred_subcommands_parse_and_refuse_as_eager_ones() {
        let mut m = command()
            .try_get_matches_from(["judge", "sandbox", "--time", "5", "--", "/bin/true"])
            .expect("parses");
        let cli = Cli::from_arg_matches_mut(&mut m).expect("args");
        let Command::Sandbox(args) = cli.command else {
            panic!("not sandbox: {cli:?}");
        };
        assert!(format!("{args:?}").contains("time: Some(5)"), "{args:?}");
        for argv in [
            &["judge", "sandbox", "--bogus"][..],
            &["judge", "sandbox"],
            &["judge", "oracle"],
            &["judge", "bogus"],
            &["judge"],
        ] {
            let want = EagerCli::command()
                .try_get_matches_from(argv)
                .expect_err("refused");
            let got = command().try_get_matches_from(argv).expect_err("refused");
            assert_eq!(got.kind(), want.kind(), "{argv:?}");
            assert_eq!(got.to_string(), want.to_string(), "{argv:?}");
        }
    }
}
