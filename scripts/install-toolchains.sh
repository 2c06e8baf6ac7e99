#!/usr/bin/env bash
# Installs the toolchains of verdict's languages from Debian's packages.
#
#   scripts/install-toolchains.sh --all          every language whose package Debian has
#   scripts/install-toolchains.sh LANG...        only these languages (e.g. go rust kotlin)
#   scripts/install-toolchains.sh --list         print "language package" for each profile
#   scripts/install-toolchains.sh --dry-run ...  print the apt-get command instead of running it
#
# The package of each language is the `package` field of its table in
# crates/scripts/languages.toml (or $VERDICT_LANGUAGES_TOML): adding a language there is all
# this script needs. Languages whose package this system's apt sources do not offer
# (python2, swift, fsharp and vbnet on Debian 12) are reported with a pointer to
# docs/languages.md and skipped; with LANG arguments that is an error (exit 1).
# VERDICT_SKIP_APT_UPDATE=1 skips `apt-get update`. Exit: 0 done, 1 some package unavailable,
# 2 bad usage.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
toml="${VERDICT_LANGUAGES_TOML:-$here/../crates/scripts/languages.toml}"
[ -r "$toml" ] || { echo "install-toolchains: cannot read $toml" >&2; exit 2; }

# "language package" per table of the TOML file (top-level tables and their `package` key).
profiles() {
    awk '
        /^\[[A-Za-z0-9_]+\][[:space:]]*(#.*)?$/ { gsub(/[][[:space:]]|#.*/, ""); lang = $0; next }
        /^\[/ { lang = ""; next }
        lang != "" && /^package[[:space:]]*=/ {
            v = $0; sub(/^package[[:space:]]*=[[:space:]]*"/, "", v); sub(/".*$/, "", v)
            print lang, v; lang = ""
        }
    ' "$toml"
}

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }

dry_run=0 all=0 wanted=()
while [ $# -gt 0 ]; do
    case "$1" in
        --all) all=1 ;;
        --dry-run) dry_run=1 ;;
        --list) profiles; exit 0 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "install-toolchains: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) wanted+=("$1") ;;
    esac
    shift
done
if [ "$all" = 0 ] && [ ${#wanted[@]} -eq 0 ]; then usage >&2; exit 2; fi

declare -A package_of=()
while read -r lang pkg; do package_of[$lang]="$pkg"; done < <(profiles)

if [ "$all" = 1 ]; then
    mapfile -t wanted < <(profiles | cut -d' ' -f1)
    explicit=0
else
    explicit=1
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Languages whose package is installed need nothing from apt (no update, no query: a run on a
# machine already set up takes a second, not a minute of apt-cache calls); --dry-run lists all.
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
pending=()
for lang in "${wanted[@]}"; do
    pkg="${package_of[$lang]:-}"
    if [ -z "$pkg" ]; then
        echo "install-toolchains: no language profile named '$lang' in $toml" >&2
        exit 2
    fi
    if [ "$dry_run" = 1 ] || ! installed "$pkg"; then pending+=("$lang"); fi
done
wanted=("${pending[@]}")

if [ ${#wanted[@]} -gt 0 ] && [ "$dry_run" = 0 ] && [ -z "${VERDICT_SKIP_APT_UPDATE:-}" ]; then
    as_root apt-get update -qq
fi

# Whether apt can install a package here (it has a candidate version).
available() {
    local candidate
    candidate="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')"
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

packages=() unavailable=0
for lang in "${wanted[@]}"; do
    pkg="${package_of[$lang]}"
    if available "$pkg"; then
        [[ " ${packages[*]} " == *" $pkg "* ]] || packages+=("$pkg")
    else
        echo "install-toolchains: $lang: package '$pkg' is not in this system's apt sources; see docs/languages.md ($lang)" >&2
        unavailable=1
    fi
done

# Packages installed without their recommended ones, which a judge never uses: Octave's are
# gnuplot with Qt, a JRE and its manuals (42 packages more than octave's own 120).
without_recommends=" octave "
apt_install() {
    [ $# -gt 0 ] || return 0
    echo "install-toolchains: apt-get install -y $*" >&2
    if [ "$dry_run" = 0 ]; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
    fi
}
plain=() lean=()
for pkg in "${packages[@]}"; do
    if [[ "$without_recommends" == *" $pkg "* ]]; then lean+=("$pkg"); else plain+=("$pkg"); fi
done
apt_install "${plain[@]}"
if [ ${#lean[@]} -gt 0 ]; then apt_install --no-install-recommends "${lean[@]}"; fi
if [ "$explicit" = 1 ] && [ "$unavailable" = 1 ]; then exit 1; fi
exit 0
