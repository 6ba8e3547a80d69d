"""The cases of internal/benchsuite, timed in PyTorch, printed as Go prints
its benchmarks (PyTorchNAME, iterations, ns/op, extra metrics), with the
checksum of one result per case ("checksum NAME VALUE") for the report to
compare with Go's. Inputs are built as internal/benchsuite builds them
(sin of a ramp), so both sides compute the same numbers.

MINDTORCH_BENCH_THREADS sets the threads (default every core);
MINDTORCH_BENCH selects cases by name; MINDTORCH_BENCH_QUICK=1 times each
case a few times only (a smoke test)."""
import os
import re
import time
import timeit

THREADS = int(os.environ.get("MINDTORCH_BENCH_THREADS") or os.cpu_count())
os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)  # read by OpenBLAS at load
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(THREADS)
PATTERN = re.compile(os.environ.get("MINDTORCH_BENCH") or ".")
QUICK = os.environ.get("MINDTORCH_BENCH_QUICK") == "1"


def inp(shape, k):
    n = 1
    for d in shape:
        n *= d
    return torch.arange(n, dtype=torch.float32).mul(k).sin().reshape(shape)


def indices(count, n):
    return (torch.arange(count) * 7919) % n


def checksum(name, r):
    print(f"checksum Benchmark{name} {r.double().abs().sum().item():.9g}")


def bench(name, stmt, seconds=0.5):
    """Prints the best mean of 5 repeats, each about `seconds` long."""
    stmt()
    t0 = time.perf_counter()
    stmt()
    one = max(time.perf_counter() - t0, 1e-7)
    number = 1 if QUICK else max(1, int(seconds / one))
    t = min(timeit.repeat(stmt, number=number, repeat=2 if QUICK else 5)) / number
    print(f"PyTorch{name}\t{number}\t{t * 1e9:.1f} ns/op")


def case(name):
    return PATTERN.search(name) is not None


if case("Embedding"):
    w, ix = inp([32000, 512], 1e-3), indices(4096, 32000)
    checksum("Embedding", F.embedding(ix, w))
    bench("Embedding", lambda: F.embedding(ix, w))
    del w
if case("LayerNorm"):
    x, ln = inp([64, 512, 768], 1e-3), torch.nn.LayerNorm(768)
    with torch.no_grad():
        checksum("LayerNorm", ln(x))
        bench("LayerNorm", lambda: ln(x))
    del x
for n, nm in [(100_000, "1e+05"), (1_000_000, "1e+06")]:
    if case(f"Add/{nm}"):
        x, y, z = inp([n], 1e-3), inp([n], 2e-3), torch.empty(n)
        checksum(f"Add/{nm}", x + y)
        bench(f"Add/{nm}", lambda: x + y)
        bench(f"Add/{nm}/out", lambda: torch.add(x, y, out=z))
if case("AddBroadcast"):
    x, y, z = inp([1024, 1024], 1e-3), inp([1024], 2e-3), torch.empty(1024, 1024)
    checksum("AddBroadcast", x + y)
    bench("AddBroadcast", lambda: x + y)
    bench("AddBroadcast/out", lambda: torch.add(x, y, out=z))
if case("AffineRelu"):
    n = 1_000_000
    x, a, c, z = inp([n], 1e-3), inp([n], 2e-3), inp([n], 3e-3), torch.empty(n)
    checksum("AffineRelu", ((x * a) + c).relu())
    bench("AffineRelu", lambda: ((x * a) + c).relu())

    def affine_out():
        torch.mul(x, a, out=z)
        torch.add(z, c, out=z)
        torch.clamp_min(z, 0, out=z)  # relu has no out=; CPU relu is clamp_min
    bench("AffineRelu/out", affine_out)
if case("Matmul2048"):
    x, y, z = inp([2048, 2048], 1e-3), inp([2048, 2048], 2e-3), torch.empty(2048, 2048)
    checksum("Matmul2048", x @ y)
    bench("Matmul2048", lambda: x @ y, 2)
    bench("Matmul2048/out", lambda: torch.mm(x, y, out=z), 2)


def mlp(*sizes):
    layers = []
    for i in range(1, len(sizes)):
        k = 1e-3 * i
        lin = torch.nn.Linear(sizes[i - 1], sizes[i])
        with torch.no_grad():
            lin.weight.copy_(inp([sizes[i], sizes[i - 1]], k) * 0.05)
            lin.bias.copy_(inp([sizes[i]], 2 * k) * 0.05)
        layers.append(lin)
        if i < len(sizes) - 1:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


for name, make in [("TrainSGD", lambda ps: torch.optim.SGD(ps, lr=0.01, momentum=0.9)),
                   ("TrainAdam", lambda ps: torch.optim.Adam(ps, lr=1e-3))]:
    if not case(name):
        continue
    m = mlp(784, 256, 10)
    x, target = inp([64, 784], 1e-3), indices(64, 10)
    opt = make(m.parameters())

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(m(x), target)
        loss.backward()
        opt.step()
        return loss
    checksum(name, step().detach())
    bench(name, step)
if case("Inference"):
    m = mlp(512, 1024, 1024, 10)
    x = inp([32, 512], 1e-3)
    with torch.no_grad():
        checksum("Inference", m(x))
        for _ in range(3):
            m(x)
        times = []
        count = 20 if QUICK else 2000
        for _ in range(count):
            t = time.perf_counter_ns()
            m(x)
            times.append(time.perf_counter_ns() - t)
    times.sort()
    mean = sum(times) / len(times)
    print(f"PyTorchInference\t{count}\t{mean:.1f} ns/op\t{times[len(times) // 2]} p50-ns\t"
          f"{times[len(times) * 99 // 100]} p99-ns")
