#include <vector>
int main() { std::vector<int> v = "not a vector"; return v.size(); }
