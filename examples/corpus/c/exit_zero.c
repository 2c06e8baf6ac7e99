#include <stdio.h>
#include <stdlib.h>
int main(void) {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) exit(1);
    printf("%lld\n", a + b);
    exit(EXIT_SUCCESS);
}
