import sys
data = sys.stdin.buffer.read().split()
sys.stdout.write(str(int(data[0]) + int(data[1])) + "\n")
