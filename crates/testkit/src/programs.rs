//! Programs in C the interactive tests of several crates play: the guessing game's interactor
//! and the binary search that plays against it (docs/interactive.md).

/// A Kattis-protocol interactor: the hidden number is the input's, at most 30 guesses;
/// `burn` (a validator flag) makes it spend ~0.15 s of CPU first.
pub const KATTIS_INTERACTOR: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static FILE *msg;
static int flag(int argc, char **argv, const char *f) {
    for (int i = 4; i < argc; i++) if (!strcmp(argv[i], f)) return 1;
    return 0;
}
int main(int argc, char **argv) {
    FILE *in = fopen(argv[1], "r");
    int n;
    if (!in || fscanf(in, "%d", &n) != 1) return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
    msg = fopen(path, "w");
    if (flag(argc, argv, "burn")) {
        volatile unsigned long x = 0;
        for (unsigned long i = 0; i < 150000000UL; i++) x += i;
    }
    printf("start\n");
    fflush(stdout);
    for (int q = 1; q <= 30; q++) {
        int g;
        if (scanf("%d", &g) != 1) { fprintf(msg, "no guess %d", q); return 43; }
        if (g == n) { printf("correct\n"); fflush(stdout); fprintf(msg, "found in %d", q); return 42; }
        printf(g < n ? "higher\n" : "lower\n");
        fflush(stdout);
    }
    fprintf(msg, "too many guesses");
    return 43;
}
"#;

/// A C program that reads the greeting and binary searches for the hidden number (1 to a
/// million) by the answers higher, lower and correct; `after` runs once the number is found
/// (or at end of file: exit 4), `setup` before the first read.
pub fn searcher(setup: &str, after: &str) -> String {
    after_start_free(&format!(
        r#"char r[32];
    {setup}
    if (scanf("%31s", r) != 1) return 3;
    int lo = 1, hi = 1000000;
    while (lo <= hi) {{
        int m = lo + (hi - lo) / 2;
        printf("%d\n", m);
        fflush(stdout);
        if (scanf("%31s", r) != 1) return 4;
        if (!strcmp(r, "correct")) break;
        if (!strcmp(r, "higher")) lo = m + 1; else hi = m - 1;
    }}
    {after}"#
    ))
}

/// A C program that does `body`, with the headers the tests' programs use.
pub fn after_start_free(body: &str) -> String {
    format!(
        r#"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void) {{
    {body}
    return 0;
}}
"#
    )
}
