"""The operations of pkg/torch's benchmarks, timed in PyTorch (one thread per
core Go uses: MINDTORCH_BENCH_THREADS, or every core), printed in the format
of Go's benchmarks for side-by-side reading."""
import os
import timeit

THREADS = int(os.environ.get("MINDTORCH_BENCH_THREADS") or os.cpu_count())
# torch.set_num_threads does not reach OpenBLAS (PyTorch 1.13's matmul on
# this build): its thread count is read from the environment at load.
os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)
import torch  # noqa: E402

torch.set_num_threads(THREADS)


def bench(name, stmt, number):
    t = min(timeit.repeat(stmt, number=number, repeat=5)) / number
    print(f"PyTorch{name}\t{number}\t{t * 1e9:.1f} ns/op")


x23 = torch.zeros(2, 3)
x22, y22 = torch.ones(2, 2), torch.ones(2, 2)
m, v = torch.ones(1024, 1024), torch.ones(1024)
bench("Transpose", lambda: x23.transpose(0, 1), 200_000)
bench("Reshape", lambda: x23.reshape(3, 2), 200_000)
bench("Zeros2x2", lambda: torch.zeros(2, 2), 200_000)
bench("Add2x2", lambda: x22 + y22, 200_000)
for n, name, number in [(100_000, "1e+05", 2000), (1_000_000, "1e+06", 500), (16_000_000, "2e+07", 20)]:
    x, y = torch.randn(n), torch.randn(n)
    bench(f"Pointwise/add/{name}", lambda: x + y, number)
    bench(f"Pointwise/mul/{name}", lambda: x * y, number)
    bench(f"Pointwise/relu/{name}", lambda: x.relu(), number)
    bench(f"Pointwise/add_/{name}", lambda: x.add_(y), number)
    # out=, as Into(out) in Go; PyTorch's relu has no out= form, and its CPU
    # relu is clamp_min(x, 0), which has.
    z = torch.empty(n)
    bench(f"PointwiseOut/add/{name}", lambda: torch.add(x, y, out=z), number)
    bench(f"PointwiseOut/mul/{name}", lambda: torch.mul(x, y, out=z), number)
    bench(f"PointwiseOut/relu/{name}", lambda: torch.clamp_min(x, 0, out=z), number)
bench("AddBroadcast1024", lambda: m + v, 200)
s16 = torch.ones(16 << 20)
bench("Sum16M", lambda: s16.sum(), 100)
r2 = torch.randn(1024, 1024)
bench("SumDim1024", lambda: r2.sum(0), 200)
bench("Softmax1024", lambda: r2.softmax(1), 50)
for n in (1024, 128):
    a, b = torch.randn(n, n), torch.randn(n, n)
    bench(f"Matmul{n}", lambda: a @ b, 20 if n == 1024 else 2000)
x22r, y22r = torch.ones(2, 2, requires_grad=True), torch.ones(2, 2, requires_grad=True)
bench("AddSumBackward2x2", lambda: (x22r + y22r).sum().backward(), 20000)
bench("Add2x2Recording", lambda: x22r + y22, 200_000)
torch.manual_seed(0)
xm, tm = torch.randn(64, 784), torch.randint(0, 10, (64, 1))
w1 = (torch.randn(256, 784) * 0.03).requires_grad_(True)
b1 = torch.zeros(256, requires_grad=True)
w2 = (torch.randn(10, 256) * 0.06).requires_grad_(True)
b2 = torch.zeros(10, requires_grad=True)


def mlp_step():
    h = torch.nn.functional.linear(xm, w1, b1).relu()
    torch.nn.functional.linear(h, w2, b2).log_softmax(1).gather(1, tm).mean().neg().backward()


bench("MLPForwardBackward", mlp_step, 500)
