#!/usr/bin/env bash
# The test command: installs what the tests need (Debian packages, idempotent), then runs
# formatting, lints and every test. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Languages the tests require (a missing one fails instead of being skipped).
export VERDICT_REQUIRE_LANGS="${VERDICT_REQUIRE_LANGS:-c,cpp,java,python3,js,bash,awk,perl,ruby,lua,go,rust,pas,fortran95,make}"

bash scripts/setup.sh --deps-only

echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo doc --no-deps (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
echo "== cargo test"
cargo test --workspace --locked --no-fail-fast
echo "== TypeScript types current (clients/typescript)"
(cd clients/typescript && npm ci --no-audit --no-fund --silent && npm test --silent)
echo "== Python client against a real judge-server (clients/python)"
cargo build --locked -p verdict-judge-server
# Cargo's target dir (CARGO_TARGET_DIR or a config may move it away from ./target).
target_dir="$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
python3 -m venv "$target_dir/py-client"
"$target_dir/py-client/bin/pip" install --quiet -e 'clients/python[test]'
# pytest exits 5 when it collected no test: that is a failure here, as any other non-zero code.
VERDICT_JUDGE_SERVER="$target_dir/debug/judge-server" "$target_dir/py-client/bin/pytest" -q clients/python
echo "== cgroup v2 suite (a qemu guest with a real cgroup-v2 kernel; scripts/test-cgroup2.sh)"
bash scripts/test-cgroup2.sh
echo "== benches compile"
cargo bench --workspace --locked --no-run
