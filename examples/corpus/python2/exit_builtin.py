import sys
a, b = map(int, sys.stdin.readline().split())
print a + b
exit()
print "not reached"
