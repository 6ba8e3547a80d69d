"""Golden data for pooling (pkg/torch/pooling.go): F.max_pool2d,
avg_pool2d, adaptive_avg_pool2d, adaptive_max_pool2d, max_pool1d and
avg_pool1d, for every option (stride, padding, dilation, ceil_mode,
return_indices, count_include_pad, divisor_override), overlapping windows,
ceil_mode's edge windows, NaN and -inf in windows, ties in max windows,
unbatched and empty-batch inputs, transposed and sliced views, float32,
float64, bfloat16 and (avg_pool2d) int64, and PyTorch's errors. Gradient
cases (float64 inputs without ties) carry PyTorch's backward pass, which
the runner also checks by finite differences.

A case's args: kernel_size, stride (absent: None), padding, dilation as
lists; the flags by name; output_size as a list.
Run with Debian's python3-torch (PyTorch 1.13):
    /usr/bin/python3 scripts/golden/pooling.py
Writes testdata/pooling.json (the format of scripts/golden/ops.py, read by
internal/conformance; the Go side is internal/conformance/ops_pooling.go).
"""
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

import goldenio
from goldenio import enc_tensor

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "pooling.json")
torch.manual_seed(0)
GRAD_GEN = torch.Generator().manual_seed(1)






def apply_view(t, v):
    name, args = v[0], v[1:]
    if name == "transpose":
        return t.transpose(*args)
    if name == "slice":
        dim, start, end, step = args
        idx = [slice(None)] * t.dim()
        idx[dim] = slice(start, end, step)
        return t[tuple(idx)]
    raise ValueError(name)


def make_input(values, dtype, views=()):
    base = torch.as_tensor(values).to(getattr(torch, dtype))
    t = base
    for v in views:
        t = apply_view(t, v)
    return t, {"shape": list(base.shape), "dtype": dtype, "views": [list(v) for v in views], "data": goldenio.values(base)}


def one_or_two(v):
    return v[0] if len(v) == 1 else tuple(v)


def call(op, args):
    """The PyTorch call of a case's args."""
    a = dict(args)
    kw = {}
    for k in ("kernel_size", "stride", "padding", "dilation", "output_size"):
        if k in a:
            kw[k] = one_or_two(a[k])
    for k in ("ceil_mode", "return_indices", "count_include_pad", "divisor_override"):
        if k in a:
            kw[k] = a[k]
    fn = {"max_pool2d": F.max_pool2d, "avg_pool2d": F.avg_pool2d, "max_pool1d": F.max_pool1d,
          "avg_pool1d": F.avg_pool1d, "adaptive_avg_pool2d": F.adaptive_avg_pool2d,
          "adaptive_max_pool2d": F.adaptive_max_pool2d}[op]
    return lambda x: fn(x, **kw)



def bench():
    """PyTorch's time for BenchmarkMaxPool2dForwardBackward
    (pkg/torch/pooling_bench_test.go): max_pool2d kernel 2 on 64x32x28x28
    float32, forward and backward, one thread."""
    torch.set_num_threads(1)
    x = torch.randn(64, 32, 28, 28, requires_grad=True)
    g = torch.ones(64, 32, 14, 14)
    for _ in range(5):
        torch.autograd.grad(F.max_pool2d(x, 2), x, g)
    best = float("inf")
    for _ in range(5):
        n = 20
        t0 = time.perf_counter()
        for _ in range(n):
            torch.autograd.grad(F.max_pool2d(x, 2), x, g)
        best = min(best, (time.perf_counter() - t0) / n)
    print(f"torch {torch.__version__} max_pool2d 64x32x28x28 k2 forward+backward, 1 thread: {best * 1e6:.0f} us/op")


if "bench" in sys.argv[1:]:
    bench()
    sys.exit(0)

cases = []


def add_case(op, values, dtype, args, views=()):
    x, spec = make_input(values, dtype, views)
    case = {"op": op, "inputs": [spec], "args": args}
    try:
        out = call(op, args)(x)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        case["error"] = str(e).splitlines()[0]
        cases.append(case)
        return
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    case["outs"] = [enc_tensor(o) for o in outs]
    cases.append(case)


def add_grad_case(op, shape, args, views=()):
    values = torch.rand(shape, generator=GRAD_GEN, dtype=torch.float64) * 6 - 3
    x, spec = make_input(values, "float64", views)
    leaf = x.detach().clone().requires_grad_(True)
    out = call(op, args)(leaf)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    gout = torch.randn(outs[0].shape, generator=GRAD_GEN, dtype=torch.float64)
    outs[0].backward(gout)
    cases.append({"op": op, "inputs": [spec], "args": args,
                  "outs": [enc_tensor(o.detach()) for o in outs],
                  "grad": {"out": enc_tensor(gout), "inputs": [enc_tensor(leaf.grad)],
                           "grad_fn": type(outs[0].grad_fn).__name__}})


def randn(*shape):
    return torch.randn(shape, dtype=torch.float64) * 3


def ties(*shape):
    return torch.randint(0, 3, shape).double()


def specials(*shape):
    v = torch.randn(shape, dtype=torch.float64).reshape(-1)
    n = v.numel()
    for i, s in enumerate([float("nan"), float("-inf"), float("inf"), float("nan"), float("-inf")]):
        v[(i * 7 + 3) % n] = s
    return v.reshape(shape)


def neg_inf(*shape):
    return torch.full(shape, float("-inf"), dtype=torch.float64)


MAX2D = [
    {"kernel_size": [2]},
    {"kernel_size": [2], "return_indices": True},
    {"kernel_size": [3], "stride": [1], "return_indices": True},                   # overlapping
    {"kernel_size": [3, 2], "stride": [2, 1], "padding": [1, 0], "return_indices": True},
    {"kernel_size": [3], "stride": [2], "padding": [1], "ceil_mode": True, "return_indices": True},
    {"kernel_size": [2], "stride": [2], "ceil_mode": True, "return_indices": True},  # ceil edge windows
    {"kernel_size": [2], "stride": [3], "padding": [1], "ceil_mode": True, "return_indices": True},
    {"kernel_size": [3], "dilation": [2], "return_indices": True},
    {"kernel_size": [2, 3], "stride": [1, 2], "padding": [1], "dilation": [2, 1], "ceil_mode": True, "return_indices": True},
    {"kernel_size": [1], "stride": [2], "return_indices": True},
]
AVG2D = [
    {"kernel_size": [2]},
    {"kernel_size": [3], "stride": [1]},
    {"kernel_size": [3], "stride": [2], "padding": [1]},
    {"kernel_size": [3], "stride": [2], "padding": [1], "count_include_pad": False},
    {"kernel_size": [3], "stride": [2], "padding": [1], "ceil_mode": True},
    {"kernel_size": [3], "stride": [2], "padding": [1], "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": [2], "ceil_mode": True},
    {"kernel_size": [2, 3], "stride": [1, 2], "padding": [1, 1], "divisor_override": 5},
    {"kernel_size": [3], "stride": [3], "padding": [1], "ceil_mode": True, "divisor_override": 2},
]
ADAPTIVE = [[3], [2, 3], [1], [4, 5], [7], [5, 2], [0, 2]]

for args in MAX2D:
    add_case("max_pool2d", randn(2, 3, 7, 6), "float32", args)
    add_case("max_pool2d", randn(2, 3, 7, 6), "float64", args)
    add_case("max_pool2d", randn(3, 5, 6), "float32", args)                          # unbatched
    add_case("max_pool2d", ties(2, 2, 6, 7), "float64", args)                        # ties: the first index
    add_case("max_pool2d", specials(1, 2, 7, 6), "float32", args)                    # NaN, inf, -inf
    add_case("max_pool2d", neg_inf(1, 1, 5, 5), "float64", args)
    add_case("max_pool2d", randn(2, 3, 6, 7), "float32", args, [["transpose", 2, 3]])
    add_case("max_pool2d", randn(2, 3, 7, 12), "float64", args, [["slice", 3, 0, 12, 2]])
    add_grad_case("max_pool2d", [2, 2, 7, 6], args)
add_case("max_pool2d", randn(2, 3, 7, 6), "bfloat16", {"kernel_size": [2], "return_indices": True})
add_case("max_pool2d", randn(0, 3, 6, 6), "float32", {"kernel_size": [2], "return_indices": True})
add_case("max_pool2d", torch.tensor([[[1.0, float("nan"), 3.0, float("nan")], [2.0, 5.0, float("nan"), 0.0]]]), "float64",
         {"kernel_size": [2, 4], "return_indices": True})
add_grad_case("max_pool2d", [3, 6, 6], {"kernel_size": [3], "stride": [2], "padding": [1]})
add_grad_case("max_pool2d", [2, 3, 6, 7], {"kernel_size": [2], "stride": [1], "return_indices": True}, [["transpose", 2, 3]])

for args in AVG2D:
    add_case("avg_pool2d", randn(2, 3, 7, 6), "float32", args)
    add_case("avg_pool2d", randn(2, 3, 7, 6), "float64", args)
    add_case("avg_pool2d", randn(3, 5, 6), "float64", args)
    add_case("avg_pool2d", specials(1, 2, 7, 6), "float64", args)
    add_case("avg_pool2d", randn(2, 3, 6, 7), "float32", args, [["transpose", 2, 3]])
    add_case("avg_pool2d", torch.randint(-9, 10, (2, 2, 7, 6)), "int64", args)
    add_grad_case("avg_pool2d", [2, 2, 7, 6], args)
add_case("avg_pool2d", randn(2, 3, 7, 6), "bfloat16", {"kernel_size": [2]})
add_case("avg_pool2d", randn(0, 3, 6, 6), "float32", {"kernel_size": [2]})
add_grad_case("avg_pool2d", [3, 6, 5], {"kernel_size": [2], "stride": [1], "padding": [1], "count_include_pad": False})
add_grad_case("avg_pool2d", [2, 3, 7, 12], {"kernel_size": [3], "stride": [2], "ceil_mode": True}, [["slice", 3, 0, 12, 2]])

for size in ADAPTIVE:
    for op in ("adaptive_avg_pool2d", "adaptive_max_pool2d"):
        args = {"output_size": size}
        if op == "adaptive_max_pool2d":
            args["return_indices"] = True
        add_case(op, randn(2, 3, 7, 6), "float32", args)
        add_case(op, randn(2, 3, 7, 6), "float64", args)
        add_case(op, randn(3, 5, 6), "float64", args)
        add_case(op, randn(2, 3, 6, 7), "float32", args, [["transpose", 2, 3]])
        if op == "adaptive_max_pool2d":
            add_case(op, ties(2, 2, 7, 6), "float64", args)
            add_case(op, specials(1, 2, 7, 6), "float32", args)
        if 0 not in size:
            add_grad_case(op, [2, 2, 7, 6], args)
add_case("adaptive_avg_pool2d", randn(2, 3, 7, 6), "bfloat16", {"output_size": [3]})
add_case("adaptive_max_pool2d", randn(2, 3, 7, 6), "bfloat16", {"output_size": [3], "return_indices": True})
add_grad_case("adaptive_avg_pool2d", [3, 5, 9], {"output_size": [2, 4]}, [["slice", 2, 0, 9, 2]])

for args in [{"kernel_size": [2]}, {"kernel_size": [3], "stride": [1], "padding": [1]},
             {"kernel_size": [3], "stride": [2], "padding": [1], "dilation": [2], "ceil_mode": True}]:
    args1 = dict(args, return_indices=True)
    add_case("max_pool1d", randn(2, 3, 9), "float32", args1)
    add_case("max_pool1d", randn(3, 9), "float64", args1)
    add_case("max_pool1d", ties(2, 9), "float64", args1)
    add_case("max_pool1d", specials(2, 9), "float64", args1)
    add_grad_case("max_pool1d", [2, 3, 9], args1)
for args in [{"kernel_size": [2]}, {"kernel_size": [3], "stride": [1], "padding": [1], "count_include_pad": False},
             {"kernel_size": [3], "stride": [2], "padding": [1], "ceil_mode": True}]:
    add_case("avg_pool1d", randn(2, 3, 9), "float32", args)
    add_case("avg_pool1d", randn(3, 9), "float64", args)
    add_grad_case("avg_pool1d", [2, 3, 9], args)

# max_pool1d without indices (and without autograd) of an input shorter
# than the kernel: an empty result (max_pool1d_impl), not an error.
for args in [{"kernel_size": [5]}, {"kernel_size": [5], "stride": [1]}, {"kernel_size": [3], "stride": [1], "dilation": [2]},
             {"kernel_size": [5], "padding": [2]}, {"kernel_size": [5], "ceil_mode": True}]:
    add_case("max_pool1d", randn(2, 4), "float32", args)
add_case("max_pool1d", randn(2, 0), "float32", {"kernel_size": [2]})

# Errors.
X = randn(1, 4, 4)
for args in [{"kernel_size": [0]}, {"kernel_size": [2], "stride": [0]}, {"kernel_size": [2], "padding": [2]},
             {"kernel_size": [5]}, {"kernel_size": [2], "dilation": [0]}, {"kernel_size": [3], "padding": [-1]},
             {"kernel_size": [-1]}, {"kernel_size": [2], "stride": [-1]}, {"kernel_size": [1, 2, 3]},
             {"kernel_size": [3], "dilation": [2], "padding": [2]}, {"kernel_size": [3], "dilation": [2]}]:
    add_case("max_pool2d", X, "float32", args)
for args in [{"kernel_size": [0]}, {"kernel_size": [2], "padding": [2]}, {"kernel_size": [5]},
             {"kernel_size": [2], "divisor_override": 0}, {"kernel_size": [1, 2, 3]}]:
    add_case("avg_pool2d", X, "float32", args)
add_case("max_pool2d", randn(4, 4), "float32", {"kernel_size": [2]})
add_case("max_pool2d", randn(1, 1, 1, 4, 4), "float32", {"kernel_size": [2]})
add_case("max_pool2d", randn(1, 0, 4, 4), "float32", {"kernel_size": [2]})
add_case("avg_pool2d", randn(1, 1, 1, 4, 4), "float32", {"kernel_size": [2]})
add_case("max_pool2d", torch.arange(16).reshape(1, 4, 4), "int64", {"kernel_size": [2]})
add_case("avg_pool2d", torch.arange(16).reshape(1, 4, 4), "int32", {"kernel_size": [2]})
add_case("max_pool2d", randn(1, 4, 4), "float16", {"kernel_size": [2]})
add_case("adaptive_avg_pool2d", randn(1, 1, 1, 4, 4), "float32", {"output_size": [2]})
add_case("adaptive_avg_pool2d", randn(1, 1, 0, 4), "float32", {"output_size": [2]})
add_case("adaptive_avg_pool2d", randn(4, 4), "float32", {"output_size": [2]})
add_case("adaptive_avg_pool2d", randn(1, 4, 4), "float32", {"output_size": [-1]})
add_case("adaptive_avg_pool2d", torch.arange(16).reshape(1, 4, 4), "int64", {"output_size": [2]})
add_case("adaptive_max_pool2d", randn(1, 1, 1, 4, 4), "float32", {"output_size": [2], "return_indices": True})
add_case("adaptive_max_pool2d", randn(1, 0, 4), "float32", {"output_size": [2], "return_indices": True})
add_case("adaptive_max_pool2d", randn(1, 4, 4), "float32", {"output_size": [-1], "return_indices": True})
add_case("max_pool1d", randn(4), "float32", {"kernel_size": [2], "return_indices": True})
add_case("max_pool1d", randn(1, 4), "float32", {"kernel_size": [0], "return_indices": True})
add_case("avg_pool1d", randn(4), "float32", {"kernel_size": [2]})
add_case("avg_pool1d", randn(1, 4), "float32", {"kernel_size": [5]})

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {os.path.relpath(OUT)}")
