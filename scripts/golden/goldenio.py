"""Encoding shared by the golden scripts: JSON numbers for tensor values,
with the specials ("nan", "inf", "-inf", "-0") as strings.

Values of float32, float16 and bfloat16 tensors are written as the
shortest decimal that rounds back to the same float32 (9 significant
digits at most instead of 17): the Go side reads a float64 and rounds it
to the tensor's dtype, which gives the same bits, and the files stay small.
(Run alone, this module does nothing.)
"""
import math

import torch

SHORT = (torch.float32, torch.float16, torch.bfloat16)


def enc(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0 and math.copysign(1, v) < 0:
            return "-0"
    return v


def values(t):
    """The flat values of t, encoded."""
    flat = t.detach().reshape(-1)
    if t.dtype in SHORT:
        return [enc(float(repr(x))) for x in flat.float().numpy()]
    return [enc(v) for v in flat.tolist()]


def enc_tensor(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": values(t)}
