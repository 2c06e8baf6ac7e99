#!/usr/bin/env bash
# Any checkout works, run by scripts/test.sh: the set-up and test scripts' path
# handling, from a copy of this checkout under /tmp in a directory whose name holds a space,
# read-only (a read-only bind mount as root, the files' write bits cleared otherwise), with
# CARGO_TARGET_DIR elsewhere (its name with a space too), each script started from another
# directory. Only the parts whose path handling matters run, nothing is compiled:
#   - scripts/setup.sh --deps-only;
#   - scripts/target-dir.sh (what test.sh and the other scripts write into), with and without
#     CARGO_TARGET_DIR;
#   - deploy/build-image.sh's arguments and build context, the builder a program whose path
#     holds a space (a recorder that checks what it was given, in place of podman), with
#     --bin-dir and from the target dir, TMPDIR with a space;
#   - scripts/cgroup2-vm.sh with a trivial command: the guest must start in the read-only tree
#     under /tmp, pass an argument with a space and return its exit status.
# Any difference fails this script. docs/deploy.md ("Any checkout").
#
#   scripts/test-checkouts.sh
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
start=$SECONDS
step() { echo "== checkouts: $* ($((SECONDS - start)) s)"; }
fail() {
  echo "FAILED: $*"
  exit 1
}

if [ "${1:-}" != "--inside" ]; then
  base="$(mktemp -d /tmp/verdict-checkout.XXXXXX)"
  # (Write bits first: a non-root run clears them below.)
  trap 'chmod -R u+w "$base" 2>/dev/null; rm -rf "$base"' EXIT
  tree="$base/a b/verdict"
  mkdir -p "$tree"
  step "copy of the checkout into $tree"
  # The files a clone holds (tracked ones and new ones not ignored, with the edits not yet
  # committed; never target/), or every file but target/ outside git.
  if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard |
      tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$tree"
  else
    (cd "$src" && tar --exclude=./target -cf - .) | tar -xf - -C "$tree"
  fi
  if [ "$(id -u)" = 0 ]; then
    # A mount namespace of its own: the read-only bind mount ends with it (not exec'd: the
    # trap above removes the copy afterwards).
    unshare --mount --propagation private bash -c \
      'mount --bind "$2" "$2" && mount -o remount,bind,ro "$2" && exec bash "$2/scripts/test-checkouts.sh" --inside "$1" "$2"' \
      sh "$base" "$tree"
    exit
  fi
  chmod -R a-w "$tree"
  bash "$tree/scripts/test-checkouts.sh" --inside "$base" "$tree"
  exit
fi

# ---- From the read-only copy --------------------------------------------------------------
base="$2" tree="$3"
if touch "$tree/.written" 2>/dev/null; then fail "the copy $tree is writable"; fi
export CARGO_TARGET_DIR="$base/target dir"
cd /

step "setup.sh --deps-only, from /"
# (test.sh ran it a moment ago: apt's lists are fresh.)
VERDICT_SKIP_APT_UPDATE=1 bash "$tree/scripts/setup.sh" --deps-only >"$base/setup.out" 2>&1 ||
  { tail -20 "$base/setup.out"; fail "scripts/setup.sh --deps-only from $tree"; }

step "target-dir.sh"
got="$(bash "$tree/scripts/target-dir.sh")"
[ "$got" = "$CARGO_TARGET_DIR" ] || fail "target-dir.sh said '$got', not '$CARGO_TARGET_DIR'"
got="$(env -u CARGO_TARGET_DIR bash "$tree/scripts/target-dir.sh")"
[ "$got" = "$tree/target" ] || fail "target-dir.sh without CARGO_TARGET_DIR said '$got', not '$tree/target'"

step "deploy/build-image.sh: arguments and context"
tools="$base/tools dir"
mkdir -p "$tools" "$base/bin dir" "$CARGO_TARGET_DIR/release" "$base/tmp dir"
for b in judge judge-server; do
  cp /bin/true "$base/bin dir/$b"
  cp /bin/true "$CARGO_TARGET_DIR/release/$b"
done
# The recorder: its arguments one a line, then the context's files (read before build-image.sh
# removes it).
cat > "$tools/builder" <<'EOF'
#!/usr/bin/env bash
out="$(dirname "$0")/record"
printf '%s\n' "$@" > "$out"
ctx="${!#}"
(cd "$ctx" && find . -type f | LC_ALL=C sort) >> "$out"
EOF
chmod +x "$tools/builder"
cp "$tools/builder" "$tools/buildah"
check_build() { # verb bin-dir-args...: runs build-image.sh and compares what the builder got
  local verb="$1" builder="$tools/builder" ctx
  shift
  [ "$verb" = bud ] && builder="$tools/buildah"
  rm -f "$tools/record"
  TMPDIR="$base/tmp dir" VERDICT_BUILDER="$builder" bash "$tree/deploy/build-image.sh" "$@" \
    --tag "verdict:test" -- --build-arg "NOTE=two words" || fail "build-image.sh $*"
  [ -f "$tools/record" ] || fail "build-image.sh $* never ran the builder $builder"
  ctx="$(sed -n 3p "$tools/record")"
  ctx="${ctx%/deploy/Dockerfile}"
  case "$ctx" in "$base/tmp dir/verdict-image."*) ;; *) fail "build context '$ctx' not in TMPDIR" ;; esac
  diff -u <(printf '%s\n' "$verb" -f "$ctx/deploy/Dockerfile" -t verdict:test --build-arg \
    "NOTE=two words" "$ctx" ./bin/judge ./bin/judge-server \
    $(cd "$tree" && find deploy -type f | LC_ALL=C sort | sed 's|^|./|') \
    ./crates/scripts/languages.toml ./scripts/install-toolchains.sh | LC_ALL=C sort) \
    <(LC_ALL=C sort "$tools/record") || fail "the builder got other arguments or context (build-image.sh $*)"
  [ ! -e "$ctx" ] || fail "build-image.sh left its context $ctx"
}
check_build build --bin-dir "$base/bin dir"
check_build bud

step "cgroup2-vm.sh with a trivial command, from the copy"
out="$(cd "$tree" && bash scripts/cgroup2-vm.sh sh -c \
  'echo "pwd=$PWD"; echo "arg=$1"; ls Cargo.toml; cat /sys/fs/cgroup/cgroup.controllers; exit 7' \
  sh "two words" 2>&1)" && rc=0 || rc=$?
if [ "$rc" != 7 ] || ! grep -qx "pwd=$tree" <<<"$out" || ! grep -qx "arg=two words" <<<"$out" ||
  ! grep -qx "Cargo.toml" <<<"$out" || ! grep -q "memory" <<<"$out"; then
  echo "$out"
  fail "cgroup2-vm.sh from $tree: exit $rc (want 7), or not the directory, argument or cgroup2 mount"
fi
step "done"
