"""Golden data for the data-movement and indexing ops of pkg/torch
data_more.go (data_golden_test.go): take, masked_scatter, index_fill,
index_copy, searchsorted's options, bucketize, unique_consecutive, unique
with dim and sorted=False, nonzero(as_tuple=True), where with one argument
and with scalars, masked_fill with a tensor value, repeat_interleave with
tensor repeats, and indexing with slices, None, ellipsis, ints, bools and
index tensors (reading and writing), on contiguous, transposed,
sliced-with-step, expanded, empty and 0-dim inputs, with PyTorch's errors.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/data.json in the format of ops.py.
"""
import json
import math
import os

import torch
from goldenio import enc

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "data.json")
torch.manual_seed(0)

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
ALL = ["bool"] + INTS + FLOATS
HALF = (torch.float16, torch.bfloat16)


def enc_tensor(t):
    vals = (t.float() if t.dtype in HALF else t).reshape(-1).tolist()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": [enc(v) for v in vals]}


def values_for(n, dtype):
    if dtype == "bool":
        return torch.rand(n) > 0.5
    if dtype in INTS:
        return torch.randint(0 if dtype == "uint8" else -9, 10, (n,))
    return torch.randn(n) * 3


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


def inp(shape, dtype, views=(), values=None):
    """An input: a base tensor of shape and dtype, then views of it."""
    if values is None:
        values = values_for(math.prod(shape), dtype)
    base = torch.as_tensor(values).to(getattr(torch, dtype)).reshape(shape)
    t = base
    for v in views:
        t = apply_view(t, v)
    data = (base.float() if dtype in ("float16", "bfloat16") else base).reshape(-1).tolist()
    return t, {"shape": list(shape), "dtype": dtype, "views": [list(v) for v in views], "data": [enc(x) for x in data]}


def long(*v):
    return inp([len(v)], "int64", values=torch.tensor(v, dtype=torch.int64))


# The layouts of a [3, 4] operand.
LAYOUTS = [([3, 4], []), ([4, 3], [["transpose", 0, 1]]), ([3, 8], [["slice", 1, 0, 8, 2]]), ([3, 1], [["expand", 3, 4]])]

cases = []


def add(op, inputs, args, fn):
    ts = [t for t, _ in inputs]
    case = {"op": op, "inputs": [s for _, s in inputs], "args": args}
    try:
        out = fn(*ts)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        msg = str(e).splitlines()[0]
        half = [t.dtype for t in ts if t.dtype in HALF]
        if not (half and "not implemented for" in msg):
            case["error"] = msg
            cases.append(case)
            return
        # 1.13's CPU lacks this op in 16-bit floats; MindTorch has it, and
        # its values are those of float32 rounded back.
        out = fn(*[t.float() if t.dtype in HALF else t for t in ts])
        out = [o.to(half[0]) if o.is_floating_point() else o for o in (out if isinstance(out, (tuple, list)) else [out])]
        case["ref"] = "float32"
    if not isinstance(out, (tuple, list)):
        out = [out]
    case["outs"] = [enc_tensor(o) for o in out]
    cases.append(case)


# ---- take ----
for d in ALL:
    add("take", [inp([3, 4], d), inp([2, 3], "int64", values=torch.tensor([0, -1, 5, 11, -12, 3]))], {},
        torch.take)
for shape, views in LAYOUTS:
    add("take", [inp(shape, "float32", views), inp([3], "int64", values=torch.tensor([1, 6, -2]))], {}, torch.take)
add("take", [inp([], "float64", values=torch.tensor(2.5)), inp([], "int64", values=torch.tensor(0))], {}, torch.take)
add("take", [inp([0, 3], "float32"), long()], {}, torch.take)
add("take", [inp([0, 3], "float32"), long(0)], {}, torch.take)
add("take", [inp([3, 4], "float32"), long(12)], {}, torch.take)
add("take", [inp([3, 4], "float32"), long(-13)], {}, torch.take)
add("take", [inp([3, 4], "float32"), inp([1], "int32", values=torch.tensor([1]))], {}, torch.take)

# ---- masked_scatter ----
MASK4 = torch.tensor([True, False, True, True])
for d in ALL:
    add("masked_scatter", [inp([3, 4], d), inp([4], "bool", values=MASK4), inp([4, 4], d)], {},
        lambda x, m, s: x.masked_scatter(m, s))
for shape, views in LAYOUTS:
    add("masked_scatter", [inp(shape, "float32", views), inp([3, 4], "bool"), inp([2, 6], "float32")], {},
        lambda x, m, s: x.masked_scatter(m, s))
    add("masked_scatter_", [inp([3, 4], "float32"), inp([4], "bool", values=MASK4), inp(shape, "float32", views)], {},
        lambda x, m, s: x.clone().masked_scatter_(m, s))
add("masked_scatter", [inp([4], "float32"), inp([2, 1], "bool", values=torch.tensor([[True], [False]])),
                       inp([6], "float32")], {}, lambda x, m, s: x.masked_scatter(m, s))
add("masked_scatter", [inp([], "float32", values=torch.tensor(1.0)), inp([], "bool", values=torch.tensor(True)),
                       inp([2], "float32")], {}, lambda x, m, s: x.masked_scatter(m, s))
add("masked_scatter", [inp([0, 4], "float32"), inp([4], "bool", values=MASK4), inp([0], "float32")], {},
    lambda x, m, s: x.masked_scatter(m, s))
add("masked_scatter", [inp([3, 4], "float32"), inp([4], "bool", values=MASK4), inp([3], "float32")], {},
    lambda x, m, s: x.masked_scatter(m, s))
add("masked_scatter", [inp([3, 4], "float32"), inp([4], "bool", values=MASK4), inp([12], "float64")], {},
    lambda x, m, s: x.masked_scatter(m, s))
add("masked_scatter", [inp([3, 4], "float32"), inp([2], "bool"), inp([12], "float32")], {},
    lambda x, m, s: x.masked_scatter(m, s))
add("masked_scatter_", [inp([4], "float32"), inp([2, 1], "bool"), inp([12], "float32")], {},
    lambda x, m, s: x.clone().masked_scatter_(m, s))

# ---- index_fill: the value is args["value"], or a 0-dim tensor input. The ops
# are named "Tensor.index_*": the suite reads ops named "index*" with a bool
# input as masked indexing, whose shape the meta device cannot know.
for d in ALL:
    v = True if d == "bool" else (2 if d in INTS else -1.5)
    add("Tensor.index_fill", [inp([3, 4], d), long(0, -1)], {"dim": 1, "value": v}, lambda x, i: x.index_fill(1, i, v))
for shape, views in LAYOUTS:
    add("Tensor.index_fill", [inp(shape, "float32", views), long(2)], {"dim": 0, "value": 7.0},
        lambda x, i: x.index_fill(0, i, 7.0))
    add("Tensor.index_fill_", [inp(shape, "float32", views[:2] if views and views[0][0] == "transpose" else views), long(1, 1)],
        {"dim": -1, "value": 0.5}, lambda x, i: x.clone().index_fill_(-1, i, 0.5))
add("Tensor.index_fill", [inp([3, 4], "int64"), long(1)], {"dim": 1, "value": 2.5}, lambda x, i: x.index_fill(1, i, 2.5))
add("Tensor.index_fill", [inp([], "float32", values=torch.tensor(3.0)), long(0)], {"dim": 0, "value": 1.0},
    lambda x, i: x.index_fill(0, i, 1.0))
add("Tensor.index_fill", [inp([3, 4], "float32"), inp([], "int64", values=torch.tensor(1))], {"dim": 0, "value": 1.0},
    lambda x, i: x.index_fill(0, i, 1.0))
add("Tensor.index_fill", [inp([0, 4], "float32"), long(3)], {"dim": 1, "value": 1.0}, lambda x, i: x.index_fill(1, i, 1.0))
add("Tensor.index_fill", [inp([3, 4], "float32"), long()], {"dim": 1, "value": 1.0}, lambda x, i: x.index_fill(1, i, 1.0))
for bad in [long(4), long(-5)]:
    add("Tensor.index_fill", [inp([3, 4], "float32"), bad], {"dim": 1, "value": 1.0}, lambda x, i: x.index_fill(1, i, 1.0))
add("Tensor.index_fill", [inp([3, 4], "float32"), inp([1], "int32", values=torch.tensor([0]))], {"dim": 1, "value": 1.0},
    lambda x, i: x.index_fill(1, i, 1.0))
add("Tensor.index_fill", [inp([3, 4], "float32"), inp([1, 1], "int64", values=torch.tensor([[0]]))], {"dim": 1, "value": 1.0},
    lambda x, i: x.index_fill(1, i, 1.0))
add("Tensor.index_fill", [inp([3, 4], "float32"), long(1)], {"dim": 2, "value": 1.0}, lambda x, i: x.index_fill(2, i, 1.0))
for vd in ["float32", "float64"]:
    add("Tensor.index_fill_tensor", [inp([3, 4], "float32"), long(0, 2), inp([], vd, values=torch.tensor(2.5))], {"dim": 1},
        lambda x, i, v: x.index_fill(1, i, v))
add("Tensor.index_fill_tensor", [inp([3, 4], "int32"), long(1), inp([], "float32", values=torch.tensor(2.5))], {"dim": 0},
    lambda x, i, v: x.index_fill(0, i, v))
add("Tensor.index_fill_tensor", [inp([3, 4], "float32"), long(1), inp([1], "float32")], {"dim": 0},
    lambda x, i, v: x.index_fill(0, i, v))

# ---- index_copy ----
for d in ALL:
    add("Tensor.index_copy", [inp([3, 4], d), long(3, 0), inp([3, 2], d)], {"dim": 1}, lambda x, i, s: x.index_copy(1, i, s))
for shape, views in LAYOUTS:
    add("Tensor.index_copy", [inp(shape, "float32", views), long(2, 0), inp([2, 4], "float32")], {"dim": 0},
        lambda x, i, s: x.index_copy(0, i, s))
    add("Tensor.index_copy_", [inp([3, 4], "float32"), long(1, 0, 2), inp(shape, "float32", views)], {"dim": 0},
        lambda x, i, s: x.clone().index_copy_(0, i, s))
add("Tensor.index_copy", [inp([], "float32", values=torch.tensor(3.0)), long(0), inp([], "float32", values=torch.tensor(5.0))],
    {"dim": 0}, lambda x, i, s: x.index_copy(0, i, s))
add("Tensor.index_copy", [inp([3, 4], "float32"), inp([], "int64", values=torch.tensor(1)), inp([1, 4], "float32")], {"dim": 0},
    lambda x, i, s: x.index_copy(0, i, s))
add("Tensor.index_copy", [inp([4], "float32"), long(2), inp([], "float32", values=torch.tensor(5.0))], {"dim": 0},
    lambda x, i, s: x.index_copy(0, i, s))
add("Tensor.index_copy", [inp([0, 4], "float32"), long(), inp([0, 0], "float32")], {"dim": 1},
    lambda x, i, s: x.index_copy(1, i, s))
for i, s in [(long(-1), [3, 1]), (long(4), [3, 1]), (long(0, 1), [3, 1]), (long(0), [2, 1]), (long(0), [3]),
             (inp([1, 1], "int64", values=torch.tensor([[0]])), [3, 1]), (inp([1], "int32", values=torch.tensor([0])), [3, 1])]:
    add("Tensor.index_copy", [inp([3, 4], "float32"), i, inp(s, "float32")], {"dim": 1}, lambda x, i, s: x.index_copy(1, i, s))
add("Tensor.index_copy", [inp([3, 4], "float32"), long(0), inp([3, 1], "float64")], {"dim": 1},
    lambda x, i, s: x.index_copy(1, i, s))

# ---- searchsorted with options, bucketize ----
SEQ = torch.tensor([1.0, 3, 3, 5, 7])
VALS = torch.tensor([3.0, 0, 9, 5, 6, 1])


def ss_case(seq, vals, right=False, side=None, out_int32=False, sorter=None):
    ins = [seq, vals] + ([sorter] if sorter is not None else [])
    add("searchsorted_opts", ins, {"right": right, "side": side, "out_int32": out_int32, "sorter": sorter is not None},
        lambda s, v, *so: torch.searchsorted(s, v, right=right, side=side, out_int32=out_int32,
                                             sorter=so[0] if so else None))


for d in ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "float16", "bfloat16"]:
    ss_case(inp([5], d, values=SEQ), inp([2, 3], d, values=VALS))
for right, side in [(False, "right"), (True, "right"), (True, None), (False, "left"), (True, "left"), (False, "middle")]:
    ss_case(inp([5], "float32", values=SEQ), inp([2, 3], "float32", values=VALS), right, side)
ss_case(inp([5], "float32", values=SEQ), inp([2, 3], "float32", values=VALS), out_int32=True)
ss_case(inp([5], "float32", values=SEQ), inp([2, 3], "float64", values=VALS))
ss_case(inp([5], "int64", values=SEQ), inp([2, 3], "float32", values=VALS + 0.5))
ss_case(inp([5], "float32", values=SEQ), inp([], "float32", values=torch.tensor(4.0)))
ss_case(inp([0], "float32"), inp([3], "float32"))
ss_case(inp([5], "float32", values=SEQ), inp([0], "float32"))
ss_case(inp([5], "bool"), inp([2], "bool"))
ss_case(inp([2, 3], "float32", [["transpose", 0, 1]], values=torch.tensor([1.0, 4, 2, 5, 3, 6])),
        inp([3, 2], "float32", values=torch.tensor([2.0, 5, 3, 3, 0, 9])), right=True)
ss_case(inp([2, 2], "float32"), inp([2], "float32"))
US = torch.tensor([5.0, 1, 3, 7, 3])
ss_case(inp([5], "float32", values=US), inp([2, 3], "float32", values=VALS), sorter=long(1, 2, 4, 0, 3))
ss_case(inp([5], "float32", values=US), inp([2, 3], "float32", values=VALS), side="right", sorter=long(1, 4, 2, 0, 3))
ss_case(inp([5], "float32", values=US), inp([3], "float32"), sorter=inp([5], "int32", values=torch.tensor([1, 2, 4, 0, 3])))
ss_case(inp([5], "float32", values=US), inp([3], "float32"), sorter=long(1, 2, 4, 0))
for v, right in [(3, False), (3.5, True), (-1, False), (9.0, True)]:
    for d in ["float32", "int64"]:
        add("searchsorted_scalar", [inp([5], d, values=SEQ)], {"value": v, "right": right},
            lambda s: torch.searchsorted(s, v, right=right))
add("searchsorted_scalar", [inp([1, 5], "float32", values=SEQ)], {"value": 3, "right": False},
    lambda s: torch.searchsorted(s, 3))
for right, i32 in [(False, False), (True, True)]:
    for d in ["float32", "int64", "float64"]:
        add("bucketize", [inp([2, 3], d, values=VALS), inp([5], d, values=SEQ)], {"right": right, "out_int32": i32},
            lambda v, b: torch.bucketize(v, b, right=right, out_int32=i32))
add("bucketize", [inp([], "float32", values=torch.tensor(3.0)), inp([5], "float32", values=SEQ)],
    {"right": False, "out_int32": False}, lambda v, b: torch.bucketize(v, b))
add("bucketize", [inp([3], "float32"), inp([1, 5], "float32", values=SEQ)], {"right": False, "out_int32": False},
    lambda v, b: torch.bucketize(v, b))
add("bucketize", [inp([3], "float32"), inp([], "float32", values=torch.tensor(1.0))], {"right": False, "out_int32": False},
    lambda v, b: torch.bucketize(v, b))
for v in [3, 5.5]:
    add("bucketize_scalar", [inp([5], "float32", values=SEQ)], {"value": v, "right": True, "out_int32": False},
        lambda b: torch.bucketize(v, b, right=True))

# ---- unique_consecutive, unique(dim), unique(sorted=False) ----
RUN = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2, 0, 0, 0, 5])


def uc(x, dim):
    return torch.unique_consecutive(x, return_inverse=True, return_counts=True, dim=dim)


for d in ALL:
    add("unique_consecutive", [inp([3, 4], d, values=RUN % 2 if d == "bool" else RUN)], {"dim": None},
        lambda x: uc(x, None))
for shape, views in LAYOUTS:
    add("unique_consecutive", [inp(shape, "float32", views, values=torch.randint(0, 2, (math.prod(shape),)))],
        {"dim": None}, lambda x: uc(x, None))
add("unique_consecutive", [inp([5], "float32", values=torch.tensor([1.0, float("nan"), float("nan"), 2, 2]))],
    {"dim": None}, lambda x: uc(x, None))
add("unique_consecutive", [inp([], "float32", values=torch.tensor(3.0))], {"dim": None}, lambda x: uc(x, None))
add("unique_consecutive", [inp([0, 3], "float32")], {"dim": None}, lambda x: uc(x, None))
ROWS = torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2], [3, 4], [0, 9]])
for d in ["int64", "float32", "bool", "uint8", "float16"]:
    for dim in [0, 1, -1]:
        add("unique_consecutive", [inp([6, 2], d, values=ROWS % 2 if d == "bool" else ROWS)], {"dim": dim},
            lambda x: uc(x, dim))
        add("unique_dim", [inp([6, 2], d, values=ROWS % 2 if d == "bool" else ROWS)], {"dim": dim},
            lambda x: torch.unique(x, return_inverse=True, return_counts=True, dim=dim))
for dim in [0, 1, 2]:
    x3 = torch.tensor([[[1, 2], [1, 2]], [[0, 5], [1, 2]], [[1, 2], [1, 2]]])
    add("unique_dim", [inp([3, 2, 2], "int32", values=x3)], {"dim": dim},
        lambda x: torch.unique(x, return_inverse=True, return_counts=True, dim=dim))
for shape, views in LAYOUTS:
    add("unique_dim", [inp(shape, "float64", views, values=torch.randint(0, 2, (math.prod(shape),)))], {"dim": 0},
        lambda x: torch.unique(x, return_inverse=True, return_counts=True, dim=0))
    add("unique_consecutive", [inp(shape, "float64", views, values=torch.randint(0, 2, (math.prod(shape),)))],
        {"dim": 1}, lambda x: uc(x, 1))
for shape, dim in [([0, 3], 0), ([0, 3], 1), ([2, 0], 0), ([], 0), ([2, 3], 2)]:
    add("unique_dim", [inp(shape, "float32")], {"dim": dim},
        lambda x: torch.unique(x, return_inverse=True, return_counts=True, dim=dim))
    add("unique_consecutive", [inp(shape, "float32")], {"dim": dim}, lambda x: uc(x, dim))
# unique(sorted=False): PyTorch 2.x's CPU unique sorts whatever sorted says;
# 1.13 returned its hash set's order, so the reference is sorted=True.
for d in ["int64", "float32", "bool", "int8", "float16"]:
    vals = torch.tensor([3, 1, 3, 2, 1, 7, 7, 0, 3, 1, 2, 2])
    add("unique_unsorted", [inp([3, 4], d, values=vals % 2 if d == "bool" else vals)], {},
        lambda x: torch.unique(x, sorted=True, return_inverse=True, return_counts=True))

# ---- nonzero(as_tuple=True), where(cond) ----
for d in ALL:
    add("nonzero_tuple", [inp([3, 4], d)], {}, lambda x: torch.nonzero(x, as_tuple=True))
for shape, views in LAYOUTS:
    add("nonzero_tuple", [inp(shape, "int32", views)], {}, lambda x: torch.nonzero(x, as_tuple=True))
for v in [2.0, 0.0]:
    add("nonzero_tuple", [inp([], "float32", values=torch.tensor(v))], {}, lambda x: torch.nonzero(x, as_tuple=True))
add("nonzero_tuple", [inp([0, 3], "float32")], {}, lambda x: torch.nonzero(x, as_tuple=True))
add("nonzero_tuple", [inp([2, 3, 2], "bool")], {}, lambda x: torch.nonzero(x, as_tuple=True))
add("where_cond", [inp([3, 4], "bool")], {}, torch.where)
add("where_cond", [inp([4, 3], "float32", [["transpose", 0, 1]])], {}, torch.where)

# ---- where with scalars: args a and b are a number/bool, or {"input": k} ----
def where_case(ins, a, b):
    def arg(v):
        return {"input": v[1]} if isinstance(v, tuple) else v

    def val(v, ts):
        return ts[v[1]] if isinstance(v, tuple) else v
    add("where_scalar", ins, {"a": arg(a), "b": arg(b)}, lambda *ts: torch.where(ts[0], val(a, ts), val(b, ts)))


COND = torch.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
for d in ALL:
    where_case([inp([3, 4], "bool", values=COND), inp([3, 4], d)], ("t", 1), 2.5)
    where_case([inp([3, 4], "bool", values=COND), inp([3, 4], d)], 2, ("t", 1))
    where_case([inp([3, 4], "bool", values=COND), inp([3, 4], d)], ("t", 1), True)
for a, b in [(2, 3), (2.5, 3), (True, False), (True, 2), (-1.5, 0.5)]:
    where_case([inp([3, 4], "bool", values=COND)], a, b)
for shape, views in LAYOUTS:
    where_case([inp([3, 4], "bool", values=COND), inp(shape, "float32", views)], ("t", 1), -1)
where_case([inp([4], "bool", values=MASK4), inp([3, 1], "int64")], ("t", 1), 0.5)
where_case([inp([3, 4], "bool", values=COND), inp([], "float64", values=torch.tensor(1.0))], ("t", 1), 3)
where_case([inp([3, 4], "bool", values=COND), inp([], "int8", values=torch.tensor(1))], ("t", 1), 300)
where_case([inp([3, 4], "bool", values=COND), inp([], "int8", values=torch.tensor(1))], ("t", 1), 3)
where_case([inp([3, 4], "int64")], 1.0, 0.0)
where_case([inp([], "bool", values=torch.tensor(True))], 1.0, 0)
where_case([inp([0, 4], "bool")], 1.0, 0)

# ---- masked_fill with a 0-dim tensor value ----
for d in ALL:
    vd = "bool" if d == "bool" else "float32"
    add("masked_fill_tensor", [inp([3, 4], d), inp([4], "bool", values=MASK4), inp([], vd, values=torch.tensor(1))], {},
        lambda x, m, v: x.masked_fill(m, v))
for shape, views in LAYOUTS:
    add("masked_fill_tensor", [inp(shape, "float32", views), inp([3, 4], "bool"), inp([], "float64", values=torch.tensor(-2.5))],
        {}, lambda x, m, v: x.masked_fill(m, v))
add("masked_fill_tensor", [inp([3], "float32"), inp([2, 1], "bool", values=torch.tensor([[True], [False]])),
                           inp([], "float32", values=torch.tensor(1.0))], {}, lambda x, m, v: x.masked_fill(m, v))
add("masked_fill_tensor", [inp([3], "int64"), inp([3], "bool"), inp([], "float32", values=torch.tensor(2.5))], {},
    lambda x, m, v: x.masked_fill(m, v))
add("masked_fill_tensor", [inp([3, 4], "float32"), inp([4], "bool"), inp([1], "float32")], {},
    lambda x, m, v: x.masked_fill(m, v))
add("masked_fill_tensor", [inp([], "float32", values=torch.tensor(1.0)), inp([], "bool", values=torch.tensor(True)),
                           inp([], "float32", values=torch.tensor(4.0))], {}, lambda x, m, v: x.masked_fill(m, v))

# ---- repeat_interleave ----
for d in ["float32", "int64", "bool", "float16"]:
    add("repeat_interleave_tensor", [inp([2, 3], d), long(1, 0, 2)], {"dim": 1}, lambda x, r: x.repeat_interleave(r, dim=1))
for shape, views in LAYOUTS:
    add("repeat_interleave_tensor", [inp(shape, "float32", views), long(2, 0, 1)], {"dim": 0},
        lambda x, r: x.repeat_interleave(r, dim=0))
for r, dim in [(long(2), 1), (inp([], "int64", values=torch.tensor(2)), 0), (long(1, 0, 2, 1, 1, 1), None),
               (long(1, 0, 2), None), (long(1, 0), 1), (long(1, -1, 2), 1), (inp([1, 3], "int64"), 1),
               (inp([3], "float32"), 1), (long(1), 2), (long(3), None)]:
    add("repeat_interleave_tensor", [inp([2, 3], "float32"), r], {"dim": dim}, lambda x, r: x.repeat_interleave(r, dim=dim))
add("repeat_interleave_tensor", [inp([], "float32", values=torch.tensor(5.0)), long(3)], {"dim": None},
    lambda x, r: x.repeat_interleave(r))
add("repeat_interleave_tensor", [inp([0, 3], "float32"), long()], {"dim": 0}, lambda x, r: x.repeat_interleave(r, dim=0))
for n in [2, 0]:
    add("repeat_interleave_flat", [inp([2, 3], "float32")], {"repeats": n}, lambda x: x.repeat_interleave(n))
add("repeat_interleave_flat", [inp([2, 3], "float32")], {"repeats": -1}, lambda x: x.repeat_interleave(-1))
for r in [long(1, 0, 3), long(), inp([], "int64", values=torch.tensor(3)), inp([1, 1], "int64"), long(-1),
          inp([1], "float32"), inp([2], "int32", values=torch.tensor([2, 1]))]:
    add("repeat_interleave_index", [r], {}, torch.repeat_interleave)

# ---- indexing: args["spec"] is the index, one entry per item:
# ["int", n], ["slice", start, stop, step] (null: absent), ["none"],
# ["ellipsis"], ["bool", b], ["tensor", k] (inputs[k]).


def py_index(spec, ts):
    out = []
    for e in spec:
        kind = e[0]
        if kind == "int":
            out.append(e[1])
        elif kind == "slice":
            out.append(slice(e[1], e[2], e[3]))
        elif kind == "none":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        elif kind == "bool":
            out.append(e[1])
        else:
            out.append(ts[e[1]])
    return tuple(out)


def at_case(x, spec, idx=(), op="at"):
    add(op, [x] + list(idx), {"spec": spec}, lambda x, *ts: x[py_index(spec, (x,) + ts)])


def set_case(x, spec, idx, value, accumulate=None):
    """value: a Python scalar, or an input (the last one)."""
    ins = [x] + list(idx) + ([value[1]] if isinstance(value, tuple) else [])
    args = {"spec": spec}
    if not isinstance(value, tuple):
        args["value"] = value

    def fn(x, *ts):
        y = x.clone()
        ix = py_index(spec, (x,) + ts)
        v = ts[-1] if isinstance(value, tuple) else value
        if accumulate is None:
            y[ix] = v
        else:
            # aten's index_put_ takes None for a full slice.
            torch.ops.aten.index_put_(y, [i if isinstance(i, torch.Tensor) else None for i in ix], v, accumulate)
        return y
    if accumulate is not None:
        args["accumulate"] = accumulate
    add("set_at" if accumulate is None else "put_at", ins, args, fn)


S = ["slice", None, None, None]
X = [6, 3, 4]
IDX2 = torch.tensor([0, 2])
for d in ALL:
    at_case(inp([3, 4], d), [S, ["tensor", 1]], [long(3, -1, 0)])
for shape, views in LAYOUTS:
    at_case(inp(shape, "float32", views), [S, ["tensor", 1]], [inp([2, 2], "int64", values=torch.tensor([[0, 1], [3, -4]]))])
    at_case(inp(shape, "float32", views), [["tensor", 1], ["slice", 1, None, 2]], [long(2, 0)])
    at_case(inp(shape, "float32", views), [["ellipsis"], ["tensor", 1]], [long(1)])
at_case(inp(X, "int64"), [["tensor", 1], S, ["int", 1]], [long(0, 2)])
at_case(inp(X, "int64"), [S, ["tensor", 1], ["int", -1]], [long(0, 2)])
at_case(inp([6, 3, 4, 5], "float32"), [S, ["tensor", 1], S, ["int", 1]], [long(0, 2)])
at_case(inp([6, 3, 4, 5], "float32"), [S, ["tensor", 1], S, ["tensor", 2]], [long(0, 2), inp([], "int64", values=torch.tensor(1))])
at_case(inp(X, "float32"), [["none"], ["tensor", 1], ["slice", 1, 3, None]], [long(0, 2)])
at_case(inp([6, 3, 4, 5], "float32"), [["tensor", 1], ["ellipsis"], ["tensor", 2]], [long(0, 2), long(1, 4)])
at_case(inp([6, 3, 4, 5], "float32"), [["tensor", 1], S, ["tensor", 2]], [long(0, 2), long(1, 3)])
at_case(inp([6, 3, 4, 5], "float32"), [["tensor", 1], ["none"], ["tensor", 2]], [long(0, 2), long(1, 3)])
at_case(inp([6, 3, 4, 5], "float32"), [S, ["tensor", 1], ["tensor", 2], ["none"]], [long(0, 2), long(1, 3)])
at_case(inp(X, "float32"), [["tensor", 1], S, ["tensor", 2]],
        [inp([2, 1], "int64", values=torch.tensor([[0], [5]])), long(1, 2, 3)])
at_case(inp(X, "float32"), [S, ["tensor", 1], ["bool", True]], [long(0, 2)])
at_case(inp([6, 3, 4, 5], "float32"), [["tensor", 1], S, ["bool", True]], [long(0, 2)])
at_case(inp([6, 3, 4, 5], "float32"), [S, ["tensor", 1], ["bool", True], ["int", 1]], [long(0, 2)])
at_case(inp(X, "float32"), [["bool", False]])
at_case(inp(X, "float32"), [["int", 1], ["slice", -3, None, 2], ["none"], ["int", -1]])
at_case(inp(X, "float32"), [["ellipsis"], ["ellipsis"]])
at_case(inp(X, "float32"), [S, ["tensor", 1]], [inp([], "int64", values=torch.tensor(-1))])
at_case(inp(X, "float32"), [["tensor", 1], S], [inp([], "bool", values=torch.tensor(True))], op="at_mask")
at_case(inp(X, "float32"), [["tensor", 1]], [inp([], "bool", values=torch.tensor(False))], op="at_mask")
at_case(inp([], "float32", values=torch.tensor(1.0)), [["none"]])
at_case(inp([], "float32", values=torch.tensor(1.0)), [["ellipsis"]])
at_case(inp([], "float32", values=torch.tensor(1.0)), [["int", 0]])
at_case(inp(X, "float32"), [S, ["tensor", 1]], [long()])
at_case(inp([0, 3], "float32"), [S, ["tensor", 1]], [long(1)])
# errors
at_case(inp(X, "float32"), [["int", 0], ["int", 0], ["int", 0], ["int", 0]])
at_case(inp(X, "float32"), [["int", 6]])
at_case(inp(X, "float32"), [["int", -7]])
at_case(inp(X, "float32"), [S, ["tensor", 1]], [long(3)])
at_case(inp(X, "float32"), [S, ["tensor", 1]], [long(-4)])
at_case(inp([0, 3], "float32"), [["tensor", 1]], [long(0)])
at_case(inp(X, "float32"), [["tensor", 1], S, ["tensor", 2]], [long(0, 1), long(0, 1, 2)])
at_case(inp(X, "float32"), [["tensor", 1]], [inp([1], "float32")])
at_case(inp(X, "float32"), [["tensor", 1]], [inp([1], "int16", values=torch.tensor([1]))])
# masks (the meta device refuses them: the result's shape is data)
MASK34 = torch.tensor([[True, False, True, False], [False] * 4, [True] * 4])
at_case(inp(X, "float32"), [S, ["tensor", 1]], [inp([3, 4], "bool", values=MASK34)], op="at_mask")
at_case(inp(X, "float32"), [["ellipsis"], ["tensor", 1]], [inp([4], "bool", values=MASK4)], op="at_mask")
at_case(inp([3, 4, 5], "int64"), [["tensor", 1], ["tensor", 2]], [inp([3, 4], "bool", values=MASK34), long(0, 1, 2, 3, 4, 0)],
        op="at_mask")
at_case(inp([3, 4, 5], "int64"), [["tensor", 1], S, ["tensor", 2]], [inp([3], "bool", values=torch.tensor([True, False, True])),
                                                                     long(4, 0)], op="at_mask")
at_case(inp([6, 3], "float32", [["transpose", 0, 1]]), [["tensor", 1], ["slice", 1, None, 2]],
        [inp([3], "uint8", values=torch.tensor([1, 0, 1]))], op="at_mask")
at_case(inp(X, "float32"), [S, ["tensor", 1]], [inp([2], "bool")], op="at_mask")
# writes
for d in ALL:
    v = True if d == "bool" else (7 if d in INTS else -2.5)
    set_case(inp([3, 4], d), [S, ["tensor", 1]], [long(3, -1)], v)
for shape, views in LAYOUTS[:3]:
    set_case(inp(shape, "float32", views), [["tensor", 1], ["slice", 1, None, 2]], [long(2, 0)], ("t", inp([2, 2], "float32")))
    set_case(inp(shape, "float32", views), [S, ["int", 1]], [], ("t", inp([1, 1, 3], "float32")))
set_case(inp(X, "float32"), [["tensor", 1], S, ["tensor", 2]], [long(0, 1), long(1, 3)], ("t", inp([2, 3], "float32")))
set_case(inp(X, "float32"), [S, ["tensor", 1], ["tensor", 2]], [long(0, 1), long(1, 3)], ("t", inp([2], "float32")))
set_case(inp([6, 3, 4, 5], "float32"), [S, ["tensor", 1], S, ["int", 1]], [long(0, 2)], ("t", inp([6, 1, 4], "float32")))
set_case(inp(X, "float32"), [["none"], ["tensor", 1], ["slice", 1, 3, None]], [long(0, 2)], ("t", inp([1, 1, 4], "float32")))
set_case(inp(X, "float32"), [["ellipsis"], ["tensor", 1]], [inp([4], "bool", values=MASK4)], ("t", inp([3], "float32")))
set_case(inp(X, "float32"), [S, ["tensor", 1]], [inp([3, 4], "bool", values=MASK34)], 1.5)
set_case(inp(X, "float32"), [["bool", True]], [], 2.0)
set_case(inp(X, "int64"), [["int", 0], ["ellipsis"]], [], 9)
set_case(inp([2, 3], "float32"), [S, ["tensor", 1]], [long(0, 2)], ("t", inp([1, 1, 2, 2], "float32")))
set_case(inp(X, "float32"), [["tensor", 1]], [long(1)], ("t", inp([3, 4], "float64")))
set_case(inp(X, "float32"), [["int", 1]], [], ("t", inp([3, 4], "float64")))
set_case(inp(X, "float32"), [S, ["tensor", 1]], [long(0, 2)], ("t", inp([3], "float32")))
set_case(inp(X, "float32"), [S, ["tensor", 1]], [long(3)], 1.0)
set_case(inp(X, "int8"), [["int", 0]], [], 300)
for acc in [False, True]:
    set_case(inp(X, "float32"), [["tensor", 1], S, ["tensor", 2]], [long(0, 5), long(1, 1)], ("t", inp([2, 3], "float32")), acc)
    set_case(inp(X, "float64"), [["tensor", 1], ["tensor", 2]], [long(0, 0, 5), long(1, 1, 2)], ("t", inp([3, 4], "float64")), acc)

# searchsorted and bucketize with NaN in the sequence or the values: the
# binary search goes right whenever a comparison with NaN is false.
NSEQ = torch.tensor([-2.0, 0, 1.5, 3, math.nan])
NVALS = torch.tensor([math.nan, 1.5, -3, 3, 4, math.inf, -math.inf])
for right in [False, True]:
    for d in ["float32", "float64"]:
        ss_case(inp([5], d, values=NSEQ), inp([7], d, values=NVALS), right)
        ss_case(inp([7], d, values=torch.tensor([math.nan, -2.0, 0, 1.5, 3, math.nan, math.nan])), inp([7], d, values=NVALS), right)
    ss_case(inp([5], "float32", values=torch.tensor([3.0, math.nan, 1.5, -2, 0])), inp([7], "float32", values=NVALS), right,
            sorter=long(3, 4, 2, 0, 1))
    add("searchsorted_scalar", [inp([5], "float32", values=NSEQ)], {"value": "nan", "right": right},
        lambda s: torch.searchsorted(s, math.nan, right=right))
    add("bucketize", [inp([7], "float32", values=NVALS), inp([5], "float32", values=NSEQ)], {"right": right, "out_int32": False},
        lambda v, b: torch.bucketize(v, b, right=right))

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {os.path.relpath(OUT)}")
