import sys

# Believes a sum never passes 10^6: right on the sample, wrong on secret/01.
data = sys.stdin.read().split()
n = int(data[0])
for i in range(n):
    s = int(data[1 + 2 * i]) + int(data[2 + 2 * i])
    print(s if abs(s) <= 10**6 else 10**6)
