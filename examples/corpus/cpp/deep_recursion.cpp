#include <cstdlib>
#include <cstdio>
// A million frames: the stack is as large as the memory limit allows, as on contest judges.
int depth(int n) { volatile int pad[4]; pad[0] = n; return n == 0 ? 0 : 1 + depth(n - 1) + pad[0] * 0; }
int main() {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    if (depth(1000000) != 1000000) return 2;
    printf("%lld\n", a + b);
    exit(0);
}
