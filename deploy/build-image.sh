#!/usr/bin/env bash
# Builds deploy/Dockerfile's image from binaries already built (no Rust toolchain in the
# image, nothing compiled in it): the context is a temporary directory with the binaries
# (debug info stripped), deploy/, and the toolchain installer. docs/deploy.md.
#
#   deploy/build-image.sh [--bin-dir DIR] [--tag NAME] [-- BUILD-ARGS...]
#     --bin-dir DIR  where `judge` and `judge-server` are (default: cargo's target dir/release)
#     --tag NAME     the image's name (default: verdict)
#     BUILD-ARGS     passed to the builder, e.g. --build-arg BASE=... --build-arg LANGS=--all
#   VERDICT_BUILDER  the builder: one program, a name or a path, which may hold spaces (default:
#                    podman; buildah and docker work too). It is never split into words: options
#                    of its own go in a wrapper script named here (scripts/test-container.sh's).
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
bin_dir="" tag=verdict
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "build-image: unknown argument $1 (see the script's head)" >&2; exit 2 ;;
  esac
done
if [ -z "$bin_dir" ]; then
  target="$(bash "$src/scripts/target-dir.sh")"
  bin_dir="$target/release"
fi
for b in judge judge-server; do
  [ -x "$bin_dir/$b" ] || { echo "build-image: no $bin_dir/$b (cargo build --release --bins)" >&2; exit 1; }
done
ctx="$(mktemp -d "${TMPDIR:-/tmp}/verdict-image.XXXXXX")"
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/bin" "$ctx/scripts" "$ctx/crates/scripts"
for b in judge judge-server; do
  objcopy --strip-debug "$bin_dir/$b" "$ctx/bin/$b"
done
cp -r "$src/deploy" "$ctx/"
cp "$src/scripts/install-toolchains.sh" "$ctx/scripts/"
cp "$src/crates/scripts/languages.toml" "$ctx/crates/scripts/"
builder="${VERDICT_BUILDER:-podman}"
# `buildah` names its command `bud`; podman and docker, `build`.
case "$(basename "$builder")" in buildah) verb=bud ;; *) verb=build ;; esac
"$builder" "$verb" -f "$ctx/deploy/Dockerfile" -t "$tag" "$@" "$ctx"
