"""Golden data for PyTorch's semantics where MindTorch differed (issue 18,
item 7; pkg/torch semantics_test.go): the messages of argument checks,
gradients at zeros and kinks (prod, std, var, BCE with logits at a logit
of 0), the names of grad_fn nodes, the strides and values of the *_like
ops on permuted and strided inputs, and masked_fill with a mask that
broadcasts beyond self. Each case's Go twin, keyed by its name, builds the
same tensors and applies the same ops.

The std gradient at a constant slice is 0 in this PyTorch 1.13 as in 2.x
(std_backward masks result == 0), so every value here is 1.13's own.

Later items: reductions without an identity refuse empty inputs; NaN,
infinities, -0, integer overflow and empty inputs in reductions, sort and
topk; clamp with NaN bounds (2.x's NaN fill, see VALUES); torch.sort with
stable=False and True; round(decimals=n); the strides of clone,
contiguous and to(dtype) of non-dense inputs; stack's StackBackward0.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/semantics.json.
"""
import json
import math
import os

import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "semantics.json")


def enc_tensor(t):
    t = t.detach()
    vals = t.double().reshape(-1).tolist() if t.dtype.is_floating_point else t.long().reshape(-1).tolist()
    assert all(not (isinstance(v, float) and (math.isnan(v) or math.isinf(v))) for v in vals), t
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": vals}


# Item 1: argument checks, each with PyTorch's message. The Go twins build
# the same operands (on cpu and on meta).
MESSAGES = {
    "add_float_alpha_int": "torch.add(torch.tensor([1, 2]), torch.tensor([3, 4]), alpha=1.5)",
    "add_float_alpha_int_scalar": "torch.add(torch.tensor([1, 2]), 3, alpha=0.5)",
    "add_float_alpha_bool": "torch.add(torch.tensor([True]), torch.tensor([False]), alpha=1.5)",
    "add_bool_alpha_int": "torch.add(torch.tensor([1, 2]), torch.tensor([3, 4]), alpha=True)",
    "add_bool_alpha_float": "torch.add(torch.tensor([1., 2.]), torch.tensor([3., 4.]), alpha=True)",
    "add__float_alpha_int": "torch.tensor([1, 2]).add_(torch.tensor([3, 4]), alpha=2.0)",
    "sub_float_alpha_int": "torch.sub(torch.tensor([1, 2]), torch.tensor([3, 4]), alpha=1.5)",
    "sub_bool_bool": "torch.tensor([True, False]) - torch.tensor([True, True])",
    "sub_bool_scalar_bool": "torch.tensor([True, False]) - True",
    "sub_int_bool": "torch.tensor([1, 2]) - torch.tensor([True, False])",
    "sub_bool_int_scalar": "torch.tensor([True, False]) - 1",
    "sub_float_bool": "torch.tensor([1., 2.]) - torch.tensor([True, False])",
    "sub_bool_alpha": "torch.sub(torch.tensor([True]), torch.tensor([True]), alpha=2)",
    # 1.13 and the released 2.x refuse an integer bound outside the dtype
    # (c10's checked_convert); a change to saturate it instead (PR 193169)
    # was reverted.
    "clamp_int8_both": "torch.tensor([1, 2], dtype=torch.int8).clamp(-1000, 1000)",
    "clamp_int8_min": "torch.tensor([1, 2], dtype=torch.int8).clamp(min=-1000)",
    "clamp_int8_max": "torch.tensor([1, 2], dtype=torch.int8).clamp(max=1000)",
    "clamp__int8": "torch.tensor([1, 2], dtype=torch.int8).clamp_(0, 128)",
    "clamp_int32": "torch.tensor([1, 2], dtype=torch.int32).clamp(-2**40, 5)",
    "clamp_uint8": "torch.tensor([1, 2], dtype=torch.uint8).clamp(0, 256)",
    "clamp_float32": "torch.tensor([1., 2.]).clamp(-1e300)",
    "clamp_bool_bounds_bool": "torch.tensor([True, False]).clamp(True, True)",
    "pow_int_neg": "torch.tensor([1, 2]).pow(-1)",
    "pow_int8_neg": "torch.tensor([1, 2], dtype=torch.int8).pow(-2)",
    "pow_bool_neg": "torch.tensor([True, False]).pow(-1)",
    "pow_int_0dim_neg": "torch.tensor(2).pow(-1)",
    "pow__int_neg": "torch.tensor([1, 2]).pow_(-3)",
    "lerp_end_double": "torch.lerp(torch.tensor([1., 2.]), torch.tensor([3., 4.], dtype=torch.float64), 0.5)",
    "lerp_start_double": "torch.lerp(torch.tensor([1., 2.], dtype=torch.float64), torch.tensor([3., 4.]), 0.5)",
    "lerp_end_long": "torch.lerp(torch.tensor([1., 2.]), torch.tensor([3, 4]), 0.5)",
    "lerp_end_half": "torch.lerp(torch.tensor([1., 2.]), torch.tensor([3., 4.], dtype=torch.float16), 0.5)",
    "lerp_weight_double": "torch.lerp(torch.tensor([1., 2.]), torch.tensor([3., 4.]), torch.tensor([0.5, 0.5], dtype=torch.float64))",
    "lerp_weight_0dim_double": "torch.lerp(torch.tensor([1., 2.]), torch.tensor([3., 4.]), torch.tensor(0.5, dtype=torch.float64))",
    "lerp__end_double": "torch.tensor([1., 2.]).lerp_(torch.tensor([3., 4.], dtype=torch.float64), 0.5)",
    "lerp_long": "torch.lerp(torch.tensor([1, 2]), torch.tensor([3, 4]), 0.5)",
    "lerp_long_tensor_weight": "torch.lerp(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor([1, 1]))",
    "argmax_bool": "torch.tensor([True, False]).argmax()",
    "argmin_bool": "torch.tensor([True, False]).argmin()",
    "argmax_bool_dim": "torch.tensor([[True, False]]).argmax(1)",
    "argmax_bool_empty": "torch.tensor([], dtype=torch.bool).argmax()",
    # Reductions without an identity refuse empty slices.
    "amax_empty": "torch.tensor([]).amax()",
    "amin_empty_2d": "torch.zeros(3, 0).amin()",
    "amax_empty_dims": "torch.zeros(0, 3).amax((0, 1))",
    "max_empty": "torch.tensor([]).max()",
    "max_dim_empty": "torch.zeros(0, 3).max(0)",
    "min_dim_empty": "torch.zeros(2, 0).min(1)",
    "argmin_empty": "torch.zeros(0, 3).argmin()",
    "argmax_dim_empty": "torch.zeros(0, 3).argmax(0)",
    "aminmax_empty": "torch.aminmax(torch.tensor([]))",
    "median_dim_empty": "torch.zeros(0, 3).median(0)",
    "kthvalue_empty": "torch.zeros(0, 3).kthvalue(1, 0)",
    "mode_empty": "torch.zeros(0, 3).mode(0)",
    "topk_empty": "torch.zeros(0, 3).topk(1, 0)",
    # 1.13's torch.norm returns 0 for these, its linalg.vector_norm refuses
    # them; 2.x's torch.norm is linalg.vector_norm, whose messages these are.
    "norm_inf_empty": "torch.linalg.vector_norm(torch.tensor([]), float('inf'))",
    "norm_ninf_empty": "torch.linalg.vector_norm(torch.tensor([]), float('-inf'))",
    "norm_neg_empty_dim": "torch.linalg.vector_norm(torch.zeros(0, 3), -1, 0)",
    # round with decimals: floating dtypes only.
    "round_decimals_long": "torch.round(torch.tensor([1, 2]), decimals=2)",
    "round_decimals_long_0": "torch.round(torch.tensor([1, 2]), decimals=0)",
    "round_decimals_bool": "torch.round(torch.tensor([True]), decimals=-1)",
    "round_bool": "torch.round(torch.tensor([True]))",
}

# Calls that PyTorch accepts next to the refused ones above, with their values.
ACCEPTED = {
    "add_float_alpha_float_scalar": "torch.add(torch.tensor([1, 2]), 2.0, alpha=1.5)",
    "add_int_alpha_float": "torch.add(torch.tensor([1., 2.]), torch.tensor([3, 4]), alpha=1.5)",
    "add_bool_alpha_bool": "torch.add(torch.tensor([True, False]), torch.tensor([False, False]), alpha=True)",
    "clamp_int8_in_range": "torch.tensor([1, 2, -5], dtype=torch.int8).clamp(-100, 100)",
    "clamp_uint8_wraps": "torch.tensor([1, 2], dtype=torch.uint8).clamp(-1, 1)",
    "clamp_int8_float_bounds": "torch.tensor([1, 2], dtype=torch.int8).clamp(-1000.5, 1.5)",
    "pow_int_tensor_neg": "torch.tensor([1, -1, -1, 0, 2, -2]).pow(torch.tensor([-1, -1, -2, -1, -1, -3]))",
    "pow_int_float_neg": "torch.tensor([1, 2]).pow(-1.0)",
    "pow_int_zero": "torch.tensor([1, 2]).pow(0)",
    "norm_empty_2": "torch.tensor([]).norm()",
    "norm_inf_empty_kept_dim": "torch.zeros(0, 3).norm(float('inf'), 1)",
    "max_dim_empty_other_dim": "torch.zeros(0, 3).max(1)[0]",
}


def messages():
    out = []
    for name, expr in MESSAGES.items():
        try:
            eval(expr)
        except (RuntimeError, IndexError) as e:
            out.append({"name": name, "expr": expr, "message": str(e).split("\n")[0]})
            continue
        raise AssertionError(f"{expr} did not fail")
    return out


def accepted():
    return [{"name": name, "expr": expr, "out": enc_tensor(eval(expr))} for name, expr in ACCEPTED.items()]


# Item 2: gradients. Each case returns (inputs, loss); the loss is
# reduced with fixed weights so that the upstream gradient is not all ones.
def weights(n):
    return torch.arange(1, n + 1, dtype=torch.float64) / 4


def leaf(values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


def prod_case(values, dim=None, keepdim=False):
    def case():
        x = leaf(values)
        y = x.prod() if dim is None else x.prod(dim, keepdim=keepdim)
        return [x], (y * weights(y.numel()).reshape(y.shape)).sum()
    return case


def std_var_case(op, values, dim=None):
    def case():
        x = leaf(values)
        y = getattr(x, op)() if dim is None else getattr(x, op)(dim)
        return [x], (y * weights(y.numel()).reshape(y.shape)).sum()
    return case


def bce_case(logits, target, **kw):
    def case():
        x = leaf(logits)
        t = torch.tensor(target, dtype=torch.float64)
        opts = {k: (torch.tensor(v, dtype=torch.float64) if isinstance(v, list) else v) for k, v in kw.items()}
        loss = F.binary_cross_entropy_with_logits(x, t, **opts)
        if loss.dim() > 0:
            loss = (loss * weights(loss.numel()).reshape(loss.shape)).sum()
        return [x], loss
    return case


def stack_case(values, dim):
    def case():
        x = leaf(values)
        y = torch.stack([x, x * 2, x.exp()], dim)
        return [x], (y * weights(y.numel()).reshape(y.shape)).sum()
    return case


def clamp_nan_case(values):
    # clamp with a NaN bound: every element is NaN (PyTorch 2.x for one
    # bound too), and the gradient 0; 1.13 fills NaN when both bounds are
    # given. The loss sums the gradient-carrying product with 0 weights.
    def case():
        x = leaf(values)
        y = x.clamp(float("nan"), 1.)
        return [x], (y.nan_to_num(0.) * weights(y.numel())).sum()
    return case


GRADS = {
    "prod_all_one_zero": prod_case([[2., 0., 3.], [4., 5., -1.]]),
    "prod_all_two_zeros": prod_case([[2., 0., 3.], [0., 5., -1.]]),
    "prod_all_no_zero": prod_case([[2., 0.5, 3.], [4., 5., -1.]]),
    "prod_dim1": prod_case([[2., 0., 3.], [0., 5., 0.], [1., 2., 3.], [0., 0., 0.]], dim=1),
    "prod_dim0_keepdim": prod_case([[2., 0., 3.], [0., 5., 0.], [1., 2., 3.]], dim=0, keepdim=True),
    "prod_dim_3d": prod_case([[[1., 0.], [2., 3.], [4., 0.]], [[0., 1.], [0., 2.], [5., 6.]]], dim=1),
    "prod_dim_neg": prod_case([[1., 2., 0., 4.], [3., 0., 5., 0.]], dim=-1),
    "var_const": std_var_case("var", [2., 2., 2., 2.]),
    "var_const_dim": std_var_case("var", [[3., 3., 3.], [1., 2., 4.]], dim=1),
    "std_const": std_var_case("std", [2., 2., 2., 2.]),
    "std_const_dim": std_var_case("std", [[3., 3., 3.], [1., 2., 4.]], dim=1),
    "std_const_dim0": std_var_case("std", [[3., 1.], [3., 2.], [3., 4.]], dim=0),
    "bce_logits_zero_mean": bce_case([0., 0., 0., 1.5], [0., 1., 0.5, 1.]),
    "bce_logits_zero_none": bce_case([0., -0., 2., -3.], [1., 0., 0.25, 1.], reduction="none"),
    "bce_logits_zero_sum_pos_weight": bce_case([0., 0., -1.], [1., 0.5, 0.], reduction="sum", pos_weight=[2., 3., 0.5]),
    "bce_logits_zero_weight": bce_case([[0., 4.], [0., -4.]], [[0., 1.], [1., 0.]], weight=[0.5, 2.]),
    "stack_dim1": stack_case([[1., 2., 3.], [4., 5., 6.]], 1),
    "stack_dim_neg": stack_case([[1., 2.], [3., 4.]], -1),
    "clamp_nan_bound": clamp_nan_case([1., -2., 3.]),
}


def grads():
    out = []
    for name, case in GRADS.items():
        inputs, loss = case()
        gs = torch.autograd.grad(loss, inputs)
        out.append({"name": name, "inputs": [enc_tensor(x) for x in inputs], "loss": loss.item(),
                    "grads": [enc_tensor(g) for g in gs]})
    return out


# Item 4: grad_fn names. x is [2, 3, 4], m is [3, 4], v is [3], s is 0-dim.
GRAD_FNS = {
    "t": "m.t()", "t_1d": "v.t()", "t_0d": "s.t()",
    "transpose": "x.transpose(0, 1)", "mT": "x.mT",
    "permute": "x.permute(2, 0, 1)",
    "expand": "m.expand(2, 3, 4)",
    "reshape": "x.reshape(6, 4)", "reshape_strided": "x.transpose(0, 1).reshape(3, 2, 2, 2)",
    "reshape_copy": "x.transpose(0, 1).reshape(-1)", "flatten": "x.flatten()",
    "view": "x.view(6, 4)", "unflatten": "m.unflatten(1, (2, 2))",
    "squeeze": "m.unsqueeze(0).squeeze()", "squeeze_dim": "m.unsqueeze(0).squeeze(0)",
    "squeeze_dim_not_1": "x.squeeze(0)",
    "unsqueeze": "x.unsqueeze(1)",
    "select": "x.select(1, 2)",
    "narrow": "x.narrow(1, 0, 2)", "slice": "x[:, 1:3]",
    "split": "x.split(1, 0)[1]", "split_with_sizes": "x.split([1, 2], 1)[0]", "chunk": "x.chunk(2, 2)[1]",
    "unbind": "x.unbind(1)[2]",
    "index_select": "x.index_select(1, torch.tensor([0, 2]))",
    "cat": "torch.cat([x, x], 0)",
    "sum": "x.sum()", "sum_dim": "x.sum(1)", "mean": "x.mean()", "mean_dim": "x.mean(1)",
    "mul": "x * x", "mul_scalar": "x * 2", "div": "x / x", "div_scalar": "x / 2", "exp": "x.exp()",
    "contiguous": "x.transpose(0, 1).contiguous()",
    "prod": "x.prod()", "prod_dim": "x.prod(1)", "std": "x.std()", "var": "x.var()",
    "stack": "torch.stack([m, m], 1)", "stack_0": "torch.stack([v, v, v])",
    "round_decimals": "x.round(decimals=2)", "round_decimals_neg": "x.round(decimals=-1)",
    "round_decimals_0": "x.round(decimals=0)",
}


def grad_fns():
    x = torch.randn(2, 3, 4, requires_grad=True)
    m = torch.randn(3, 4, requires_grad=True)
    v = torch.randn(3, requires_grad=True)
    s = torch.randn((), requires_grad=True)
    env = {"x": x, "m": m, "v": v, "s": s, "torch": torch}
    return [{"name": name, "expr": expr, "grad_fn": eval(expr, env).grad_fn.name()} for name, expr in GRAD_FNS.items()]


# Item 5: the *_like ops keep a dense input's strides (memory_format=
# torch.preserve_format), else lay out dense strides in the input's memory
# order. The inputs are made by the Go twin of each name.
LIKE_INPUTS = {
    "transposed": lambda: torch.empty(4, 3).t(),
    "permuted": lambda: torch.empty(2, 3, 4).permute(2, 0, 1),
    "permuted_size1": lambda: torch.empty(2, 1, 3).permute(2, 1, 0),
    "size1_stride": lambda: torch.empty(3).as_strided((1, 3), (5, 1)),
    "sliced": lambda: torch.empty(4, 6)[:, ::2],
    "permuted_sliced": lambda: torch.empty(2, 3, 4, 5).permute(0, 2, 3, 1)[:, ::2],
    "expanded": lambda: torch.empty(3).expand(2, 3),
    "empty_transposed": lambda: torch.empty(0, 3).t(),
    "contiguous": lambda: torch.empty(2, 3),
}


def like():
    out = []
    for name, make in LIKE_INPUTS.items():
        x = make()
        for op in ["empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"]:
            torch.manual_seed(7)
            f = getattr(torch, op)
            r = f(x, 2.5) if op == "full_like" else f(x)
            rec = {"input": name, "op": op, "strides": list(r.stride())}
            if op in ("rand_like", "randn_like", "full_like", "zeros_like", "ones_like"):
                rec["out"] = enc_tensor(r)
            out.append(rec)
        torch.manual_seed(7)
        r = torch.zeros_like(x, dtype=torch.int64)
        out.append({"input": name, "op": "zeros_like_int64", "strides": list(r.stride())})
    return out


# Item 6: masked_fill out of place broadcasts self with the mask (1.13 and 2.x).
MASKED_FILL = {
    "mask_more_dims": "torch.zeros(3).masked_fill(torch.tensor([[True], [False]]), 1.5)",
    "mask_larger_size": "torch.zeros(1, 3).masked_fill(torch.tensor([[True], [False]]), 2)",
    "mask_expanded": "torch.arange(3.).masked_fill(torch.tensor([True, False, True]).expand(2, 3), -1)",
}


def masked_fill():
    out = []
    for name, expr in MASKED_FILL.items():
        # The gradient of self sums over the broadcast dims.
        self_expr, rest = expr.split(".masked_fill(")
        x = eval(self_expr).requires_grad_(True)
        y = eval("x.masked_fill(" + rest, {"x": x, "torch": torch})
        (y * weights(y.numel()).reshape(y.shape).float()).sum().backward()
        out.append({"name": name, "expr": expr, "out": enc_tensor(y), "grad": enc_tensor(x.grad)})
    try:
        torch.zeros(3).masked_fill_(torch.tensor([[True], [False]]), 1)
    except RuntimeError as e:
        out.append({"name": "in_place_refused", "message": str(e).split("\n")[0]})
    return out


def enc_special(t):
    """A tensor whose values may be NaN, infinite or -0: those as strings."""
    t = t.detach()
    vals = t.double().reshape(-1).tolist() if t.dtype.is_floating_point else t.long().reshape(-1).tolist()

    def enc(v):
        if isinstance(v, float):
            if math.isnan(v):
                return "nan"
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            if v == 0 and math.copysign(1, v) < 0:
                return "-0"
        return v
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": [enc(v) for v in vals]}


# Item 8: values where NaN, infinities, the sign of zero, integer overflow
# and empty inputs matter. Each expression's result is a tensor or a
# (values, indices) pair.
NAN, INF, NZ = "float('nan')", "float('inf')", "-0."
VALUES = {
    # clamp with a NaN bound gives NaN everywhere: 1.13 with both bounds
    # and with clamp_min/clamp_max; 2.x (pytorch/pytorch#172067) for
    # clamp(min=nan) and clamp(max=nan) too, which the Go twins call.
    "clamp_nan_min_both": f"torch.tensor([1., 2., {NAN}, -1.]).clamp({NAN}, 1.)",
    "clamp_nan_max_both": f"torch.tensor([1., 2., {NAN}, -1.]).clamp(0., {NAN})",
    "clamp_nan_min_only": f"torch.tensor([1., 2., {NAN}, -1.]).clamp_min({NAN})",
    "clamp_nan_max_only": f"torch.tensor([1., 2., {NAN}, -1.]).clamp_max({NAN})",
    "clamp_nan_long": f"torch.tensor([1, 2]).clamp({NAN}, 1.)",
    "clamp_nan_double": f"torch.tensor([1., 2.], dtype=torch.float64).clamp(0, {NAN})",
    "clamp_tensor_nan": f"torch.tensor([1., 2., 5.]).clamp(torch.tensor([{NAN}, 0., 0.]), torch.tensor([3., {NAN}, 4.]))",
    "clamp_zero": f"torch.tensor([{NZ}, 0.]).clamp(min=0.)",
    # NaN is the largest value for sort and topk, and wins max, min, argmax.
    "max_nan": f"torch.tensor([1., {NAN}, 3.]).amax()",
    "min_nan": f"torch.tensor([1., {NAN}, -3.]).amin()",
    "max_all_nan": f"torch.tensor([1., {NAN}, 3.]).max()",
    "maxdim_nan": f"torch.tensor([[1., {NAN}, 3., {NAN}]]).max(1)",
    "mindim_nan": f"torch.tensor([[1., {NAN}, -3., {NAN}]]).min(1)",
    "argmax_nan": f"torch.tensor([1., {NAN}, 3., {NAN}]).argmax()",
    "argmin_nan": f"torch.tensor([1., {NAN}, -3., {NAN}]).argmin()",
    "argmax_inf": f"torch.tensor([1., {INF}, 3., {INF}]).argmax()",
    "sort_nan": f"torch.tensor([{NAN}, 1., -{INF}, {NAN}, {INF}, 0.]).sort()",
    "sort_nan_desc": f"torch.tensor([{NAN}, 1., -{INF}, {NAN}, {INF}, 0.]).sort(descending=True)",
    "topk_nan": f"torch.tensor([{NAN}, 1., -{INF}, {NAN}, {INF}, 0.]).topk(3)",
    "topk_nan_smallest": f"torch.tensor([{NAN}, 1., -{INF}, {NAN}, {INF}, 0.]).topk(3, largest=False)",
    "median_nan": f"torch.tensor([1., {NAN}, 3.]).median()",
    "kthvalue_nan": f"torch.tensor([1., {NAN}, 3.]).kthvalue(3)",
    "cummax_nan": f"torch.tensor([1., {NAN}, 3.]).cummax(0)",
    "unique_nan": f"torch.unique(torch.tensor([{NAN}, 1., {NAN}]))",
    "logsumexp_inf": f"torch.tensor([{INF}, {INF}]).logsumexp(0)",
    "logsumexp_ninf": f"torch.tensor([-{INF}, -{INF}]).logsumexp(0)",
    # The sign of zero: the first of equal values for reductions along a
    # dim and for amax/amin of few elements; -0 and 0 are equal in a sort.
    "maxdim_zero": f"torch.tensor([[{NZ}, 0.]]).max(1)",
    "mindim_zero": f"torch.tensor([[0., {NZ}]]).min(1)",
    "amax_zero": f"torch.tensor([{NZ}, 0.]).amax()",
    "amin_zero": f"torch.tensor([0., {NZ}]).amin()",
    "argmax_zero": f"torch.tensor([{NZ}, 0.]).argmax()",
    "sort_zero": f"torch.tensor([0., {NZ}, 0., {NZ}]).sort(stable=True)",
    "maximum_zero": f"torch.maximum(torch.tensor([{NZ}, 0.]), torch.tensor([0., {NZ}]))",
    "minimum_zero": f"torch.minimum(torch.tensor([{NZ}, 0.]), torch.tensor([0., {NZ}]))",
    "sum_negzero": f"torch.tensor([{NZ}, {NZ}]).sum()",
    "prod_negzero": f"torch.tensor([{NZ}, 1.]).prod()",
    "cumsum_negzero": f"torch.tensor([{NZ}, {NZ}]).cumsum(0)",
    "relu_negzero": f"torch.tensor([{NZ}]).relu()",
    "round_negzero": "torch.tensor([-0.4, -0.5, 0.5, 1.5, 2.5]).round()",
    "mode_zero": f"torch.tensor([0., {NZ}, {NZ}]).mode()",
    # Integer overflow wraps; integer sums and cumulative sums are int64.
    "sum_int64_wraps": "torch.tensor([2**62, 2**62, 2**62]).sum()",
    "prod_int64_wraps": "torch.tensor([2**40, 2**40]).prod()",
    "cumsum_int64_wraps": "torch.tensor([2**62, 2**62]).cumsum(0)",
    "sum_int8": "torch.tensor([100, 100], dtype=torch.int8).sum()",
    "sum_uint8": "torch.tensor([200, 200], dtype=torch.uint8).sum()",
    "prod_int32": "torch.tensor([2**20, 2**20], dtype=torch.int32).prod()",
    "cumsum_int8": "torch.tensor([100, 100], dtype=torch.int8).cumsum(0)",
    "cumprod_int8": "torch.tensor([100, 100], dtype=torch.int8).cumprod(0)",
    "sum_int8_as_int8": "torch.tensor([100, 100], dtype=torch.int8).sum(dtype=torch.int8)",
    "arange_int8_wraps": "torch.arange(0, 300, 100, dtype=torch.int8)",
    # Empty inputs to reductions with an identity.
    "sum_empty": "torch.tensor([]).sum()",
    "prod_empty": "torch.tensor([]).prod()",
    "mean_empty": "torch.tensor([]).mean()",
    "std_empty": "torch.tensor([]).std()",
    "var_empty": "torch.tensor([]).var()",
    "logsumexp_empty": "torch.tensor([]).logsumexp(0)",
    "all_empty": "torch.tensor([]).all()",
    "any_empty": "torch.tensor([]).any()",
    "median_empty": "torch.tensor([]).median()",
    "mean_empty_dim": "torch.zeros(0, 3).mean(0)",
    "std_one": "torch.tensor([1.]).std()",
}


def values():
    out = []
    for name, expr in VALUES.items():
        r = eval(expr)
        rs = [r] if isinstance(r, torch.Tensor) else list(r)
        out.append({"name": name, "expr": expr, "out": [enc_special(x) for x in rs]})
    return out


# Item 9: torch.sort with stable=True and stable=False (std::sort on the
# CPU) on rows with ties, NaN included, and torch.argsort.
def sorts():
    g = torch.Generator().manual_seed(3)
    out = []
    for n in [10, 17, 40, 200]:
        for kind in ["float", "long", "nan"]:
            x = torch.randint(0, 4, (2, n), generator=g)
            if kind != "long":
                x = x.float()
            if kind == "nan":
                x[torch.rand(2, n, generator=g) < 0.2] = float("nan")
            for desc in [False, True]:
                for stable in [False, True]:
                    v, i = torch.sort(x, dim=1, descending=desc, stable=stable)
                    out.append({"input": enc_special(x), "descending": desc, "stable": stable,
                                "values": enc_special(v), "indices": enc_special(i)})
    return out


# Item 10: round(decimals=n): PyTorch's kernel, nearbyint(x * 10^n) / 10^n
# (x / 10^-n then * 10^-n for n < 0) in float for float32, in double for
# float64. 1.13 has no float16 kernel for it, and its bfloat16 one computes
# in bfloat16 (10^n and every step rounded to bfloat16: round(-0.05, 1) is
# -0); 2.x's computes both in float (opmath), as the formula below.
ROUND_X = [1.2345, -2.5, 0.125, 0.375, 1e30, -0.001, 2.675, 1234.5678, -1234.5678, 0.5, 1.5, -0.05, 3e-5,
           float("nan"), float("inf"), float("-inf"), -0.]


def rounds():
    out = []
    for dt in [torch.float32, torch.float64, torch.bfloat16, torch.float16]:
        x = torch.tensor(ROUND_X, dtype=dt)
        for d in [0, 1, 2, 3, 5, -1, -2, -4, 38, 39, 40, -39, 300, 400, -400]:
            if dt in (torch.float16, torch.bfloat16):
                p = torch.tensor(10.0 ** abs(d) if abs(d) <= 308 else float("inf"), dtype=torch.float32)
                xf = x.float()
                y = (torch.round(xf / p) * p if d < 0 else torch.round(xf * p) / p).to(dt)
            else:
                y = torch.round(x, decimals=d)
            out.append({"dtype": str(dt).replace("torch.", ""), "decimals": d, "input": enc_special(x),
                        "out": enc_special(y)})
    x = torch.tensor([1.2345, 2.5], requires_grad=True)
    y = x.round(decimals=2)
    (y * torch.tensor([1., 2.])).sum().backward()
    out.append({"grad_fn": y.grad_fn.name(), "grad": enc_special(x.grad)})
    return out


# Item 11: clone, contiguous and to(dtype) of dense and non-dense inputs:
# their strides (clone and to keep a dense input's strides, else dense ones
# in its memory order, as empty_like with preserve_format) and values.
STRIDED_INPUTS = {
    "expanded": lambda: torch.arange(3.).expand(2, 3),
    "expanded_mid": lambda: torch.arange(6.).reshape(2, 1, 3).expand(2, 4, 3),
    "overlapping": lambda: torch.arange(6.).as_strided((3, 3), (1, 1)),
    "overlapping_transposed": lambda: torch.arange(10.).as_strided((2, 3), (2, 3)),
    "sliced": lambda: torch.arange(24.).reshape(4, 6)[:, ::2],
    "sliced_rows": lambda: torch.arange(24.).reshape(4, 6)[::2],
    "transposed_sliced": lambda: torch.arange(24.).reshape(4, 6).t()[::2],
    "permuted_sliced": lambda: torch.arange(120.).reshape(2, 3, 4, 5).permute(0, 2, 3, 1)[:, ::2],
    "transposed": lambda: torch.arange(12.).reshape(4, 3).t(),
    "expanded_transposed": lambda: torch.arange(3.).reshape(3, 1).expand(3, 2).t(),
    "size1_zero_stride": lambda: torch.arange(3.).as_strided((3, 1), (1, 0)),
}


def strided():
    out = []
    for name, make in STRIDED_INPUTS.items():
        x = make()
        for op, f in [("clone", lambda x: x.clone()), ("contiguous", lambda x: x.contiguous()),
                      ("to_float64", lambda x: x.double())]:
            r = f(x)
            out.append({"input": name, "op": op, "strides": list(r.stride()), "out": enc_tensor(r)})
    return out


def main():
    torch.manual_seed(0)
    data = {
        "torch": torch.__version__,
        "messages": messages(),
        "accepted": accepted(),
        "grads": grads(),
        "grad_fns": grad_fns(),
        "like": like(),
        "masked_fill": masked_fill(),
        "values": values(),
        "sorts": sorts(),
        "rounds": rounds(),
        "strided": strided(),
    }
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
