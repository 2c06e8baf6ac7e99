#!/usr/bin/env bash
# Prepares a SandboxFusion tree for the batch benchmark's side-by-side rows
# (crates/scheduler/benches/batch/, docs/batches.md "Speed"). Its code stays out of this
# repository: pass the path of a checkout of bytedance/SandboxFusion.
#   scripts/bench-sandboxfusion.sh TREE
# Makes TREE/.verdict-conda: a venv of /usr/bin/python3 with the `main` dependencies pinned by
# TREE/poetry.lock (`poetry install` cannot resolve them here), inside the conda layout its
# python runner looks for (condabin/, bin/activate, envs/sandbox, envs/sandbox-runtime), and
# TREE/docs/build (the server mounts it). Installs Debian's sudo, cgroup-tools and iptables,
# which its `lite` isolation calls. Idempotent. Then:
#   VERDICT_SANDBOXFUSION=TREE cargo bench -p verdict-scheduler --bench batch
set -euo pipefail
tree=$(cd "${1:?usage: $0 SANDBOXFUSION_TREE}" && pwd)
conda="$tree/.verdict-conda"
test -f "$tree/poetry.lock" || { echo "$tree has no poetry.lock: not a SandboxFusion tree" >&2; exit 2; }

missing=""
for pkg in sudo cgroup-tools iptables python3-venv; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

mkdir -p "$conda/condabin" "$conda/bin" "$conda/envs/sandbox-runtime/bin" "$tree/docs/build"
if [ ! -x "$conda/envs/sandbox/bin/python" ]; then
  /usr/bin/python3 -m venv "$conda/envs/sandbox"
fi
# Every pin of the lock file as a constraint; the requirements are pyproject.toml's `main` group.
/usr/bin/python3 - "$tree" "$conda" <<'PY'
import re, sys
tree, conda = sys.argv[1], sys.argv[2]
lock = open(f"{tree}/poetry.lock", encoding="utf-8").read()
pins = re.findall(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"', lock)
open(f"{conda}/constraints.txt", "w").write("".join(f"{n}=={v}\n" for n, v in pins))
project = open(f"{tree}/pyproject.toml", encoding="utf-8").read()
main = project.split("[tool.poetry.dependencies]", 1)[1].split("\n[", 1)[0]
reqs = []
for line in main.strip().splitlines():
    name = line.split("=", 1)[0].strip()
    if not name or name == "python":
        continue
    extras = re.search(r'extras\s*=\s*\[([^\]]*)\]', line)
    extra = "[%s]" % ",".join(e.strip().strip('"') for e in extras.group(1).split(",")) if extras else ""
    reqs.append(name + extra)
open(f"{conda}/requirements.txt", "w").write("\n".join(reqs) + "\n")
PY
"$conda/envs/sandbox/bin/pip" install -q -r "$conda/requirements.txt" -c "$conda/constraints.txt"
ln -sf /usr/bin/python3 "$conda/envs/sandbox-runtime/bin/python"
cat > "$conda/bin/activate" <<'SH'
# A stand-in for conda's: `source activate ENV` puts ENV's bin first on PATH.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$root/envs/${1:-sandbox}/bin:$PATH"
export CONDA_DEFAULT_ENV="${1:-sandbox}"
SH
echo "ready: VERDICT_SANDBOXFUSION=$tree"
