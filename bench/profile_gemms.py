"""Runs a few GEMM kernels once each, for Nsight Compute:

    ncu --section SpeedOfLight -k regex:gemm python3 bench/profile_gemms.py

(in this order: x @ w^T ping-pong, x @ w^T cooperative, shared W ping-pong,
IKBO LCE ping-pong; the kernel names repeat across schedules).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from lce_check import make_index  # noqa: E402

art = os.environ.get("ARTIFACTS", "bench/artifacts")
gen = torch.Generator(device="cuda")
gen.manual_seed(0)
f16 = torch.float16
u = lambda shape: (torch.rand(shape, generator=gen, device="cuda") - 0.5).to(f16)
B = 1024
x, w = u((B, 433, 872)), u((256, 872))
out = torch.empty((B, 433, 256), dtype=f16, device="cuda")
sparcast.load(os.path.join(art, "gemm_suite_pingpong")).linear_f16(x, w, out=[out])
sparcast.load(os.path.join(art, "gemm_suite_cooperative")).linear_f16(x, w, out=[out])
wa, e = u((433, 872)), u((B, 872, 256))
sparcast.load(os.path.join(art, "gemm_suite_pingpong")).shared_w_f16(wa, e, out=[out])
wl, eu, ec = u((433, 2044)), u((15, 1178, 256)), u((B, 866, 256))
idx = make_index(15, B, gen, True)
sparcast.load(os.path.join(art, "lce_pingpong")).lce(wl, eu, ec, idx, out=[out])
torch.cuda.synchronize()
