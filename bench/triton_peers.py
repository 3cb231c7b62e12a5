"""Hand-written Triton kernels for the two IKBO workloads: the peer our
users have today (they write these kernels by hand; Sparcast derives its
kernels from the plain model graph). Written here the way such a user
would, autotuned over a few usual configurations on first call:

  target_attention(q, k, v, idx)  flash-attention forward (online softmax
      in fp32, exp2 with the scale folded in) that reads each candidate's
      user's K/V through idx: nothing of size B_cand * S is materialized.
  target_attention_paired(q, k, v, idx, pairs)  the same with two
      candidates of one user in a 128-row tile (pairs from
      pair_candidates(idx), computed once a batch).
  lce(w_user, w_cand, e_user, e_cand, idx)  the decomposed LCE: the request
      GEMM W_user @ E_user[u] into an fp32 result R, then the candidate
      GEMM W_cand @ E_cand[b] with R[idx[b]] added in its epilogue.

`python3 bench/triton_peers.py` checks both against fp32 torch on random
inputs and times them next to torch (needs a GPU and triton).
"""

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _attend(q, k_base, v_base, qk_scale, S, s_ks, s_vs, ROWS: tl.constexpr, D: tl.constexpr,
            BLOCK_N: tl.constexpr, EVEN_S: tl.constexpr):
    """O (fp32, normalized) of the query rows `q` [ROWS, D] over S keys and
    values at k_base / v_base (rows s_ks / s_vs apart): online softmax,
    exp2 with the scale folded into qk_scale."""
    offs_d = tl.arange(0, D)
    m_i = tl.full([ROWS], -float("inf"), tl.float32)
    l_i = tl.zeros([ROWS], tl.float32)
    acc = tl.zeros([ROWS, D], tl.float32)
    for start in range(0, S, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        if EVEN_S:
            kt = tl.load(k_base + offs_n[None, :] * s_ks + offs_d[:, None])
        else:
            kt = tl.load(k_base + offs_n[None, :] * s_ks + offs_d[:, None],
                         mask=offs_n[None, :] < S, other=0.0)
        s = tl.dot(q, kt) * qk_scale
        if not EVEN_S:
            s = tl.where(offs_n[None, :] < S, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        if EVEN_S:
            vt = tl.load(v_base + offs_n[:, None] * s_vs + offs_d[None, :])
        else:
            vt = tl.load(v_base + offs_n[:, None] * s_vs + offs_d[None, :],
                         mask=offs_n[:, None] < S, other=0.0)
        acc = tl.dot(p.to(vt.dtype), vt, acc)
        m_i = m_new
    return acc / l_i[:, None]


def _attention_configs():
    return [triton.Config({"BLOCK_N": bn}, num_warps=4, num_stages=s)
            for bn in (64, 128) for s in (2, 3, 4)] + [
        triton.Config({"BLOCK_N": 128}, num_warps=8, num_stages=3)]


@triton.autotune(configs=_attention_configs(), key=["S", "L", "D"])
@triton.heuristics({"EVEN_S": lambda a: a["S"] % a["BLOCK_N"] == 0})
@triton.jit
def _target_attention_kernel(Q, K, V, IDX, O, qk_scale, S, H,
                             s_qb, s_qh, s_ql, s_ku, s_kh, s_ks, s_vu, s_vh, s_vs,
                             s_ob, s_oh, s_ol,
                             L: tl.constexpr, D: tl.constexpr, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr, EVEN_S: tl.constexpr):
    # Programs of one candidate's heads are neighbours, and candidates of
    # one user follow each other: their K/V stay in L2.
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    user = tl.load(IDX + b).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + b.to(tl.int64) * s_qb + h * s_qh + offs_m[:, None] * s_ql + offs_d[None, :],
                mask=offs_m[:, None] < L, other=0.0)
    acc = _attend(q, K + user * s_ku + h * s_kh, V + user * s_vu + h * s_vh, qk_scale, S, s_ks, s_vs,
                  BLOCK_M, D, BLOCK_N, EVEN_S)
    tl.store(O + b.to(tl.int64) * s_ob + h * s_oh + offs_m[:, None] * s_ol + offs_d[None, :],
             acc.to(O.dtype.element_ty), mask=offs_m[:, None] < L)


def target_attention(q, k, v, idx, out=None):
    """q [B, H, L, d], k/v [U, H, S, d] (last dim contiguous), idx int32 [B]."""
    B, H, L, D = q.shape
    S = k.shape[2]
    assert k.stride(3) == 1 and v.stride(3) == 1 and q.stride(3) == 1
    if out is None:
        out = torch.empty_like(q)
    block_m = 64
    grid = (triton.cdiv(L, block_m), B * H)
    _target_attention_kernel[grid](
        q, k, v, idx, out, D ** -0.5 * LOG2E, S, H,
        q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1), k.stride(2),
        v.stride(0), v.stride(1), v.stride(2), out.stride(0), out.stride(1), out.stride(2),
        L=L, D=D, BLOCK_M=block_m)
    return out


def _paired_configs():
    return [triton.Config({"BLOCK_N": bn}, num_warps=8, num_stages=s)
            for bn in (64, 128) for s in (2, 3)]


@triton.autotune(configs=_paired_configs(), key=["S", "L", "D"])
@triton.heuristics({"EVEN_S": lambda a: a["S"] % a["BLOCK_N"] == 0})
@triton.jit
def _paired_attention_kernel(Q, K, V, IDX, PAIRS, O, qk_scale, S, H,
                             s_qb, s_qh, s_ql, s_ku, s_kh, s_ks, s_vu, s_vh, s_vs,
                             s_ob, s_oh, s_ol,
                             L: tl.constexpr, D: tl.constexpr, BLOCK_N: tl.constexpr,
                             EVEN_S: tl.constexpr):
    """Two candidates of one user in one 2L-row tile (PAIRS[p] = (a, b),
    b = -1 when a is alone): each K/V block is read once for both and the
    MMAs are twice as tall, as FlashAttention's 128-row tiles are."""
    p = tl.program_id(0)
    h = tl.program_id(1)
    cand_a = tl.load(PAIRS + 2 * p)
    cand_b = tl.load(PAIRS + 2 * p + 1)
    user = tl.load(IDX + cand_a).to(tl.int64)
    rows = tl.arange(0, 2 * L)
    second = rows >= L
    cand = tl.where(second, cand_b, cand_a).to(tl.int64)
    live = (cand >= 0)[:, None]
    row_in = (rows % L)[:, None]
    offs_d = tl.arange(0, D)
    q = tl.load(Q + cand[:, None] * s_qb + h * s_qh + row_in * s_ql + offs_d[None, :], mask=live, other=0.0)
    acc = _attend(q, K + user * s_ku + h * s_kh, V + user * s_vu + h * s_vh, qk_scale, S, s_ks, s_vs,
                  2 * L, D, BLOCK_N, EVEN_S)
    tl.store(O + cand[:, None] * s_ob + h * s_oh + row_in * s_ol + offs_d[None, :],
             acc.to(O.dtype.element_ty), mask=live)


def pair_candidates(idx):
    """[P, 2] int32: candidates of one user two by two (the second -1 when
    a user's count is odd), by torch ops a user would run once a batch."""
    B = idx.shape[0]
    order = torch.argsort(idx, stable=True)
    users = idx[order]
    first = torch.ones(B, dtype=torch.bool, device=idx.device)
    first[1:] = users[1:] != users[:-1]
    starts = torch.nonzero(first).flatten()
    group = torch.cumsum(first.to(torch.int64), 0) - 1
    pos = torch.arange(B, device=idx.device) - starts[group]
    lead = (pos % 2) == 0
    has_next = torch.zeros(B, dtype=torch.bool, device=idx.device)
    has_next[:-1] = ~first[1:]
    partner = torch.full((B,), -1, dtype=torch.int64, device=idx.device)
    partner[:-1] = order[1:]
    partner = torch.where(has_next, partner, torch.full_like(partner, -1))
    return torch.stack([order[lead], partner[lead]], 1).to(torch.int32).contiguous()


def target_attention_paired(q, k, v, idx, pairs, out=None):
    """As target_attention, two candidates of one user a program; `pairs`
    from pair_candidates(idx) (computed once, outside the timing)."""
    B, H, L, D = q.shape
    S = k.shape[2]
    assert k.stride(3) == 1 and v.stride(3) == 1 and q.stride(3) == 1 and L in (16, 32, 64)
    if out is None:
        out = torch.empty_like(q)
    _paired_attention_kernel[(pairs.shape[0], H)](
        q, k, v, idx, pairs, out, D ** -0.5 * LOG2E, S, H,
        q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1), k.stride(2),
        v.stride(0), v.stride(1), v.stride(2), out.stride(0), out.stride(1), out.stride(2),
        L=L, D=D)
    return out


def _gemm_configs():
    return [triton.Config({"BM": bm, "BN": bn, "BK": 64}, num_warps=w, num_stages=s)
            for bm, bn, w, s in ((128, 256, 8, 3), (128, 256, 8, 4), (128, 128, 8, 4),
                                 (128, 128, 4, 4), (64, 256, 4, 4))]


@triton.autotune(configs=_gemm_configs(), key=["M", "N", "K", "HAS_R"])
@triton.jit
def _shared_a_bmm_kernel(A, Bm, C, R, IDX, M, N, K, s_am, s_bb, s_bk, s_cb, s_cm, s_rb, s_rm,
                         HAS_R: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C[b] = A @ B[b] (+ R[IDX[b]]), A [M, >= K rounded up to BK, zero
    beyond K] shared by every b: the tiles of one b run next to each
    other, so A stays in L2. Rows of A past M are read wrapped (stores
    are masked) and only B's last k-tile is masked, as in Triton's
    matmul tutorial."""
    pid = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    num_n = tl.cdiv(N, BN)
    offs_m = (pid // num_n) * BM + tl.arange(0, BM)
    offs_n = (pid % num_n) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = A + (offs_m[:, None] % M) * s_am + offs_k[None, :]
    b_ptrs = Bm + b * s_bb + offs_k[:, None] * s_bk + (offs_n[None, :] % N)
    acc = tl.zeros([BM, BN], tl.float32)
    for _ in range(0, K // BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * s_bk
    if K % BK != 0:
        bt = tl.load(b_ptrs, mask=offs_k[:, None] < K % BK, other=0.0)
        acc = tl.dot(tl.load(a_ptrs), bt, acc)
    inside = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if HAS_R:
        user = tl.load(IDX + b).to(tl.int64)
        acc += tl.load(R + user * s_rb + offs_m[:, None] * s_rm + offs_n[None, :], mask=inside, other=0.0)
    tl.store(C + b * s_cb + offs_m[:, None] * s_cm + offs_n[None, :], acc.to(C.dtype.element_ty), mask=inside)


def pad_k(w, multiple=64):
    """A weight [M, K] zero-padded to K rounded up to `multiple` (done once,
    as a user would store the parameter)."""
    k = w.shape[1]
    return torch.nn.functional.pad(w, (0, -k % multiple)).contiguous()


def shared_a_bmm(a, k, bm, out, r=None, idx=None):
    """out[b] = a[:, :k] @ bm[b] (+ r[idx[b]]); a from pad_k."""
    M = a.shape[0]
    batch, K, N = bm.shape
    assert K == k and a.shape[1] % 64 == 0 and a.shape[1] >= K
    assert a.stride(1) == 1 and bm.stride(2) == 1 and out.stride(2) == 1
    has_r = r is not None
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]), batch)
    _shared_a_bmm_kernel[grid](
        a, bm, out, r if has_r else out, idx if has_r else out, M, N, K,
        a.stride(0), bm.stride(0), bm.stride(1), out.stride(0), out.stride(1),
        r.stride(0) if has_r else 0, r.stride(1) if has_r else 0, HAS_R=has_r)
    return out


def lce(w_user, w_cand, e_user, e_cand, idx, out=None, r=None):
    """out[b] = w_user @ e_user[idx[b]] + w_cand @ e_cand[b] (fp16 out,
    fp32 accumulation and fp32 request result); w_user and w_cand from
    pad_k (the activations e_* as they come). `r` may pass the [U, M, N]
    fp32 workspace."""
    M, N = w_user.shape[0], e_user.shape[2]
    if r is None:
        r = torch.empty((e_user.shape[0], M, N), dtype=torch.float32, device=w_user.device)
    if out is None:
        out = torch.empty((e_cand.shape[0], M, N), dtype=e_cand.dtype, device=e_cand.device)
    shared_a_bmm(w_user, e_user.shape[1], e_user, r)
    shared_a_bmm(w_cand, e_cand.shape[1], e_cand, out, r, idx)
    return out


def _self_test():
    import torch.nn.functional as F
    gen = torch.Generator(device="cuda").manual_seed(0)
    rnd = lambda shape: (torch.rand(shape, generator=gen, device="cuda") * 2 - 1).half()
    for S in (1024, 1000):
        B, H, L, d, users = 256, 2, 64, 128, 4
        idx = torch.randint(0, users, (B,), generator=gen, device="cuda").to(torch.int32)
        q, k, v = rnd((B, H, L, d)), rnd((users, H, S, d)), rnd((users, H, S, d))
        il = idx.long()
        ref = F.scaled_dot_product_attention(q.float(), k[il].float(), v[il].float())
        for name, out in (("", target_attention(q, k, v, idx)),
                          (" paired", target_attention_paired(q, k, v, idx, pair_candidates(idx)))):
            err = ((out.float() - ref).norm() / ref.norm()).item()
            print("target attention%s S=%d rel_fro %.2e %s" % (name, S, err, "ok" if err <= 2e-3 else "FAIL"))
    B, users, ku, kc, M, N = 1024, 15, 1178, 866, 433, 256
    idx = torch.randint(0, users, (B,), generator=gen, device="cuda").to(torch.int32)
    wu, wc, eu, ec = rnd((M, ku)), rnd((M, kc)), rnd((users, ku, N)), rnd((B, kc, N))
    il = idx.long()
    ref = torch.matmul(wu.float(), eu.float())[il] + torch.matmul(wc.float(), ec.float())
    bound = ((torch.matmul(wu, eu)[il] + torch.matmul(wc, ec)).float() - ref).abs().max().item()
    err = (lce(pad_k(wu), pad_k(wc), eu, ec, idx).float() - ref).abs().max().item()
    print("lce max_err %.4f (cuBLAS fp16 %.4f) %s" % (err, bound, "ok" if err <= bound else "FAIL"))


if __name__ == "__main__":
    _self_test()
