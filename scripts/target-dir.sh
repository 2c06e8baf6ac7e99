#!/usr/bin/env bash
# Prints cargo's target dir for the checkout this script is in (CARGO_TARGET_DIR, a config's
# build.target-dir, or target/ beside Cargo.toml), whatever the current directory. The test
# and set-up scripts write there and never into the source tree, which may be read-only
# (scripts/test-checkouts.sh checks it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
