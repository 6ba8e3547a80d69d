"""Golden data for the layers of pkg/nn/{batchnorm,groupnorm,embedding_more,
upsample,pad}.go: F.batch_norm, instance_norm, group_norm, rms_norm
(PyTorch 2.x's formula, computed here as 1.13 has none), embedding (with
padding_idx and max_norm; op embedding_options, as ops.json has
embedding), embedding_bag, interpolate, pad, prelu and glu,
with gradients and PyTorch's errors, in the ops format (cases, read by
internal/conformance; the Go side is internal/conformance/ops_layers.go).

"modules" holds what pkg/nn's layers_golden_test.go checks of the modules:
their repr, state-dict keys, outputs and running stats after several
training steps, then in evaluation mode, and Dropout2d's seeded masks.

Run with Debian's python3-torch (PyTorch 1.13):
    /usr/bin/python3 scripts/golden/layers.py
Writes testdata/layers.json.
"""
import json
import math
import os

import torch
import torch.nn.functional as F
from torch import nn
from goldenio import enc

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "layers.json")
torch.manual_seed(0)


def enc_tensor(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "data": [enc(v) for v in t.detach().reshape(-1).tolist()]}


def inp(values, dtype, views=()):
    base = torch.as_tensor(values).to(getattr(torch, dtype))
    t = base
    for v in views:
        t = t.transpose(*v[1:]) if v[0] == "transpose" else t.expand(*v[1:])
    return t, {"shape": list(base.shape), "dtype": dtype, "views": [list(v) for v in views],
               "data": [enc(x) for x in base.reshape(-1).tolist()]}


def rms_norm(x, shape, weight=None, eps=None):
    """PyTorch 2.x's F.rms_norm."""
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    dims = tuple(range(-len(shape), 0))
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    return y * weight if weight is not None else y


def present(ts, flags):
    """The optional inputs: None where flags say absent."""
    it = iter(ts)
    return [next(it) if f else None for f in flags]


def call(op, ts, a):
    if op == "batch_norm":
        x, rm, rv, w, b = [ts[0]] + present(ts[1:], a["present"])
        y = F.batch_norm(x, rm, rv, w, b, a["training"], a["momentum"], a["eps"])
        return [y] + [t for t in (rm, rv) if t is not None]
    if op == "instance_norm":
        x, rm, rv, w, b = [ts[0]] + present(ts[1:], a["present"])
        y = F.instance_norm(x, rm, rv, w, b, a["use_input_stats"], a["momentum"], a["eps"])
        return [y] + [t for t in (rm, rv) if t is not None]
    if op == "group_norm":
        x, w, b = [ts[0]] + present(ts[1:], a["present"])
        if x.dim() < 2:  # PyTorch 2.x's check (1.13 fails with an IndexError)
            raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {x.dim()}")
        return [F.group_norm(x, a["groups"], w, b, a["eps"])]
    if op == "rms_norm":
        w = ts[1] if len(ts) > 1 else None
        return [rms_norm(ts[0], a["shape"], w, a.get("eps"))]
    if op == "embedding_options":
        y = F.embedding(ts[0], ts[1], a.get("padding_idx"), a.get("max_norm"), a.get("norm_type", 2.0))
        return [y, ts[1]] if a.get("max_norm") is not None else [y]
    if op == "embedding_bag":
        x, w, off, psw = ts[0], ts[1], None, None
        rest = list(ts[2:])
        if a.get("has_offsets"):
            off = rest.pop(0)
        if a.get("has_psw"):
            psw = rest.pop(0)
        return [F.embedding_bag(x, w, off, mode=a["mode"], per_sample_weights=psw, padding_idx=a.get("padding_idx"),
                                max_norm=a.get("max_norm"))]
    if op == "interpolate":
        kw = {"mode": a["mode"]}
        if a.get("size") is not None:
            kw["size"] = a["size"]
        if a.get("scale_factor") is not None:  # one value is a Python float
            sf = a["scale_factor"]
            kw["scale_factor"] = sf[0] if len(sf) == 1 else sf
        if a.get("align_corners"):
            kw["align_corners"] = True
        elif a["mode"] in ("linear", "bilinear", "bicubic"):
            kw["align_corners"] = False
        return [F.interpolate(ts[0], **kw)]
    if op == "pad":
        return [F.pad(ts[0], a["pad"], a["mode"], a.get("value", 0.0)) if a["mode"] == "constant"
                else F.pad(ts[0], a["pad"], a["mode"])]
    if op == "prelu":
        return [F.prelu(ts[0], ts[1])]
    if op == "glu":
        return [F.glu(ts[0], a["dim"])]
    raise ValueError(op)


cases = []


def add(op, inputs, args, grad=None):
    ts = [t.clone() if i > 0 else t for i, (t, _) in enumerate(inputs)]
    case = {"op": op, "inputs": [s for _, s in inputs], "args": args}
    try:
        outs = call(op, ts, args)
    except (RuntimeError, IndexError, ValueError, TypeError, NotImplementedError, AssertionError, ZeroDivisionError) as e:
        case["error"] = str(e).splitlines()[0] if str(e) else type(e).__name__
        cases.append(case)
        return
    case["outs"] = [enc_tensor(o) for o in outs]
    if grad:
        leaves = [t.detach().clone().requires_grad_(g) for (t, _), g in zip(inputs, grad + [False] * len(inputs))]
        y = call(op, leaves, args)[0]
        gout = torch.randn(y.shape, dtype=y.dtype)
        y.backward(gout)
        case["grad"] = {"out": enc_tensor(gout),
                        "inputs": [enc_tensor(t.grad) if g else None for t, g in zip(leaves, grad)], "grad_fn": ""}
    cases.append(case)


def randn(*shape):
    return torch.randn(shape, dtype=torch.float64)


def err(op, inputs, args):
    add(op, inputs, args)
    assert "error" in cases[-1], (op, args, cases[-1])


# ---- batch_norm ----
for shape in [(4, 3), (4, 3, 5), (2, 3, 4, 5)]:
    c = shape[1]
    for training in [True, False]:
        for flags in [[True, True, True, True], [True, True, False, False], [False, False, True, True]]:
            if not training and not flags[0]:
                continue
            for d in ["float32", "float64"]:
                ins = [inp(randn(*shape) * 2 + 1, d)]
                if flags[0]:
                    ins += [inp(randn(c), d), inp(randn(c).abs() + 0.5, d)]
                if flags[2]:
                    ins += [inp(randn(c), d), inp(randn(c), d)]
                g = [True, False, False, True, True] if flags[0] else [True, True, True]
                g = g if flags[2] else [True, False, False]
                add("batch_norm", ins, {"present": flags, "training": training, "momentum": 0.3, "eps": 1e-5},
                    g if d == "float64" else None)
add("batch_norm", [inp(randn(5, 4), "float64", [["transpose", 0, 1]]), inp(randn(5), "float64"), inp(randn(5).abs(), "float64")],
    {"present": [True, True, False, False], "training": True, "momentum": 0.1, "eps": 1e-3}, [True, False, False])
err("batch_norm", [inp(randn(1, 3), "float32"), inp(randn(3), "float32"), inp(randn(3), "float32")],
    {"present": [True, True, False, False], "training": True, "momentum": 0.1, "eps": 1e-5})
err("batch_norm", [inp(randn(2, 3), "float32")], {"present": [False, False, False, False], "training": False, "momentum": 0.1, "eps": 1e-5})
err("batch_norm", [inp(randn(2, 4), "float32"), inp(randn(3), "float32"), inp(randn(3), "float32")],
    {"present": [True, True, False, False], "training": True, "momentum": 0.1, "eps": 1e-5})

# ---- instance_norm ----
for shape in [(2, 3, 5), (2, 3, 4, 5)]:
    c = shape[1]
    for use in [True, False]:
        for flags in [[True, True, True, True], [False, False, False, False], [False, False, True, True]]:
            if not use and not flags[0]:
                continue
            ins = [inp(randn(*shape), "float64")]
            if flags[0]:
                ins += [inp(randn(c), "float64"), inp(randn(c).abs() + 0.5, "float64")]
            if flags[2]:
                ins += [inp(randn(c), "float64"), inp(randn(c), "float64")]
            g = [True] + ([False, False] if flags[0] else []) + ([True, True] if flags[2] else [])
            add("instance_norm", ins, {"present": flags, "use_input_stats": use, "momentum": 0.2, "eps": 1e-5}, g)
            add("instance_norm", [(t.float(), dict(s, dtype="float32")) for t, s in ins],
                {"present": flags, "use_input_stats": use, "momentum": 0.2, "eps": 1e-5})
err("instance_norm", [inp(randn(2, 3, 1), "float32")], {"present": [False] * 4, "use_input_stats": True, "momentum": 0.1, "eps": 1e-5})

# ---- group_norm ----
for shape, groups in [((2, 6, 4), 3), ((3, 4, 2, 3), 2), ((2, 4), 2), ((2, 4, 5), 1)]:
    c = shape[1]
    for flags in [[True, True], [False, False]]:
        ins = [inp(randn(*shape), "float64")] + ([inp(randn(c), "float64"), inp(randn(c), "float64")] if flags[0] else [])
        add("group_norm", ins, {"present": flags, "groups": groups, "eps": 1e-5}, [True, True, True][:len(ins)])
        add("group_norm", [(t.float(), dict(s, dtype="float32")) for t, s in ins], {"present": flags, "groups": groups, "eps": 1e-5})
err("group_norm", [inp(randn(2, 6, 4), "float32")], {"present": [False, False], "groups": 4, "eps": 1e-5})

# ---- rms_norm (2.x's formula) ----
for shape, ns, eps in [((3, 4), [4], None), ((2, 3, 4), [3, 4], 1e-6), ((5,), [5], 0.1)]:
    for d in ["float32", "float64"]:
        x = inp(randn(*shape), d)
        add("rms_norm", [x], {"shape": ns, "eps": eps}, [True] if d == "float64" else None)
        add("rms_norm", [x, inp(randn(*ns), d)], {"shape": ns, "eps": eps}, [True, True] if d == "float64" else None)

# ---- embedding ----
W = randn(6, 3)
for d in ["float32", "float64"]:
    add("embedding_options", [inp([[0, 2, 5], [2, 2, 1]], "int64"), inp(W, d)], {}, [False, True] if d == "float64" else None)
    # No gradient cases with padding_idx: finite differences see the
    # padding row, which has no gradient by design (layers_golden_test.go).
    add("embedding_options", [inp([[0, 2, 5], [2, 2, 1]], "int64"), inp(W, d)], {"padding_idx": 2})
    add("embedding_options", [inp([4, 5, 0], "int64"), inp(W, d)], {"padding_idx": -1})
    add("embedding_options", [inp([[0, 2, 5], [2, 2, 1]], "int64"), inp(W * 2, d)], {"max_norm": 1.5})
    add("embedding_options", [inp([1, 3, 1], "int64"), inp(W * 2, d)], {"max_norm": 2.0, "norm_type": 1.0})
err("embedding_options", [inp([6], "int64"), inp(W, "float32")], {})
err("embedding_options", [inp([1], "int64"), inp(W, "float32")], {"padding_idx": 6})
err("embedding_options", [inp([1], "int64"), inp(W, "float32")], {"padding_idx": -7})

# ---- embedding_bag ----
for d in ["float32", "float64"]:
    g = [False, True] if d == "float64" else None
    for mode in ["sum", "mean", "max"]:
        add("embedding_bag", [inp([[0, 2, 5], [2, 4, 1]], "int64"), inp(W, d)], {"mode": mode}, g)
        add("embedding_bag", [inp([0, 2, 5, 2, 4, 1, 3], "int64"), inp(W, d), inp([0, 2, 2, 6], "int64")],
            {"mode": mode, "has_offsets": True}, g and g + [False])
        add("embedding_bag", [inp([0, 2, 5, 2, 4, 1, 3], "int64"), inp(W, d), inp([0, 3, 5], "int64")],
            {"mode": mode, "has_offsets": True, "padding_idx": 2}, g and g + [False])
    add("embedding_bag", [inp([[0, 2, 5], [2, 4, 1]], "int64"), inp(W, d), inp(randn(2, 3), d)],
        {"mode": "sum", "has_psw": True}, [False, True, True] if d == "float64" else None)
    add("embedding_bag", [inp([[0, 2, 5], [2, 4, 1]], "int64"), inp(W * 2, d)], {"mode": "mean", "max_norm": 1.0})
err("embedding_bag", [inp([1, 2], "int64"), inp(W, "float32")], {"mode": "sum"})
err("embedding_bag", [inp([1, 2], "int64"), inp(W, "float32"), inp([1], "int64")], {"mode": "sum", "has_offsets": True})
err("embedding_bag", [inp([1, 2], "int64"), inp(W, "float32"), inp([0, 3], "int64")], {"mode": "sum", "has_offsets": True})
err("embedding_bag", [inp([[1, 2]], "int64"), inp(W, "float32"), inp([0], "int64")], {"mode": "sum", "has_offsets": True})
err("embedding_bag", [inp([[[1, 2]]], "int64"), inp(W, "float32")], {"mode": "sum"})
err("embedding_bag", [inp([[1, 2]], "int64"), inp(W, "float32"), inp([[1.0, 1.0]], "float32")], {"mode": "mean", "has_psw": True})
err("embedding_bag", [inp([[1, 2]], "int64"), inp(W, "float32"), inp([1.0, 1.0], "float32")], {"mode": "sum", "has_psw": True})
err("embedding_bag", [inp([[1, 2]], "int64"), inp(W, "float32")], {"mode": "foo"})

# ---- interpolate ----
for d in ["float32", "float64"]:
    g = [True] if d == "float64" else None
    x3, x4 = inp(randn(2, 3, 5), d), inp(randn(1, 2, 4, 3), d)
    for size, sf in [(None, [2.0]), (None, [1.5]), ([7], None), ([3], None), ([10], None), (None, [0.5])]:
        add("interpolate", [x3], {"mode": "nearest", "size": size, "scale_factor": sf}, g)
        for ac in [False, True]:
            add("interpolate", [x3], {"mode": "linear", "size": size, "scale_factor": sf, "align_corners": ac}, g)
    for size, sf in [(None, [2.0]), (None, [1.5, 2.5]), ([7, 5], None), ([3, 2], None), ([1, 1], None), ([8, 6], None)]:
        add("interpolate", [x4], {"mode": "nearest", "size": size, "scale_factor": sf}, g)
        for ac in [False, True]:
            add("interpolate", [x4], {"mode": "bilinear", "size": size, "scale_factor": sf, "align_corners": ac}, g)
    add("interpolate", [inp(randn(1, 1, 2, 3, 4), d)], {"mode": "nearest", "size": [3, 5, 7], "scale_factor": None}, g)
    add("interpolate", [inp(randn(1, 4, 3, 2), d, [["transpose", 1, 3]])], {"mode": "bilinear", "size": [5, 6], "scale_factor": None}, g)
err("interpolate", [inp(randn(1, 1, 3), "float32")], {"mode": "bilinear", "size": [4], "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 3, 3), "float32")], {"mode": "nearest", "size": [4], "scale_factor": [2.0]})
err("interpolate", [inp(randn(1, 1, 3, 3), "float32")], {"mode": "nearest", "size": None, "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 3, 3), "float32")], {"mode": "nearest", "size": [4, 4, 4], "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 3, 3), "float32")], {"mode": "nearest", "size": [4], "scale_factor": None, "align_corners": True})
err("interpolate", [inp(randn(1, 1, 3, 3), "float32")], {"mode": "foo", "size": [4, 4], "scale_factor": None})

# ---- pad ----
for d in ["float32", "float64"]:
    g = [True] if d == "float64" else None
    x = inp(randn(2, 3, 4, 5), d)
    for pad in [[1, 2], [2, 0, 1, 3], [1, 1, 2, 2, 1, 0], [-1, 2], [0, -2, 1, -1]]:
        add("pad", [x], {"pad": pad, "mode": "constant", "value": 1.5}, g)
    for mode in ["reflect", "replicate", "circular"]:
        for pad in [[1, 2], [2, 0, 1, 3], [3, 3, 2, 2]]:
            add("pad", [x], {"pad": pad, "mode": mode}, g)
        if mode != "circular":  # 1.13 cannot pad an unbatched input circularly (2.x can)
            add("pad", [inp(randn(3, 4), d)], {"pad": [2, 1], "mode": mode}, g)
        add("pad", [inp(randn(1, 2, 3, 3, 4), d)], {"pad": [1, 2, 1, 0, 2, 1], "mode": mode}, g)
    add("pad", [x], {"pad": [-1, 2], "mode": "circular"}, g)
add("pad", [inp([[1, 2], [3, 4]], "int64")], {"pad": [1, 1], "mode": "constant", "value": 7})
err("pad", [inp(randn(1, 3), "float32")], {"pad": [1], "mode": "constant"})
err("pad", [inp(randn(1, 3), "float32")], {"pad": [1, 1, 1, 1, 1, 1], "mode": "constant"})
err("pad", [inp(randn(1, 1, 3), "float32")], {"pad": [3, 3], "mode": "reflect"})
err("pad", [inp(randn(3), "float32")], {"pad": [1, 1], "mode": "reflect"})
err("pad", [inp(randn(1, 1, 3), "float32")], {"pad": [4, 1], "mode": "circular"})
err("pad", [inp(torch.zeros(1, 1, 0), "float32")], {"pad": [1, 1], "mode": "replicate"})
err("pad", [inp(randn(1, 1, 3), "float32")], {"pad": [1, 1], "mode": "foo"})

# ---- prelu, glu ----
for d in ["float32", "float64"]:
    g = [True, True] if d == "float64" else None
    add("prelu", [inp(randn(4, 3, 5), d), inp(torch.tensor([0.25]), d)], {}, g)
    add("prelu", [inp(randn(4, 3, 5), d), inp(randn(3), d)], {}, g)
    add("prelu", [inp(randn(4, 3), d), inp(randn(3), d)], {}, g)
    add("prelu", [inp(randn(5), d), inp(torch.tensor([0.1]), d)], {}, g)
    for shape, dim in [((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1)]:
        add("glu", [inp(randn(*shape), d)], {"dim": dim}, [True] if d == "float64" else None)
err("prelu", [inp(randn(2, 4), "float32"), inp(randn(3), "float32")], {})
err("glu", [inp(randn(2, 3), "float32")], {"dim": -1})
err("glu", [inp(randn(2, 3), "float32")], {"dim": 2})

# ---- interpolate: bicubic (align_corners both ways) and area ----
for d in ["float32", "float64"]:
    g = [True] if d == "float64" else None
    x4 = inp(randn(2, 3, 5, 4), d)
    for size, sf in [(None, [2.0]), (None, [1.5, 2.5]), ([7, 9], None), ([3, 2], None), ([1, 1], None), ([8, 3], None),
                     (None, [0.5]), (None, [0.7, 1.3]), ([5, 4], None)]:
        for ac in [False, True]:
            add("interpolate", [x4], {"mode": "bicubic", "size": size, "scale_factor": sf, "align_corners": ac}, g)
        add("interpolate", [x4], {"mode": "area", "size": size, "scale_factor": sf}, g)
    add("interpolate", [inp(randn(1, 4, 3, 2), d, [["transpose", 1, 3]])], {"mode": "bicubic", "size": [5, 6], "scale_factor": None}, g)
    add("interpolate", [inp(randn(1, 4, 3, 2), d, [["transpose", 1, 3]])], {"mode": "area", "size": [2, 3], "scale_factor": None}, g)
    x3 = inp(randn(2, 3, 7), d)
    for size, sf in [([3], None), ([7], None), ([10], None), (None, [0.5]), (None, [1.7])]:
        add("interpolate", [x3], {"mode": "area", "size": size, "scale_factor": sf}, g)
    x5 = inp(randn(1, 2, 4, 5, 6), d)
    for size, sf in [([2, 3, 4], None), ([4, 5, 6], None), ([5, 2, 7], None), (None, [0.5])]:
        add("interpolate", [x5], {"mode": "area", "size": size, "scale_factor": sf}, g)
    add("interpolate", [inp(torch.zeros(0, 2, 4, 4), d)], {"mode": "area", "size": [2, 3], "scale_factor": None})
    add("interpolate", [inp(torch.zeros(0, 2, 4, 4), d)], {"mode": "bicubic", "size": [2, 3], "scale_factor": None})
    add("interpolate", [inp(randn(1, 1, 4, 4), d)], {"mode": "area", "size": [0, 2], "scale_factor": None})
add("interpolate", [inp(randn(1, 2, 3, 3), "bfloat16")], {"mode": "area", "size": [2, 2], "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 4), "float32")], {"mode": "bicubic", "size": [2], "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 4, 4, 4), "float32")], {"mode": "bicubic", "size": [2, 2, 2], "scale_factor": None})
err("interpolate", [inp([[[[1, 2], [3, 4]]]], "int64")], {"mode": "bicubic", "size": [3, 3], "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 2, 2), "float16")], {"mode": "bicubic", "size": [3, 3], "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 4, 4), "float32")], {"mode": "bicubic", "size": [0, 2], "scale_factor": None})
err("interpolate", [inp([[[[1, 2], [3, 4]]]], "int64")], {"mode": "area", "size": [1, 1], "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 4, 4), "float32")], {"mode": "area", "size": [2, 2], "scale_factor": None, "align_corners": True})
err("interpolate", [inp(randn(1, 1, 4, 4), "float32")], {"mode": "bilinear", "size": [4, 0], "scale_factor": None})
err("interpolate", [inp(randn(1, 1, 4, 4, 3), "float32")], {"mode": "nearest", "size": [2, 0, 1], "scale_factor": None})

# ---- group_norm and instance_norm: more options, empty inputs, errors ----
for shape, groups, eps in [((2, 6, 3, 2), 6, 1e-5), ((2, 6, 3, 2), 1, 1e-2), ((3, 4, 5), 2, 0.5), ((1, 4, 2), 4, 1e-5)]:
    c = shape[1]
    ins = [inp(randn(*shape), "float64"), inp(randn(c), "float64"), inp(randn(c), "float64")]
    add("group_norm", ins, {"present": [True, True], "groups": groups, "eps": eps}, [True, True, True])
    add("group_norm", ins[:1], {"present": [False, False], "groups": groups, "eps": eps}, [True])
for shape in [(0, 4, 3), (2, 4, 0)]:
    add("group_norm", [inp(torch.zeros(shape), "float32"), inp(randn(4), "float32"), inp(randn(4), "float32")],
        {"present": [True, True], "groups": 2, "eps": 1e-5})
for shape, groups, extra in [((1, 4), 4, []), ((1, 6, 1), 6, []), ((1, 3), 2, []), ((2, 4, 3), -1, []), ((2, 4, 3), 0, []),
                             ((4,), 2, []), ((2, 4, 3), 2, [randn(6), randn(4)]), ((2, 4, 3), 2, [randn(4), randn(4, 1)])]:
    err("group_norm", [inp(randn(*shape), "float32")] + [inp(t, "float32") for t in extra],
        {"present": [bool(extra)] * 2, "groups": groups, "eps": 1e-5})
err("group_norm", [inp(torch.ones(2, 4, 3, dtype=torch.int64), "int64")], {"present": [False, False], "groups": 2, "eps": 1e-5})
for shape, eps in [((2, 3, 4, 5), 1e-3), ((1, 2, 3, 1), 0.1)]:
    c = shape[1]
    stats = [inp(randn(c), "float64"), inp(randn(c).abs() + 0.5, "float64")]
    aff = [inp(randn(c), "float64"), inp(randn(c), "float64")]
    for use in [True, False]:
        for flags in [[True, True, True, True], [True, True, False, False], [False, False, True, True]]:
            if not use and not flags[0]:
                continue
            ins = [inp(randn(*shape), "float64")] + (stats if flags[0] else []) + (aff if flags[2] else [])
            g = [True] + ([False, False] if flags[0] else []) + ([True, True] if flags[2] else [])
            add("instance_norm", ins, {"present": flags, "use_input_stats": use, "momentum": 0.4, "eps": eps}, g)
for shape in [(0, 3, 4, 4), (2, 3, 0, 4)]:
    add("instance_norm", [inp(torch.zeros(shape), "float32"), inp(randn(3), "float32"), inp(randn(3).abs(), "float32")],
        {"present": [True, True, False, False], "use_input_stats": True, "momentum": 0.1, "eps": 1e-5})
    add("instance_norm", [inp(torch.zeros(shape), "float32")], {"present": [False] * 4, "use_input_stats": True, "momentum": 0.1, "eps": 1e-5})
add("instance_norm", [inp(randn(2, 3, 1, 1), "float32"), inp(randn(3), "float32"), inp(randn(3).abs(), "float32")],
    {"present": [True, True, False, False], "use_input_stats": False, "momentum": 0.1, "eps": 1e-5})
err("instance_norm", [inp(randn(2, 4, 3), "float32"), inp(randn(3), "float32"), inp(randn(3), "float32")],
    {"present": [True, True, False, False], "use_input_stats": True, "momentum": 0.1, "eps": 1e-5})
err("instance_norm", [inp(randn(2, 4, 3), "float32"), inp(randn(3), "float32"), inp(randn(3), "float32")],
    {"present": [False, False, True, True], "use_input_stats": True, "momentum": 0.1, "eps": 1e-5})
err("instance_norm", [inp(torch.ones(2, 3, 4, dtype=torch.int64), "int64")], {"present": [False] * 4, "use_input_stats": True, "momentum": 0.1, "eps": 1e-5})


# ---- modules ----
def keys(m):
    return list(m.state_dict().keys())


def steps(m, xs, make_eval=True):
    """Runs m on each x training, then the last in eval mode."""
    out = {"repr": repr(m), "state_dict": keys(m), "train": []}
    for x in xs:
        y = m(x)
        out["train"].append({"input": enc_tensor(x), "output": enc_tensor(y),
                             "buffers": {k: enc_tensor(v) for k, v in m.named_buffers()}})
    if make_eval:
        m.eval()
        out["eval"] = {"input": enc_tensor(xs[-1]), "output": enc_tensor(m(xs[-1]))}
    return out


modules = {}
with torch.no_grad():
    for name, m, shape in [
        ("BatchNorm1d", nn.BatchNorm1d(3), (4, 3)),
        ("BatchNorm1d_3d", nn.BatchNorm1d(3, momentum=0.2), (4, 3, 5)),
        ("BatchNorm1d_cumulative", nn.BatchNorm1d(3, momentum=None), (4, 3)),
        ("BatchNorm1d_no_affine", nn.BatchNorm1d(3, affine=False), (4, 3)),
        ("BatchNorm1d_no_stats", nn.BatchNorm1d(3, track_running_stats=False), (4, 3)),
        ("BatchNorm2d", nn.BatchNorm2d(2), (3, 2, 4, 5)),
        ("InstanceNorm1d", nn.InstanceNorm1d(3), (2, 3, 5)),
        ("InstanceNorm1d_unbatched", nn.InstanceNorm1d(3, affine=True, track_running_stats=True), (3, 5)),
        ("InstanceNorm2d", nn.InstanceNorm2d(2, affine=True, track_running_stats=True), (3, 2, 4, 5)),
        ("GroupNorm", nn.GroupNorm(2, 4), (3, 4, 5)),
        ("GroupNorm_no_affine", nn.GroupNorm(4, 4, affine=False), (3, 4, 5)),
        ("GroupNorm_eps", nn.GroupNorm(3, 6, eps=1e-3), (2, 6, 4, 3)),
        ("GroupNorm_one_group", nn.GroupNorm(1, 4), (3, 4, 2, 2)),
        ("GroupNorm_empty", nn.GroupNorm(2, 4), (0, 4, 3)),
        ("InstanceNorm2d_default", nn.InstanceNorm2d(3), (2, 3, 4, 5)),
        ("InstanceNorm2d_affine", nn.InstanceNorm2d(3, affine=True), (2, 3, 4, 5)),
        ("InstanceNorm2d_stats", nn.InstanceNorm2d(3, eps=1e-3, momentum=0.3, track_running_stats=True), (2, 3, 4, 5)),
        ("InstanceNorm2d_unbatched", nn.InstanceNorm2d(2, affine=True, track_running_stats=True), (2, 4, 5)),
        ("InstanceNorm2d_empty_batch", nn.InstanceNorm2d(3, track_running_stats=True), (0, 3, 4, 4)),
    ]:
        xs = [torch.randn(shape) * (i + 1) + i for i in range(3)]
        modules[name] = steps(m, xs)
    modules["PReLU"] = steps(nn.PReLU(), [torch.randn(3, 4)])
    modules["PReLU_3"] = steps(nn.PReLU(3), [torch.randn(2, 3, 4)])
    modules["GLU"] = steps(nn.GLU(), [torch.randn(3, 4)])
    modules["Upsample"] = steps(nn.Upsample(scale_factor=2), [torch.randn(1, 2, 3, 3)])
    modules["Upsample_bilinear"] = steps(nn.Upsample(size=(4, 5), mode="bilinear", align_corners=True), [torch.randn(1, 2, 3, 3)])
    modules["Upsample_size"] = steps(nn.Upsample(size=4), [torch.randn(1, 2, 3)])
    modules["Upsample_tuple"] = steps(nn.Upsample(scale_factor=(2, 3)), [torch.randn(1, 2, 3, 3)])
    for name, m in [("Embedding", nn.Embedding(4, 2)), ("Embedding_options", nn.Embedding(4, 2, padding_idx=1, max_norm=1.0, norm_type=3.)),
                    ("EmbeddingBag", nn.EmbeddingBag(4, 2)), ("EmbeddingBag_max", nn.EmbeddingBag(4, 2, mode="max", max_norm=2.))]:
        modules[name] = {"repr": repr(m), "state_dict": keys(m)}
    e = nn.Embedding(5, 3, padding_idx=-2)
    modules["Embedding_padding_row"] = {"repr": repr(e), "state_dict": keys(e), "row": e.weight[3].tolist()}

# Dropout2d's masks from a seed.
dropout = []
for seed, p, shape in [(0, 0.5, (2, 3, 2, 2)), (7, 0.3, (3, 2, 2)), (3, 0.75, (4, 5, 1, 3))]:
    torch.manual_seed(seed)
    d = nn.Dropout2d(p)
    x = torch.ones(shape)
    dropout.append({"seed": seed, "p": p, "input": enc_tensor(x), "output": enc_tensor(d(x)), "repr": repr(d)})

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases, "modules": modules, "dropout2d": dropout}, f, separators=(",", ":"))
print(len(cases), "cases,", len(modules), "modules")
