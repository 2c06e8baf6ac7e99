#include <stdio.h>

int main(void) {
    int n;
    long long a, b;
    if (scanf("%d", &n) != 1) return 1;
    while (n-- > 0 && scanf("%lld %lld", &a, &b) == 2) printf("%lld\n", a + b);
    return 0;
}
