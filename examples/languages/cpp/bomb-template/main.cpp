// A compiler bomb: every instantiation needs two new ones (2^40 in all).
template <int N, unsigned long long M>
struct Boom {
    static const unsigned long long value = Boom<N - 1, M * 2>::value + Boom<N - 1, M * 2 + 1>::value;
};

template <unsigned long long M>
struct Boom<0, M> {
    static const unsigned long long value = M;
};

int main() { return static_cast<int>(Boom<40, 0>::value & 1); }
