import sys

for line in sys.stdin:
    p = line.split()
    if len(p) >= 2:
        print(int(p[0]) + int(p[1]))
