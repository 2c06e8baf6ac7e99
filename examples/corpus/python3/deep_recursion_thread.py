import sys
import threading

sys.setrecursionlimit(1 << 20)
threading.stack_size(256 << 20)


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)


def main():
    a, b = map(int, sys.stdin.read().split())
    assert depth(200000) == 200000
    print(a + b)


t = threading.Thread(target=main)
t.start()
t.join()
