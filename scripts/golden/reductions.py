"""Golden data for the reductions of pkg/torch/reduce_more.go
(reductions_golden_test.go): nansum, nanmean, median, nanmedian, kthvalue,
mode, var_mean, std_mean, aminmax, cummax, cummin, logcumsumexp and the
dtype= forms of cumsum, cumprod, softmax, log_softmax, prod, sum and mean,
on contiguous, transposed, sliced-with-step, expanded, empty and 0-dim
inputs, for each dtype PyTorch allows, with NaN, Inf, -0.0 and ties, and
PyTorch's errors.

Run with Debian's python3-torch (PyTorch 1.13):
    /usr/bin/python3 scripts/golden/reductions.py
Writes testdata/reductions.json in the format of ops.json.
"""
import json
import math
import os

import torch
from goldenio import enc

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "reductions.json")
torch.manual_seed(0)

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
ALL = ["bool"] + INTS + FLOATS
NAN, INF = float("nan"), float("inf")


def enc_tensor(t):
    vals = (t.float() if t.dtype in (torch.float16, torch.bfloat16) else t).reshape(-1).tolist()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": [enc(v) for v in vals]}


def random_values(n, dtype, special):
    if dtype == "bool":
        return torch.rand(n) > 0.5
    if dtype in INTS:
        # few distinct values, so that ties are common
        return torch.randint(0 if dtype == "uint8" else -3, 4, (n,))
    v = torch.randn(n) * 3
    if special:
        for i, x in enumerate([NAN, INF, -INF, -0.0, 0.0, 1.0, 1.0][: max(n // 2, 1)]):
            v[(i * 7) % n] = x
    return v


def make_input(shape, dtype, views=(), special=False, values=None):
    """A base tensor of shape and dtype, then views applied to it."""
    if values is None:
        values = random_values(math.prod(shape), dtype, special)
    base = torch.as_tensor(values).to(getattr(torch, dtype)).reshape(shape)
    t = base
    for v in views:
        t = apply_view(t, v)
    data = (base.float() if dtype in ("float16", "bfloat16") else base).reshape(-1).tolist()
    return t, {"shape": list(shape), "dtype": dtype, "views": [list(v) for v in views], "data": [enc(x) for x in data]}


def apply_view(t, v):
    name, args = v[0], v[1:]
    if name == "transpose":
        return t.transpose(*args)
    if name == "slice":
        dim, start, end, step = args
        idx = [slice(None)] * t.dim()
        idx[dim] = slice(start, end, step)
        return t[tuple(idx)]
    if name == "expand":
        return t.expand(*args)
    raise ValueError(name)


# (base shape, views) giving a [3, 4] operand in four layouts.
LAYOUTS = [
    ([3, 4], []), ([4, 3], [["transpose", 0, 1]]), ([3, 8], [["slice", 1, 0, 8, 2]]), ([3, 1], [["expand", 3, 4]]),
]

cases = []


def add_case(op, inputs, args, fn, only_values=False, half_ref=None):
    """Runs fn on the inputs with PyTorch and records the outputs or the
    error. only_values keeps only the first output, for ops whose index
    output PyTorch leaves unspecified in that case.
    half_ref computes the reference when 1.13 lacks a 16-bit kernel for
    the result dtype (the inputs' 16-bit dtypes are handled here)."""
    ts = [t for t, _ in inputs]
    case = {"op": op, "inputs": [s for _, s in inputs], "args": args}
    try:
        out = fn(*ts)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        msg = str(e).splitlines()[0]
        out = None
        half = [t.dtype for t in ts if t.dtype in (torch.float16, torch.bfloat16)]
        if half and ("not implemented for 'Half'" in msg or "not implemented for 'BFloat16'" in msg):
            # PyTorch 1.13's CPU lacks this op in 16-bit floats (2.x has
            # it); MindTorch supports it, and the reference is the op in
            # float32 rounded to the 16-bit dtype.
            out = fn(*[t.float() if t.dtype in (torch.float16, torch.bfloat16) else t for t in ts])
            out = [o.to(half[0]) if o.is_floating_point() else o for o in (out if isinstance(out, (tuple, list)) else [out])]
            case["ref"] = "float32"
        elif half_ref is not None and ("not implemented for 'Half'" in msg or "not implemented for 'BFloat16'" in msg):
            out = half_ref(*ts)
            case["ref"] = "float32"
        if out is None:
            case["error"] = msg
            cases.append(case)
            return
    if not isinstance(out, (tuple, list)):
        out = [out]
    if only_values:
        out = out[:1]
    case["outs"] = [enc_tensor(o) for o in out]
    cases.append(case)


def red_args(dims, keep):
    return {"dims": dims, "keepdim": keep}


# ---- nansum, nanmean ----

def nansum(x, dims, keep):
    return torch.nansum(x, dims, keepdim=keep) if dims is not None else torch.nansum(x)


def nanmean(x, dims, keep):
    return torch.nanmean(x, dims, keepdim=keep) if dims is not None else torch.nanmean(x)


for name, fn in [("nansum", nansum), ("nanmean", nanmean)]:
    for dims, keep in [(None, False), ([1], False), ([0], True), ([-1], True), ([0, 1], False)]:
        for d in ALL:
            add_case(name, [make_input([3, 4], d, special=True)], red_args(dims, keep), lambda x: fn(x, dims, keep))
        for shape, views in LAYOUTS:
            add_case(name, [make_input(shape, "float32", views, special=True)], red_args(dims, keep),
                     lambda x: fn(x, dims, keep))
    add_case(name, [make_input([2, 3], "float64", values=[NAN, NAN, 1.0, NAN, 2.0, -0.0])], red_args([1], False),
             lambda x: fn(x, [1], False))
    add_case(name, [make_input([2, 3, 4], "float64", special=True)], red_args([0, 2], False), lambda x: fn(x, [0, 2], False))
    add_case(name, [make_input([0, 3], "float32")], red_args(None, False), lambda x: fn(x, None, False))
    add_case(name, [make_input([0, 3], "float32")], red_args([0], False), lambda x: fn(x, [0], False))
    add_case(name, [make_input([0, 3], "float32")], red_args([1], True), lambda x: fn(x, [1], True))
    add_case(name, [make_input([], "float32")], red_args(None, False), lambda x: fn(x, None, False))
    add_case(name, [make_input([], "float32")], red_args([-1], True), lambda x: fn(x, [-1], True))
    add_case(name, [make_input([3, 4], "float32")], red_args([2], False), lambda x: fn(x, [2], False))
    add_case(name, [make_input([3, 4], "float32")], red_args([0, -2], False), lambda x: fn(x, [0, -2], False))

# ---- var_mean, std_mean ----

for name, fn in [("var_mean", torch.var_mean), ("std_mean", torch.std_mean)]:
    for corr, dims, keep in [(1, None, False), (0, [1], False), (1, [0], True), (2, [-1], True), (1, [0, 1], False)]:
        for d in ALL:
            add_case(name, [make_input([3, 4], d)], {"correction": corr, "dims": dims, "keepdim": keep},
                     lambda x: fn(x, dims, correction=corr, keepdim=keep))
        for shape, views in LAYOUTS:
            add_case(name, [make_input(shape, "float32", views)], {"correction": corr, "dims": dims, "keepdim": keep},
                     lambda x: fn(x, dims, correction=corr, keepdim=keep))
    add_case(name, [make_input([3, 4], "float64", special=True)], {"correction": 1, "dims": [1], "keepdim": False},
             lambda x: fn(x, [1], correction=1))
    add_case(name, [make_input([0, 3], "float32")], {"correction": 1, "dims": None, "keepdim": False},
             lambda x: fn(x, None, correction=1))
    add_case(name, [make_input([0, 3], "float32")], {"correction": 1, "dims": [0], "keepdim": False},
             lambda x: fn(x, [0], correction=1))
    add_case(name, [make_input([], "float64")], {"correction": 0, "dims": None, "keepdim": False},
             lambda x: fn(x, None, correction=0))
    add_case(name, [make_input([3, 4], "float32")], {"correction": 1, "dims": [3], "keepdim": False},
             lambda x: fn(x, [3], correction=1))

# ---- aminmax ----

def aminmax(x, dim, keep):
    return torch.aminmax(x, dim=dim, keepdim=keep)


for dim, keep in [(None, False), (None, True), (1, False), (0, True), (-1, False)]:
    for d in ALL:
        add_case("aminmax", [make_input([3, 4], d, special=True)], {"dim": dim, "keepdim": keep},
                 lambda x: aminmax(x, dim, keep))
    for shape, views in LAYOUTS:
        add_case("aminmax", [make_input(shape, "float32", views, special=True)], {"dim": dim, "keepdim": keep},
                 lambda x: aminmax(x, dim, keep))
add_case("aminmax", [make_input([0, 3], "float32")], {"dim": None, "keepdim": False}, lambda x: aminmax(x, None, False))
add_case("aminmax", [make_input([0, 3], "float32")], {"dim": 0, "keepdim": False}, lambda x: aminmax(x, 0, False))
add_case("aminmax", [make_input([0, 3], "float32")], {"dim": 1, "keepdim": True}, lambda x: aminmax(x, 1, True))
add_case("aminmax", [make_input([], "float32")], {"dim": None, "keepdim": False}, lambda x: aminmax(x, None, False))
add_case("aminmax", [make_input([], "float32")], {"dim": 0, "keepdim": False}, lambda x: aminmax(x, 0, False))
# A 0-dim input with keepdim: 1.13 resizes the results to [1] (with a
# deprecation warning); MindTorch keeps them 0-dim, as amin/amax do.
add_case("aminmax", [make_input([], "float32")], {"dim": 0, "keepdim": True},
         lambda x: (torch.amin(x, 0, keepdim=True), torch.amax(x, 0, keepdim=True)))
add_case("aminmax", [make_input([3, 4], "float32")], {"dim": 2, "keepdim": False}, lambda x: aminmax(x, 2, False))

# ---- median, nanmedian over all elements ----

TIES = [[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8], [2, 2, 2, 1, 1, 1, 3, 3, 3, 0, 0, 0]]
NANS = [[1.0, NAN, 2.0, 5.0, NAN, -0.0, 0.0, -INF, INF, 2.0, 2.0, 3.0],
        [NAN, NAN, NAN, NAN, 1.0, 1.0, 1.0, 2.0, NAN, NAN, NAN, NAN]]

for name, fn in [("median", torch.median), ("nanmedian", torch.nanmedian)]:
    for d in ALL:
        add_case(name, [make_input([3, 4], d)], {}, fn)
        if d != "bool":
            add_case(name, [make_input([3, 4], d, values=TIES[0])], {}, fn)
    for shape, views in LAYOUTS:
        add_case(name, [make_input(shape, "float32", views)], {}, fn)
    for vals in NANS:
        add_case(name, [make_input([3, 4], "float32", values=vals)], {}, fn)
    add_case(name, [make_input([4], "float64", values=[NAN] * 4)], {}, fn)
    for d in ["float32", "int64", "int32", "int16", "uint8", "float64"]:
        add_case(name, [make_input([0, 3], d)], {}, fn)
    add_case(name, [make_input([], "float32")], {}, fn)
    add_case(name, [make_input([5], "float32", values=[1.0, 2, 2, 3, 2])], {}, fn)

# ---- median, nanmedian, kthvalue, mode along a dim ----

def dim_case(name, inputs, dim, keep, fn, k=None, only_values=False):
    args = {"dim": dim, "keepdim": keep}
    if k is not None:
        args["k"] = k
    add_case(name, inputs, args, fn, only_values)


DIM_OPS = {
    "median_dim": lambda dim, keep, k: (lambda x: torch.median(x, dim, keepdim=keep)),
    "nanmedian_dim": lambda dim, keep, k: (lambda x: torch.nanmedian(x, dim, keepdim=keep)),
    "kthvalue": lambda dim, keep, k: (lambda x: torch.kthvalue(x, k, dim, keepdim=keep)),
    "mode": lambda dim, keep, k: (lambda x: torch.mode(x, dim, keepdim=keep)),
}
for name, mk in DIM_OPS.items():
    kth = name == "kthvalue"
    for dim, keep, k in [(1, False, 2), (0, True, 3), (-1, True, 4)]:
        kk = k if kth else None
        # distinct values: every op's indices are PyTorch's
        for d in ALL:
            vals = torch.randperm(12) if d != "bool" else None
            dim_case(name, [make_input([3, 4], d, values=vals)], dim, keep, mk(dim, keep, k), kk,
                     only_values=kth and d == "bool")
        for shape, views in LAYOUTS:
            n = math.prod(shape)
            vals = torch.randperm(n).float() * 0.5 - 2
            if views and views[0][0] == "expand":
                # PyTorch 1.13's median and nanmedian along a dim read
                # garbage for inputs with stride 0 (values such as 6e-05
                # for a constant row); the reference is the contiguous
                # copy's result, what the op means and what MindTorch gives.
                f = mk(dim, keep, k)
                dim_case(name, [make_input(shape, "float32", views, values=vals)], dim, keep,
                         lambda x: f(x.contiguous()), kk)
            else:
                dim_case(name, [make_input(shape, "float32", views, values=vals)], dim, keep, mk(dim, keep, k), kk)
        # ties: every op picks PyTorch's index (kthvalue: its quickselect's,
        # mode: its std::sort's)
        for vals in TIES:
            for d in ["float32", "int64", "float64"]:
                dim_case(name, [make_input([3, 4], d, values=vals)], dim, keep, mk(dim, keep, k), kk)
    # NaN (mode: PyTorch's std::sort compares NaN with <, replayed as such)
    for vals in NANS:
        for dim in [0, 1]:
            k = 3 if dim == 0 else 4
            dim_case(name, [make_input([3, 4], "float32", values=vals)], dim, False, mk(dim, False, k),
                     k if kth else None)
    # all ties in a row, longer rows (mode: PyTorch's std::sort is an
    # insertion sort up to 16 elements, introsort beyond)
    dim_case(name, [make_input([2, 16], "float64", values=torch.randint(0, 4, (32,)))], 1, False,
             mk(1, False, 5), 5 if kth else None)
    dim_case(name, [make_input([2, 3], "float32", values=[-0.0, 0.0, -0.0, 1.0, 1.0, 1.0])], 1, False,
             mk(1, False, 2), 2 if kth else None)
    for shape, views, dim, d, hi in [([3, 40], [], 1, "int64", 4), ([2, 100], [], 1, "float32", 7),
                                     ([60, 3], [], 0, "float64", 5), ([3, 33], [["transpose", 0, 1]], 0, "int32", 3),
                                     ([2, 300], [], 1, "int16", 20), ([2, 17], [], 1, "bfloat16", 3),
                                     ([2, 64], [], -1, "uint8", 6)]:
        n = shape[dim] if not views else shape[1 - dim]
        for k in ([1, n // 3, n // 2 + 1, n] if kth else [None]):
            dim_case(name, [make_input(shape, d, views, values=torch.randint(0, hi, (math.prod(shape),)))], dim,
                     False, mk(dim, False, k), k)
    # rows of ties with NaNs beyond 16 elements
    vals = torch.randint(0, 4, (2 * 40,)).double()
    vals[torch.rand(2 * 40) < 0.15] = NAN
    for k in ([1, 13, 40] if kth else [None]):
        dim_case(name, [make_input([2, 40], "float64", values=vals)], 1, True, mk(1, True, k), k)
    dim_case(name, [make_input([3, 4], "float32", values=torch.randperm(12).float())], 1, False,
             mk(1, False, 1), 1 if kth else None)
    dim_case(name, [make_input([2, 3, 4], "float64", [["transpose", 0, 2]], values=torch.randperm(24).double())],
             1, True, mk(1, True, 2), 2 if kth else None)
    # empty and 0-dim inputs, dims out of range
    for dim in [0, 1]:
        dim_case(name, [make_input([0, 3], "float32")], dim, False, mk(dim, False, 1), 1 if kth else None)
    dim_case(name, [make_input([], "float32")], 0, False, mk(0, False, 1), 1 if kth else None)
    dim_case(name, [make_input([], "int64")], -1, True, mk(-1, True, 1), 1 if kth else None)
    dim_case(name, [make_input([], "float32")], 1, False, mk(1, False, 1), 1 if kth else None)
    dim_case(name, [make_input([3, 4], "float32")], 2, False, mk(2, False, 1), 1 if kth else None)
    dim_case(name, [make_input([3, 4], "float32")], -3, False, mk(-3, False, 1), 1 if kth else None)
for k in [0, 5, -1]:
    dim_case("kthvalue", [make_input([3, 4], "float32")], 1, False, DIM_OPS["kthvalue"](1, False, k), k)
dim_case("kthvalue", [make_input([], "float32")], 0, False, DIM_OPS["kthvalue"](0, False, 2), 2)

# ---- cummax, cummin, logcumsumexp ----

SCANS = {
    "cummax": lambda dim: (lambda x: torch.cummax(x, dim)),
    "cummin": lambda dim: (lambda x: torch.cummin(x, dim)),
    "logcumsumexp": lambda dim: (lambda x: torch.logcumsumexp(x, dim)),
}
for name, mk in SCANS.items():
    for dim in [1, 0, -1]:
        for d in ALL:
            add_case(name, [make_input([3, 4], d)], {"dim": dim}, mk(dim))
        for shape, views in LAYOUTS:
            add_case(name, [make_input(shape, "float32", views)], {"dim": dim}, mk(dim))
    for vals in TIES + NANS:
        add_case(name, [make_input([3, 4], "float32", values=vals)], {"dim": 1}, mk(1))
        add_case(name, [make_input([3, 4], "float64", values=vals)], {"dim": 0}, mk(0))
    add_case(name, [make_input([2, 5], "float64", values=[-INF, -INF, 0, INF, INF, NAN, -INF, NAN, 1, INF])],
             {"dim": 1}, mk(1))
    add_case(name, [make_input([2, 3], "float32", values=[-0.0, 0.0, -0.0, 0.0, -0.0, 0.0])], {"dim": 1}, mk(1))
    # long rows: several scan steps, lengths not a power of two
    add_case(name, [make_input([3, 37], "float64", values=torch.randint(-5, 5, (111,)).double())], {"dim": 1}, mk(1))
    add_case(name, [make_input([2, 17, 3], "float32", [["transpose", 0, 1]], special=True)], {"dim": 0}, mk(0))
    add_case(name, [make_input([0, 3], "float32")], {"dim": 0}, mk(0))
    add_case(name, [make_input([0, 3], "float32")], {"dim": 1}, mk(1))
    add_case(name, [make_input([], "float32")], {"dim": 0}, mk(0))
    add_case(name, [make_input([], "float32")], {"dim": -1}, mk(-1))
    add_case(name, [make_input([], "float32")], {"dim": 3}, mk(3))
    add_case(name, [make_input([0, 3], "float32")], {"dim": 5}, mk(5))
    add_case(name, [make_input([3, 4], "float32")], {"dim": 2}, mk(2))
for vals in [[-1000.0, 0.0, -2000.0, 5.0], [0.0, -1000.0, -1000.0, -1000.0], [1e4, 1e4, -1e4, 3.0]]:
    for d in ["float32", "float64"]:
        add_case("logcumsumexp", [make_input([4], d, values=vals)], {"dim": 0}, SCANS["logcumsumexp"](0))

# ---- dtype= forms ----

def half_reference(fn, x, args):
    """fn with a 16-bit dtype= computed in float32 and rounded: 1.13's CPU
    lacks these kernels in float16 (2.x has them), MindTorch computes them
    in float32 as its other 16-bit ops."""
    d = getattr(torch, args["dtype"])
    return fn(x.to(d).float(), dict(args, dtype="float32")).to(d)


DTYPE_OPS = {
    "cumsum_dtype": lambda x, a: torch.cumsum(x, a["dim"], dtype=getattr(torch, a["dtype"])),
    "cumprod_dtype": lambda x, a: torch.cumprod(x, a["dim"], dtype=getattr(torch, a["dtype"])),
    "softmax_dtype": lambda x, a: torch.softmax(x, a["dim"], dtype=getattr(torch, a["dtype"])),
    "log_softmax_dtype": lambda x, a: torch.log_softmax(x, a["dim"], dtype=getattr(torch, a["dtype"])),
}
for name, fn in DTYPE_OPS.items():
    for src, dst in [("int32", "float32"), ("float32", "float64"), ("float16", "float32"), ("int64", "int32"),
                     ("int16", "int8"), ("bool", "int64"), ("float64", "float16"), ("uint8", "bfloat16"),
                     ("float32", "int64"), ("float32", "bool")]:
        for dim in [1, -2]:
            args = {"dim": dim, "dtype": dst}
            vals = torch.randint(-2, 4, (12,)) if src not in FLOATS else None
            if src == "uint8":
                vals = torch.randint(0, 4, (12,))
            add_case(name, [make_input([3, 4], src, values=vals)], args, lambda x: fn(x, args),
                     half_ref=lambda x: half_reference(fn, x, args))
    for shape, views in LAYOUTS:
        args = {"dim": 0, "dtype": "float64"}
        add_case(name, [make_input(shape, "float32", views)], args, lambda x: fn(x, args))
    add_case(name, [make_input([3, 4], "float32", special=True)], {"dim": 1, "dtype": "float64"},
             lambda x: fn(x, {"dim": 1, "dtype": "float64"}))
    add_case(name, [make_input([0, 3], "float32")], {"dim": 0, "dtype": "float64"},
             lambda x: fn(x, {"dim": 0, "dtype": "float64"}))
    add_case(name, [make_input([], "int32")], {"dim": 0, "dtype": "float32"},
             lambda x: fn(x, {"dim": 0, "dtype": "float32"}))
    add_case(name, [make_input([3, 4], "float32")], {"dim": 2, "dtype": "float64"},
             lambda x: fn(x, {"dim": 2, "dtype": "float64"}))

RED_DTYPE_OPS = {
    "prod_dtype": lambda x, a: (torch.prod(x, a["dims"][0], keepdim=a["keepdim"], dtype=getattr(torch, a["dtype"]))
                                if a["dims"] is not None else torch.prod(x, dtype=getattr(torch, a["dtype"]))),
    "sum_dtype": lambda x, a: (torch.sum(x, a["dims"], keepdim=a["keepdim"], dtype=getattr(torch, a["dtype"]))
                               if a["dims"] is not None else torch.sum(x, dtype=getattr(torch, a["dtype"]))),
    "mean_dtype": lambda x, a: (torch.mean(x, a["dims"], keepdim=a["keepdim"], dtype=getattr(torch, a["dtype"]))
                                if a["dims"] is not None else torch.mean(x, dtype=getattr(torch, a["dtype"]))),
}
for name, fn in RED_DTYPE_OPS.items():
    for src, dst in [("int32", "float32"), ("float32", "float64"), ("float16", "float32"), ("int64", "int32"),
                     ("int16", "int8"), ("bool", "int64"), ("float64", "float16"), ("float32", "int64"),
                     ("int32", "bool"), ("uint8", "bfloat16")]:
        for dims, keep in [(None, False), ([1], False), ([0], True)]:
            args = {"dims": dims, "keepdim": keep, "dtype": dst}
            vals = torch.randint(0 if src == "uint8" else -2, 4, (12,)) if src not in FLOATS else None
            add_case(name, [make_input([3, 4], src, values=vals)], args, lambda x: fn(x, args),
                     half_ref=lambda x: half_reference(fn, x, args))
    for shape, views in LAYOUTS:
        args = {"dims": [1], "keepdim": False, "dtype": "float64"}
        add_case(name, [make_input(shape, "float32", views)], args, lambda x: fn(x, args))
    add_case(name, [make_input([0, 3], "float32")], {"dims": [0], "keepdim": False, "dtype": "float64"},
             lambda x: fn(x, {"dims": [0], "keepdim": False, "dtype": "float64"}))
    add_case(name, [make_input([], "float32")], {"dims": None, "keepdim": False, "dtype": "float64"},
             lambda x: fn(x, {"dims": None, "keepdim": False, "dtype": "float64"}))
    add_case(name, [make_input([3, 4], "float32")], {"dims": [2], "keepdim": False, "dtype": "float64"},
             lambda x: fn(x, {"dims": [2], "keepdim": False, "dtype": "float64"}))

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {os.path.relpath(OUT)}")
