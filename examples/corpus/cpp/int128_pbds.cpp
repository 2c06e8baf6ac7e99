#include <bits/stdc++.h>
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
using namespace __gnu_pbds;
typedef tree<long long, null_type, std::less<long long>, rb_tree_tag, tree_order_statistics_node_update> ordered_set;
int main() {
    long long a, b;
    std::cin >> a >> b;
    ordered_set s;
    s.insert(a);
    s.insert(b);
    __int128 sum = (__int128)a + b;
    std::cout << (long long)sum << "\n";
    return s.size() == 0;
}
