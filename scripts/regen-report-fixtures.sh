#!/usr/bin/env bash
# Regenerates the raw tool outputs in crates/reports/tests/fixtures/ by running the
# real tools (g++ + googletest, valgrind, cppcheck, clang-tidy) on the small programs
# in crates/reports/tests/fixtures/src/. Nothing here is hand-written or redacted.
#
# Needs (Debian 12): apt-get install -y g++ googletest libgtest-dev valgrind cppcheck clang-tidy
#
# The programs are copied into a fixed "box" directory, BOX (default /tmp/verdict-box),
# and every tool runs there the way the judge pipeline runs it, so the absolute paths
# that some tools print start with BOX; the tests pass the same BOX to the parsers.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FIX="$ROOT/crates/reports/tests/fixtures"
SRC="$FIX/src"
BOX="${BOX:-/tmp/verdict-box}"

for tool in g++ gcc valgrind cppcheck clang-tidy; do
    command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 2; }
done
[ -f /usr/lib/x86_64-linux-gnu/libgtest.a ] || [ -f /usr/lib/libgtest.a ] \
    || { echo "missing googletest static libraries (libgtest-dev)" >&2; exit 2; }

rm -rf "$BOX"
mkdir -p "$BOX" "$FIX/gtest" "$FIX/valgrind" "$FIX/static"
cp "$SRC"/* "$BOX"/
cd "$BOX"

# ---- Google Test -------------------------------------------------------------------
# Compiled with relative paths inside the box, so failure messages read "file.cpp:LINE".
GTEST_FLAGS=(-std=gnu++17 -O0 -g)
GTEST_LIBS=(-lgtest_main -lgtest -pthread)
for t in pass partial crash; do
    g++ "${GTEST_FLAGS[@]}" -o "gtest_$t" "gtest_$t.cpp" "${GTEST_LIBS[@]}"
done

run_gtest() { # name binary args...
    local name="$1" bin="$2"
    shift 2
    rm -f "$name.xml"
    set +e
    "./$bin" --gtest_output="xml:$name.xml" "$@" >"$FIX/gtest/$name.stdout" 2>"$FIX/gtest/$name.stderr"
    echo "$?" >"$FIX/gtest/$name.exit"
    set -e
    if [ -f "$name.xml" ]; then cp "$name.xml" "$FIX/gtest/$name.xml"; else rm -f "$FIX/gtest/$name.xml"; fi
}
run_gtest pass gtest_pass
run_gtest partial gtest_partial
run_gtest partial_all gtest_partial --gtest_also_run_disabled_tests
# Dies with SIGSEGV in its third test: gtest writes no XML at all (it is written at
# the end of the run), only the console lines up to the crash.
run_gtest crash gtest_crash

# ---- valgrind memcheck -------------------------------------------------------------
VG_FLAGS=(--tool=memcheck --leak-check=full --track-origins=yes --child-silent-after-fork=yes
          --xml=yes)
for t in clean leak invalid uninit free segv; do
    gcc -std=gnu11 -O0 -g -o "vg_$t" "vg_$t.c"
    set +e
    valgrind "${VG_FLAGS[@]}" --xml-file="vg_$t.xml" "./vg_$t" >"$FIX/valgrind/$t.stdout" 2>"$FIX/valgrind/$t.stderr"
    echo "$?" >"$FIX/valgrind/$t.exit"
    set -e
    cp "vg_$t.xml" "$FIX/valgrind/$t.xml"
done
# A run killed by a limit: valgrind's XML stops mid-document. Reproduced for real by
# killing valgrind (SIGKILL) while the leaking program sleeps before exiting.
cat >vg_killed.c <<'CEOF'
#include <stdlib.h>
#include <unistd.h>
int main(void) {
    char *p = malloc(8);
    p[8] = 1; /* invalid write, reported before the kill */
    sleep(30);
    return 0;
}
CEOF
gcc -std=gnu11 -O0 -g -o vg_killed vg_killed.c
set +e
timeout -s KILL 5 valgrind "${VG_FLAGS[@]}" --xml-file=vg_killed.xml ./vg_killed >/dev/null 2>&1
set -e
cp vg_killed.xml "$FIX/valgrind/killed.xml"
rm -f vg_killed.c

# ---- static analysis ---------------------------------------------------------------
CPPCHECK_FLAGS=(--xml --enable=warning,style,performance,portability --inline-suppr -q
                --language=c++ --std=c++17)
for t in bad clean; do
    cppcheck "${CPPCHECK_FLAGS[@]}" --output-file="$FIX/static/cppcheck_$t.xml" "static_$t.cpp"
done
TIDY_CHECKS='-*,clang-analyzer-*,bugprone-*,cert-*,cppcoreguidelines-virtual-class-destructor,cppcoreguidelines-init-variables,misc-*,-misc-unused-parameters,-misc-non-private-member-variables-in-classes,-misc-no-recursion,performance-*,portability-*,readability-misleading-indentation'
for t in bad clean; do
    set +e
    clang-tidy --quiet --checks="$TIDY_CHECKS" --header-filter='.*' "$BOX/static_$t.cpp" -- -std=gnu++17 \
        >"$FIX/static/clang_tidy_$t.txt" 2>"$FIX/static/clang_tidy_$t.stderr"
    echo "$?" >"$FIX/static/clang_tidy_$t.exit"
    set -e
done

# ---- versions ----------------------------------------------------------------------
{
    echo "box: $BOX"
    echo "g++: $(g++ --version | head -n1)"
    echo "googletest: $(dpkg-query -W -f='${Version}' libgtest-dev 2>/dev/null || echo unknown)"
    echo "valgrind: $(valgrind --version)"
    echo "cppcheck: $(cppcheck --version)"
    echo "clang-tidy: $(clang-tidy --version | grep -i version | head -n1 | sed 's/^ *//')"
} >"$FIX/VERSIONS.txt"
echo "fixtures written to $FIX" >&2
