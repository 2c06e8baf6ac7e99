#!/usr/bin/env bash
# Installs what the multilingual datasets' own environments provide beyond verdict's
# toolchains (docs/datasets.md, "HumanEval-X" and "MultiPL-E"):
#   - Debian's libboost-dev (HumanEval-X C++ 22), libssl-dev (C++ 162), libjavatuples-java
#     (MultiPL-E's Java), libtest-deep-perl (MultiPL-E's Perl), ruby-test-unit (MultiPL-E's
#     Ruby), libdata-compare-perl (MBXP's Perl) and cargo (Debian's, to build the crates below
#     with Debian's rustc);
#   - npm's js-md5, globally (HumanEval-X JavaScript 162);
#   - the crates CodeGeeX's Rust project depends on (rand 0.4.6, regex 1.7.1, md5 0.7.0),
#     built with Debian's rustc (the one the sandbox runs) into $VERDICT_RUST_CRATES_DIR
#     (default /usr/local/lib/verdict/humaneval-x-rust) with a file `externs` of
#     `name=file.rlib` lines that verdict passes to rustc as --extern.
# The sources are fetched once with rustup's cargo (`cargo vendor`: Debian's cargo 0.66 cannot
# read today's crates.io index) and built offline with Debian's cargo.
#   scripts/install-dataset-extras.sh [--skip-apt]
set -euo pipefail

dest="${VERDICT_RUST_CRATES_DIR:-/usr/local/lib/verdict/humaneval-x-rust}"
if [ "${1:-}" != "--skip-apt" ]; then
    apt-get install -y libboost-dev libssl-dev libjavatuples-java libtest-deep-perl \
        ruby-test-unit libdata-compare-perl cargo
    npm install -g js-md5
fi

modern_cargo="$(command -v cargo || true)"
for c in "$HOME/.cargo/bin/cargo" /root/.cargo/bin/cargo; do
    [ -x "$c" ] && modern_cargo="$c" && break
done
[ -n "$modern_cargo" ] || { echo "install-dataset-extras: no cargo to vendor the crates with" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > Cargo.toml <<'TOML'
[package]
name = "humaneval-x-rust-crates"
version = "0.1.0"
edition = "2021"

[lib]
path = "lib.rs"

# CodeGeeX's codegeex/benchmark/rust/Cargo.lock versions; the transitive ones pinned to
# releases Debian 12's rustc 1.63 builds.
[dependencies]
rand = "=0.4.6"
regex = "=1.7.1"
md5 = "=0.7.0"
memchr = "=2.5.0"
aho-corasick = "=0.7.20"
regex-syntax = "=0.6.28"
libc = "=0.2.139"
TOML
: > lib.rs
"$modern_cargo" vendor --versioned-dirs vendor > /dev/null
rm -f Cargo.lock
mkdir -p .cargo
cat > .cargo/config.toml <<'TOML'
[source.crates-io]
replace-with = "vendored-sources"

[source.vendored-sources]
directory = "vendor"
TOML
RUSTC=/usr/bin/rustc /usr/bin/cargo build --release --offline
mkdir -p "$dest"
rm -f "$dest"/*.rlib "$dest/externs"
cp target/release/deps/*.rlib "$dest/"
for name in rand regex md5; do
    file="$(cd "$dest" && ls lib"$name"-*.rlib | head -1)"
    echo "$name=$file" >> "$dest/externs"
done
echo "install-dataset-extras: crates in $dest:"
cat "$dest/externs"
