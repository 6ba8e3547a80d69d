"""Golden data for the view ops (diagonal, diag_embed, unfold, movedim,
swapaxes, fliplr, flipud) and the linear algebra built on the products
(trace, kron, tensordot, einsum, cross, addmv, addr, vector_norm,
matrix_norm): values on contiguous, transposed, sliced-with-step, expanded,
empty and 0-dim inputs for the dtypes each op takes, and PyTorch's errors.

Run with Debian's python3-torch (PyTorch 1.13):
    /usr/bin/python3 scripts/golden/views_linalg.py
Writes testdata/views_linalg.json (the format of scripts/golden/ops.py,
read by internal/conformance).
"""
import json
import math
import os

import torch
from goldenio import enc

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "views_linalg.json")
torch.manual_seed(0)

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
ALL = ["bool"] + INTS + FLOATS
HALF = (torch.float16, torch.bfloat16)


def dt(name):
    return getattr(torch, name)


def enc_tensor(t):
    vals = (t.float() if t.dtype in HALF else t).reshape(-1).tolist()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": [enc(v) for v in vals]}


def base_values(shape, dtype):
    n = math.prod(shape)
    if dtype == "bool":
        return torch.rand(n) > 0.5
    if dtype in INTS:
        return torch.randint(0 if dtype == "uint8" else -9, 10, (n,))
    return torch.randn(n) * 3


def make_input(shape, dtype, views=(), values=None):
    """A base tensor of shape and dtype, then views applied to it."""
    if values is None:
        values = base_values(shape, dtype)
    base = torch.as_tensor(values).to(dt(dtype)).reshape(shape)
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


def layouts(shape, dtype="float32"):
    """An operand of a 2-D or 3-D shape in four layouts: contiguous, a
    transposed view, a slice with step 2 of the last dim, an expanded dim."""
    n = len(shape)
    last = n - 1
    tshape = list(shape)
    tshape[0], tshape[last] = tshape[last], tshape[0]
    wide = list(shape)
    wide[last] *= 2
    one = list(shape)
    one[0] = 1
    return [
        make_input(shape, dtype),
        make_input(tshape, dtype, [["transpose", 0, last]]),
        make_input(wide, dtype, [["slice", last, 0, wide[last], 2]]),
        make_input(one, dtype, [["expand"] + list(shape)]),
    ]


cases = []


def add_case(op, inputs, args, fn):
    ts = [t for t, _ in inputs]
    case = {"op": op, "inputs": [s for _, s in inputs], "args": args}
    try:
        out = fn(*ts)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        msg = str(e).splitlines()[0]
        half = [t.dtype for t in ts if t.dtype in HALF]
        out = None
        if half and ("not implemented for 'Half'" in msg or "not implemented for 'BFloat16'" in msg):
            # PyTorch 1.13's CPU lacks this op in 16-bit floats; MindTorch
            # computes it in float32 and rounds, which is the reference here.
            try:
                out = fn(*[t.float() if t.dtype in HALF else t for t in ts])
                out = [o.to(half[0]) if o.is_floating_point() else o
                       for o in (out if isinstance(out, (tuple, list)) else [out])]
                case["ref"] = "float32"
            except RuntimeError:
                out = None
        if out is None:
            case["error"] = msg
            cases.append(case)
            return
    if not isinstance(out, (tuple, list)):
        out = [out]
    case["outs"] = [enc_tensor(o) for o in out]
    cases.append(case)


# ---- views ----

def diagonal_case(x, offset, d1, d2):
    add_case("diagonal", [x], {"offset": offset, "dim1": d1, "dim2": d2},
             lambda t: torch.diagonal(t, offset, d1, d2))


for x in layouts([3, 4]):
    for offset in [0, 1, -1, 3, -2, 5, -7]:
        diagonal_case(x, offset, 0, 1)
    diagonal_case(x, 1, 1, 0)
    diagonal_case(x, -1, -1, -2)
for x in layouts([2, 3, 4]):
    diagonal_case(x, 0, 0, 2)
    diagonal_case(x, -1, 2, 1)
for d in ALL:
    diagonal_case(make_input([3, 3], d), 1, 0, 1)
diagonal_case(make_input([0, 3], "float32"), 0, 0, 1)
diagonal_case(make_input([2, 0, 3], "float32"), -1, 2, 0)
diagonal_case(make_input([3, 4], "float32"), 0, 1, 1)
diagonal_case(make_input([3, 4], "float32"), 0, 0, 2)
diagonal_case(make_input([3], "float32"), 0, 0, 1)
diagonal_case(make_input([], "float32"), 0, 0, 1)
diagonal_case(make_input([], "float32"), 0, 0, -1)


def diag_embed_case(x, offset, d1, d2):
    add_case("diag_embed", [x], {"offset": offset, "dim1": d1, "dim2": d2},
             lambda t: torch.diag_embed(t, offset, d1, d2))


for x in layouts([2, 3]):
    for offset, d1, d2 in [(0, -2, -1), (1, 0, 2), (-2, 2, 0), (0, 1, 0)]:
        diag_embed_case(x, offset, d1, d2)
for d in ALL:
    diag_embed_case(make_input([3], d), -1, 0, 1)
diag_embed_case(make_input([0], "float32"), 2, 0, 1)
diag_embed_case(make_input([2, 0], "float32"), 0, -2, -1)
diag_embed_case(make_input([], "float32"), 0, -2, -1)
diag_embed_case(make_input([], "float32"), 0, 0, -1)
diag_embed_case(make_input([2, 3], "float32"), 0, 1, 1)
diag_embed_case(make_input([2, 3], "float32"), 0, 0, 3)


def unfold_case(x, dim, size, step):
    add_case("unfold", [x], {"dim": dim, "size": size, "step": step}, lambda t: t.unfold(dim, size, step))


for x in layouts([3, 5]):
    for dim, size, step in [(1, 2, 1), (1, 2, 2), (0, 3, 1), (-1, 5, 3), (1, 0, 2), (0, 1, 7)]:
        unfold_case(x, dim, size, step)
for d in ALL:
    unfold_case(make_input([6], d), 0, 3, 2)
unfold_case(make_input([2, 0], "float32"), 1, 0, 1)
unfold_case(make_input([], "float32"), 0, 1, 1)
unfold_case(make_input([], "float32"), -1, 0, 3)
unfold_case(make_input([3, 4], "float32"), 1, 5, 1)
unfold_case(make_input([3, 4], "float32"), 1, 2, 0)
unfold_case(make_input([3, 4], "float32"), 1, 2, -1)
unfold_case(make_input([3, 4], "float32"), 2, 2, 1)
unfold_case(make_input([], "float32"), 0, 2, 1)
unfold_case(make_input([], "float32"), 1, 0, 1)

for name, fn in [("movedim", torch.movedim), ("moveaxis", torch.moveaxis)]:
    for x in layouts([2, 3, 4]):
        for src, dst in [([0], [2]), ([2, 0], [0, 1]), ([-1], [0]), ([0, 1, 2], [2, 1, 0]), ([], [])]:
            add_case(name, [x], {"src": src, "dst": dst}, lambda t: fn(t, src, dst))
    for src, dst in [([0], [0, 1]), ([0, 0], [0, 1]), ([0, 1], [1, 1]), ([0, 3], [1, 0])]:
        add_case(name, [make_input([2, 3, 4], "float32")], {"src": src, "dst": dst}, lambda t: fn(t, src, dst))
    add_case(name, [make_input([], "float32")], {"src": [0], "dst": [-1]}, lambda t: fn(t, [0], [-1]))
    add_case(name, [make_input([0, 2], "int64")], {"src": [0], "dst": [1]}, lambda t: fn(t, [0], [1]))
for d in ALL:
    add_case("movedim", [make_input([2, 3], d)], {"src": [1], "dst": [0]}, lambda t: torch.movedim(t, [1], [0]))

for name, fn in [("swapaxes", torch.swapaxes), ("swapdims", torch.swapdims)]:
    for x in layouts([2, 3, 4]):
        add_case(name, [x], {"a": 0, "b": -1}, lambda t: fn(t, 0, -1))
    add_case(name, [make_input([2, 3], "int32")], {"a": 1, "b": 1}, lambda t: fn(t, 1, 1))
    add_case(name, [make_input([], "float32")], {"a": 0, "b": -1}, lambda t: fn(t, 0, -1))
    add_case(name, [make_input([2, 3], "float32")], {"a": 0, "b": 2}, lambda t: fn(t, 0, 2))

for name, fn in [("fliplr", torch.fliplr), ("flipud", torch.flipud)]:
    for x in layouts([3, 4]):
        add_case(name, [x], {}, fn)
    for d in ALL:
        add_case(name, [make_input([2, 3, 2], d)], {}, fn)
    add_case(name, [make_input([0, 3], "float32")], {}, fn)
    add_case(name, [make_input([3], "float32")], {}, fn)
    add_case(name, [make_input([], "float32")], {}, fn)

# ---- linear algebra ----

for x in layouts([3, 4]):
    add_case("trace", [x], {}, torch.trace)
for d in ALL:
    add_case("trace", [make_input([3, 3], d)], {}, torch.trace)
for shape in [[0, 3], [3], [2, 3, 4], []]:
    add_case("trace", [make_input(shape, "float32")], {}, torch.trace)

for xa, xb in zip(layouts([2, 3]), layouts([3, 2], "float32")):
    add_case("kron", [xa, xb], {}, torch.kron)
for d in ALL:
    add_case("kron", [make_input([2, 2], d), make_input([3], d)], {}, torch.kron)
add_case("kron", [make_input([2, 2], "int32"), make_input([3], "float32")], {}, torch.kron)
add_case("kron", [make_input([], "float64"), make_input([3], "float64")], {}, torch.kron)
add_case("kron", [make_input([2, 1, 3], "float32"), make_input([2, 2], "float32")], {}, torch.kron)
add_case("kron", [make_input([0, 2], "float32"), make_input([2, 2], "float32")], {}, torch.kron)


def tensordot_case(a, b, da, db):
    add_case("tensordot", [a, b], {"dims_a": da, "dims_b": db}, lambda x, y: torch.tensordot(x, y, (da, db)))


def tensordot_n_case(a, b, n):
    add_case("tensordot_n", [a, b], {"n": n}, lambda x, y: torch.tensordot(x, y, n))


for xa in layouts([3, 4]):
    for xb in layouts([4, 3])[:2]:
        tensordot_case(xa, xb, [1], [0])
        tensordot_case(xa, xb, [0, 1], [1, 0])
for xa in layouts([2, 3, 4]):
    tensordot_case(xa, make_input([4, 3, 5], "float32"), [2, 1], [0, 1])
    tensordot_n_case(xa, make_input([3, 4, 2], "float32"), 2)
# No bfloat16 products: PyTorch 1.13's CPU bfloat16 gemm rounds as it
# accumulates, MindTorch's accumulates in float32 (a few ulps apart).
for d in ["float32", "float64", "int32", "int64", "float16", "bool"]:
    tensordot_case(make_input([3, 4], d), make_input([4, 2], d), [1], [0])
tensordot_case(make_input([3, 4], "float32"), make_input([1, 5], "float32"), [0], [0])
tensordot_case(make_input([1, 4], "float32"), make_input([3, 5], "float32"), [0], [0])
tensordot_case(make_input([0, 4], "float32"), make_input([0, 5], "float32"), [0], [0])
tensordot_case(make_input([3, 0], "float32"), make_input([4, 5], "float32"), [0], [1])
tensordot_n_case(make_input([3, 4], "float32"), make_input([2, 5], "float32"), 0)
tensordot_n_case(make_input([], "float32"), make_input([2], "float32"), 0)
tensordot_case(make_input([3, 4], "float32"), make_input([3, 4], "float32"), [0], [0, 1])
tensordot_case(make_input([3, 4], "float32"), make_input([3, 4], "float32"), [0], [1])
tensordot_case(make_input([3, 4], "float32"), make_input([3, 4], "float32"), [0, 0], [0, 0])
tensordot_case(make_input([3, 4], "float32"), make_input([3, 4], "float64"), [0], [0])
tensordot_case(make_input([3, 4], "float32"), make_input([3, 4], "float32"), [2], [0])
tensordot_n_case(make_input([3, 4], "float32"), make_input([3, 4], "float32"), -1)
tensordot_n_case(make_input([3, 4], "float32"), make_input([3, 4], "float32"), 3)


def einsum_case(eq, *xs):
    add_case("einsum", list(xs), {"equation": eq}, lambda *ts: torch.einsum(eq, *ts))


for xa in layouts([3, 4]):
    einsum_case("ij,jk->ik", xa, make_input([4, 2], "float32"))
    einsum_case("ij,kj", xa, make_input([2, 4], "float32", [["transpose", 0, 1]]))
    einsum_case("ij->ji", xa)
    einsum_case("ij->", xa)
    einsum_case("ij->j", xa)
    einsum_case("ij,ij->i", xa, make_input([3, 4], "float32"))
    einsum_case("i j , j -> i", xa, make_input([4], "float32"))
for xa in layouts([3, 3]):
    einsum_case("ii", xa)
    einsum_case("ii->i", xa)
for xa in layouts([2, 3, 4]):
    einsum_case("bij,bjk->bik", xa, make_input([2, 4, 5], "float32"))
    einsum_case("...ij,...jk", xa, make_input([4, 2], "float32"))
    einsum_case("b...->...b", xa)
    einsum_case("...j->...", xa)
    einsum_case("bij,jk,kl->bil", xa, make_input([4, 2], "float32"), make_input([2, 3], "float32"))
einsum_case("bii->bi", make_input([2, 3, 3], "float32"))
einsum_case("iji->j", make_input([3, 2, 3], "float64"))
einsum_case("iij,jk->ik", make_input([2, 2, 3], "float64"), make_input([3, 4], "float64"))
einsum_case("i,j->ij", make_input([3], "float32"), make_input([4], "float64"))
einsum_case("i,i->", make_input([5], "float64"), make_input([5], "float64"))
einsum_case("i,i", make_input([5], "float32"), make_input([5], "float32"))
einsum_case("Ba,aB", make_input([2, 3], "float32"), make_input([3, 2], "float32"))
einsum_case("aB,c", make_input([2, 3], "float32"), make_input([4], "float32"))
einsum_case("ij,j->i", make_input([3, 4], "float32"), make_input([1], "float32"))
einsum_case("ij,kj->ik", make_input([3, 4], "float32"), make_input([2, 1], "float32"))
einsum_case("...ij,...jk->...ik", make_input([2, 1, 3, 4], "float32"), make_input([5, 4, 2], "float32"))
einsum_case("...i,...i->...", make_input([2, 3], "float32"), make_input([3], "float32"))
einsum_case("ij,jk->", make_input([2, 3], "float32"), make_input([3, 4], "float32"))
einsum_case("ijk,ikj->k", make_input([2, 3, 4], "float64"), make_input([2, 4, 3], "float64"))
einsum_case("...", make_input([], "float32"))
einsum_case("", make_input([], "float32"))
einsum_case(",i->i", make_input([], "float32"), make_input([3], "float32"))
einsum_case("i,i", make_input([0], "float32"), make_input([0], "float32"))
einsum_case("ij,jk->ik", make_input([2, 0], "float32"), make_input([0, 3], "float32"))
einsum_case("ij,jk->ik", make_input([0, 2], "float32"), make_input([2, 3], "float32"))
for d in ["int32", "int64", "float16", "bfloat16", "bool", "uint8"]:
    if d != "bfloat16":  # see tensordot
        einsum_case("ij,jk->ik", make_input([3, 4], d), make_input([4, 2], d))
    einsum_case("ij->i", make_input([3, 4], d))
    einsum_case("ij->ji", make_input([3, 4], d))
einsum_case("ij,jk->ik", make_input([3, 4], "float32"), make_input([4, 2], "float64"))
einsum_case("ij,jk", make_input([3, 4], "float32"), make_input([3, 2], "float32"))
einsum_case("ij", make_input([3, 4], "float32"), make_input([3, 4], "float32"))
einsum_case("ij,jk", make_input([3, 4], "float32"))
einsum_case("i.j", make_input([3, 4], "float32"))
einsum_case("i......j", make_input([3, 4], "float32"))
einsum_case("i1", make_input([3, 4], "float32"))
einsum_case("ijk", make_input([3, 4], "float32"))
einsum_case("ijk...", make_input([3, 4], "float32"))
einsum_case("ii", make_input([3, 4], "float32"))
einsum_case("ij->k", make_input([3, 4], "float32"))
einsum_case("ij->ii", make_input([3, 4], "float32"))
einsum_case("ij->j.", make_input([3, 4], "float32"))
einsum_case("ij->......", make_input([3, 4], "float32"))
einsum_case("ij-->ji", make_input([3, 4], "float32"))
einsum_case("ij->ji->", make_input([3, 4], "float32"))
einsum_case("...ij,...jk->...ik", make_input([2, 3, 4], "float32"), make_input([5, 4, 2], "float32"))


def cross_case(a, b, dim):
    add_case("cross", [a, b], {"dim": dim}, lambda x, y: torch.linalg.cross(x, y, dim=dim))


for xa in layouts([4, 3]):
    cross_case(xa, make_input([4, 3], "float32"), -1)
for xa in layouts([3, 2]):
    cross_case(xa, make_input([3, 1], "float32"), 0)
for d in ALL:
    cross_case(make_input([2, 3], d), make_input([2, 3], d), 1)
cross_case(make_input([2, 3], "float32"), make_input([1, 3], "float32"), -1)
cross_case(make_input([2, 1, 3], "float64"), make_input([4, 3], "float64", [["expand", 2, 4, 3]]), 2)
cross_case(make_input([0, 3], "float32"), make_input([0, 3], "float32"), 1)
cross_case(make_input([2, 3], "float32"), make_input([3], "float32"), -1)
cross_case(make_input([2, 3], "float32"), make_input([2, 2], "float32"), -1)
cross_case(make_input([3, 2], "float32"), make_input([3, 4], "float32"), 0)
cross_case(make_input([3, 2], "float32"), make_input([3, 2], "float32"), 2)
cross_case(make_input([2, 3], "float32"), make_input([2, 3], "float64"), 1)
cross_case(make_input([], "float32"), make_input([], "float32"), -1)
for sa, sb in [([3, 3], [3, 3]), ([4, 3], [1, 3]), ([2, 3], [3]), ([2, 2], [2, 2]), ([3, 2], [1, 2]), ([2, 3, 3], [2, 3, 3])]:
    add_case("cross_default", [make_input(sa, "float32"), make_input(sb, "float32")], {}, torch.cross)


def addmv_case(i, m, v, beta, alpha):
    add_case("addmv", [i, m, v], {"beta": beta, "alpha": alpha},
             lambda x, y, z: torch.addmv(x, y, z, beta=beta, alpha=alpha))


for xm in layouts([3, 4]):
    addmv_case(make_input([3], "float32"), xm, make_input([4], "float32"), 1, 1)
    addmv_case(make_input([3], "float32"), xm, make_input([8], "float32", [["slice", 0, 0, 8, 2]]), 0.5, 2.0)
nan_in = torch.full((3,), float("nan"))
addmv_case(make_input([3], "float32", values=nan_in), make_input([3, 4], "float32"), make_input([4], "float32"), 0, 1)
addmv_case(make_input([3], "float64", values=nan_in), make_input([3, 4], "float64"), make_input([4], "float64"), 0.0, 1.5)
addmv_case(make_input([], "float32"), make_input([3, 4], "float32"), make_input([4], "float32"), 1, 1)
addmv_case(make_input([1], "float32"), make_input([3, 4], "float32"), make_input([4], "float32"), 2, -1)
addmv_case(make_input([1], "float32", [["expand", 3]]), make_input([3, 4], "float32"), make_input([4], "float32"), 1, 1)
addmv_case(make_input([3], "float32"), make_input([3, 0], "float32"), make_input([0], "float32"), 2, 1)
addmv_case(make_input([0], "float32"), make_input([0, 4], "float32"), make_input([4], "float32"), 1, 1)
for d in ["float64", "int32", "int64", "uint8", "float16", "bool"]:  # no bfloat16: see tensordot
    addmv_case(make_input([3], d), make_input([3, 4], d), make_input([4], d), 2 if d != "bool" else True, 3 if d != "bool" else True)
addmv_case(make_input([3], "int32"), make_input([3, 4], "int32"), make_input([4], "int32"), 2.5, 3)
addmv_case(make_input([3], "int32"), make_input([3, 4], "int32"), make_input([4], "int32"), 2, 0.5)
addmv_case(make_input([3], "float64"), make_input([3, 4], "float32"), make_input([4], "float32"), 1, 1)
addmv_case(make_input([3], "float32"), make_input([3, 4], "float32"), make_input([4], "float64"), 1, 1)
addmv_case(make_input([2], "float32"), make_input([3, 4], "float32"), make_input([4], "float32"), 1, 1)
addmv_case(make_input([3], "float32"), make_input([3, 4], "float32"), make_input([5], "float32"), 1, 1)
addmv_case(make_input([3], "float32"), make_input([3], "float32"), make_input([4], "float32"), 1, 1)
addmv_case(make_input([3, 1], "float32"), make_input([3, 4], "float32"), make_input([4], "float32"), 1, 1)


def addr_case(i, v1, v2, beta, alpha):
    add_case("addr", [i, v1, v2], {"beta": beta, "alpha": alpha},
             lambda x, y, z: torch.addr(x, y, z, beta=beta, alpha=alpha))


for xi in layouts([3, 4]):
    addr_case(xi, make_input([3], "float32"), make_input([4], "float32"), 1, 1)
    addr_case(xi, make_input([6], "float32", [["slice", 0, 0, 6, 2]]), make_input([4], "float32"), 0.5, 2.0)
nan_in = torch.full((3, 4), float("nan"))
addr_case(make_input([3, 4], "float32", values=nan_in), make_input([3], "float32"), make_input([4], "float32"), 0, 1)
addr_case(make_input([3, 4], "float64", values=nan_in), make_input([3], "float64"), make_input([4], "float64"), 0.0, 2)
addr_case(make_input([4], "float32"), make_input([3], "float32"), make_input([4], "float32"), 1, 1)
addr_case(make_input([], "float32"), make_input([3], "float32"), make_input([4], "float32"), 1, -1)
addr_case(make_input([3, 1], "float64"), make_input([3], "float64"), make_input([4], "float64"), -2, 1)
addr_case(make_input([0, 4], "float32"), make_input([0], "float32"), make_input([4], "float32"), 1, 1)
for d in ["float64", "int32", "int64", "uint8", "int8", "float16", "bfloat16"]:
    addr_case(make_input([3, 4], d), make_input([3], d), make_input([4], d), 2, 3)
for beta, alpha in [(True, True), (False, True), (True, False), (2, 1), (0, 1)]:
    addr_case(make_input([3, 4], "bool"), make_input([3], "bool"), make_input([4], "bool"), beta, alpha)
addr_case(make_input([3, 4], "int32"), make_input([3], "float32"), make_input([4], "float32"), 1, 1)
addr_case(make_input([3, 4], "float32"), make_input([3], "float64"), make_input([4], "float32"), 1, 1)
addr_case(make_input([3, 4], "int32"), make_input([3], "int32"), make_input([4], "int32"), 2.5, 1)
addr_case(make_input([3, 4], "int32"), make_input([3], "int32"), make_input([4], "int32"), 2, 0.5)
addr_case(make_input([3, 4], "bool"), make_input([3], "bool"), make_input([4], "bool"), 1, 0.5)
addr_case(make_input([3, 5], "float32"), make_input([3], "float32"), make_input([4], "float32"), 1, 1)
addr_case(make_input([3, 4], "float32"), make_input([3, 1], "float32"), make_input([4], "float32"), 1, 1)
addr_case(make_input([3, 4], "float32"), make_input([3], "float32"), make_input([4, 1], "float32"), 1, 1)


def vector_norm_case(x, ord, dims, keepdim):
    add_case("vector_norm", [x], {"ord": enc(float(ord)), "dims": dims, "keepdim": keepdim},
             lambda t: torch.linalg.vector_norm(t, ord, dims, keepdim))


for x in layouts([3, 4]):
    for ord in [2, 1, 0, 3, 0.5, -1, -0.5, float("inf"), float("-inf")]:
        vector_norm_case(x, ord, None, False)
        vector_norm_case(x, ord, [1], True)
    vector_norm_case(x, 2, [0, 1], False)
    vector_norm_case(x, 2, [-1, 0], True)
for d in FLOATS:
    vector_norm_case(make_input([3, 4], d), 2, [1], False)
    vector_norm_case(make_input([3, 4], d), 3, None, False)
vector_norm_case(make_input([2, 3, 4], "float64"), 2, [0, 2], False)
vector_norm_case(make_input([3, 4], "float32", values=torch.tensor([0.0, 1, 0, -2] * 3)), 0, [1], False)
vector_norm_case(make_input([3, 4], "float32", values=torch.zeros(12)), 2, [1], False)
vector_norm_case(make_input([], "float32"), 2, None, False)
vector_norm_case(make_input([], "float32"), 3, [0], True)
vector_norm_case(make_input([0, 3], "float32"), 2, None, False)
vector_norm_case(make_input([0, 3], "float32"), 0, None, False)
vector_norm_case(make_input([0, 3], "float32"), float("inf"), [1], False)
vector_norm_case(make_input([0, 3], "float32"), float("inf"), None, False)
vector_norm_case(make_input([0, 3], "float32"), float("-inf"), None, False)
vector_norm_case(make_input([0, 3], "float32"), -1, None, False)
vector_norm_case(make_input([0, 3], "float32"), float("inf"), [0], False)
vector_norm_case(make_input([0, 3], "float32"), -1, [0], False)
vector_norm_case(make_input([3, 4], "int64"), 2, None, False)
vector_norm_case(make_input([3, 4], "bool"), 2, None, False)
vector_norm_case(make_input([3, 4], "float32"), 2, [0, 0], False)
vector_norm_case(make_input([3, 4], "float32"), 2, [2], False)


def matrix_norm_case(x, ord, dims, keepdim):
    o = enc(float(ord)) if not isinstance(ord, str) else ord
    add_case("matrix_norm", [x], {"ord": o, "dims": dims, "keepdim": keepdim},
             lambda t: torch.linalg.matrix_norm(t, ord, dims, keepdim))


for x in layouts([3, 4]):
    for ord in ["fro", 1, -1, float("inf"), float("-inf")]:
        matrix_norm_case(x, ord, [-2, -1], False)
        matrix_norm_case(x, ord, [1, 0], True)
for x in layouts([2, 3, 4]):
    for ord in ["fro", 1, float("-inf")]:
        matrix_norm_case(x, ord, [0, 2], False)
        matrix_norm_case(x, ord, [2, 0], True)
for d in FLOATS:
    for ord in ["fro", 1, float("inf")]:
        matrix_norm_case(make_input([3, 4], d), ord, [-2, -1], False)
for ord in ["fro", 1, -1, float("inf"), float("-inf")]:
    matrix_norm_case(make_input([0, 3], "float32"), ord, [-2, -1], False)
    matrix_norm_case(make_input([3, 0], "float32"), ord, [-2, -1], True)
matrix_norm_case(make_input([3, 4], "int64"), "fro", [-2, -1], False)
matrix_norm_case(make_input([3], "float32"), "fro", [-2, -1], False)
matrix_norm_case(make_input([3, 4], "float32"), "fro", [0, 0], False)
matrix_norm_case(make_input([3, 4], "float32"), "fro", [-2, 2], False)
matrix_norm_case(make_input([3, 4], "float32"), 3, [-2, -1], False)
matrix_norm_case(make_input([3, 4], "float32"), "abc", [-2, -1], False)
matrix_norm_case(make_input([3, 4], "float32"), 0.5, [-2, -1], False)

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {os.path.relpath(OUT)}")
