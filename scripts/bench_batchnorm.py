"""PyTorch's side of pkg/nn's BenchmarkBatchNorm2dTrain: a 32x64x28x28
batch through BatchNorm2d(64) in training mode, forward and backward.

    /usr/bin/python3 scripts/bench_batchnorm.py --threads 1
"""
import argparse
import os
import statistics
import time

p = argparse.ArgumentParser()
p.add_argument("--threads", type=int, default=1)
p.add_argument("--runs", type=int, default=20)
a = p.parse_args()
# torch.set_num_threads does not reach OpenBLAS: set its count before loading.
os.environ["OPENBLAS_NUM_THREADS"] = str(a.threads)
import torch  # noqa: E402

torch.set_num_threads(a.threads)
m = torch.nn.BatchNorm2d(64)
x = torch.randn(32, 64, 28, 28, requires_grad=True)
times = []
for _ in range(a.runs + 3):
    t = time.perf_counter()
    m(x).sum().backward()
    times.append(time.perf_counter() - t)
print(f"batch_norm2d train fwd+bwd 32x64x28x28, {a.threads} thread(s): {statistics.median(times[3:]) * 1e3:.2f} ms")
