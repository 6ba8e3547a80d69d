"""Golden data for the singular value decomposition: torch.linalg.svd,
torch.linalg.svdvals, torch.svd, and the norms made of singular values
(linalg.matrix_norm with ord 'nuc', 2 and -2, torch.norm with p='nuc').

Singular vectors are unique only up to the sign of each pair (u_i, v_i),
and PyTorch's come from LAPACK's gesdd while MindTorch's come from gonum's
gesvd, so the cases compare what does not depend on the signs: the
singular values, |U| and |Vh| restricted to the first k = min(m, n)
columns and rows (on inputs whose singular values are distinct and
nonzero), the Gram matrices U^T U and Vh Vh^T (orthonormality, and the
shapes of U and Vh on the meta device) and the reconstruction
U diag(S) Vh. Inputs: square, tall, wide, batched, transposed, sliced
with a step and expanded, in float32 and float64; rank-deficient, zero,
1x1 and empty matrices; PyTorch's errors (1-D, integer, bool, float16,
NaN) and its NaN singular values for infinite entries. Gradient cases
(float64, distinct singular values) carry PyTorch's backward pass of
output 0, which the runner also checks by finite differences.

Run with Debian's python3-torch (PyTorch 1.13):
    /usr/bin/python3 scripts/golden/svd.py
Writes testdata/svd.json (the format of scripts/golden/ops.py, read by
internal/conformance; the Go side of each op is internal/conformance/ops_svd.go).
"""
import json
import math
import os

import torch
from goldenio import enc

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "svd.json")
torch.manual_seed(0)
HALF = (torch.float16, torch.bfloat16)


def enc_tensor(t):
    vals = (t.float() if t.dtype in HALF else t).reshape(-1).tolist()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": [enc(v) for v in vals]}


def make_input(shape, dtype, views=(), values=None):
    """A base tensor of shape and dtype (standard normal values unless
    given), then views applied to it."""
    if values is None:
        values = torch.randn(math.prod(shape), dtype=torch.float64)
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


def layouts(shape, dtype):
    """A matrix operand of shape in four layouts: contiguous, a transposed
    view of the last two dims, a slice with step 2 of the last dim, and
    (batched shapes) a batch dim expanded from 1."""
    n = len(shape)
    tshape = list(shape)
    tshape[-1], tshape[-2] = tshape[-2], tshape[-1]
    wide = list(shape)
    wide[-1] *= 2
    out = [
        make_input(shape, dtype),
        make_input(tshape, dtype, [["transpose", n - 2, n - 1]]),
        make_input(wide, dtype, [["slice", n - 1, 0, wide[-1], 2]]),
    ]
    if n > 2:
        one = list(shape)
        one[0] = 1
        out.append(make_input(one, dtype, [["expand"] + list(shape)]))
    return out


cases = []


def add_case(op, inputs, args, fn, grad=False, check_grad_fn=True):
    ts = [t for t, _ in inputs]
    case = {"op": op, "inputs": [s for _, s in inputs], "args": args}
    try:
        out = fn(*ts)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        case["error"] = str(e).splitlines()[0]
        cases.append(case)
        return
    if not isinstance(out, (tuple, list)):
        out = [out]
    case["outs"] = [enc_tensor(o) for o in out]
    if grad:
        leaves = [t.detach().clone().requires_grad_(True) for t in ts]
        y = fn(*leaves)
        y = y[0] if isinstance(y, (tuple, list)) else y
        gout = torch.randn(y.shape, dtype=torch.float64)
        y.backward(gout)
        case["grad"] = {"out": enc_tensor(gout), "inputs": [enc_tensor(t.grad) for t in leaves],
                        "grad_fn": type(y.grad_fn).__name__ if check_grad_fn else ""}
    cases.append(case)


def k_of(t):
    return min(t.shape[-2], t.shape[-1])


def svd_outputs(U, S, Vh):
    """The sign-invariant outputs of a decomposition: S, |U| and |Vh| over
    the first k columns and rows, and the Gram matrices of U and Vh."""
    k = S.shape[-1]
    return [S, U[..., :, :k].abs(), Vh[..., :k, :].abs(), U.mT @ U, Vh @ Vh.mT]


def svd_case(x, full, grad=False):
    add_case("linalg_svd", [x], {"full_matrices": full},
             lambda t: svd_outputs(*torch.linalg.svd(t, full_matrices=full)), grad)


def gram_case(x, full):
    """Only what holds without distinct singular values: S, the Gram
    matrices and the reconstruction."""
    def fn(t):
        U, S, Vh = torch.linalg.svd(t, full_matrices=full)
        k = S.shape[-1]
        return [S, U.mT @ U, Vh @ Vh.mT, (U[..., :, :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]]
    add_case("linalg_svd_gram", [x], {"full_matrices": full}, fn)


def raw_case(x, full):
    """U, S and Vh themselves: for empty inputs, whose U and Vh are
    identities or empty."""
    add_case("linalg_svd_raw", [x], {"full_matrices": full}, lambda t: torch.linalg.svd(t, full_matrices=full))


def svdvals_case(x, grad=False):
    add_case("svdvals", [x], {}, torch.linalg.svdvals, grad)


def legacy_case(x, some, compute_uv):
    def fn(t):
        U, S, V = torch.svd(t, some=some, compute_uv=compute_uv)
        if not compute_uv:
            return [S, U, V]
        k = S.shape[-1]
        return [S, U[..., :, :k].abs(), V[..., :, :k].abs(), U.mT @ U, V.mT @ V]
    add_case("svd", [x], {"some": some, "compute_uv": compute_uv}, fn)


# ---- values ----
SHAPES = [[3, 3], [5, 3], [3, 5], [2, 4, 3], [2, 3, 4], [2, 2, 3, 3]]
for d in ["float32", "float64"]:
    for shape in SHAPES:
        for x in layouts(shape, d):
            svdvals_case(x)
            svd_case(x, False)
            svd_case(x, True)
            gram_case(x, True)
    for shape in [[1, 1], [2, 1, 1], [1, 4], [4, 1], [6, 6]]:
        x = make_input(shape, d)
        svdvals_case(x)
        svd_case(x, True)
        svd_case(x, False)
    for shape in [[0, 3], [3, 0], [0, 0], [2, 0, 3], [0, 2, 3], [2, 3, 0]]:
        x = make_input(shape, d)
        svdvals_case(x)
        svd_case(x, True)
        svd_case(x, False)
        raw_case(x, True)
        raw_case(x, False)
    # Rank-deficient matrices: the vectors of the zero singular values
    # are not unique, the values, Gram matrices and reconstruction are.
    a = torch.randn(4, 1, dtype=torch.float64) @ torch.randn(1, 3, dtype=torch.float64)
    b = torch.randn(4, 2, dtype=torch.float64) @ torch.randn(2, 4, dtype=torch.float64)
    c = torch.randn(2, 5, dtype=torch.float64) @ torch.randn(5, 2, dtype=torch.float64) @ torch.randn(2, 6, dtype=torch.float64)
    for vals, shape in [(a, [4, 3]), (a.T.contiguous(), [3, 4]), (b, [4, 4]), (c, [2, 6]),
                        (torch.zeros(3, 3), [3, 3]), (torch.eye(3), [3, 3]), (torch.ones(2, 3, 3), [2, 3, 3])]:
        x = make_input(shape, d, values=vals.reshape(-1))
        svdvals_case(x)
        gram_case(x, False)
        gram_case(x, True)
    for some in [True, False]:
        for shape in [[4, 3], [3, 4], [2, 3, 3]]:
            legacy_case(make_input(shape, d), some, True)
        legacy_case(make_input([4, 3], d), some, False)
        legacy_case(make_input([0, 3], d), some, True)

# Non-finite entries: PyTorch 1.13 fails on NaN and gives NaN singular
# values for infinities.
for d in ["float32", "float64"]:
    for v, shape in [(float("nan"), [3, 3]), (float("nan"), [2, 2, 2])]:
        vals = torch.randn(math.prod(shape), dtype=torch.float64)
        vals[-1] = v
        svdvals_case(make_input(shape, d, values=vals))
        svd_case(make_input(shape, d, values=vals), False)
    for v, shape in [(float("inf"), [3, 2]), (float("-inf"), [2, 3]), (float("inf"), [2, 2, 2])]:
        vals = torch.randn(math.prod(shape), dtype=torch.float64)
        vals[-1] = v
        svdvals_case(make_input(shape, d, values=vals))

# ---- errors ----
for shape, d in [([3], "float32"), ([], "float64"), ([3, 3], "int64"), ([3, 3], "int32"), ([3, 3], "bool"),
                 ([3, 3], "float16"), ([2, 3], "bfloat16")]:
    x = make_input(shape, d, values=torch.arange(math.prod(shape)) % 2)
    svdvals_case(x)
    svd_case(x, False)
    svd_case(x, True)
    legacy_case(x, True, True)
# float16 and bfloat16 without elements: PyTorch answers before it looks
# at the dtype.
for shape in [[0, 3], [3, 0]]:
    x = make_input(shape, "float16")
    svdvals_case(x)
    raw_case(x, True)
    raw_case(x, False)

# ---- norms ----


def matrix_norm_case(x, ord, dims, keepdim, grad=False):
    o = enc(float(ord)) if not isinstance(ord, str) else ord
    add_case("matrix_norm", [x], {"ord": o, "dims": dims, "keepdim": keepdim},
             lambda t: torch.linalg.matrix_norm(t, ord, dims, keepdim), grad)


def norm_nuc_case(x, dims, keepdim):
    args = {"keepdim": keepdim}
    if dims is not None:
        args["dims"] = dims
    add_case("norm_nuc", [x], args,
             lambda t: torch.norm(t, "nuc", keepdim=keepdim) if dims is None else torch.norm(t, "nuc", dims, keepdim))


for d in ["float32", "float64"]:
    for ord in ["nuc", 2, -2]:
        for x in layouts([3, 4], d):
            matrix_norm_case(x, ord, [-2, -1], False)
            matrix_norm_case(x, ord, [1, 0], True)
        for x in layouts([2, 3, 4], d):
            matrix_norm_case(x, ord, [0, 2], False)
            matrix_norm_case(x, ord, [2, 0], True)
        matrix_norm_case(make_input([0, 3], d), ord, [-2, -1], False)
        matrix_norm_case(make_input([2, 0, 3], d), ord, [-2, -1], True)
        matrix_norm_case(make_input([1, 1], d), ord, [0, 1], False)
    for x in layouts([3, 4], d):
        norm_nuc_case(x, None, False)
        norm_nuc_case(x, None, True)
    norm_nuc_case(make_input([2, 3, 4], d), [0, 2], False)
    norm_nuc_case(make_input([2, 3, 4], d), [-1, 1], True)
for ord in ["nuc", 2, -2]:
    for d in ["float16", "bfloat16", "int64"]:
        matrix_norm_case(make_input([3, 3], d, values=torch.arange(9) % 4), ord, [-2, -1], False)
    matrix_norm_case(make_input([3], "float32"), ord, [-2, -1], False)
    matrix_norm_case(make_input([3, 3], "float32"), ord, [0, 0], False)
for shape, dims in [([2, 3, 4], None), ([3], None), ([2, 3, 4], [1]), ([2, 3, 4], [0, 1, 2]), ([2, 3, 4], [1, 1]),
                    ([2, 3, 4], [1, 3])]:
    norm_nuc_case(make_input(shape, "float32"), dims, False)
for d in ["int64", "float16"]:
    norm_nuc_case(make_input([2, 3], d, values=torch.arange(6)), None, False)

# ---- gradients (float64, distinct singular values) ----
for shape in [[3, 3], [5, 3], [3, 5], [2, 4, 3]]:
    svdvals_case(make_input(shape, "float64"), grad=True)
    svd_case(make_input(shape, "float64"), False, grad=True)
    for ord in ["nuc", 2, -2]:
        matrix_norm_case(make_input(shape, "float64"), ord, [-2, -1], False, grad=True)
    matrix_norm_case(make_input(shape, "float64"), 2, [-1, -2], True, grad=True)


def abs_u_case(x, full):
    def fn(t):
        U, S, Vh = torch.linalg.svd(t, full_matrices=full)
        return U[..., :, :S.shape[-1]].abs()
    add_case("svd_abs_u", [x], {"full_matrices": full}, fn, grad=True)


def abs_vh_case(x, full):
    def fn(t):
        U, S, Vh = torch.linalg.svd(t, full_matrices=full)
        return Vh[..., :S.shape[-1], :].abs()
    add_case("svd_abs_vh", [x], {"full_matrices": full}, fn, grad=True)


def recon_case(x, full):
    def fn(t):
        U, S, Vh = torch.linalg.svd(t, full_matrices=full)
        k = S.shape[-1]
        return (U[..., :, :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
    # Not its grad_fn: MindTorch's batched matmul ends in a view where
    # PyTorch's ends in an unsafe view; the gradient is the point.
    add_case("svd_reconstruct", [x], {"full_matrices": full}, fn, grad=True, check_grad_fn=False)


for shape in [[3, 3], [5, 3], [3, 5], [2, 4, 3], [2, 3, 4]]:
    for full in [False, True]:
        abs_u_case(make_input(shape, "float64"), full)
        abs_vh_case(make_input(shape, "float64"), full)
        recon_case(make_input(shape, "float64"), full)

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {os.path.relpath(OUT)}")
