#!/usr/bin/env bash
# The rootless sandbox's cost per run next to root's, in the same run: in the
# cgroup-v2 guest of scripts/cgroup2-vm.sh, `judge sandbox --bench N` (N runs bare, N in the
# sandbox, medians and 95th percentiles) runs as root in a delegated cgroup and as an ordinary
# user (nobody, subordinate ids mapped) in a cgroup handed to it, alternating, ROUNDS times;
# prints each round and the ratio rootless/root of the sandboxed medians. The guest's CPU is
# emulated (TCG): absolute times are slow, ratios within one run are what counts.
# docs/sandbox.md ("Without root", "What it costs") has a run's numbers.
#
#   scripts/bench-rootless.sh            (VERDICT_BENCH_RUNS=200, VERDICT_BENCH_ROUNDS=3,
#                                         VERDICT_BENCH_PROGRAM=/bin/true)
#   VERDICT_BENCH_JUDGE=path/to/judge    a built judge (default: cargo build --release)
#   scripts/bench-rootless.sh --host     on this host instead, no cgroup handed to the user:
#                                        root's level next to rootless-namespaces
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-}"
if [ "$mode" != "--guest" ]; then
  if [ -z "${VERDICT_BENCH_JUDGE:-}" ]; then
    cargo build --release --locked -p verdict-judge
    target="$(bash scripts/target-dir.sh)"
    VERDICT_BENCH_JUDGE="$target/release/judge"
  fi
  export VERDICT_BENCH_JUDGE
  [ "$mode" = --host ] && exec bash scripts/bench-rootless.sh --guest --host
  export CGROUP2_VM_KEEP="$(dirname "$VERDICT_BENCH_JUDGE")${CGROUP2_VM_KEEP:+:$CGROUP2_VM_KEEP}"
  exec bash scripts/cgroup2-vm.sh bash scripts/bench-rootless.sh --guest
fi

# ---- In the guest -------------------------------------------------------------------------
judge="$VERDICT_BENCH_JUDGE"
runs="${VERDICT_BENCH_RUNS:-200}" rounds="${VERDICT_BENCH_ROUNDS:-3}"
program="${VERDICT_BENCH_PROGRAM:-/bin/true}"
cg=/sys/fs/cgroup
user=65534
host="${2:-}"
if [ -z "$host" ]; then
  echo "+memory +pids" > "$cg/cgroup.subtree_control"
  printf 'nobody:200000:65536\n' > /tmp/subid
  mount --bind /tmp/subid /etc/subuid && mount --bind /tmp/subid /etc/subgid
fi
in_cgroup() { # dir command...: runs the command as the only process of the new cgroup $cg/dir
  local dir="$cg/$1"
  shift
  mkdir -p "$dir"
  sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@"
}
out="$(mktemp -d)"
chmod 755 "$out"
# A fresh cgroup for each judge: one that ran a judge has children, and may hold no process.
for r in $(seq "$rounds"); do
  if [ -n "$host" ]; then # this host's cgroups as they are: none for the user
    "$judge" sandbox --bench "$runs" -- "$program" > "$out/root-$r.json"
    setpriv --reuid="$user" --regid="$user" --clear-groups env HOME=/tmp \
      "$judge" sandbox --bench "$runs" -- "$program" > "$out/user-$r.json" 2>/dev/null
    continue
  fi
  mkdir "$cg/bench-user-$r"
  chown -R "$user:$user" "$cg/bench-user-$r"
  in_cgroup "bench-root-$r" "$judge" sandbox --bench "$runs" -- "$program" > "$out/root-$r.json"
  in_cgroup "bench-user-$r" setpriv --reuid="$user" --regid="$user" --clear-groups env HOME=/tmp \
    "$judge" sandbox --bench "$runs" -- "$program" > "$out/user-$r.json"
done
python3 - "$out" "$rounds" "$runs" "$program" "$host" <<'PY'
import json, statistics, sys
out, rounds, runs, program = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
want_root, want_user = ("full-cgroup-v2", "rootless-cgroup-v2")
if sys.argv[5]:
    want_root, want_user = (None, "rootless-namespaces")
ratios, costs = [], {"root": [], "rootless": []}
print(f"{runs} runs of {program} per round, each level's bare runs beside its sandboxed ones;")
print("medians (p95) in microseconds; cost = sandboxed median - bare median")
for r in range(1, rounds + 1):
    root = json.load(open(f"{out}/root-{r}.json"))
    user = json.load(open(f"{out}/user-{r}.json"))
    if (want_root and root["isolation"] != want_root) or not root["isolation"].startswith("full-") \
            or user["isolation"] != want_user:
        sys.exit(f"round {r}: isolation {root['isolation']} / {user['isolation']}, "
                 f"not {want_root or 'full-*'} / {want_user}")
    ratios.append(user["sandbox"]["median_us"] / root["sandbox"]["median_us"])
    for name, b in (("root", root), ("rootless", user)):
        cost = b["sandbox"]["median_us"] - b["bare"]["median_us"]
        costs[name].append(cost)
        print(f"round {r} {name:8} {b['isolation']:20} bare {b['bare']['median_us']:7} "
              f"({b['bare']['p95_us']})  sandboxed {b['sandbox']['median_us']:7} "
              f"({b['sandbox']['p95_us']})  cost {cost}")
    print(f"round {r} rootless/root sandboxed median: {ratios[-1]:.2f}")
med = statistics.median
print(f"rootless/root sandboxed, median of {rounds} rounds: {med(ratios):.2f} "
      f"(min {min(ratios):.2f}, max {max(ratios):.2f}); cost per run, median of rounds: "
      f"root {med(costs['root'])} us, rootless {med(costs['rootless'])} us")
PY
