"""The operations of pkg/torch's benchmarks, timed in PyTorch (one thread per
core Go uses), printed in the format of Go's benchmarks for side-by-side reading."""
import timeit

import torch

torch.set_num_threads(2)


def bench(name, stmt, number):
    t = min(timeit.repeat(stmt, number=number, repeat=5)) / number
    print(f"PyTorch{name}\t{number}\t{t * 1e9:.1f} ns/op")


x23 = torch.zeros(2, 3)
x22, y22 = torch.ones(2, 2), torch.ones(2, 2)
a5, b5 = torch.ones(100_000), torch.ones(100_000)
a6, b6 = torch.ones(1_000_000), torch.ones(1_000_000)
m, v = torch.ones(1024, 1024), torch.ones(1024)
r6 = torch.randn(1_000_000)
bench("Transpose", lambda: x23.transpose(0, 1), 200_000)
bench("Reshape", lambda: x23.reshape(3, 2), 200_000)
bench("Zeros2x2", lambda: torch.zeros(2, 2), 200_000)
bench("Add2x2", lambda: x22 + y22, 200_000)
bench("Add1e5", lambda: a5 + b5, 2000)
bench("Add1e6", lambda: a6 + b6, 500)
bench("AddBroadcast1024", lambda: m + v, 200)
bench("Relu1e6", lambda: r6.relu(), 500)
