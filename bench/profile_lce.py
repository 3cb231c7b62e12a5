"""The IKBO LCE kernels once each for Nsight Compute, in this order:
default (ping-pong), ping-pong with B multicast in CTA pairs, cooperative.

    ncu --section SpeedOfLight -k regex:lce_gemm python3 bench/profile_lce.py
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
u = lambda shape: (torch.rand(shape, generator=gen, device="cuda") - 0.5).to(torch.float16)
B = 1024
w, eu, ec = u((433, 2044)), u((15, 1178, 256)), u((B, 866, 256))
idx = make_index(15, B, gen, True)
out = torch.empty((B, 433, 256), dtype=torch.float16, device="cuda")
for name in ("lce", "lce_mc", "lce_cooperative"):
    sparcast.load(os.path.join(art, name)).lce(w, eu, ec, idx, out=[out])
torch.cuda.synchronize()
