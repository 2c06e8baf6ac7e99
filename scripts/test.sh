#!/usr/bin/env bash
# The test command: installs what the tests need (Debian packages, idempotent), then runs
# formatting, lints and every test. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's header says how long the run has taken so far (CI's budget is 60 minutes).
start=$SECONDS
step() { echo "== $* ($(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s)"; }

# Languages the tests require (a missing one fails instead of being skipped).
export VERDICT_REQUIRE_LANGS="${VERDICT_REQUIRE_LANGS:-c,cpp,java,python3,js,bash,awk,perl,ruby,lua,go,rust,pas,fortran95,make,kotlin,scala,php,typescript,octave}"

bash scripts/setup.sh --deps-only
step "any checkout (a read-only copy under a path with spaces; scripts/test-checkouts.sh)"
bash scripts/test-checkouts.sh

step "cargo fmt --check"
cargo fmt --all --check
step "cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo doc --no-deps (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
step "cargo test"
cargo test --workspace --locked --no-fail-fast
# Cargo's target dir (CARGO_TARGET_DIR or a config may move it away from ./target). What the
# steps below write goes there: the checkout may be read-only.
target_dir="$(bash scripts/target-dir.sh)"
step "TypeScript types current (clients/typescript)"
# npm writes node_modules beside package.json: the client's files (and schemas/, which
# generate.mjs reads from ../../schemas) are copied into the target dir and checked there.
ts="$target_dir/ts-client"
rm -rf "$ts/clients" "$ts/schemas"
mkdir -p "$ts/clients/typescript"
(cd clients/typescript && cp -r package.json package-lock.json generate.mjs tsconfig.json src test \
  "$ts/clients/typescript/")
cp -r schemas "$ts/schemas"
(cd "$ts/clients/typescript" && npm ci --no-audit --no-fund --silent && npm test --silent)
step "Python client against a real judge-server (clients/python)"
# (The container suite's build, the same command: built once.)
cargo build --locked -p verdict-judge-server -p verdict-judge --bins
# The package is installed from a copy (a build writes egg-info and build/ beside
# pyproject.toml); the tests run from the checkout, writing no bytecode or cache there.
py="$target_dir/py-client"
python3 -m venv "$py"
rm -rf "$py/src"
mkdir -p "$py/src"
(cd clients/python && cp -r pyproject.toml README.md verdict_client "$py/src/")
"$py/bin/pip" install --quiet "$py/src[test]"
# The real clients the compat tests drive (docs/compat.md): the sandbox-fusion package, and
# verl's own reward code taken from its wheel (only that file: importing the verl package would
# pull torch); Piston's piston-rspy and aiopyston (Pyston), both listed in Piston's README;
# Judge0's official SDK (judge0).
"$py/bin/pip" install --quiet sandbox-fusion==0.3.7 requests piston-rspy==0.4.3 aiopyston==1.2.1 \
  judge0==0.0.8
verl_utils="$target_dir/verl-wheel/verl/utils/reward_score/sandbox_fusion/utils.py"
if [ ! -f "$verl_utils" ]; then
  rm -rf "$target_dir/verl-wheel"
  "$py/bin/pip" download --quiet --no-deps verl==0.9.1 -d "$target_dir/verl-wheel"
  "$py/bin/python" - "$target_dir/verl-wheel" <<'PY'
import pathlib, sys, zipfile
root = pathlib.Path(sys.argv[1])
with zipfile.ZipFile(next(root.glob("verl-*.whl"))) as wheel:
    for name in wheel.namelist():
        if name.startswith("verl/utils/reward_score/sandbox_fusion/"):
            wheel.extract(name, root)
PY
fi
export VERDICT_VERL_SANDBOX_FUSION="$verl_utils"
# pytest exits 5 when it collected no test: that is a failure here, as any other non-zero code.
PYTHONDONTWRITEBYTECODE=1 VERDICT_JUDGE_SERVER="$target_dir/debug/judge-server" \
  "$py/bin/pytest" -q -p no:cacheprovider clients/python
step "container (deploy/Dockerfile built by podman on an mmdebstrap base, judging; scripts/test-container.sh)"
bash scripts/test-container.sh
step "cgroup v2 suite (a qemu guest with a real cgroup-v2 kernel; scripts/test-cgroup2.sh)"
bash scripts/test-cgroup2.sh
step "benches compile (the dev profile: the test build's dependencies, not a second, optimised build of them)"
cargo build --workspace --benches --locked
step "done"
