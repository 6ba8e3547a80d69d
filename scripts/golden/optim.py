"""Golden data for pkg/optim, pkg/optim/lrscheduler and nn.ClipGradNorm_:
steps of every optimizer with its options and parameter groups, the state
dict's keys, PyTorch's argument errors, LR sequences of every scheduler and
clip_grad_norm_/clip_grad_value_.

Run with Debian's python3-torch (PyTorch 1.13): make golden.
Writes testdata/optim.json.
"""
import json
import math
import os

import torch
import torch.optim.nadam as nadam_mod
from torch.optim import lr_scheduler as L

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "testdata", "optim.json")


def enc(t):
    t = t.detach()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": t.reshape(-1).tolist()}


def nadam_2x(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr,
             weight_decay, momentum_decay, eps):
    """1.13's _single_tensor_nadam with 2.x's fix: mu_product_next is
    mu_product * mu_next (1.13 multiplies by mu twice)."""
    for i, param in enumerate(params):
        grad, exp_avg, exp_avg_sq, mu_product, step_t = grads[i], exp_avgs[i], exp_avg_sqs[i], mu_products[i], state_steps[i]
        step_t += 1
        step = step_t.item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1. - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        mu_product_next = mu_product.item() * mu_next
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
        param.addcdiv_(grad, denom, value=-lr * (1. - mu) / (1. - mu_product.item()))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1. - mu_product_next))


nadam_mod._single_tensor_nadam = nadam_2x

CTORS = {"SGD": torch.optim.SGD, "Adam": torch.optim.Adam, "AdamW": torch.optim.AdamW,
         "RMSprop": torch.optim.RMSprop, "Adagrad": torch.optim.Adagrad, "Adamax": torch.optim.Adamax,
         "NAdam": torch.optim.NAdam, "RAdam": torch.optim.RAdam}

# name, optimizer, defaults, extra groups: (parameter indices, options); the
# first group holds the parameters no extra group takes.
OPT_CASES = [
    ("sgd", "SGD", {"lr": 0.1}, []),
    ("sgd_momentum", "SGD", {"lr": 0.1, "momentum": 0.9}, []),
    ("sgd_nesterov_wd", "SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-2}, []),
    ("sgd_dampening_maximize", "SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.3, "maximize": True}, []),
    ("sgd_groups", "SGD", {"lr": 0.1}, [([2], {"lr": 0.01, "momentum": 0.8, "weight_decay": 0.1})]),
    ("adam", "Adam", {"lr": 1e-2}, []),
    ("adam_wd_amsgrad_maximize", "Adam", {"lr": 1e-2, "weight_decay": 0.1, "amsgrad": True, "maximize": True}, []),
    ("adam_betas_eps_zero_groups", "Adam", {"lr": 0.02, "betas": (0.5, 0.6), "eps": 0.0}, [([1], {"lr": 0.0}), ([2], {"amsgrad": True, "weight_decay": 0.5})]),
    ("adamw", "AdamW", {"lr": 1e-2}, []),
    ("adamw_amsgrad_maximize", "AdamW", {"lr": 1e-2, "weight_decay": 0.3, "amsgrad": True, "maximize": True}, [([0], {"weight_decay": 0.0})]),
    ("rmsprop", "RMSprop", {}, []),
    ("rmsprop_centered_momentum_wd", "RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "centered": True, "momentum": 0.5, "weight_decay": 0.1}, []),
    ("rmsprop_groups_maximize", "RMSprop", {"lr": 0.02, "maximize": True}, [([1, 2], {"centered": True, "alpha": 0.5})]),
    ("adagrad", "Adagrad", {"lr": 0.1}, []),
    ("adagrad_all", "Adagrad", {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.2, "initial_accumulator_value": 0.5, "eps": 1e-5, "maximize": True}, [([2], {"lr_decay": 0.0})]),
    ("adamax", "Adamax", {}, []),
    ("adamax_all", "Adamax", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-3, "weight_decay": 0.1, "maximize": True}, []),
    ("nadam", "NAdam", {}, []),
    ("nadam_all", "NAdam", {"lr": 0.01, "betas": (0.85, 0.95), "eps": 1e-6, "weight_decay": 0.1, "momentum_decay": 0.1}, [([0], {"momentum_decay": 0.0})]),
    ("radam", "RAdam", {"lr": 0.01}, []),
    ("radam_all", "RAdam", {"lr": 0.01, "betas": (0.5, 0.7), "eps": 1e-4, "weight_decay": 0.1}, []),
]
SHAPES = [(3, 2), (4,), (2, 2)]
STEPS = 8


def json_opts(opts):
    return {k: list(v) if isinstance(v, tuple) else v for k, v in opts.items()}


def run_optimizer(kind, defaults, groups, dtype):
    g = torch.Generator().manual_seed(7)
    params = [torch.randn(s, generator=g, dtype=torch.float64).to(dtype).requires_grad_() for s in SHAPES]
    start = [enc(p) for p in params]
    taken = {i for idx, _ in groups for i in idx}
    pg = [{"params": [p for i, p in enumerate(params) if i not in taken]}]
    for idx, opts in groups:
        pg.append(dict({"params": [params[i] for i in idx]}, **opts))
    opt = CTORS[kind](pg, **defaults)
    grads, after = [], []
    for step in range(STEPS):
        gs = []
        for i, p in enumerate(params):
            if step == 2 and i == 2:  # a step without a gradient for the last parameter
                p.grad = None
                gs.append(None)
                continue
            p.grad = torch.randn(p.shape, generator=g, dtype=torch.float64).to(dtype)
            gs.append(enc(p.grad))
        opt.step()
        grads.append(gs)
        after.append([enc(p) for p in params])
    sd = opt.state_dict()
    state_keys = {str(k): sorted(v.keys()) for k, v in sd["state"].items()}
    group_keys = [sorted(k for k in grp.keys() if k not in ("foreach", "differentiable", "capturable", "fused"))
                  for grp in sd["param_groups"]]
    return {"start": start, "grads": grads, "after": after, "state_keys": state_keys, "group_keys": group_keys}


def optimizer_cases():
    out = []
    for name, kind, defaults, groups in OPT_CASES:
        for dtype in (torch.float32, torch.float64):
            r = run_optimizer(kind, defaults, groups, dtype)
            r.update({"name": name, "optimizer": kind, "defaults": json_opts(defaults),
                      "groups": [{"params": idx, "options": json_opts(o)} for idx, o in groups]})
            out.append(r)
    return out


ERROR_CASES = [
    ("SGD", {"lr": -1.0}), ("SGD", {"lr": 0.1, "momentum": -0.5}), ("SGD", {"lr": 0.1, "weight_decay": -1.0}),
    ("SGD", {"lr": 0.1, "nesterov": True}), ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
    ("Adam", {"lr": -0.001}), ("Adam", {"betas": (1.0, 0.999)}), ("Adam", {"betas": (0.9, -0.5)}),
    ("Adam", {"eps": -1e-8}), ("Adam", {"weight_decay": -0.1}), ("AdamW", {"betas": (0.9, 1.5)}),
    ("RMSprop", {"alpha": -0.1}), ("RMSprop", {"eps": -1.0}), ("RMSprop", {"momentum": -1.0}),
    ("Adagrad", {"lr_decay": -0.5}), ("Adagrad", {"initial_accumulator_value": -1e-05}), ("Adagrad", {"eps": -1e-10}),
    ("Adamax", {"betas": (0.9, 1.0)}), ("Adamax", {"lr": -2.0}), ("NAdam", {"momentum_decay": -0.004}),
    ("NAdam", {"betas": (-0.1, 0.9)}), ("RAdam", {"weight_decay": -1e-20}), ("RAdam", {"eps": -2.5e-17}),
]


def error_cases():
    out = []
    p = torch.zeros(2, requires_grad=True)
    for kind, opts in ERROR_CASES:
        try:
            CTORS[kind]([p], **opts)
            raise SystemExit("no error for %s %s" % (kind, opts))
        except ValueError as e:
            out.append({"optimizer": kind, "options": json_opts(opts), "error": str(e)})
    return out


def sched_run(make_opt, make, steps, metrics=None):
    opt = make_opt()
    s = make(opt)
    lrs, moms = [], []

    def record():
        lrs.append([g["lr"] for g in opt.param_groups])
        moms.append([g["betas"][0] if "betas" in g else g.get("momentum", 0.0) for g in opt.param_groups])
    record()
    for i in range(steps):
        opt.step()
        if metrics is None:
            s.step()
        else:
            s.step(metrics[i])
        record()
    return lrs, moms


def sgd2():
    p, q = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    return torch.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.05}], lr=0.1, momentum=0.9)


def adam2():
    p, q = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    return torch.optim.Adam([{"params": [p]}, {"params": [q], "lr": 0.05, "betas": (0.8, 0.99)}], lr=0.1)


PLATEAU_METRICS = [1.0, 0.9, 0.9, 0.95, 0.9, 0.91, 0.92, 0.5, 0.5, 0.6, 0.6, 0.6, 0.6, float("nan"), 0.4, 0.4, 0.4, 0.4, 0.4, 0.4,
                   0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4]


def seq(opt):
    a = L.LinearLR(opt, start_factor=0.1, total_iters=4)
    b = L.ExponentialLR(opt, gamma=0.9)
    c = L.CosineAnnealingLR(opt, T_max=5, eta_min=0.001)
    return L.SequentialLR(opt, [a, b, c], milestones=[5, 12])


# name, optimizer, the Go constructor's arguments (args and options), the
# PyTorch scheduler, steps, metrics
SCHED_CASES = [
    ("step", "sgd", {"step_size": 3}, lambda o: L.StepLR(o, 3), 12),
    ("step_gamma", "sgd", {"step_size": 2, "gamma": 0.5}, lambda o: L.StepLR(o, 2, gamma=0.5), 9),
    ("multistep_repeated", "sgd", {"milestones": [2, 5, 5, 9], "gamma": 0.3}, lambda o: L.MultiStepLR(o, [2, 5, 5, 9], gamma=0.3), 12),
    ("exponential", "sgd", {"gamma": 0.93}, lambda o: L.ExponentialLR(o, 0.93), 10),
    ("cosine", "sgd", {"T_max": 6}, lambda o: L.CosineAnnealingLR(o, 6), 25),
    ("cosine_eta_min", "sgd", {"T_max": 4, "eta_min": 0.01}, lambda o: L.CosineAnnealingLR(o, 4, eta_min=0.01), 20),
    ("warm_restarts", "sgd", {"T_0": 3}, lambda o: L.CosineAnnealingWarmRestarts(o, 3), 12),
    ("warm_restarts_mult", "sgd", {"T_0": 2, "T_mult": 2, "eta_min": 0.001}, lambda o: L.CosineAnnealingWarmRestarts(o, 2, T_mult=2, eta_min=0.001), 20),
    ("linear_default", "sgd", {}, lambda o: L.LinearLR(o), 8),
    ("linear", "sgd", {"start_factor": 0.25, "end_factor": 0.5, "total_iters": 3}, lambda o: L.LinearLR(o, 0.25, 0.5, 3), 6),
    ("linear_end_zero", "sgd", {"start_factor": 1.0, "end_factor": 0.0, "total_iters": 4}, lambda o: L.LinearLR(o, 1.0, 0.0, 4), 6),
    ("constant_default", "sgd", {}, lambda o: L.ConstantLR(o), 8),
    ("constant", "sgd", {"factor": 0.5, "total_iters": 2}, lambda o: L.ConstantLR(o, 0.5, 2), 5),
    ("lambda", "sgd", {}, lambda o: L.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1.0 / (e + 1)]), 6),
    ("onecycle", "sgd", {"max_lr": [1.0], "total_steps": 10}, lambda o: L.OneCycleLR(o, 1.0, total_steps=10), 10),
    ("onecycle_linear_three_phase", "sgd", {"max_lr": [1.0, 0.5], "epochs": 3, "steps_per_epoch": 4, "anneal_strategy": "linear", "three_phase": True, "div_factor": 10.0, "final_div_factor": 100.0, "pct_start": 0.25},
     lambda o: L.OneCycleLR(o, [1.0, 0.5], epochs=3, steps_per_epoch=4, anneal_strategy="linear", three_phase=True, div_factor=10.0, final_div_factor=100.0, pct_start=0.25), 12),
    ("onecycle_adam", "adam", {"max_lr": [0.3], "total_steps": 8, "base_momentum": [0.7], "max_momentum": [0.9, 0.8]},
     lambda o: L.OneCycleLR(o, 0.3, total_steps=8, base_momentum=0.7, max_momentum=[0.9, 0.8]), 8),
    ("onecycle_no_momentum", "sgd", {"max_lr": [0.2], "total_steps": 6, "cycle_momentum": False}, lambda o: L.OneCycleLR(o, 0.2, total_steps=6, cycle_momentum=False), 6),
    ("sequential", "sgd", {}, seq, 20),
]

PLATEAU_CASES = [
    ("plateau_default", {}, 30),
    ("plateau_min_abs_cooldown", {"patience": 1, "threshold": 0.05, "threshold_mode": "abs", "cooldown": 2, "factor": 0.5, "min_lr": [0.02, 0.001]}, 30),
    ("plateau_max_rel", {"mode": "max", "patience": 2, "factor": 0.2, "eps": 1e-3}, 30),
    ("plateau_max_abs", {"mode": "max", "patience": 0, "threshold_mode": "abs", "threshold": 0.0, "min_lr": [0.005]}, 30),
]


def scheduler_cases():
    out = []
    for name, optname, args, make, steps in SCHED_CASES:
        lrs, moms = sched_run(sgd2 if optname == "sgd" else adam2, make, steps)
        out.append({"name": name, "optimizer": optname, "args": args, "lrs": lrs, "momenta": moms})
    for name, args, steps in PLATEAU_CASES:
        kw = dict(args)
        if "min_lr" in kw and len(kw["min_lr"]) == 1:
            kw["min_lr"] = kw["min_lr"][0]
        lrs, moms = sched_run(sgd2, lambda o: L.ReduceLROnPlateau(o, **kw), steps, PLATEAU_METRICS)
        out.append({"name": name, "optimizer": "sgd", "args": args, "lrs": lrs, "momenta": moms,
                    "metrics": [None if math.isnan(m) else m for m in PLATEAU_METRICS[:steps]]})
    return out


def scheduler_errors():
    out = []
    cases = [
        ("onecycle_past_total", lambda o: L.OneCycleLR(o, 1.0, total_steps=3), 4),
        ("linear_start_above_one", lambda o: L.LinearLR(o, start_factor=1.5), 0),
        ("linear_end_negative", lambda o: L.LinearLR(o, end_factor=-0.5), 0),
        ("constant_factor", lambda o: L.ConstantLR(o, factor=1.5), 0),
        ("warm_t0", lambda o: L.CosineAnnealingWarmRestarts(o, 0), 0),
        ("warm_tmult", lambda o: L.CosineAnnealingWarmRestarts(o, 2, T_mult=0), 0),
        ("onecycle_total", lambda o: L.OneCycleLR(o, 1.0, total_steps=-1), 0),
        ("onecycle_missing", lambda o: L.OneCycleLR(o, 1.0), 0),
        ("onecycle_pct", lambda o: L.OneCycleLR(o, 1.0, total_steps=5, pct_start=1.5), 0),
        ("onecycle_anneal", lambda o: L.OneCycleLR(o, 1.0, total_steps=5, anneal_strategy="exp"), 0),
        ("onecycle_max_lrs", lambda o: L.OneCycleLR(o, [1.0, 2.0, 3.0], total_steps=5), 0),
        ("plateau_factor", lambda o: L.ReduceLROnPlateau(o, factor=1.0), 0),
        ("plateau_mode", lambda o: L.ReduceLROnPlateau(o, mode="up"), 0),
        ("plateau_threshold_mode", lambda o: L.ReduceLROnPlateau(o, threshold_mode="x"), 0),
        ("plateau_min_lrs", lambda o: L.ReduceLROnPlateau(o, min_lr=[0.1, 0.2, 0.3]), 0),
        ("lambda_count", lambda o: L.LambdaLR(o, [lambda e: 1.0] * 3), 0),
    ]
    for name, make, steps in cases:
        o = sgd2()
        try:
            s = make(o)
            for _ in range(steps):
                o.step()
                s.step()
            raise SystemExit("no error for " + name)
        except ValueError as e:
            out.append({"name": name, "error": str(e)})
    return out


def clip_cases():
    out = []
    g = torch.Generator().manual_seed(3)
    for dtype in (torch.float32, torch.float64):
        for norm_type in (2.0, 1.0, float("inf"), 0.5, 3.0, 0.0):
            for max_norm in (0.5, 100.0):
                grads = [torch.randn(s, generator=g, dtype=torch.float64).to(dtype) for s in [(3, 2), (5,)]]
                ps = [torch.zeros(x.shape, dtype=dtype, requires_grad=True) for x in grads]
                for p, x in zip(ps, grads):
                    p.grad = x.clone()
                ps.append(torch.zeros(2, dtype=dtype, requires_grad=True))  # no gradient
                total = torch.nn.utils.clip_grad_norm_(ps, max_norm, norm_type)
                out.append({"kind": "norm", "max_norm": max_norm, "norm_type": "inf" if math.isinf(norm_type) else norm_type,
                            "grads": [enc(x) for x in grads], "total": total.item(),
                            "after": [enc(p.grad) for p in ps[:2]]})
        grads = [torch.randn(s, generator=g, dtype=torch.float64).to(dtype) for s in [(4,), (2, 3)]]
        ps = [torch.zeros(x.shape, dtype=dtype, requires_grad=True) for x in grads]
        for p, x in zip(ps, grads):
            p.grad = x.clone()
        torch.nn.utils.clip_grad_value_(ps, 0.4)
        out.append({"kind": "value", "clip_value": 0.4, "grads": [enc(x) for x in grads], "after": [enc(p.grad) for p in ps]})
    p = torch.zeros(2, requires_grad=True)
    p.grad = torch.tensor([1.0, float("inf")])
    try:
        torch.nn.utils.clip_grad_norm_([p], 1.0, 2.0, error_if_nonfinite=True)
        raise SystemExit("no error for a non-finite norm")
    except RuntimeError as e:
        nonfinite = str(e)
    return {"cases": out, "nonfinite_error": nonfinite}


def main():
    out = {"torch": torch.__version__, "optimizers": optimizer_cases(), "errors": error_cases(),
           "schedulers": scheduler_cases(), "scheduler_errors": scheduler_errors(), "clip": clip_cases()}
    with open(OUT, "w") as f:
        json.dump(out, f, allow_nan=False)
    print("wrote", os.path.normpath(OUT))


main()
