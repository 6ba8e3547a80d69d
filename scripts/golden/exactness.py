"""Golden data for the exactness tests (pkg/torch exactness_test.go, issue 18
item 7): normal_ drawn bit for bit as PyTorch's CPU kernels draw it, topk's
and sort's order among equal values, and unique.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/exactness.json.

Values are written as JSON numbers (a float32, float16 or bfloat16 value is
exact as a double), NaN as the string "nan".

normal_ of float32 depends on the CPU kernel PyTorch picks: normal_fill_AVX2
on every x86 CPU with AVX2 (normal_stub has no AVX-512 kernel), which is
what MindTorch reproduces; the generic kernel (ATEN_CPU_CAPABILITY=default,
or a CPU without AVX2) differs in the last bits. The script refuses to run
without AVX2.
"""
import json
import math
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "exactness.json")

if "CPU capability usage: AVX2" not in torch.__config__.show() and "CPU capability usage: AVX512" not in torch.__config__.show():
    raise SystemExit("exactness.py: PyTorch does not run its AVX2 kernels here, so its normal_ is not the reference")


def enc(v):
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return v


def values(t):
    """The values of t in logical (row-major) order."""
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.float()
    if t.dtype == torch.bool:
        t = t.int()
    return [enc(v) for v in t.reshape(-1).tolist()]


def tensor(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": values(t)}


# ---- random draws: each case seeds the default generator, then runs steps ----

def draw(step):
    """One step: fill a new tensor (transposed: the transpose of a [c, r]
    tensor, so that memory order is not the logical order)."""
    shape, dtype = step["shape"], getattr(torch, step["dtype"])
    if step.get("transpose"):
        t = torch.empty(shape[1], shape[0], dtype=dtype).t()
    else:
        t = torch.empty(shape, dtype=dtype)
    op = step["op"]
    if op == "normal":
        return t.normal_(step["mean"], step["std"])
    if op == "randn_like":
        return torch.randn_like(t)
    if op == "uniform":
        return t.uniform_(step["from"], step["to"])
    if op == "random":
        return t.random_(step["low"], step["high"])
    raise ValueError(op)


def normal(shape, dtype="float32", mean=0.0, std=1.0, transpose=False):
    return {"op": "normal", "shape": shape, "dtype": dtype, "mean": mean, "std": std, "transpose": transpose}


random_cases = []


def random_case(name, seed, steps):
    torch.manual_seed(seed)
    outs = [values(draw(s)) for s in steps]
    random_cases.append({"name": name, "seed": seed, "steps": steps, "outs": outs})


for seed in (0, 1, 42):
    for n in (1, 2, 15, 16, 17, 31, 32, 100, 1000):
        for d in ("float32", "float64"):
            random_case(f"randn_{d}_{n}_seed{seed}", seed, [normal([n], d)])
    for d in ("float16", "bfloat16"):
        random_case(f"randn_{d}_100_seed{seed}", seed, [normal([100], d)])
for d in ("float32", "float64", "float16", "bfloat16"):
    # mean and std make the fused last step visible
    random_case(f"normal_{d}_1000_mean_std", 3, [normal([1000], d, 0.3, 1.7)])
    random_case(f"normal_{d}_7_mean_std", 3, [normal([7], d, 0.3, 1.7)])
    random_case(f"normal_{d}_transposed", 5, [normal([8, 4], d, transpose=True)])
    random_case(f"normal_{d}_transposed_mean_std", 5, [normal([8, 4], d, 0.3, 1.7, transpose=True)])
random_case("normal_2d_contiguous", 6, [normal([4, 8])])
random_case("normal_3x5_transposed", 6, [normal([3, 5], transpose=True)])
# The cached second sample of normal_distribution<double> carries across
# calls (and dtypes); normal_fill neither uses nor clears it.
random_case("normal_sequence", 7, [normal([3]), normal([5], "float64"), normal([17]), normal([1], "float64"),
                                   normal([8, 4], transpose=True), normal([2], "float64", 1.0, 2.0), normal([16])])
random_case("randn_like", 8, [{"op": "randn_like", "shape": [4, 8], "dtype": "float32"}])
random_case("randn_like_transposed", 8, [{"op": "randn_like", "shape": [8, 4], "dtype": "float32", "transpose": True}])
# uniform_ and random_ walk a tensor in memory order too.
random_case("uniform_transposed", 9, [{"op": "uniform", "shape": [8, 4], "dtype": "float32", "from": -1.0, "to": 2.0,
                                       "transpose": True}])
random_case("random_transposed", 9, [{"op": "random", "shape": [8, 4], "dtype": "int64", "low": 0, "high": 100,
                                      "transpose": True}])

# ---- topk and sort among equal values ----

g = torch.Generator().manual_seed(18)


def ties(n, levels, dtype=torch.float32, nans=0):
    """n small integers below levels (many ties), with nans NaNs spread in."""
    t = torch.randint(0, levels, (n,), generator=g).to(dtype)
    if nans:
        pos = torch.randperm(n, generator=g)[:nans]
        t[pos] = float("nan")
    return t


topk_cases = []


def topk_case(x, k, dim, largest):
    v, i = torch.topk(x, k, dim=dim, largest=largest, sorted=True)
    topk_cases.append({"input": tensor(x), "k": k, "dim": dim, "largest": largest,
                       "values": values(v), "indices": i.reshape(-1).tolist()})


inputs = [torch.tensor([1., 3., 3., 2., 3., 1., 2., 3.]), ties(20, 4), ties(40, 3, nans=5), ties(100, 5),
          ties(300, 6), ties(300, 4, nans=20), ties(33, 3, torch.int64), ties(70, 4, torch.float64),
          ties(64, 2, torch.int32), ties(130, 3)]
for x in inputs:
    n = x.numel()
    for k in sorted({0, 1, 2, 3, 4, 5, 7, n // 3, n // 2, n - 1, n}):
        if 0 <= k <= n:
            for largest in (True, False):
                topk_case(x, k, 0, largest)
# Random rows: sizes and k across the partial_sort (64 k <= n) and
# nth_element paths, with ties.
for r in range(60):
    n = int(torch.randint(1, 400, (1,), generator=g))
    x = ties(n, int(torch.randint(1, 8, (1,), generator=g)), nans=int(torch.randint(0, 3, (1,), generator=g)) * (n // 10))
    k = int(torch.randint(0, n + 1, (1,), generator=g))
    topk_case(x, k, 0, r % 2 == 0)
m = ties(6 * 20, 3).reshape(6, 20)
for dim in (0, 1, -1):
    for k in (1, 3, 6):
        for largest in (True, False):
            topk_case(m, k, dim, largest)

sort_cases = []
for x in inputs[:6] + [ties(17, 2), ties(200, 3, torch.int64)]:
    for desc in (False, True):
        v, i = torch.sort(x, descending=desc, stable=True)
        sort_cases.append({"input": tensor(x), "dim": 0, "descending": desc, "values": values(v),
                           "indices": i.reshape(-1).tolist()})
for dim in (0, 1):
    v, i = torch.sort(m, dim=dim, descending=True, stable=True)
    sort_cases.append({"input": tensor(m), "dim": dim, "descending": True, "values": values(v),
                       "indices": i.reshape(-1).tolist()})

# ---- unique without NaN (1.13 agrees with 2.x there; NaN cases are in the
# Go test with 2.x's answers) ----

unique_cases = []
for x in [torch.tensor([3., 1., 2., 3., 1., -0.0, 0.0]), torch.tensor([[2, 2, 5], [1, 5, 2]]), ties(50, 6),
          torch.tensor([True, False, True])]:
    u, inv, cnt = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
    unique_cases.append({"input": tensor(x), "values": values(u), "inverse": inv.reshape(-1).tolist(),
                         "counts": cnt.tolist()})


def main():
    with open(OUT, "w") as f:
        json.dump({"torch": torch.__version__, "random": random_cases, "topk": topk_cases, "sort": sort_cases,
                   "unique": unique_cases}, f, separators=(",", ":"), allow_nan=False)
    print("wrote", OUT)


main()
