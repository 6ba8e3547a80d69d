"""Golden data for the foundation tests (pkg/torch): views, type promotion,
printing, casts and random sequences, produced by real PyTorch.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/foundation.json.
"""
import json
import math
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "foundation.json")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def dt(name):
    return getattr(torch, name)


def apply(t, op):
    name, args = op[0], op[1:]
    if name == "view":
        return t.view(*args)
    if name == "reshape":
        return t.reshape(*args)
    if name == "transpose":
        return t.transpose(*args)
    if name == "permute":
        return t.permute(*args)
    if name == "t":
        return t.t()
    if name == "mT":
        return t.mT
    if name == "squeeze":
        return t.squeeze() if not args else t.squeeze(args[0])
    if name == "unsqueeze":
        return t.unsqueeze(args[0])
    if name == "expand":
        return t.expand(*args)
    if name == "narrow":
        return t.narrow(*args)
    if name == "select":
        return t.select(*args)
    if name == "slice":
        dim, start, end, step = args
        idx = [slice(None)] * t.dim()
        idx[dim] = slice(start, end, step)
        return t[tuple(idx)]
    if name == "flatten":
        return t.flatten(*args)
    if name == "unflatten":
        return t.unflatten(args[0], tuple(args[1:]))
    if name == "as_strided":
        return t.as_strided(args[0], args[1], args[2])
    if name == "chunk":
        return t.chunk(args[0], args[1])[args[2]]
    if name == "split":
        return t.split(args[0], args[1])[args[2]]
    if name == "unbind":
        return t.unbind(args[0])[args[1]]
    if name == "contiguous":
        return t.contiguous()
    raise ValueError(name)


VIEW_CASES = [
    ([2, 3], [["transpose", 0, 1]]),
    ([2, 3, 4], [["transpose", -1, 0]]),
    ([2, 3, 4], [["permute", 2, 0, 1]]),
    ([2, 3, 4], [["view", 6, 4]]),
    ([2, 3, 4], [["view", -1]]),
    ([2, 3, 4], [["reshape", 4, -1]]),
    ([2, 3, 4], [["transpose", 0, 1], ["reshape", 6, 4]]),
    ([2, 3, 4], [["transpose", 1, 2], ["view", 2, 12]]),
    ([4, 6], [["t"]]),
    ([2, 4, 6], [["mT"]]),
    ([1, 3, 1, 2], [["squeeze"]]),
    ([1, 3, 1, 2], [["squeeze", 2]]),
    ([1, 3, 1, 2], [["squeeze", 1]]),
    ([3, 2], [["unsqueeze", 0]]),
    ([3, 2], [["unsqueeze", -1]]),
    ([3, 2], [["unsqueeze", 1]]),
    ([3, 1], [["expand", 2, 3, 4]]),
    ([3, 1], [["expand", -1, 5]]),
    ([5, 6], [["narrow", 1, 2, 3]]),
    ([5, 6], [["narrow", 0, -2, 2]]),
    ([5, 6], [["select", 0, 2]]),
    ([5, 6], [["select", 1, -1]]),
    ([10], [["slice", 0, 1, 9, 3]]),
    ([10], [["slice", 0, -4, 100, 2]]),
    ([10], [["slice", 0, 7, 3, 1]]),
    ([4, 10], [["slice", 1, 0, 10, 4], ["transpose", 0, 1]]),
    ([2, 3, 4, 5], [["flatten", 1, 2]]),
    ([2, 3, 4, 5], [["flatten", 0, -1]]),
    ([2, 12], [["unflatten", 1, 3, 4]]),
    ([2, 12], [["unflatten", 1, -1, 2]]),
    ([3, 4], [["as_strided", [2, 2], [1, 2], 1]]),
    ([7, 3], [["chunk", 3, 0, 2]]),
    ([7, 3], [["split", 3, 0, 2]]),
    ([4, 3], [["unbind", 1, 2]]),
    ([2, 3, 4], [["permute", 1, 0, 2], ["contiguous"]]),
    ([2, 3, 4], [["slice", 2, 1, 4, 2], ["unsqueeze", 0], ["expand", 3, 2, 3, 2]]),
    ([6, 4], [["slice", 0, 1, 6, 2], ["view", 12]]),
    ([2, 1, 3], [["transpose", 0, 2], ["view", 3, 2]]),
    ([0, 3], [["view", 3, 0]]),
    ([], [["unsqueeze", 0]]),
    ([], [["view", 1, 1]]),
]

views = []
for shape, ops in VIEW_CASES:
    base = torch.arange(max(1, math.prod(shape)) if shape else 1, dtype=torch.float32)
    base = base[: math.prod(shape)].reshape(shape) if shape else base.reshape([])
    t = base
    try:
        for op in ops:
            t = apply(t, op)
    except RuntimeError as e:
        views.append({"shape": shape, "ops": ops, "error": str(e).splitlines()[0]})
        continue
    views.append({
        "shape": shape, "ops": ops,
        "out_shape": list(t.shape), "out_stride": list(t.stride()), "out_offset": t.storage_offset(),
        "shares": t.storage().data_ptr() == base.storage().data_ptr(),
        "values": t.reshape(-1).tolist(),
    })

promotion = []
for a in DTYPES:
    for b in DTYPES:
        promotion.append([a, b, str(torch.promote_types(dt(a), dt(b))).replace("torch.", "")])

result_types = []
for a in DTYPES:
    x = torch.ones(2, dtype=dt(a))
    z = torch.ones((), dtype=dt(a))
    for kind, val in [("int", 2), ("float", 2.5), ("bool", True)]:
        result_types.append({"dtype": a, "dims": 1, "scalar": kind, "out": str(torch.result_type(x, val)).replace("torch.", "")})
        result_types.append({"dtype": a, "dims": 0, "scalar": kind, "out": str(torch.result_type(z, val)).replace("torch.", "")})
    for b in DTYPES:
        z2 = torch.ones((), dtype=dt(b))
        result_types.append({"dtype": a, "dims": 1, "zerodim": b, "out": str(torch.result_type(x, z2)).replace("torch.", "")})

PRINT_CASES = [
    ([1, 2, 3, 4, 5, 6], [2, 3], "float32", {}),
    ([1.5, -2.25, 3.125], [3], "float32", {}),
    ([0.0001, 1, 100000], [3], "float32", {}),
    ([1e-5, 1, 2], [3], "float32", {}),
    ([1e9, 1, 2], [3], "float32", {}),
    ([1, 10, 100000], [3], "float32", {}),
    ([float("nan"), float("inf"), -float("inf"), 1.5], [4], "float32", {}),
    ([float("nan"), 1, 2], [3], "float32", {}),
    ([0, 0, 0], [3], "float32", {}),
    ([1, -2, 300], [3], "int64", {}),
    ([1, -2, 300], [3], "int32", {}),
    ([1, 0, 1], [3], "bool", {}),
    ([1, 2, 3, 4], [2, 2], "float64", {}),
    ([1.25, 2.5], [2], "float16", {}),
    ([1.25, 2.5], [2], "bfloat16", {}),
    ([3.5], [], "float32", {}),
    ([7], [], "int64", {}),
    ([], [0], "float32", {}),
    ([], [0, 3], "float32", {}),
    ([], [0], "int64", {}),
    (list(range(2000)), [2000], "float32", {}),
    (list(range(2000)), [40, 50], "int64", {}),
    (list(range(1200)), [10, 10, 12], "float32", {}),
    ([x / 7 for x in range(30)], [30], "float32", {}),
    ([x / 7 for x in range(30)], [30], "float32", {"precision": 2}),
    ([x / 7 for x in range(30)], [30], "float32", {"profile": "short"}),
    ([x / 7 for x in range(30)], [5, 6], "float32", {"linewidth": 40}),
    ([1.5, 2, 3], [3], "float32", {"sci_mode": True}),
    ([1e-8, 1, 2], [3], "float32", {"sci_mode": False}),
    (list(range(20)), [20], "float32", {"threshold": 10, "edgeitems": 2}),
    (list(range(2000)), [2000], "float32", {"profile": "full", "linewidth": 200}),
    ([1, 2, 3], [3], "float32", {"requires_grad": True}),
    ([0.1, 0.2], [2], "float32", {"device": "meta"}),
    ([0.1, 0.2, 0.3, 0.4], [2, 2], "int16", {"device": "meta"}),
]

prints = []
for values, shape, dname, opts in PRINT_CASES:
    popts = {k: v for k, v in opts.items() if k in ("precision", "threshold", "edgeitems", "linewidth", "profile", "sci_mode")}
    torch.set_printoptions(**popts)
    t = torch.tensor(values, dtype=torch.float64).to(dt(dname)).reshape(shape)
    if opts.get("device") == "meta":
        t = t.to("meta")
    if opts.get("requires_grad"):
        t.requires_grad_(True)
    prints.append({"values": [v if math.isfinite(v) else str(v) for v in values], "shape": shape, "dtype": dname,
                   "options": opts, "repr": repr(t)})
    torch.set_printoptions(profile="default")

CAST_VALUES = [0.0, -0.0, 1.5, -1.5, 2.5, -2.7, 127.9, 128.0, 255.5, 256.0, 300.5, -129.0, 65504.0, 65520.0, 1e10, -1e10,
               3e38, float("inf"), -float("inf"), float("nan"), 1e-8, 1.0009765625, 1.00048828125, 0.1]
casts = []
src = torch.tensor(CAST_VALUES, dtype=torch.float64)
for s in ["float64", "float32"]:
    x = src.to(dt(s))
    for d in DTYPES:
        y = x.to(dt(d))
        casts.append({"src": s, "dst": d, "out": [v if (not isinstance(v, float) or math.isfinite(v)) else str(v) for v in y.to(torch.float64).tolist()] if d not in ("int64",) else y.tolist()})
ints = torch.tensor([0, 1, -1, 127, 128, 255, 256, -129, 32767, 32768, 65535, 2**31 - 1, 2**31, -2**31 - 1, 2**40 + 3, -2**62], dtype=torch.int64)
for d in DTYPES:
    y = ints.to(dt(d))
    casts.append({"src": "int64", "dst": d, "out": y.to(torch.float64).tolist() if d not in ("int64",) else y.tolist(), "int_src": ints.tolist()})

random = {}
torch.manual_seed(0)
random["rand3"] = torch.rand(3).tolist()
random["randn3"] = torch.randn(3).tolist()
torch.manual_seed(42)
random["randn40"] = torch.randn(40).tolist()
random["rand_f64_5"] = torch.rand(5, dtype=torch.float64).tolist()
random["randint"] = torch.randint(0, 10, (12,)).tolist()
random["randint_big"] = torch.randint(-2**40, 2**40, (4,)).tolist()
random["randn_f64_20"] = torch.randn(20, dtype=torch.float64).tolist()
random["bernoulli"] = torch.empty(10).bernoulli_(0.3).tolist()
random["uniform"] = torch.empty(6).uniform_(-2, 3).tolist()
random["normal_small"] = torch.empty(5).normal_(1, 2).tolist()
random["rand_half"] = torch.rand(4, dtype=torch.float16).to(torch.float64).tolist()
g = torch.Generator().manual_seed(7)
random["gen7_rand4"] = torch.rand(4, generator=g).tolist()

creation = {
    "arange_int": torch.arange(2, 11, 3).tolist(),
    "arange_float": torch.arange(0, 1, 0.1).tolist(),
    "arange_neg": torch.arange(5, -3, -2).tolist(),
    "linspace": torch.linspace(-1, 1, 7).tolist(),
    "linspace_f64": torch.linspace(0, 1, 11, dtype=torch.float64).tolist(),
    "linspace_one": torch.linspace(3, 9, 1).tolist(),
    # Integer dtypes: start and end become integers first, the step is a double.
    "linspace_int32": torch.linspace(0.5, 10.5, 5, dtype=torch.int32).tolist(),
    "linspace_int64_neg": torch.linspace(-3.7, 9.2, 7, dtype=torch.int64).tolist(),
    "linspace_uint8": torch.linspace(0.5, 10.5, 5, dtype=torch.uint8).tolist(),
    # float32: end - start rounded before it is divided.
    "linspace_f32_odd": torch.linspace(1e-3, 7.1, 6).tolist(),
    "eye23": torch.eye(2, 3).tolist(),
    "full_dtype": str(torch.full((2,), 3).dtype),
    "full_float_dtype": str(torch.full((2,), 3.5).dtype),
    "full_bool_dtype": str(torch.full((2,), True).dtype),
}

def clean(v):
    """JSON has no NaN or Inf: spell them as strings ("nan", "inf", "-inf")."""
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, list):
        return [clean(x) for x in v]
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    return v


with open(OUT, "w") as f:
    json.dump(clean({"torch": torch.__version__, "views": views, "promotion": promotion, "result_types": result_types,
               "prints": prints, "casts": casts, "random": random, "creation": creation}), f, indent=1, allow_nan=False)
print("wrote", OUT)
