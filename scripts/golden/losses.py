"""Golden data for the losses of pkg/nn/loss_more.go: F.kl_div,
cosine_embedding_loss, margin_ranking_loss, triplet_margin_loss,
hinge_embedding_loss, poisson_nll_loss, gaussian_nll_loss,
multilabel_soft_margin_loss, multi_margin_loss, soft_margin_loss and
ctc_loss (pkg/nn/ctc.go).

For each loss: every reduction, every option, batched and unbatched
inputs, broadcasting where PyTorch allows it, transposed and expanded
views, float32 and float64, edge values (zero targets, margins met
exactly, empty batches: the mean of nothing is NaN) and PyTorch's errors.
Gradient cases (float64, away from the kinks) carry PyTorch's backward
pass of the loss for the inputs PyTorch differentiates, which the runner
also checks by finite differences.

A case's args are the loss's keyword arguments; a loss with a weight
takes it as its last input. Run with Debian's python3-torch (PyTorch 1.13):
    /usr/bin/python3 scripts/golden/losses.py
Writes testdata/losses.json (the format of scripts/golden/ops.py, read by
internal/conformance; the Go side of each op is internal/conformance/ops_losses.go).
"""
import json
import math
import os
import warnings

import torch
import torch.nn.functional as F
from goldenio import enc

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "losses.json")
torch.manual_seed(0)
warnings.simplefilter("ignore")  # kl_div's warning about reduction="mean"

# op: (function, number of inputs before an optional weight, whether
# PyTorch's grad_fn names match MindTorch's composition). Where they do not
# the gradients are still compared: soft_margin_loss and multi_margin_loss
# are one kernel in PyTorch (SoftMarginLossBackward0, ...), and clamp_min
# (margin_ranking, triplet_margin) is ClampBackward1 in MindTorch.
LOSSES = {
    "kl_div": (F.kl_div, 2, True),
    "cosine_embedding_loss": (F.cosine_embedding_loss, 3, True),
    "margin_ranking_loss": (F.margin_ranking_loss, 3, False),
    "triplet_margin_loss": (F.triplet_margin_loss, 3, False),
    "hinge_embedding_loss": (F.hinge_embedding_loss, 2, True),
    "poisson_nll_loss": (F.poisson_nll_loss, 2, True),
    "gaussian_nll_loss": (F.gaussian_nll_loss, 3, True),
    "multilabel_soft_margin_loss": (F.multilabel_soft_margin_loss, 2, True),
    "multi_margin_loss": (F.multi_margin_loss, 2, False),
    "soft_margin_loss": (F.soft_margin_loss, 2, False),
    "ctc_loss": (F.ctc_loss, 2, False),
    # ctc_loss of logits through log_softmax: there PyTorch's gradient is
    # the derivative, which the runner checks by finite differences.
    "ctc_loss_logits": (lambda x, y, **kw: F.ctc_loss(x.log_softmax(-1), y, **kw), 2, False),
}
REDUCTIONS = ["none", "mean", "sum"]
FLOATS = ["float32", "float64"]


def enc_tensor(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "data": [enc(v) for v in t.reshape(-1).tolist()]}


def apply_view(t, v):
    name, args = v[0], v[1:]
    if name == "transpose":
        return t.transpose(*args)
    if name == "expand":
        return t.expand(*args)
    raise ValueError(name)


def inp(values, dtype, views=()):
    """An input: a base tensor of values (a tensor or nested lists) in
    dtype, then views applied to it."""
    base = torch.as_tensor(values).to(getattr(torch, dtype))
    t = base
    for v in views:
        t = apply_view(t, v)
    return t, {"shape": list(base.shape), "dtype": dtype, "views": [list(v) for v in views],
               "data": [enc(x) for x in base.reshape(-1).tolist()]}


cases = []


def add(op, inputs, args, grad=None, gradcheck=True):
    """A case of loss op; grad lists which inputs get gradients (a grad
    case needs float64 inputs away from the loss's kinks). gradcheck False
    marks a gradient that is not the derivative (ctc_loss's of
    log-probabilities), which the runner then does not check by finite
    differences."""
    fn, n, same_grad_fn = LOSSES[op]

    def call(ts):
        kw = dict(args)
        if len(ts) > n:
            kw["weight"] = ts[n]
        return fn(*ts[:n], **kw)

    ts = [t for t, _ in inputs]
    case = {"op": op, "inputs": [s for _, s in inputs], "args": {k: enc(v) for k, v in args.items()}}
    try:
        out = call(ts)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        case["error"] = str(e).splitlines()[0]
        cases.append(case)
        return
    case["outs"] = [enc_tensor(out)]
    if grad:
        leaves = [t.detach().clone().requires_grad_(g) for t, g in zip(ts, grad + [False] * len(ts))]
        y = call(leaves)
        gout = torch.randn(y.shape, dtype=torch.float64)
        y.backward(gout)
        case["grad"] = {"out": enc_tensor(gout),
                        "inputs": [enc_tensor(t.grad) if g else None for t, g in zip(leaves, grad)],
                        "grad_fn": type(y.grad_fn).__name__ if same_grad_fn else ""}
        if not gradcheck:
            case["grad"]["no_gradcheck"] = True
    cases.append(case)


def randn(*shape):
    return torch.randn(shape, dtype=torch.float64)


def signs(*shape):
    return torch.randint(0, 2, shape).double() * 2 - 1


def every(op, make, options, grad, reductions=REDUCTIONS):
    """Cases of op for every dtype, reduction and option set: make() gives
    the inputs' values (float64 tensors, int64 class targets)."""
    for opts in options:
        for red in reductions:
            vals = make()
            for d in FLOATS:
                add(op, [inp(v, d if v.is_floating_point() else "int64") for v in vals], dict(opts, reduction=red))
            add(op, [inp(v, "float64" if v.is_floating_point() else "int64") for v in vals], dict(opts, reduction=red), grad)


def errors(op, inputs, args):
    add(op, [inp(v, d) for v, d in inputs], args)
    assert "error" in cases[-1], (op, args, cases[-1])


# ---- kl_div ----
def kl_make(shape=(3, 4), log_target=False):
    def make():
        x = randn(*shape).log_softmax(-1)
        y = randn(*shape).log_softmax(-1)
        return [x, y if log_target else y.exp()]
    return make


every("kl_div", kl_make(), [{}], [True, True], REDUCTIONS + ["batchmean"])
every("kl_div", kl_make(log_target=True), [{"log_target": True}], [True, True], REDUCTIONS + ["batchmean"])
every("kl_div", kl_make((5,)), [{}, {"log_target": True}], [True, True], ["none", "batchmean"])
every("kl_div", kl_make((2, 3, 4)), [{}], [True, True], ["mean", "batchmean"])
for red in REDUCTIONS + ["batchmean"]:
    x = randn(3, 4).log_softmax(-1)
    # zero targets: 0 log 0 is 0 (no gradient case: the target's gradient is NaN there)
    add("kl_div", [inp(x, "float64"), inp([[0.0, 0.5, 0.5, 0.0], [1, 0, 0, 0], [0.25, 0.25, 0.25, 0.25]], "float64")], {"reduction": red})
    add("kl_div", [inp(x, "float32"), inp(randn(4).softmax(0), "float32")], {"reduction": red}, )  # target broadcast
    add("kl_div", [inp(randn(4).log_softmax(0), "float64"), inp(randn(3, 4).softmax(1), "float64")], {"reduction": red}, [True, True])
    add("kl_div", [inp(randn(4, 3), "float64", [["transpose", 0, 1]]), inp(randn(3, 1).exp(), "float64", [["expand", 3, 4]])],
        {"reduction": red}, [True, False])
    add("kl_div", [inp(torch.zeros(0, 3), "float32"), inp(torch.zeros(0, 3), "float32")], {"reduction": red})
    add("kl_div", [inp(-1.5, "float64"), inp(0.3, "float64")], {"reduction": red}, [True, True])
add("kl_div", [inp(randn(3, 4), "float32"), inp(randn(3, 4).exp(), "float64")], {})  # promotion
errors("kl_div", [(torch.ones(3, 4), "int64"), (torch.ones(3, 4), "float32")], {})
errors("kl_div", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "int32")], {})
errors("kl_div", [(torch.ones(3, 4), "float32"), (torch.ones(2, 4), "float32")], {"reduction": "batchmean"})
errors("kl_div", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32")], {"reduction": "foo"})


# ---- cosine_embedding_loss ----
def cos_make(n=4, d=3, unbatched=False):
    def make():
        if unbatched:
            return [randn(d), randn(d), torch.tensor(float(signs(1)[0]), dtype=torch.float64)]
        return [randn(n, d), randn(n, d), signs(n)]
    return make


every("cosine_embedding_loss", cos_make(), [{}, {"margin": 0.5}, {"margin": -0.3}], [True, True, False])
every("cosine_embedding_loss", cos_make(unbatched=True), [{}, {"margin": 0.2}], [True, True, False])
for red in REDUCTIONS:
    # targets other than 1 and -1 add nothing; cos - margin = 0 exactly
    add("cosine_embedding_loss", [inp([[1.0, 0.0], [1, 1], [0, 1], [3, 4]], "float64"), inp([[0.0, 1.0], [1, 1], [0, 2], [3, 4]], "float64"),
                                  inp([-1.0, 0.0, 2.0, 1.0], "float64")], {"reduction": red})
    add("cosine_embedding_loss", [inp([[1.0, 0.0], [0.6, 0.8]], "float64"), inp([[0.6, 0.8], [0.6, 0.8]], "float64"),
                                  inp([-1.0, -1.0], "float64")], {"reduction": red, "margin": 0.6})
    add("cosine_embedding_loss", [inp(randn(4, 3), "float64"), inp(randn(1, 3), "float64"), inp(signs(4), "float64")],
        {"reduction": red}, [True, True, False])  # x2 broadcast
    add("cosine_embedding_loss", [inp(randn(3, 4), "float64", [["transpose", 0, 1]]), inp(randn(4, 3), "float64"),
                                  inp(signs(1), "float64", [["expand", 4]])], {"reduction": red}, [True, True, False])
    add("cosine_embedding_loss", [inp(torch.zeros(0, 3), "float32"), inp(torch.zeros(0, 3), "float32"), inp(torch.zeros(0), "float32")],
        {"reduction": red})
    add("cosine_embedding_loss", [inp([[1, 2], [3, 4]], "int64"), inp([[2, 1], [-1, 0]], "int64"), inp([1, -1], "int64")], {"reduction": red})
add("cosine_embedding_loss", [inp(randn(4, 3), "float32"), inp(randn(4, 3), "float64"), inp(signs(4), "float32")], {})
errors("cosine_embedding_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.ones(3, 1), "float32")], {})
errors("cosine_embedding_loss", [(torch.ones(4), "float32"), (torch.ones(4), "float32"), (torch.ones(3), "float32")], {})
errors("cosine_embedding_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.tensor(1.0), "float32")], {})
errors("cosine_embedding_loss", [(torch.ones(3, 4), "float32"), (torch.ones(2, 4), "float32"), (torch.ones(3), "float32")], {})
errors("cosine_embedding_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.ones(3), "float32")], {"reduction": "batchmean"})


# ---- margin_ranking_loss ----
def mr_make(shape=(5,)):
    return lambda: [randn(*shape), randn(*shape), signs(*shape)]


every("margin_ranking_loss", mr_make(), [{}, {"margin": 0.5}, {"margin": -0.2}], [True, True, False])
every("margin_ranking_loss", mr_make((2, 3)), [{"margin": 0.1}], [True, True, False])
every("margin_ranking_loss", mr_make(()), [{}], [True, True, False])
for red in REDUCTIONS:
    # -target (x1 - x2) + margin = 0 exactly: no loss (gradients in pkg/nn's tests)
    add("margin_ranking_loss", [inp([1.0, 0.5, 2.0], "float64"), inp([0.5, 1.0, 2.0], "float64"), inp([1.0, -1.0, 1.0], "float64")],
        {"reduction": red, "margin": 0.5})
    add("margin_ranking_loss", [inp(randn(3, 4), "float64"), inp(randn(1, 4), "float64"), inp(signs(3, 1), "float64")],
        {"reduction": red, "margin": 0.3}, [True, True, False])  # broadcast
    add("margin_ranking_loss", [inp(torch.zeros(0), "float32"), inp(torch.zeros(0), "float32"), inp(torch.zeros(0), "float32")], {"reduction": red})
    add("margin_ranking_loss", [inp([3, 1], "int64"), inp([1, 3], "int64"), inp([1, 1], "int64")], {"reduction": red, "margin": 0.5})
errors("margin_ranking_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.ones(3), "float32")], {})
errors("margin_ranking_loss", [(torch.ones(3), "float32"), (torch.ones(2), "float32"), (torch.ones(3), "float32")], {})


# ---- triplet_margin_loss ----
def tm_make(shape=(4, 3)):
    return lambda: [randn(*shape), randn(*shape), randn(*shape)]


TM_OPTS = [{}, {"margin": 0.5}, {"p": 1.0}, {"p": 3.0}, {"p": 1.5}, {"p": float("inf")}, {"eps": 0.01}, {"swap": True},
           {"margin": 2.0, "p": 1.0, "swap": True}]
every("triplet_margin_loss", tm_make(), TM_OPTS, [True, True, True])
every("triplet_margin_loss", tm_make((3,)), [{}, {"swap": True}], [True, True, True])
every("triplet_margin_loss", tm_make((2, 3, 4)), [{}], [True, True, True])
for red in REDUCTIONS:
    add("triplet_margin_loss", [inp(randn(3, 4), "float64"), inp(randn(1, 4), "float64"), inp(randn(3, 1), "float64", [["expand", 3, 4]])],
        {"reduction": red}, [True, True, False])
    add("triplet_margin_loss", [inp(randn(4, 3), "float64", [["transpose", 0, 1]]), inp(randn(3, 4), "float64"), inp(randn(3, 4), "float64")],
        {"reduction": red, "swap": True}, [True, True, True])
    add("triplet_margin_loss", [inp(torch.zeros(0, 3), "float32")] * 3, {"reduction": red})
    add("triplet_margin_loss", [inp(torch.zeros(2, 0), "float32")] * 3, {"reduction": red})
    add("triplet_margin_loss", [inp(0.5, "float64"), inp(-1.0, "float64"), inp(2.0, "float64")], {"reduction": red})
    add("triplet_margin_loss", [inp([[1, 2], [3, 4]], "int64"), inp([[1, 2], [0, 4]], "int64"), inp([[2, 2], [3, 4]], "int64")], {"reduction": red})
    add("triplet_margin_loss", [inp(randn(3, 4), "float64"), inp(randn(3, 4), "float64"), inp(randn(3, 4), "float64")],
        {"reduction": red, "p": 0.0})
add("triplet_margin_loss", [inp(randn(3, 4), "float32"), inp(randn(3, 4), "float64"), inp(randn(3, 4), "float32")], {})
errors("triplet_margin_loss", [(torch.ones(3, 4), "float32"), (torch.ones(4), "float32"), (torch.ones(3, 4), "float32")], {})
errors("triplet_margin_loss", [(torch.ones(3, 4), "float32"), (torch.ones(2, 4), "float32"), (torch.ones(3, 4), "float32")], {})


# ---- hinge_embedding_loss ----
def he_make(shape=(3, 4)):
    return lambda: [randn(*shape), signs(*shape)]


every("hinge_embedding_loss", he_make(), [{}, {"margin": 0.5}, {"margin": 2.0}], [True, False])
every("hinge_embedding_loss", he_make((5,)), [{}], [True, False])
every("hinge_embedding_loss", he_make(()), [{}], [True, False])
for red in REDUCTIONS:
    # margin - input = 0 exactly; targets other than +-1 add both terms
    add("hinge_embedding_loss", [inp([1.0, 0.5, -2.0, 3.0], "float64"), inp([-1.0, -1.0, 0.0, 2.0], "float64")], {"reduction": red})
    add("hinge_embedding_loss", [inp(randn(3, 4), "float64"), inp(signs(4), "float64")], {"reduction": red}, [True, False])
    add("hinge_embedding_loss", [inp(randn(4), "float64"), inp(signs(3, 4), "float64")], {"reduction": red}, [True, False])
    add("hinge_embedding_loss", [inp(randn(4, 3), "float64", [["transpose", 0, 1]]), inp(signs(3, 1), "int64", [["expand", 3, 4]])],
        {"reduction": red}, [True, False])
    add("hinge_embedding_loss", [inp(torch.zeros(0), "float32"), inp(torch.zeros(0), "float32")], {"reduction": red})
    add("hinge_embedding_loss", [inp(randn(3, 4), "float32"), inp(signs(3, 4), "float64")], {"reduction": red})
for red in ["none", "sum", "mean"]:
    add("hinge_embedding_loss", [inp([-2, 0, 3, 1], "int64"), inp([-1.0, -1.0, 1.0, -1.0], "float32")], {"reduction": red, "margin": 1.5})
errors("hinge_embedding_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 2), "float32")], {})


# ---- poisson_nll_loss ----
def pn_make(shape=(3, 4), log_input=True):
    def make():
        x = randn(*shape) if log_input else torch.rand(*shape, dtype=torch.float64) * 3 + 0.1
        y = torch.poisson(torch.full(shape, 2.0, dtype=torch.float64))
        return [x, y]
    return make


def pn_grad_make(shape=(3, 4), log_input=True):
    def make():  # targets away from 0 and 1 (the Stirling term's edges)
        x = randn(*shape) if log_input else torch.rand(*shape, dtype=torch.float64) * 3 + 0.1
        return [x, torch.rand(*shape, dtype=torch.float64) * 4 + 1.2]
    return make


PN_OPTS = [{}, {"full": True}, {"log_input": False}, {"log_input": False, "full": True}, {"log_input": False, "eps": 0.1}]
for opts in PN_OPTS:
    li = opts.get("log_input", True)
    for red in REDUCTIONS:
        vals = pn_make(log_input=li)()
        for d in FLOATS:
            add("poisson_nll_loss", [inp(v, d) for v in vals], dict(opts, reduction=red))
        add("poisson_nll_loss", [inp(v, "float64") for v in pn_grad_make(log_input=li)()], dict(opts, reduction=red), [True, True])
        add("poisson_nll_loss", [inp(v, "float64") for v in pn_make((5,), li)()], dict(opts, reduction=red))
        add("poisson_nll_loss", [inp(randn(3, 4).abs(), "float64"), inp([0.0, 1.0, 2.0, 5.0], "float64")], dict(opts, reduction=red))
        add("poisson_nll_loss", [inp(torch.zeros(0, 2), "float32"), inp(torch.zeros(0, 2), "float32")], dict(opts, reduction=red))
add("poisson_nll_loss", [inp(randn(4), "float64"), inp(torch.rand(3, 4) * 3 + 1.2, "float64")], {"full": True}, [True, True])
add("poisson_nll_loss", [inp(randn(4, 3), "float64", [["transpose", 0, 1]]), inp([[2.0], [3.0], [1.5]], "float64", [["expand", 3, 4]])],
    {"reduction": "none"}, [True, False])
add("poisson_nll_loss", [inp([[1, 2], [0, 3]], "int64"), inp([[0, 2], [4, 1]], "int64")], {"reduction": "none", "full": True})
add("poisson_nll_loss", [inp(randn(3, 4), "float32"), inp(torch.ones(3, 4), "float64")], {})
errors("poisson_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(2, 4), "float32")], {})
errors("poisson_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32")], {"reduction": "batchmean"})


# ---- gaussian_nll_loss ----
def gn_make(shape=(3, 4), var_shape=None):
    var_shape = shape if var_shape is None else var_shape
    return lambda: [randn(*shape), randn(*shape), torch.rand(var_shape, dtype=torch.float64) + 0.1]


every("gaussian_nll_loss", gn_make(), [{}, {"full": True}], [True, True, True])
# Variances below eps are clamped, and the gradient flows as if they were
# not: no gradient to check by finite differences (pkg/nn's tests compare
# it with PyTorch's).
every("gaussian_nll_loss", gn_make(), [{"eps": 0.5}], None)
every("gaussian_nll_loss", gn_make((3, 4), (3,)), [{}], [True, True, True])
every("gaussian_nll_loss", gn_make((3, 4), (3, 1)), [{"full": True}], [True, True, True])
every("gaussian_nll_loss", gn_make((2, 3, 4), (2, 3)), [{}], [True, True, True])
every("gaussian_nll_loss", gn_make((4,), ()), [{}], [True, True, True])
every("gaussian_nll_loss", gn_make((4,), (1,)), [{}], [True, True, True])
every("gaussian_nll_loss", gn_make((), ()), [{}], [True, True, True])
for red in REDUCTIONS:
    add("gaussian_nll_loss", [inp(randn(2, 3), "float64"), inp(randn(2, 3), "float64"),
                              inp([[0.0, 1e-9, 0.3], [2.0, 0.05, 1e-6]], "float64")], {"reduction": red, "eps": 0.01})
    add("gaussian_nll_loss", [inp(randn(3, 4), "float64"), inp(randn(4), "float64"), inp(torch.rand(3, 4) + 0.2, "float64")],
        {"reduction": red}, [True, True, True])  # target broadcast
    add("gaussian_nll_loss", [inp(randn(4), "float64"), inp(randn(3, 4), "float64"), inp(torch.rand(4) + 0.2, "float64")],
        {"reduction": red}, [True, True, True])
    add("gaussian_nll_loss", [inp(randn(4, 3), "float64", [["transpose", 0, 1]]), inp(randn(3, 4), "float64"),
                              inp(torch.rand(3, 1) + 0.2, "float64", [["expand", 3, 4]])], {"reduction": red}, [True, True, False])
    add("gaussian_nll_loss", [inp(torch.zeros(0, 2), "float32"), inp(torch.zeros(0, 2), "float32"), inp(torch.zeros(0), "float32")], {"reduction": red})
    add("gaussian_nll_loss", [inp(randn(2, 2), "float32"), inp(randn(2, 2), "float32"), inp([[1.0, float("nan")], [1, 1]], "float32")], {"reduction": red})
add("gaussian_nll_loss", [inp(randn(3, 4), "float32"), inp(randn(3, 4), "float64"), inp(torch.ones(3, 4), "float32")], {"reduction": "none"})
add("gaussian_nll_loss", [inp([[1, 2]], "int64"), inp([[0, 3]], "int64"), inp([[0.5, 2.0]], "float32")], {"reduction": "none"})
errors("gaussian_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.ones(4), "float32")], {})
errors("gaussian_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.tensor(1.0), "float32")], {})
errors("gaussian_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.ones(3, 2), "float32")], {})
errors("gaussian_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.ones(3, 4, 1), "float32")], {})
errors("gaussian_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (-torch.ones(3, 4), "float32")], {})
errors("gaussian_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.ones(3, 4), "int64")], {})
errors("gaussian_nll_loss", [(torch.ones(3, 4), "float32"), (torch.ones(2, 4), "float32"), (torch.ones(3, 4), "float32")], {})


# ---- multilabel_soft_margin_loss ----
def ml_make(shape=(3, 4), weight=None):
    def make():
        vals = [randn(*shape), torch.randint(0, 2, shape).double()]
        if weight is not None:
            vals.append(torch.rand(*weight, dtype=torch.float64) + 0.5)
        return vals
    return make


every("multilabel_soft_margin_loss", ml_make(), [{}], [True, True])
every("multilabel_soft_margin_loss", ml_make(weight=(4,)), [{}], [True, True, False])
every("multilabel_soft_margin_loss", ml_make((5,)), [{}], [True, True])
every("multilabel_soft_margin_loss", ml_make((2, 3, 4), (4,)), [{}], [True, True, False])
for red in REDUCTIONS:
    add("multilabel_soft_margin_loss", [inp(randn(3, 4), "float64"), inp(torch.rand(3, 4), "float64"), inp(torch.rand(3, 1) + 0.5, "float64")],
        {"reduction": red}, [True, True, False])  # soft targets, a weight per sample
    add("multilabel_soft_margin_loss", [inp(randn(4, 3), "float64", [["transpose", 0, 1]]), inp([0.0, 1.0, 1.0, 0.0], "float64")],
        {"reduction": red}, [True, True])
    add("multilabel_soft_margin_loss", [inp(torch.zeros(0, 3), "float32"), inp(torch.zeros(0, 3), "float32")], {"reduction": red})
    add("multilabel_soft_margin_loss", [inp(torch.zeros(2, 0), "float32"), inp(torch.zeros(2, 0), "float32")], {"reduction": red})
    add("multilabel_soft_margin_loss", [inp([[0.0, 80.0, -80.0]], "float32"), inp([[1.0, 0.0, 1.0]], "float32")], {"reduction": red})
    add("multilabel_soft_margin_loss", [inp(randn(3, 4), "float32"), inp([[1, 0, 0, 1]] * 3, "int64")], {"reduction": red})
errors("multilabel_soft_margin_loss", [(torch.tensor(1.0), "float32"), (torch.tensor(1.0), "float32")], {})
errors("multilabel_soft_margin_loss", [(torch.ones(3, 4), "int64"), (torch.ones(3, 4), "int64")], {})
errors("multilabel_soft_margin_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "bool")], {})
errors("multilabel_soft_margin_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32"), (torch.ones(3), "float32")], {})
errors("multilabel_soft_margin_loss", [(torch.ones(3, 4), "float32"), (torch.ones(3, 4), "float32")], {"reduction": "foo"})


# ---- multi_margin_loss ----
def mm_make(n=4, c=5, weight=False, unbatched=None):
    def make():
        if unbatched == "0d":
            vals = [randn(c), torch.randint(0, c, ())]
        elif unbatched == "1d":
            vals = [randn(c), torch.randint(0, c, (1,))]
        else:
            vals = [randn(n, c), torch.randint(0, c, (n,))]
        if weight:
            vals.append(torch.rand(c, dtype=torch.float64) + 0.5)
        return vals
    return make


MM_OPTS = [{}, {"p": 2}, {"margin": 0.5}, {"margin": 2.0, "p": 2}]
every("multi_margin_loss", mm_make(), MM_OPTS, [True, False])
every("multi_margin_loss", mm_make(weight=True), [{}, {"p": 2}], [True, False, False])
every("multi_margin_loss", mm_make(unbatched="0d"), [{}], [True, False])
every("multi_margin_loss", mm_make(unbatched="1d"), [{"p": 2}], [True, False])
for red in REDUCTIONS:
    # margin - x[y] + x[j] = 0 exactly for some j: no loss there
    add("multi_margin_loss", [inp([[1.0, 0.0, 0.5], [0.0, 2.0, 1.0]], "float64"), inp([0, 1], "int64")], {"reduction": red})
    add("multi_margin_loss", [inp(randn(5, 4), "float64", [["transpose", 0, 1]]), inp([0, 4, 2, 1], "int64")], {"reduction": red}, [True, False])
    add("multi_margin_loss", [inp(1.5, "float32"), inp(0, "int64")], {"reduction": red})
    add("multi_margin_loss", [inp([2.5], "float64"), inp([0], "int64")], {"reduction": red})
    add("multi_margin_loss", [inp(randn(1, 3), "float64"), inp(2, "int64")], {"reduction": red}, [True, False])
add("multi_margin_loss", [inp(torch.zeros(0, 4), "float32"), inp(torch.zeros(0), "int64")], {"reduction": "none"})
# 1.13 returns uninitialized memory for an empty batch's mean and sum:
# pkg/nn's tests check NaN and 0.
X, Y = torch.ones(3, 4), torch.tensor([0, 1, 2])
errors("multi_margin_loss", [(X, "float32"), (Y, "int64")], {"p": 3})
errors("multi_margin_loss", [(X, "float32"), (Y, "int64"), (torch.ones(1, 4), "float32")], {})
errors("multi_margin_loss", [(X, "float32"), (Y, "int64"), (torch.tensor(1.0), "float32")], {})
errors("multi_margin_loss", [(torch.ones(3, 2, 2), "float32"), (Y, "int64")], {})
errors("multi_margin_loss", [(torch.ones(2, 0), "float32"), (Y[:2], "int64")], {})
errors("multi_margin_loss", [(torch.ones(0), "float32"), (Y[:1], "int64")], {})
errors("multi_margin_loss", [(X, "float32"), (Y[:2], "int64")], {})
errors("multi_margin_loss", [(X, "float32"), (Y.view(3, 1), "int64")], {})
errors("multi_margin_loss", [(X, "float32"), (Y, "int32")], {})
errors("multi_margin_loss", [(X, "float32"), (Y, "float32")], {})
errors("multi_margin_loss", [(X, "int64"), (Y, "int64")], {})
errors("multi_margin_loss", [(X, "float32"), ([0, 4, 1], "int64")], {})
errors("multi_margin_loss", [(X, "float32"), ([0, -1, 1], "int64")], {})
errors("multi_margin_loss", [(torch.tensor(1.0), "float32"), (1, "int64")], {})
errors("multi_margin_loss", [(X, "float32"), (Y, "int64"), (torch.ones(4), "float64")], {})
errors("multi_margin_loss", [(X, "float32"), (Y, "int64")], {"reduction": "foo"})
# 1.13 reads past the end of a weight of the wrong size; 2.x refuses it.
cases.append({"op": "multi_margin_loss", "inputs": [inp(X, "float32")[1], inp(Y, "int64")[1], inp(torch.ones(3), "float32")[1]],
              "args": {}, "error": "inconsistent weight size, expected 4 but got [3]"})


# ---- soft_margin_loss ----
every("soft_margin_loss", lambda: [randn(3, 4), signs(3, 4)], [{}], [True, False])
every("soft_margin_loss", lambda: [randn(5), signs(5)], [{}], [True, False])
every("soft_margin_loss", lambda: [randn(), signs()], [{}], [True, False])
for red in REDUCTIONS:
    add("soft_margin_loss", [inp(randn(3, 4), "float64"), inp(signs(4), "float64")], {"reduction": red}, [True, False])
    add("soft_margin_loss", [inp(randn(4, 3), "float64", [["transpose", 0, 1]]), inp(signs(3, 1), "float64", [["expand", 3, 4]])],
        {"reduction": red}, [True, False])
    add("soft_margin_loss", [inp([0.0, 100.0, -100.0, 2.0], "float32"), inp([1.0, 1.0, 1.0, 0.0], "float32")], {"reduction": red})
    add("soft_margin_loss", [inp(torch.zeros(0), "float32"), inp(torch.zeros(0), "float32")], {"reduction": red})
    add("soft_margin_loss", [inp(randn(3, 4), "float32"), inp(signs(3, 4), "float64")], {"reduction": red})
    add("soft_margin_loss", [inp(randn(3, 4), "float64"), inp(signs(3, 4), "int64")], {"reduction": red})
errors("soft_margin_loss", [(torch.ones(4), "float32"), (torch.ones(3, 4), "float32")], {})
errors("soft_margin_loss", [(torch.ones(3, 4), "int64"), (torch.ones(3, 4), "float32")], {})
errors("soft_margin_loss", [(torch.ones(3, 4), "float32"), (torch.ones(2, 4), "float32")], {})


# ---- ctc_loss ----
# Log-probabilities [T, N, C] (T=6, N=3, C=5), targets padded [N, S] or
# concatenated, lengths as lists. Sample 1 of CTC_Y has three equal labels:
# it needs 5 inputs, so input length 4 makes its loss infinite.
CTC_Y = [[1, 2, 2], [3, 3, 3], [1, 4, 0]]


def ctc_lp(t=6, n=3, c=5):
    return randn(t, n, c).log_softmax(-1)


for red in REDUCTIONS:
    for d in FLOATS:
        for zi in [False, True]:
            add("ctc_loss", [inp(ctc_lp(), d), inp(CTC_Y, "int64")],
                {"input_lengths": [6, 4, 5], "target_lengths": [3, 3, 2], "reduction": red, "zero_infinity": zi})
        add("ctc_loss", [inp(ctc_lp(), d), inp([1, 2, 2, 3, 3, 1], "int32")],
            {"input_lengths": [6, 6, 3], "target_lengths": [3, 3, 0], "reduction": red})
        add("ctc_loss", [inp(ctc_lp(), d), inp(CTC_Y, "int64")],
            {"input_lengths": [6, 5, 2], "target_lengths": [2, 3, 1], "reduction": red, "blank": 4})
    # transposed log-probabilities ([N, T, C] in memory), unbatched, the
    # empty batch (mean NaN, sum 0), float targets (truncated, as 1.13 takes them)
    add("ctc_loss", [inp(randn(3, 6, 5).log_softmax(-1), "float64", [["transpose", 0, 1]]), inp(CTC_Y, "int64")],
        {"input_lengths": [6, 6, 6], "target_lengths": [3, 3, 3], "reduction": red})
    add("ctc_loss", [inp(randn(7, 4).log_softmax(-1), "float32"), inp([2, 2, 3], "int64")],
        {"input_lengths": [7], "target_lengths": [3], "reduction": red})
    add("ctc_loss", [inp(torch.zeros(6, 0, 5), "float32"), inp(torch.zeros(0, 2), "int64")],
        {"input_lengths": [], "target_lengths": [], "reduction": red})
    add("ctc_loss", [inp(ctc_lp(), "float64"), inp(CTC_Y, "float32")],
        {"input_lengths": [6, 6, 6], "target_lengths": [3, 3, 2], "reduction": red})
    # gradients: of log-probabilities (PyTorch's, not the derivative: no
    # finite differences; an infinite loss has NaN gradients unless
    # zero_infinity), and of logits through log_softmax (the derivative)
    for zi in [False, True]:
        add("ctc_loss", [inp(ctc_lp(), "float64"), inp(CTC_Y, "int64")],
            {"input_lengths": [6, 4, 5], "target_lengths": [3, 3, 2], "reduction": red, "zero_infinity": zi},
            [True, False], gradcheck=False)
    add("ctc_loss", [inp(randn(6, 3, 5), "float64"), inp(CTC_Y, "int64")],
        {"input_lengths": [6, 5, 4], "target_lengths": [3, 3, 2], "reduction": red}, [True, False], gradcheck=False)
    add("ctc_loss_logits", [inp(randn(6, 3, 5), "float64"), inp(CTC_Y, "int64")],
        {"input_lengths": [6, 5, 4], "target_lengths": [3, 3, 2], "reduction": red}, [True, False])
    add("ctc_loss_logits", [inp(randn(5, 4), "float64"), inp([1, 3], "int64")],
        {"input_lengths": [5], "target_lengths": [2], "reduction": red, "blank": 2}, [True, False])
CTC_OK = {"input_lengths": [6, 6, 6], "target_lengths": [3, 3, 2]}
errors("ctc_loss", [(ctc_lp(), "float16"), (CTC_Y, "int64")], CTC_OK)
errors("ctc_loss", [(ctc_lp(), "float32"), (CTC_Y, "int64")], {"input_lengths": [6, 6], "target_lengths": [3, 3, 2]})
errors("ctc_loss", [(ctc_lp(), "float32"), (CTC_Y, "int64")], {"input_lengths": [6, 6, 6], "target_lengths": [3, 3]})
errors("ctc_loss", [(ctc_lp(), "float32"), (CTC_Y, "int64")], dict(CTC_OK, blank=5))
errors("ctc_loss", [(ctc_lp(), "float32"), (CTC_Y, "int64")], dict(CTC_OK, blank=-1))
errors("ctc_loss", [(ctc_lp(), "float32"), ([CTC_Y], "int64")], CTC_OK)
errors("ctc_loss", [(ctc_lp(), "float32"), (CTC_Y[:2], "int64")], CTC_OK)
errors("ctc_loss", [(ctc_lp(), "float32"), (CTC_Y, "int64")], {"input_lengths": [6, 7, 6], "target_lengths": [3, 3, 2]})
errors("ctc_loss", [(ctc_lp(), "float32"), (CTC_Y, "int64")], {"input_lengths": [6, 6, 6], "target_lengths": [3, 4, 2]})
errors("ctc_loss", [(ctc_lp(), "float32"), ([1, 2, 3], "int64")], CTC_OK)
errors("ctc_loss", [(ctc_lp(), "float32"), (CTC_Y, "int64")], dict(CTC_OK, reduction="foo"))
# 1.13 reads outside the log-probabilities for a label out of range and a
# negative length (2.x checks neither either); MindTorch refuses them.
for args, y in [(CTC_OK, [[1, 2, 2], [3, 5, 3], [1, 4, 0]]), ({"input_lengths": [6, -1, 6], "target_lengths": [3, 3, 2]}, CTC_Y),
                ({"input_lengths": [6, 6, 6], "target_lengths": [3, -1, 2]}, CTC_Y)]:
    cases.append({"op": "ctc_loss", "inputs": [inp(ctc_lp(), "float32")[1], inp(y, "int64")[1]], "args": args,
                  "error": "out of range"})

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(f"{len(cases)} cases -> {os.path.relpath(OUT)}")
