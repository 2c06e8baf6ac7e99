#!/usr/bin/env bash
# Set-up on a fresh Debian machine, then a first run: installs the toolchains and tools the
# judge and its tests use (Debian packages), builds verdict, and judges an example.
#   scripts/setup.sh              install, build, judge examples/judge/aplusb-c.json
#   scripts/setup.sh --deps-only  install only (what scripts/test.sh calls)
set -euo pipefail
cd "$(dirname "$0")/.."

# Tools for the special tests (design #8-#10): Google Test, valgrind, static analysers.
TOOLS="googletest libgtest-dev valgrind cppcheck clang-tidy"
# RabbitMQ for the queue tests: the tests start a private node themselves.
TOOLS="$TOOLS rabbitmq-server"
# Headless Chromium and its WebDriver: the page tests (judge view, the judge-server page).
TOOLS="$TOOLS chromium chromium-driver"
# judge eval: EvalPlus's HumanEval+ tests import numpy, and so may a submission (a box sees
# Debian's Python packages: docs/languages.md); the Python client's tests run in a venv.
TOOLS="$TOOLS python3-numpy python3-venv"
# judge package verify's tests fetch real problem packages (problemtools' sdist) with pip.
TOOLS="$TOOLS python3-pip"
# newuidmap/newgidmap: subordinate uids for a rootless judge's boxes (docs/sandbox.md).
TOOLS="$TOOLS uidmap"
# The container test builds deploy/Dockerfile with podman (runc: crun refuses hybrid cgroup
# hosts) on a base that mmdebstrap makes from Debian's packages (docs/deploy.md).
TOOLS="$TOOLS podman buildah runc mmdebstrap"
# What the test scripts call that a fresh Debian may lack: curl (the container suite's
# requests), git (scripts/test-checkouts.sh's copy), cpio and gzip (the guest's initramfs),
# binutils (objcopy: deploy/build-image.sh), python3 (every script's JSON).
TOOLS="$TOOLS curl git cpio gzip binutils python3"
# The test libraries MultiPL-E's Ruby (test-unit) and MBXP's Perl (Data::Compare) programs load,
# so the datasets' tests judge them for real (docs/datasets.md, "MultiPL-E", "MBXP").
TOOLS="$TOOLS ruby-test-unit libdata-compare-perl"
# The cgroup-v2 guest of scripts/cgroup2-vm.sh (it installs them too when run alone): qemu,
# Debian's kernel, busybox for its initramfs.
TOOLS="$TOOLS qemu-system-x86 linux-image-amd64 busybox-static"
# The languages CI runs for real; `scripts/install-toolchains.sh --all` installs every one Debian has.
LANGS="c cpp java python3 js bash awk perl ruby lua go rust pas fortran95 make kotlin scala php typescript octave"

missing=""
for pkg in $TOOLS; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
# The TypeScript types' test runs npm (Debian's `npm`, unless a Node.js install brought its own).
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ -x scripts/install-toolchains.sh ] || [ -f scripts/install-toolchains.sh ]; then
  bash scripts/install-toolchains.sh $LANGS
fi

if [ "${1:-}" = "--deps-only" ]; then
  exit 0
fi

echo "== building"
cargo build --release --locked --bins
echo "== judging examples/judge/aplusb-c.json"
# Through cargo: its target dir may be anywhere (CARGO_TARGET_DIR, a read-only checkout).
cargo run --release --locked --quiet --bin judge -- run --pretty examples/judge/aplusb-c.json
