local a, b = io.read("n", "n")
print(string.format("%d", a + b))
os.exit(0)
print("not reached")
