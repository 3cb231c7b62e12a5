"""Runs a few kernels once each, for Nsight Compute on the GPU machine:

    ncu --section SpeedOfLight -k regex:gemm python3 bench/profile_kernels.py gemms
    ncu --section SpeedOfLight -k regex:lce_gemm python3 bench/profile_kernels.py lce
    ncu --section SpeedOfLight -k regex:attention python3 bench/profile_kernels.py attention

gemms: x @ w^T ping-pong, x @ w^T cooperative, shared W ping-pong, the IKBO
LCE ping-pong (kernel names repeat across schedules: they run in this
order). transposed: shared W ping-pong, cooperative and transposed, then
the LCE ping-pong and transposed. lce: the LCE default, with B multicast in CTA pairs, cooperative.
attention-ab: the two cases where the attention lowered from its IR trails
the writer's (ta_speed_s8192, ll_speed_n65536 of attention_suite): profile
with --artifacts bench/artifacts and bench/artifacts/ir.
attention: target attention at the reference shapes (B = 2048, 32 users,
S = 1024, f16), log-linear N = 16384 (B = 4, H = 16, bf16, blocks of 128).
hybrid: the hybrid-tiled y = x W^T, all tiles 2:4, f16: decode (N 4096, K
11008, one token) then prefill (N 11008, K 4096, 2048 tokens).
similarity: the dense cosine of 5,000 x 200,000 Zipf rows (head 16), then
its top-100 candidates entry over the same items.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparcast  # noqa: E402
from lce_check import make_index  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("workload", choices=["gemms", "lce", "attention", "attention-ab", "transposed", "similarity", "hybrid"])
    p.add_argument("--artifacts", default="bench/artifacts")
    args = p.parse_args()
    load = lambda name: sparcast.load(os.path.join(args.artifacts, name))
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    u = lambda shape, t=torch.float16: (torch.rand(shape, generator=gen, device="cuda") - 0.5).to(t)
    B = 1024
    out = torch.empty((B, 433, 256), dtype=torch.float16, device="cuda")
    lce_inputs = lambda: (u((433, 2044)), u((15, 1178, 256)), u((B, 866, 256)), make_index(15, B, gen, True))
    if args.workload == "attention-ab":
        from attention_check import target_inputs
        suite = load("attention_suite")
        idx, q, k, v = target_inputs(8192, gen)
        suite.ta_speed_s8192(q, k, v, idx, out=[torch.empty_like(q)])
        q, k, v = (u((4, 16, 65536, 128), torch.bfloat16) for _ in range(3))
        suite.ll_speed_n65536(q, k, v, out=[torch.empty_like(q)])
    elif args.workload == "hybrid":
        from hybrid_check import MIXES, make_weight, pack, run
        module = load("hybrid_suite")
        for n, k, m in ((4096, 11008, 1), (11008, 4096, 2048)):
            w, kinds = make_weight(n, k, torch.float16, MIXES["all_24"], gen)
            x = u((1, m, k))
            run(getattr(module, "linear_%dx%d_m%d_f16" % (n, k, m)), pack(w, kinds), x)
    elif args.workload == "similarity":
        from similarity_check import zipf_csr
        host = torch.Generator().manual_seed(0)
        q, i = zipf_csr(5000, 43, 1200000, host), zipf_csr(200000, 38, 1200000, host)
        inputs = sparcast.similarity_inputs(q, i, max_head=16).to("cuda")
        module = load("similarity")
        scores = module.cosine(*inputs.args)
        theta = torch.topk(scores[:, :20000], 100, dim=1).values[:, -1].contiguous()
        module.cosine_candidates(*inputs.args, theta)
    elif args.workload == "gemms":
        x, w = u((B, 433, 872)), u((256, 872))
        load("gemm_suite_pingpong").linear_f16(x, w, out=[out])
        load("gemm_suite_cooperative").linear_f16(x, w, out=[out])
        load("gemm_suite_pingpong").shared_w_f16(u((433, 872)), u((B, 872, 256)), out=[out])
        load("lce_pingpong").lce(*lce_inputs(), out=[out])
    elif args.workload == "transposed":
        w, e = u((433, 872)), u((B, 872, 256))
        for name in ("gemm_suite_pingpong", "gemm_suite_cooperative", "gemm_suite_transposed"):
            load(name).shared_w_f16(w, e, out=[out])
        inputs = lce_inputs()
        for name in ("lce_pingpong", "lce_transposed"):
            load(name).lce(*inputs, out=[out])
    elif args.workload == "lce":
        inputs = lce_inputs()
        for name in ("lce", "lce_mc", "lce_cooperative"):
            load(name).lce(*inputs, out=[out])
    else:
        f16, bf16 = torch.float16, torch.bfloat16
        q, k, v = u((2048, 2, 64, 128)), u((32, 2, 1024, 128)), u((32, 2, 1024, 128))
        o = torch.empty((2048, 2, 64, 128), dtype=f16, device="cuda")
        load("target_attention").target_attention(q, k, v, make_index(32, 2048, gen, False), out=[o])
        q, k, v = (u((4, 16, 16384, 128), bf16) for _ in range(3))
        o = torch.empty((4, 16, 16384, 128), dtype=bf16, device="cuda")
        load("loglinear_attention").loglinear_attention(q, k, v, out=[o])
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
