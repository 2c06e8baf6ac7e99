import re
import sys

# A valid input: n (1..100), then n lines of two integers in [-10^6, 10^6]. Exit 42: valid.
text = sys.stdin.read()
lines = text.split("\n")
if not re.fullmatch(r"[1-9][0-9]*", lines[0]):
    sys.exit(43)
n = int(lines[0])
if not 1 <= n <= 100 or len(lines) != n + 2 or lines[-1] != "":
    sys.exit(43)
for line in lines[1 : n + 1]:
    if not re.fullmatch(r"-?[0-9]+ -?[0-9]+", line):
        sys.exit(43)
    if any(abs(int(x)) > 10**6 for x in line.split()):
        sys.exit(43)
sys.exit(42)
