import numpy as np
print(int(np.array(input().split(), dtype=np.int64).sum()))
