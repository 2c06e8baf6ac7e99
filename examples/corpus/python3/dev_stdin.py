with open("/dev/stdin") as f:
    a, b = map(int, f.read().split())
print(a + b)
