#!/usr/bin/env bash
# The cgroup-v2 suite, run by scripts/test.sh: the sandbox's own integration-test
# binary, built on this (v1) host, runs unchanged on a real cgroup-v2 kernel in the guest of
# scripts/cgroup2-vm.sh, so every sandbox check of the v1 suite is also a v2 check; then `judge
# run` judges submissions end to end there, and the judge is started inside non-root cgroups
# (with and without delegated controllers). Any failure fails this script. docs/sandbox.md.
#
#   scripts/test-cgroup2.sh            build on the host, then run the guest part in the guest
#   scripts/test-cgroup2.sh --guest    the guest part (what the guest runs)
set -euo pipefail
cd "$(dirname "$0")/.."
# cargo's target dir (CARGO_TARGET_DIR, a config's build.target-dir, or target/): the source
# tree may be read-only.
if [ -z "${VERDICT_CGROUP2_TARGET:-}" ]; then
  VERDICT_CGROUP2_TARGET="$(bash scripts/target-dir.sh 2>/dev/null)" ||
    VERDICT_CGROUP2_TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
fi
target="$VERDICT_CGROUP2_TARGET"
export CGROUP2_VM_CACHE="${CGROUP2_VM_CACHE:-$target/cgroup2-vm}"
cache="$CGROUP2_VM_CACHE"

# The emulated CPU (TCG) of the guest: timing checks get this much more room, limits of
# interpreters and the JVM this factor (docs/sandbox.md, "cgroup v2 on a v1 host").
export VERDICT_TEST_SLACK_MS="${VERDICT_TEST_SLACK_MS:-500}"
export VERDICT_TEST_SLOWDOWN="${VERDICT_TEST_SLOWDOWN:-4}"

if [ "${1:-}" != "--guest" ]; then
  start=$SECONDS
  # The binaries `cargo test --workspace` built (no rebuild after it): the sandbox's test
  # binary, `judge` and `judge-server` (or VERDICT_CGROUP2_IT, VERDICT_CGROUP2_JUDGE and
  # VERDICT_CGROUP2_SERVER when all are given).
  artifacts=""
  if [ -z "${VERDICT_CGROUP2_IT:-}" ] || [ -z "${VERDICT_CGROUP2_JUDGE:-}" ] ||
    [ -z "${VERDICT_CGROUP2_SERVER:-}" ]; then
    artifacts="$(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null)"
  fi
  pick() { # package target-kind target-name
    printf '%s\n' "$artifacts" | python3 -c '
import json, sys
pkg, kind, name = sys.argv[1:]
for line in sys.stdin:
    m = json.loads(line)
    t = m.get("target", {})
    # Not the unit-test harness of a bin target (kind "bin" too, profile.test true).
    if (m.get("reason") == "compiler-artifact" and m.get("executable")
            and (kind == "test" or not m.get("profile", {}).get("test"))
            and m["package_id"].split("#")[-1].startswith(pkg + "@")
            and kind in t.get("kind", []) and t.get("name") == name):
        print(m["executable"])
        break
' "$@"
  }
  it="${VERDICT_CGROUP2_IT:-$(pick verdict-sandbox test it)}"
  judge="${VERDICT_CGROUP2_JUDGE:-$(pick verdict-judge bin judge)}"
  server="${VERDICT_CGROUP2_SERVER:-$(pick verdict-judge-server bin judge-server)}"
  if [ -z "$it" ] || [ -z "$judge" ] || [ -z "$server" ]; then
    echo "test-cgroup2: cannot find the sandbox test binary, judge or judge-server" >&2
    exit 1
  fi
  # The test programs, compiled here once (gcc in the guest takes ~10 s a file).
  export VERDICT_TEST_FIXTURES="$cache/fixtures"
  "$it" --quiet --exact fixtures::every_fixture_is_compiled_and_current >/dev/null
  echo "== cgroup2: host preparation $((SECONDS - start)) s"
  export VERDICT_CGROUP2_IT="$it" VERDICT_CGROUP2_JUDGE="$judge" VERDICT_CGROUP2_SERVER="$server"
  export VERDICT_CGROUP2_TARGET="$target"
  # The guest hides /tmp, /var/tmp and /run under tmpfs mounts of its own: the checkout, the
  # target dir and the test binaries stay visible wherever they are.
  export CGROUP2_VM_KEEP="$target:$(dirname "$it"):$(dirname "$judge"):$(dirname "$server")${CGROUP2_VM_KEEP:+:$CGROUP2_VM_KEEP}"
  exec bash scripts/cgroup2-vm.sh bash scripts/test-cgroup2.sh --guest
fi

# ---- In the guest -------------------------------------------------------------------------
it="$VERDICT_CGROUP2_IT"
judge="$VERDICT_CGROUP2_JUDGE"
server="$VERDICT_CGROUP2_SERVER"
fail=0
# Tests of root's own behaviour, skipped in the rootless runs (each runs as root above): a
# second instance in another pid namespace (root's unshare), dead instances' cgroups made by
# the test at the mount's root, a one-shot instance taking over another's lock and kept
# counters (root only, by design: docs/sandbox.md), the skeleton test's own mknod.
ROOTLESS_SKIP="--skip instance::a_second_instance_in_another_pid_namespace_keeps_the_first_ones_runs
  --skip instance::what_a_dead_instance_left_is_removed_and_a_live_ones_is_kept
  --skip instance::a_one_shot_instance_takes_over_a_clean_ones_lock_and_never_a_crashed_ones
  --skip oneshot::counters_a_one_shot_process_leaves_count_only_the_next_ones_run
  --skip skeleton::a_skeleton_changed_after_its_mark_is_checked_and_repaired"
step() { echo "== cgroup2: $* ($SECONDS s)"; }

# The tests' on-disk boxes go under the target dir's tmp/, read-only here: a tmpfs instead.
if [ -d "$VERDICT_CGROUP2_TARGET/tmp" ]; then
  mount -t tmpfs -o mode=1777 tmpfs "$VERDICT_CGROUP2_TARGET/tmp"
fi

cg=/sys/fs/cgroup
# Runs "$@" as the only process of the (new) cgroup $cg/$1.
in_cgroup() {
  local dir="$cg/$1"
  shift
  mkdir -p "$dir"
  sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@"
}

step "the judge in a non-root cgroup without memory and pids delegated"
# A fresh guest enables no controller for the root's children.
out="$(in_cgroup nodeleg "$judge" sandbox -- /bin/true 2>&1)" || true
if ! grep -q '"isolation": "rlimit-only"' <<<"$out" ||
  ! grep -q "memory and pids controller(s) are not delegated to $cg/nodeleg" <<<"$out"; then
  echo "FAILED: no clear refusal without delegated controllers:"
  echo "$out"
  fail=1
fi
if [ -e "$cg/nodeleg/verdict" ] || [ -e "$cg/verdict" ]; then
  echo "FAILED: a cgroup was made without delegated controllers"
  fail=1
fi

step "the sandbox reports full-cgroup-v2"
level="$("$judge" sandbox -- /bin/true | sed -n 's/.*"isolation": *"\([^"]*\)".*/\1/p')"
if [ "$level" != "full-cgroup-v2" ]; then
  echo "FAILED: the guest's isolation is '$level', not full-cgroup-v2"
  exit 1
fi

step "the sandbox's integration tests in a delegated non-root cgroup (systemd's Delegate=yes)"
echo "+memory +pids" > "$cg/cgroup.subtree_control"
VERDICT_REQUIRE_SANDBOX=1 VERDICT_EXPECT_ISOLATION=full-cgroup-v2 \
  in_cgroup svc "$it" --test-threads=2 \
  --skip instance::a_second_instance_in_another_pid_namespace_keeps_the_first_ones_runs || fail=1
# (That test looks for its run cgroups under <mount>/<cgroup_name>, which a delegated run does
# not use; it runs in the root cgroup below.)
# Only the delegated subtree was used: the supervisor moved into its leaf, the run cgroups'
# parents are beside it, and no run cgroup is left in them.
# (A sandbox the test binary never drops leaves its fresh, never used cgroups, as on v1.)
left="$(find "$cg/svc" -mindepth 2 -type d | while read -r d; do
  head -1 "$d/cpu.stat" | grep -qx 'usage_usec 0' || echo "$d"; done)"
if [ ! -d "$cg/svc/verdict-supervisor" ] || [ ! -d "$cg/svc/verdict-sandbox-tests" ] ||
  [ -n "$left" ] || [ -e "$cg/verdict-sandbox-tests" ]; then
  echo "FAILED: the delegated subtree was not used alone, or run cgroups were left:"
  find "$cg" -maxdepth 3 -type d -name 'verdict*'
  fail=1
fi

step "the judge in a container's cgroup namespace (its root is not the real root)"
out="$(in_cgroup ctr unshare --cgroup --mount sh -c \
  'umount /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && exec "$@"' sh \
  "$judge" sandbox --memory 32768 --ro "$VERDICT_TEST_FIXTURES" -- \
  "$VERDICT_TEST_FIXTURES/touch" 64 2>&1)" || true
if ! grep -q '"isolation": "full-cgroup-v2"' <<<"$out" || ! grep -q '"limit_hit": "memory"' <<<"$out" ||
  [ ! -d "$cg/ctr/verdict-supervisor" ] || [ ! -d "$cg/ctr/verdict" ]; then
  echo "FAILED: the judge in a cgroup namespace:"
  echo "$out"
  find "$cg/ctr" -maxdepth 1
  fail=1
fi

step "the sandbox's integration tests in the root cgroup"
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

# ---- Without root (docs/sandbox.md, "Without root") ----------------------------------------
# An ordinary user (nobody) in a cgroup of its own that root handed over (chown -R, as
# systemd's user manager or an administrator delegates one), with subordinate ids in
# /etc/subuid and /etc/subgid (files bound over the host's, read-only here).
user=65534
printf 'nobody:200000:65536\n' > /tmp/subid
mount --bind /tmp/subid /etc/subuid && mount --bind /tmp/subid /etc/subgid
delegate() { mkdir -p "$cg/$1" && chown -R "$user:$user" "$cg/$1"; }
as_user() { setpriv --reuid="$user" --regid="$user" --clear-groups env HOME=/tmp "$@"; }

step "rootless: judge doctor and judge sandbox without a delegated cgroup (namespaces, no cgroup)"
mkdir -p "$cg/rl-nodeleg"
doctor="$(in_cgroup rl-nodeleg setpriv --reuid="$user" --regid="$user" --clear-groups \
  "$judge" doctor 2>&1)" || true
if ! grep -q '^isolation: rootless-namespaces' <<<"$doctor" ||
  ! grep -q '^no   cgroup .*not writable by this user' <<<"$doctor" ||
  ! grep -q '^ok   a uid per box' <<<"$doctor"; then
  echo "FAILED: without delegation, not the honest lower level:"
  echo "$doctor"
  fail=1
fi
# What a box gets there: the outcome names rootless-namespaces (namespaces, private root and
# seccomp; limits and accounting by rlimits), the log says why (the cgroup the user may not
# write), and a judge that requires isolation refuses to start, naming it.
out="$(in_cgroup rl-nodeleg setpriv --reuid="$user" --regid="$user" --clear-groups env HOME=/tmp \
  "$judge" sandbox -- /bin/echo boxed 2>/tmp/rl-nodeleg.err)" || true
if ! grep -q '"isolation": "rootless-namespaces"' <<<"$out" || ! grep -qx boxed <<<"$out" ||
  ! grep -q "isolates by namespaces without a cgroup" /tmp/rl-nodeleg.err ||
  ! grep -q "$cg/rl-nodeleg.*Permission denied" /tmp/rl-nodeleg.err; then
  echo "FAILED: judge sandbox without delegation, not rootless-namespaces with the cgroup named:"
  echo "$out"
  cat /tmp/rl-nodeleg.err
  fail=1
fi
if out="$(in_cgroup rl-nodeleg setpriv --reuid="$user" --regid="$user" --clear-groups \
  env HOME=/tmp "$judge" sandbox --require-isolation -- /bin/true 2>&1)" ||
  ! grep -q "$cg/rl-nodeleg.*Permission denied" <<<"$out"; then
  echo "FAILED: judge sandbox --require-isolation without delegation did not refuse, naming the cgroup:"
  echo "$out"
  fail=1
fi
if [ -n "$(find "$cg/rl-nodeleg" -mindepth 1 -type d)" ]; then
  echo "FAILED: a cgroup was made without delegation:"
  find "$cg/rl-nodeleg" -mindepth 1 -type d
  fail=1
fi

step "rootless: the sandbox's integration tests as an ordinary user in a delegated subtree"
delegate rl-ids
# (A test's second instance in another pid namespace needs root's unshare; root runs it above.)
VERDICT_REQUIRE_SANDBOX=1 VERDICT_EXPECT_ISOLATION=rootless-cgroup-v2 \
  in_cgroup rl-ids setpriv --reuid="$user" --regid="$user" --clear-groups env HOME=/tmp \
  "$it" --test-threads=2 $ROOTLESS_SKIP || fail=1
echo "== cgroup2: judge doctor as the user, in a delegated cgroup:"
delegate rl-doctor
in_cgroup rl-doctor setpriv --reuid="$user" --regid="$user" --clear-groups "$judge" doctor || fail=1

step "rootless: the hostile and memory tests with every box as the one mapped uid"
umount /etc/subuid /etc/subgid
delegate rl-one
VERDICT_REQUIRE_SANDBOX=1 VERDICT_EXPECT_ISOLATION=rootless-cgroup-v2-one-uid \
  in_cgroup rl-one setpriv --reuid="$user" --regid="$user" --clear-groups env HOME=/tmp \
  "$it" --test-threads=2 hostile:: memory:: $ROOTLESS_SKIP || fail=1

step "rootless: judge run as an ordinary user, the examples root judged"
mount --bind /tmp/subid /etc/subuid && mount --bind /tmp/subid /etc/subgid
# The cgroups outside the delegated ones, to compare afterwards.
outside() { find "$cg" -type d ! -path "$cg/rl-judge-*" | LC_ALL=C sort; }
before="$(outside)"
uwork="$(mktemp -d)"
sed "s|$work|$uwork|g" "$work/config.toml" > "$uwork/config.toml"
for name in $examples; do cp "$work/$name.json" "$uwork/"; done
chown -R "$user:$user" "$uwork"
# Two judges side by side (two CPUs), each in a delegated cgroup of its own (each moves the
# processes of its cgroup into a leaf) judging every other example, one at a time; all as
# the user. (judge_one given in the command: in_cgroup's sh drops exported functions.)
half() { printf '%s\n' $examples | sed -n "$1~2p" | tr '\n' ' '; }
for h in 1 2; do
  delegate "rl-judge-$h"
  in_cgroup "rl-judge-$h" setpriv --reuid="$user" --regid="$user" --clear-groups env HOME=/tmp \
    bash -c "$(declare -f judge_one)"'; f=0; for n in $0; do judge_one "$n" "$judge" "$1" || f=1; done; exit $f' \
    "$(half $h)" "$uwork" &
done
for h in 1 2; do wait -n || fail=1; done
# Only the delegated cgroups were used, and no used run cgroup is left in them.
# Only new directories count: the root judge's run cgroups, removed by its cgroup thread after
# it ended, may still have been there when `before` was read. (Temporary files, not `<(...)`:
# the guest has no /dev/fd.)
echo "$before" > "$uwork/cgroups.before"
outside > "$uwork/cgroups.after"
made="$(LC_ALL=C comm -13 "$uwork/cgroups.before" "$uwork/cgroups.after")"
if [ -n "$made" ]; then
  echo "FAILED: the rootless judges made cgroups outside their delegated subtrees:"
  echo "$made"
  fail=1
fi
left="$(find "$cg"/rl-judge-* -mindepth 2 -type d ! -name verdict-supervisor | while read -r d; do
  head -1 "$d/cpu.stat" | grep -qx 'usage_usec 0' || echo "$d"; done)"
if [ -n "$left" ] || [ ! -d "$cg/rl-judge-1/verdict-supervisor" ]; then
  echo "FAILED: the rootless judges left run cgroups, or did not use their subtree:"
  find "$cg"/rl-judge-* -type d
  fail=1
fi

step "rootless: judge-server as an ordinary user in a delegated subtree"
# Loopback only (the guest has no network device).
ip link set lo up
port=8411
cat > "$uwork/server.toml" <<EOF
listen = "127.0.0.1:$port"
workers = 1
request_timeout_ms = 600000
[judge]
work_dir = "$uwork/server-work"
cache_dir = "$uwork/server-cache"
require_isolation = true
[judge.compile]
time_ms = 120000
wall_ms = 240000
[[tokens]]
token = "guest-test"
EOF
chown "$user:$user" "$uwork/server.toml"
delegate rl-server
# (sh execs the server: $! is its pid.)
sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg/rl-server" \
  setpriv --reuid="$user" --regid="$user" --clear-groups env HOME=/tmp \
  "$server" --config "$uwork/server.toml" >"$uwork/server.log" 2>&1 &
server_pid=$!
health=""
deadline=$((SECONDS + 120))
until health="$(curl -sf "http://127.0.0.1:$port/v1/health")"; do
  if [ $SECONDS -ge $deadline ] || ! kill -0 "$server_pid" 2>/dev/null; then
    echo "FAILED: judge-server as the user never answered /v1/health:"
    tail -20 "$uwork/server.log"
    fail=1
    break
  fi
  sleep 0.5
done
if [ -n "$health" ]; then
  # The level it found, as it logs it at start.
  grep -q '"message":"sandbox isolation","level":"RootlessCgroupV2"' "$uwork/server.log" ||
    { echo "FAILED: judge-server as the user does not report rootless-cgroup-v2:"; head -5 "$uwork/server.log"; fail=1; }
  got="$(curl -sS -H 'Authorization: Bearer guest-test' -H 'Content-Type: application/json' \
    --data-binary "@$uwork/aplusb-c.json" "http://127.0.0.1:$port/v1/judge" |
    python3 -c 'import json, sys; print("\n".join(r["status"] for r in json.load(sys.stdin)["results"]))' \
    2>&1)" || true
  if [ "$got" = "$(cat examples/judge/aplusb-c.expected)" ]; then
    echo "ok   aplusb-c through judge-server"
  else
    echo "FAILED aplusb-c through judge-server: got [$(echo $got)]"
    tail -20 "$uwork/server.log"
    fail=1
  fi
fi
kill -TERM "$server_pid" 2>/dev/null
wait "$server_pid" 2>/dev/null || true
# The server's processes all ended with it, and it stayed in its subtree.
if [ -n "$(cat "$cg/rl-server/cgroup.procs" "$cg"/rl-server/*/cgroup.procs 2>/dev/null)" ]; then
  echo "FAILED: processes of judge-server outlived it"
  fail=1
fi

step "done"
exit "$fail"
