import sys

# Reads the pairs into a fixed-size list too small for the sample: an IndexError.
data = sys.stdin.read().split()
pairs = [0]
for i in range(int(data[0])):
    pairs[i] = int(data[1 + 2 * i]) + int(data[2 + 2 * i])
print("\n".join(map(str, pairs)))
