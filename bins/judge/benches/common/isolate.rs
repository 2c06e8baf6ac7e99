//! isolate 1.10 as the benchmarks drive it (`speed`, `oneshot`): one box `--init`ed with the
//! static A+B and its input, `--cg --run`s in it, and `--cleanup` when dropped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// An isolate box holding `aplusb` and `in.txt`.
pub struct IsolateBox {
    isolate: PathBuf,
    id: String,
}

impl IsolateBox {
    /// Inits box `id` (cleaning up a box left there first) with `program` as `aplusb` and
    /// `input` as `in.txt`, when `isolate` is on the `PATH`; `None` otherwise (saying why when
    /// `--init` fails).
    pub fn init(id: u32, program: &Path, input: &Path) -> Option<IsolateBox> {
        let path = std::env::var_os("PATH")?;
        let isolate = std::env::split_paths(&path)
            .map(|d| d.join("isolate"))
            .find(|p| p.is_file())?;
        let made = IsolateBox {
            isolate,
            id: format!("--box-id={id}"),
        };
        let _ = made.command(&["--cleanup"]).output();
        let out = made.command(&["--init"]).output().ok()?;
        if !out.status.success() {
            println!(
                "isolate --init failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("box");
        std::fs::copy(program, dir.join("aplusb")).ok()?;
        std::fs::copy(input, dir.join("in.txt")).ok()?;
        Some(made)
    }

    /// `isolate --cg --box-id=N` with `args`.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.isolate);
        c.args(["--cg", &self.id]).args(args);
        c
    }

    /// One `--run` of `./aplusb` (stdin `in.txt`, stdout `out.txt`) under `limits` (isolate's
    /// own flags, `--time=1` and so on), its own output discarded.
    pub fn run(&self, limits: &[String]) -> Command {
        let mut c = self.command(&[]);
        c.args(limits)
            .args([
                "--stdin=in.txt",
                "--stdout=out.txt",
                "--run",
                "--",
                "./aplusb",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    }
}

impl Drop for IsolateBox {
    fn drop(&mut self) {
        let _ = self.command(&["--cleanup"]).output();
    }
}
