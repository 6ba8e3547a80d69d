"""Golden data for the convolutions of pkg/torch/conv.go: F.conv1d,
F.conv2d, F.conv_transpose1d, F.conv_transpose2d and
torch.nn.grad.conv2d_weight, with stride, padding (numbers, "same",
"valid"), dilation, groups (depthwise too), with and without bias, batched
and unbatched, on transposed (non-contiguous) inputs, empty batches, in
float32, float64, bfloat16 and int64, and PyTorch's errors. Gradient cases
(float64) carry PyTorch's backward pass for the input, the weight and the
bias, which the runner also checks by finite differences.

A case's args are the function's keyword arguments; the inputs are the
input, the weight and, when there is one, the bias. Run with Debian's
python3-torch (PyTorch 1.13):
    /usr/bin/python3 scripts/golden/conv.py
Writes testdata/conv.json (the format of scripts/golden/ops.py, read by
internal/conformance; the Go side is internal/conformance/ops_conv.go).
"""
import json
import math
import os
import warnings

import torch
import torch.nn.functional as F

import goldenio
from goldenio import enc_tensor

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "conv.json")
torch.manual_seed(0)
warnings.simplefilter("ignore")  # padding='same' with even kernels

FUNCS = {
    "conv1d": F.conv1d, "conv2d": F.conv2d,
    "conv_transpose1d": F.conv_transpose1d, "conv_transpose2d": F.conv_transpose2d,
}






def inp(values, dtype, views=()):
    base = torch.as_tensor(values).to(getattr(torch, dtype))
    t = base
    for v in views:
        if v[0] == "transpose":
            t = t.transpose(v[1], v[2])
    return t, {"shape": list(base.shape), "dtype": dtype, "views": [list(v) for v in views], "data": goldenio.values(base)}


cases = []


MODULES = {
    "nn.Conv1d": torch.nn.Conv1d, "nn.Conv2d": torch.nn.Conv2d,
    "nn.ConvTranspose1d": torch.nn.ConvTranspose1d, "nn.ConvTranspose2d": torch.nn.ConvTranspose2d,
}


def call_module(op, ts, args):
    """The module op with weight ts[1] and bias ts[2] (or none), its
    channels and kernel size read from the weight; the arg output_size
    goes to its forward."""
    args = dict(args)
    kwargs = {"output_size": args.pop("output_size")} if "output_size" in args else {}
    w = ts[1]
    groups = args.get("groups", 1)
    if op.startswith("nn.ConvTranspose"):
        cin, cout = w.shape[0], w.shape[1] * groups
    else:
        cin, cout = w.shape[1] * groups, w.shape[0]
    m = MODULES[op](cin, cout, tuple(w.shape[2:]), bias=len(ts) > 2, **args).double()
    params = {"weight": w}
    if len(ts) > 2:
        params["bias"] = ts[2]
    return torch.nn.utils.stateless.functional_call(m, params, (ts[0],), kwargs)


def call(op, ts, args):
    if op in MODULES:
        return call_module(op, ts, args)
    if op == "conv2d_weight":
        return torch.nn.grad.conv2d_weight(ts[0], args["weight_size"], ts[1], **{k: v for k, v in args.items() if k != "weight_size"})
    kw = dict(args)
    return FUNCS[op](ts[0], ts[1], ts[2] if len(ts) > 2 else None, **kw)


def add(op, inputs, args, grad=False):
    ts = [t for t, _ in inputs]
    case = {"op": op, "inputs": [s for _, s in inputs], "args": args}
    try:
        out = call(op, ts, args)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        case["error"] = str(e).splitlines()[0]
        cases.append(case)
        return
    case["outs"] = [enc_tensor(out)]
    if grad:
        leaves = [t.detach().clone().requires_grad_(True) for t in ts]
        y = call(op, leaves, args)
        gout = torch.randn(y.shape, dtype=torch.float64)
        y.backward(gout)
        case["grad"] = {"out": enc_tensor(gout), "inputs": [enc_tensor(t.grad) for t in leaves],
                        "grad_fn": type(y.grad_fn).__name__}
    cases.append(case)


def randn(*shape):
    return torch.randn(shape, dtype=torch.float64)


def conv_cases(op, xs, ws, args, bias=True, grad=True, dtypes=("float32", "float64")):
    x, w = randn(*xs), randn(*ws)
    oc = ws[1] * args.get("groups", 1) if op.startswith(("conv_transpose", "nn.ConvTranspose")) else ws[0]
    b = randn(oc)
    for d in dtypes:
        ins = [inp(x, d), inp(w, d)] + ([inp(b, d)] if bias else [])
        add(op, ins, args)
    if grad:
        ins = [inp(x, "float64"), inp(w, "float64")] + ([inp(b, "float64")] if bias else [])
        add(op, ins, args, grad=True)


# ---- conv2d ----
C2 = [
    ([2, 3, 5, 6], [4, 3, 3, 3], {}),
    ([2, 3, 7, 6], [4, 3, 3, 2], {"stride": [2, 1]}),
    ([2, 3, 5, 5], [4, 3, 3, 3], {"padding": 1}),
    ([1, 2, 6, 7], [3, 2, 2, 3], {"padding": [2, 1], "stride": 2}),
    ([2, 2, 7, 7], [3, 2, 3, 3], {"dilation": 2}),
    ([2, 2, 8, 7], [3, 2, 3, 2], {"dilation": [2, 3], "padding": [1, 2], "stride": [2, 3]}),
    ([2, 4, 5, 5], [6, 2, 3, 3], {"groups": 2}),
    ([2, 4, 5, 5], [4, 1, 3, 3], {"groups": 4, "padding": 1}),  # depthwise
    ([1, 3, 6, 6], [6, 1, 3, 3], {"groups": 3, "stride": 2}),   # depthwise, multiplier 2
    ([2, 3, 5, 6], [4, 3, 3, 3], {"padding": "same"}),
    ([2, 3, 5, 6], [4, 3, 2, 4], {"padding": "same"}),           # even kernels: asymmetric
    ([2, 3, 6, 6], [2, 3, 2, 3], {"padding": "same", "dilation": [3, 2]}),
    ([2, 3, 5, 6], [4, 3, 3, 2], {"padding": "valid"}),
    ([3, 5, 6], [4, 3, 3, 3], {"padding": 1}),                   # unbatched
    ([2, 3, 4, 4], [5, 3, 4, 4], {}),                            # kernel = input: 1x1 outputs
    ([2, 3, 5, 5], [4, 3, 1, 1], {"stride": 2}),
]
for xs, ws, args in C2:
    conv_cases("conv2d", xs, ws, args)
    conv_cases("conv2d", xs, ws, args, bias=False)
# transposed (non-contiguous) input and weight
x, w, b = randn(2, 3, 6, 5), randn(4, 3, 3, 3), randn(4)
for d in ("float32", "float64"):
    add("conv2d", [inp(x, d, [["transpose", 2, 3]]), inp(w, d), inp(b, d)], {"padding": 1})
add("conv2d", [inp(x, "float64", [["transpose", 2, 3]]), inp(randn(3, 4, 3, 3), "float64", [["transpose", 0, 1]]), inp(b, "float64")],
    {"stride": 2}, grad=True)
add("conv2d", [inp(randn(3, 2, 5, 5), "float64", [["transpose", 0, 1]]), inp(w, "float64")], {}, grad=True)
# other dtypes
x, w, b = randn(2, 3, 5, 5), randn(4, 3, 3, 3), randn(4)
add("conv2d", [inp(x, "bfloat16"), inp(w, "bfloat16"), inp(b, "bfloat16")], {"padding": 1})
add("conv2d", [inp(x, "float16"), inp(w, "float16")], {})
add("conv2d", [inp((x * 3).round(), "int64"), inp((w * 3).round(), "int64"), inp((b * 3).round(), "int64")], {"stride": 2})
# empty
add("conv2d", [inp(torch.zeros(0, 3, 5, 5), "float32"), inp(w, "float32"), inp(b, "float32")], {})
# (PyTorch 1.13 gives [2, 0, 3, 3] for an input of 0 channels: a quirk of
# its empty-input path, not followed: the output has the weight's 4 channels.)
# errors
E = torch.ones
errs = [
    ([E(5, 5), E(4, 3, 3, 3)], {}),
    ([E(1, 2, 3, 5, 5), E(4, 3, 3, 3)], {}),
    ([E(2, 3, 5, 5), E(4, 2, 3, 3)], {}),
    ([E(2, 3, 5, 5), E(4, 1, 3, 3)], {"groups": 3}),
    ([E(2, 4, 5, 5), E(3, 2, 3, 3)], {"groups": 2}),
    ([E(2, 3, 5, 5), E(4, 3, 7, 7)], {}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3)], {"stride": 0}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3)], {"padding": -1}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3)], {"dilation": 0}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3)], {"groups": -1}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3)], {"padding": "same", "stride": 2}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3)], {"padding": "foo"}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3)], {"stride": [1, 2, 3]}),
    ([E(2, 3, 5, 5), E(4, 3, 3)], {}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3), E(3)], {}),
    ([E(2, 3, 5, 5), E(4, 3, 3, 3), E(4, 1)], {}),
    ([E(2, 3, 5, 5), E(0, 3, 3, 3)], {}),
    ([E(2, 3, 3, 3), E(4, 3, 3, 3)], {"dilation": 2}),
]
for ts, args in errs:
    add("conv2d", [inp(t, "float32") for t in ts], args)
    assert "error" in cases[-1], (ts, args)
add("conv2d", [inp(x, "float32"), inp(w, "float64")], {})
add("conv2d", [inp(x, "float64"), inp(w, "float32")], {})
add("conv2d", [inp(x, "float32"), inp(w, "float32"), inp(b, "float64")], {})

# ---- conv1d ----
C1 = [
    ([2, 3, 9], [4, 3, 3], {}),
    ([2, 3, 9], [4, 3, 3], {"stride": 2, "padding": 1}),
    ([2, 4, 9], [4, 2, 2], {"groups": 2, "dilation": 3}),
    ([2, 4, 9], [4, 1, 3], {"groups": 4}),
    ([2, 3, 8], [4, 3, 4], {"padding": "same"}),
    ([3, 7], [2, 3, 3], {"padding": "valid"}),                    # unbatched
]
for xs, ws, args in C1:
    conv_cases("conv1d", xs, ws, args)
    conv_cases("conv1d", xs, ws, args, bias=False, dtypes=())
add("conv1d", [inp(randn(2, 7, 3), "float64", [["transpose", 1, 2]]), inp(randn(4, 3, 2), "float64")], {}, grad=True)
add("conv1d", [inp(E(2, 3, 5, 5), "float32"), inp(E(4, 3, 3), "float32")], {})
add("conv1d", [inp(E(2, 3, 5), "float32"), inp(E(4, 3, 7), "float32")], {})

# ---- transposed convolutions ----
CT2 = [
    ([2, 3, 4, 5], [3, 2, 3, 3], {}),
    ([2, 3, 4, 4], [3, 2, 3, 2], {"stride": 2, "padding": 1, "output_padding": 1}),
    ([2, 4, 4, 3], [4, 1, 3, 3], {"groups": 2, "dilation": [2, 1]}),
    ([3, 4, 4], [3, 2, 2, 2], {"stride": [2, 3]}),                 # unbatched
]
for xs, ws, args in CT2:
    conv_cases("conv_transpose2d", xs, ws, args)
    conv_cases("conv_transpose2d", xs, ws, args, bias=False, dtypes=())
conv_cases("conv_transpose1d", [2, 3, 5], [3, 2, 3], {"stride": 2, "output_padding": 1})
add("conv_transpose2d", [inp(E(2, 3, 4, 4), "float32"), inp(E(3, 2, 3, 3), "float32")], {"output_padding": 1})
add("conv_transpose2d", [inp(E(2, 3, 4, 4), "float32"), inp(E(2, 2, 3, 3), "float32")], {})

# ---- torch.nn.grad.conv2d_weight ----
for xs, ws, args in [([2, 3, 6, 5], [4, 3, 3, 2], {"stride": 2, "padding": 1}), ([2, 4, 5, 5], [6, 2, 3, 3], {"groups": 2, "dilation": 2})]:
    x = randn(*xs)
    y = F.conv2d(x, randn(*ws), None, **args)
    for d in ("float32", "float64"):
        add("conv2d_weight", [inp(x, d), inp(randn(*y.shape), d)], dict(args, weight_size=ws))

# ---- the modules: padding modes, transposed convolutions ----
# (the op is the module, with the case's weight and bias as its parameters)
for mode in ("zeros", "reflect", "replicate", "circular"):
    for xs, ws, args in [
        ([2, 3, 5, 6], [4, 3, 3, 3], {"padding": 1}),
        ([2, 4, 6, 7], [4, 2, 3, 2], {"padding": [2, 1], "stride": [2, 1], "groups": 2}),
        ([1, 2, 7, 6], [3, 2, 2, 3], {"padding": [1, 2], "dilation": [2, 1]}),
        ([2, 3, 6, 6], [2, 3, 3, 2], {"padding": "valid"}),
    ]:
        conv_cases("nn.Conv2d", xs, ws, dict(args, padding_mode=mode), dtypes=("float32",))
    conv_cases("nn.Conv2d", [2, 3, 5, 6], [4, 3, 3, 3], {"padding": 2, "padding_mode": mode}, bias=False, dtypes=())
    for xs, ws, args in [
        ([2, 3, 7], [4, 3, 3], {"padding": 2}),
        ([2, 4, 9], [4, 2, 2], {"padding": 1, "stride": 2, "groups": 2, "dilation": 2}),
    ]:
        conv_cases("nn.Conv1d", xs, ws, dict(args, padding_mode=mode), dtypes=("float32",))
    if mode != "circular":  # (PyTorch 1.13's F.pad refuses circular padding of unbatched inputs; 2.x pads them)
        conv_cases("nn.Conv1d", [3, 6], [2, 3, 3], {"padding": 1, "padding_mode": mode}, bias=False, dtypes=())  # unbatched
# PyTorch's errors of the padded input
add("nn.Conv2d", [inp(E(1, 1, 3, 3), "float64"), inp(E(1, 1, 3, 3), "float64")], {"padding": 3, "padding_mode": "reflect"})
add("nn.Conv1d", [inp(E(1, 1, 3), "float64"), inp(E(1, 1, 3), "float64")], {"padding": 4, "padding_mode": "circular"})
for xs, ws, args in [
    ([2, 3, 4, 5], [3, 2, 3, 3], {}),
    ([2, 3, 4, 4], [3, 2, 3, 2], {"stride": 2, "padding": 1, "output_padding": 1}),
    ([2, 4, 4, 3], [4, 1, 3, 3], {"groups": 2, "dilation": [2, 1], "padding": [1, 0]}),
    ([3, 4, 4], [3, 2, 2, 2], {"stride": [2, 3], "output_padding": [1, 2]}),  # unbatched
]:
    conv_cases("nn.ConvTranspose2d", xs, ws, args, dtypes=("float32",))
    conv_cases("nn.ConvTranspose2d", xs, ws, args, bias=False, dtypes=())
for xs, ws, args in [
    ([2, 3, 5], [3, 2, 3], {"stride": 2, "output_padding": 1}),
    ([2, 4, 6], [4, 3, 2], {"groups": 2, "padding": 1, "dilation": 3}),
    ([3, 5], [3, 1, 4], {"stride": 3, "padding": 2}),  # unbatched
]:
    conv_cases("nn.ConvTranspose1d", xs, ws, args, dtypes=("float32",))
    conv_cases("nn.ConvTranspose1d", xs, ws, args, bias=False, dtypes=())

# padding='same' or 'valid' with each padding mode: "same" pads
# dilation*(k-1) in all, the odd one after (even kernels)
for mode in ("zeros", "reflect", "replicate", "circular"):
    for xs, ws, args in [
        ([2, 3, 5, 6], [4, 3, 3, 3], {}),
        ([2, 3, 6, 7], [4, 3, 2, 4], {}),
        ([1, 2, 7, 8], [3, 2, 3, 2], {"dilation": [2, 3]}),
        ([2, 4, 6, 6], [4, 2, 4, 3], {"groups": 2, "dilation": [1, 2]}),
    ]:
        conv_cases("nn.Conv2d", xs, ws, dict(args, padding="same", padding_mode=mode), dtypes=("float32",))
    conv_cases("nn.Conv2d", [2, 3, 5, 6], [4, 3, 2, 3], {"padding": "same", "padding_mode": mode}, bias=False, dtypes=())
    conv_cases("nn.Conv2d", [2, 3, 5, 6], [4, 3, 2, 3], {"padding": "valid", "padding_mode": mode}, dtypes=())
    for xs, ws, args in [([2, 3, 7], [4, 3, 4], {}), ([2, 3, 9], [2, 3, 3], {"dilation": 3}), ([1, 2, 6], [2, 2, 2], {"dilation": 2})]:
        conv_cases("nn.Conv1d", xs, ws, dict(args, padding="same", padding_mode=mode), dtypes=("float32",))
    if mode != "circular":  # (1.13's F.pad: no circular padding of unbatched inputs)
        conv_cases("nn.Conv1d", [3, 6], [2, 3, 4], {"padding": "same", "padding_mode": mode}, dtypes=())  # unbatched
    add("nn.Conv2d", [inp(E(1, 2, 6, 6), "float64"), inp(E(3, 2, 3, 3), "float64")],
        {"padding": "same", "padding_mode": mode, "stride": 2})
    add("nn.Conv2d", [inp(E(1, 2, 6, 6), "float64"), inp(E(3, 2, 3, 3), "float64")],
        {"padding": "same", "padding_mode": mode, "stride": [1, 2]})
    assert "error" in cases[-1]
# the input too small for the reflected 'same' padding (3 and 3 of 3)
add("nn.Conv2d", [inp(E(1, 1, 3, 5), "float64"), inp(E(1, 1, 7, 1), "float64")], {"padding": "same", "padding_mode": "reflect"})
assert "error" in cases[-1]

# forward(input, output_size): the output padding that reaches the size,
# PyTorch's errors for sizes out of reach or of the wrong length
for op, xs, ws, args, sizes in [
    ("nn.ConvTranspose2d", [2, 3, 5, 5], [3, 2, 3, 3], {"stride": 2},
     [[11, 11], [12, 12], [11, 12], [2, 2, 12, 11], [10, 11], [11, 13], [11], [1, 2, 3, 4, 5], [2, 2, 13, 11]]),
    ("nn.ConvTranspose2d", [2, 4, 4, 3], [4, 1, 3, 3],
     {"groups": 2, "stride": [3, 2], "padding": [1, 0], "dilation": [1, 2], "output_padding": [2, 1]},
     [[10, 9], [12, 10], [11, 9], [9, 9], [12, 11]]),
    ("nn.ConvTranspose2d", [3, 4, 4], [3, 2, 2, 2], {"stride": [2, 3]}, [[8, 12], [9, 14], [2, 9, 12], [10, 12], [2, 2, 9, 12]]),
    ("nn.ConvTranspose1d", [2, 3, 5], [3, 2, 3], {"stride": 2}, [[11], [12], [2, 2, 12], [13], [10], [11, 11]]),
    ("nn.ConvTranspose1d", [3, 5], [3, 1, 4], {"stride": 3, "padding": 2}, [[10], [12], [1, 12], [13], [2, 2, 12]]),
]:
    for size in sizes:
        conv_cases(op, xs, ws, dict(args, output_size=size), dtypes=("float32",))

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {os.path.relpath(OUT)}")
