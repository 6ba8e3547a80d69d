"""The operations of pkg/torch's benchmarks, timed in PyTorch (one thread per
core Go uses: MINDTORCH_BENCH_THREADS, or every core), printed in the format
of Go's benchmarks for side-by-side reading."""
import os
import re
import timeit

THREADS = int(os.environ.get("MINDTORCH_BENCH_THREADS") or os.cpu_count())
# torch.set_num_threads does not reach OpenBLAS (PyTorch 1.13's matmul on
# this build): its thread count is read from the environment at load.
os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)
import torch  # noqa: E402

torch.set_num_threads(THREADS)
# MINDTORCH_BENCH, the Go benchmarks' pattern, selects by name here too.
PATTERN = re.compile(os.environ.get("MINDTORCH_BENCH") or ".")


# MINDTORCH_BENCH_QUICK=1: a smoke test, a few iterations per case.
QUICK = os.environ.get("MINDTORCH_BENCH_QUICK") == "1"


def bench(name, stmt, number):
    if not PATTERN.search(name):
        return
    if QUICK:
        number = max(1, number // 1000)
    t = min(timeit.repeat(stmt, number=number, repeat=2 if QUICK else 5)) / number
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

# The single kernels of pkg/torch/kernels_bench_test.go.
g = torch.Generator().manual_seed(0)
x16 = torch.randn(16 << 20, generator=g)
bench("Amax16M", lambda: x16.amax(), 20)
del x16
r1k = torch.randn(1024, 1024, generator=g)
bench("AmaxRows1024", lambda: r1k.amax(1), 200)
bench("MaxDimRows1024", lambda: r1k.max(1), 200)
bench("MaxDimCols1024", lambda: r1k.max(0), 200)
x1m = torch.randn(1_000_000, generator=g)
bench("Topk1e6", lambda: x1m.topk(10), 50)
xr = torch.randn(256, 4096, generator=g)
bench("TopkRows", lambda: xr.topk(10, 1), 50)
xi1m = torch.randint(0, 1 << 40, (1_000_000,), generator=g)
bench("Sort1e6/stable", lambda: x1m.sort(stable=True), 5)
bench("Sort1e6/unstable", lambda: x1m.sort(), 5)
bench("Sort1e6/int64", lambda: xi1m.sort(stable=True), 5)
for n, name, number in [(1000, "1e+03", 20000), (100_000, "1e+05", 500), (1_000_000, "1e+06", 50),
                        (16_000_000, "2e+07", 5)]:
    xg = torch.randn(n, generator=g)
    bench(f"Gelu/{name}", lambda: torch.nn.functional.gelu(xg), number)
xg = torch.randn(1_000_000, generator=g, requires_grad=True)
yg = torch.nn.functional.gelu(xg)
gg = torch.ones_like(yg)
bench("GeluBackward", lambda: torch.autograd.grad(yg, xg, gg, retain_graph=True), 50)
xs = torch.randn(4096, 1024, generator=g)
ix = torch.randint(0, 1024, (4096, 256), generator=g)
bench("GatherDim1", lambda: xs.gather(1, ix), 50)
xs = torch.randn(4096, 4096, generator=g)
ix = torch.randint(0, 4096, (1024,), generator=g)
bench("IndexSelectDim1", lambda: xs.index_select(1, ix), 20)

# The chain of BenchmarkChain (x*a + b, relu, sigmoid), eager: PyTorch's
# intermediates are freed as their last reference goes (Go's
# BenchmarkChainReleased/eager releases them; its pipeline allocates none).
for n, name, number in [(1_000_000, "1e+06", 200), (16_000_000, "2e+07", 10)]:
    xc, ac, bc = torch.randn(n), torch.randn(n), torch.randn(n)
    bench(f"Chain/eager/{name}", lambda: (xc * ac + bc).relu().sigmoid(), number)
    del xc, ac, bc
# BenchmarkChainSoftmax: x*a + b (a row bias), relu, softmax along rows.
xs2, as2, bs2 = torch.randn(1024, 1024), torch.randn(1024, 1024), torch.randn(1024)
bench("ChainSoftmax/eager/1024x1024", lambda: (xs2 * as2 + bs2).relu().softmax(-1), 50)
del xs2, as2, bs2

# The norms and embedding of pkg/torch/norm_bench_test.go: gradients by
# autograd.grad, as the Go side uses torch.Grad (nothing accumulates).
xl = torch.randn(64, 512, 768, generator=g, requires_grad=True)
gl = torch.randn(64, 512, 768, generator=g)
ln = torch.nn.LayerNorm(768)
bench("LayerNormBackward", lambda: torch.autograd.grad([ln(xl)], [xl, ln.weight, ln.bias], [gl]), 5)
wr = torch.ones(768)  # 1.13 has no RMSNorm: its composite


def rms(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + torch.finfo(x.dtype).eps) * wr


with torch.no_grad():
    bench("RMSNorm", lambda: rms(xl), 5)
xgn = torch.randn(32, 256, 16, 16, generator=g, requires_grad=True)
ggn = torch.randn(32, 256, 16, 16, generator=g)
gn = torch.nn.GroupNorm(32, 256)
with torch.no_grad():
    bench("GroupNorm", lambda: gn(xgn), 50)
bench("GroupNormBackward", lambda: torch.autograd.grad([gn(xgn)], [xgn, gn.weight, gn.bias], [ggn]), 20)
emb = torch.nn.Embedding(32000, 512)
ie = torch.randint(0, 32000, (4096,), generator=g)
ge = torch.randn(4096, 512, generator=g)
bench("EmbeddingBackward", lambda: torch.autograd.grad([emb(ie)], [emb.weight], [ge]), 5)
