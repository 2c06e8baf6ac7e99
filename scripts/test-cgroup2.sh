#!/usr/bin/env bash
# The cgroup-v2 suite (issue 15), run by scripts/test.sh: the sandbox's own integration-test
# binary, built on this (v1) host, runs unchanged on a real cgroup-v2 kernel in the guest of
# scripts/cgroup2-vm.sh, so every sandbox check of the v1 suite is also a v2 check; then `judge
# run` judges submissions end to end there, and the judge is started inside non-root cgroups
# (with and without delegated controllers). Any failure fails this script. docs/sandbox.md.
#
#   scripts/test-cgroup2.sh            build on the host, then run the guest part in the guest
#   scripts/test-cgroup2.sh --guest    the guest part (what the guest runs)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
cache="${CGROUP2_VM_CACHE:-$repo/target/cgroup2-vm}"

# The emulated CPU (TCG) of the guest: timing checks get this much more room, limits of
# interpreters and the JVM this factor (docs/sandbox.md, "cgroup v2 on a v1 host").
export VERDICT_TEST_SLACK_MS="${VERDICT_TEST_SLACK_MS:-250}"
export VERDICT_TEST_SLOWDOWN="${VERDICT_TEST_SLOWDOWN:-4}"

if [ "${1:-}" != "--guest" ]; then
  start=$SECONDS
  # The binaries `cargo test --workspace` built (no rebuild after it): the sandbox's test
  # binary and `judge`.
  artifacts="$(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null)"
  pick() { # package target-kind target-name
    printf '%s\n' "$artifacts" | python3 -c '
import json, sys
pkg, kind, name = sys.argv[1:]
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("target", {})
    if (m.get("reason") == "compiler-artifact" and m.get("executable")
            and m["package_id"].split("#")[-1].startswith(pkg + "@")
            and kind in t.get("kind", []) and t.get("name") == name):
        print(m["executable"])
        break
' "$@"
  }
  it="$(pick verdict-sandbox test it)"
  judge="$(pick verdict-judge bin judge)"
  if [ -z "$it" ] || [ -z "$judge" ]; then
    echo "test-cgroup2: cannot find the sandbox test binary or judge" >&2
    exit 1
  fi
  # The test programs, compiled here once (gcc in the guest takes ~10 s a file).
  export VERDICT_TEST_FIXTURES="$cache/fixtures"
  "$it" --quiet --exact fixtures::every_fixture_is_compiled_and_current >/dev/null
  echo "== cgroup2: host preparation $((SECONDS - start)) s"
  export VERDICT_CGROUP2_IT="$it" VERDICT_CGROUP2_JUDGE="$judge"
  exec bash scripts/cgroup2-vm.sh bash scripts/test-cgroup2.sh --guest
fi

# ---- In the guest -------------------------------------------------------------------------
it="$VERDICT_CGROUP2_IT"
judge="$VERDICT_CGROUP2_JUDGE"
fail=0
step() { echo "== cgroup2: $* ($SECONDS s)"; }

step "the sandbox reports full-cgroup-v2"
level="$("$judge" sandbox -- /bin/true | sed -n 's/.*"isolation": *"\([^"]*\)".*/\1/p')"
if [ "$level" != "full-cgroup-v2" ]; then
  echo "FAILED: the guest's isolation is '$level', not full-cgroup-v2"
  exit 1
fi

step "the sandbox's integration tests (the v1 suite's binary)"
VERDICT_REQUIRE_SANDBOX=1 VERDICT_EXPECT_ISOLATION=full-cgroup-v2 \
  "$it" --test-threads=2 || fail=1

step "judge run, end to end"
# Time limits of the examples scaled by VERDICT_TEST_SLOWDOWN (an emulated CPU); compilers get
# the config's generous limits.
work="$(mktemp -d)"
cat > "$work/config.toml" <<EOF
work_dir = "$work/work"
cache_dir = "$work/cache"
require_isolation = true
[compile]
time_ms = 120000
wall_ms = 240000
EOF
examples="aplusb-c aplusb-python3 wrong-answer runtime-error segmentation-fault
  time-limit-busy time-limit-sleeping memory-limit output-limit fork-bomb
  hostile-files hostile-kill-all hostile-network hostile-tamper-build measured-cost"
for name in $examples; do
  python3 - "$VERDICT_TEST_SLOWDOWN" examples/judge/$name.json > "$work/$name.json" <<'EOF'
import json, sys
factor, path = int(sys.argv[1]), sys.argv[2]
sub = json.load(open(path))
for t in sub["judge_tasks"]:
    if t.get("check_script") != "compile" and t.get("time_limit"):
        t["time_limit"] *= factor
json.dump(sub, sys.stdout)
EOF
done
judge_one() {
  local name="$1" got want
  got="$("$judge" run --config "$3/config.toml" "$3/$name.json" 2>"$3/$name.log" |
    grep -o '"status":"[^"]*"' | cut -d'"' -f4)" || true
  want="$(cat "examples/judge/$name.expected")"
  if [ "$got" = "$want" ]; then
    echo "ok   $name"
  else
    echo "FAILED $name: got [$(echo $got)] want [$(echo $want)]"
    tail -5 "$3/$name.log"
    return 1
  fi
}
export -f judge_one
export judge
# Two at a time (two CPUs); each judge process has its own sandbox slots.
printf '%s\n' $examples | xargs -P 2 -I{} bash -c 'judge_one {} "$judge" "$0"' "$work" || fail=1

step "done"
exit "$fail"
