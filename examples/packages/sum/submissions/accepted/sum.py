import sys

data = sys.stdin.read().split()
n = int(data[0])
for i in range(n):
    print(int(data[1 + 2 * i]) + int(data[2 + 2 * i]))
