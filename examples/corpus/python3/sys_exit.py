import sys
a, b = map(int, sys.stdin.readline().split())
print(a + b)
sys.exit(0)
