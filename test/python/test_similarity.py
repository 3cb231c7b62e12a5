"""sparcast.csr_pack on torch sparse tensors and CSR / COO arrays (CPU):
the words decode to the columns, the norms are the rows' norms (0 for an
empty row), COO in any order packs as CSR, a torch COO tensor's repeats
are summed, and bad rows are refused with the runtime's message.

Run by ctest with the Debian interpreter that has python3-torch, and
SPARCAST_RUNTIME_LIB pointing at the built runtime.
"""

import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import sparcast  # noqa: E402

D = 5000


def zipf_rows(rows, per_row, gen, empty=()):
    """A torch sparse CSR matrix of `rows` rows of about `per_row` ids
    drawn as floor(D u^3), the rows in `empty` without any."""
    indptr, indices, values = [0], [], []
    for r in range(rows):
        ids = [] if r in empty else sorted(set(
            int(D * u ** 3) for u in torch.rand(per_row, generator=gen).tolist()))
        indices += ids
        values += (torch.rand(len(ids), generator=gen) + 0.1).tolist()
        indptr.append(len(indices))
    return torch.sparse_csr_tensor(torch.tensor(indptr), torch.tensor(indices, dtype=torch.int64),
                                   torch.tensor(values), size=(rows, D))


class CsrPackTest(unittest.TestCase):
    def test_torch_csr_round_trip_and_norms(self):
        gen = torch.Generator().manual_seed(0)
        x = zipf_rows(9, 30, gen, empty=(4,))
        rows = sparcast.csr_pack(x, block_size=1024, offset_bits=10)
        self.assertEqual(rows.shape, (9, D))
        self.assertEqual(rows.layout, "#sc.block_csr<block_size = 1024, id_bits = 22, offset_bits = 10>")
        self.assertTrue(torch.equal(rows.row_ptr, x.crow_indices().int()))
        self.assertTrue(torch.equal(rows.columns(), x.col_indices()))
        self.assertTrue(torch.equal(rows.values, x.values()))
        dense = x.to_dense().double()
        self.assertTrue(torch.allclose(rows.norms.double(), dense.norm(dim=1), rtol=1e-6))
        self.assertEqual(rows.norms[4].item(), 0.0)
        # The cosines the packed rows give equal the dense form's.
        unpacked = torch.zeros(9, D, dtype=torch.float64)
        r = torch.repeat_interleave(torch.arange(9), rows.row_ptr[1:] - rows.row_ptr[:-1])
        unpacked[r, rows.columns()] = rows.values.double()
        self.assertTrue(torch.equal(unpacked, dense))

    def test_block_smaller_than_offset_field(self):
        x = torch.sparse_csr_tensor(torch.tensor([0, 2]), torch.tensor([5, 700]),
                                    torch.tensor([1.0, 2.0]), size=(1, 1000))
        rows = sparcast.csr_pack(x, block_size=256, offset_bits=12)
        self.assertEqual(rows.col_ids.tolist(), [5, (2 << 12) | 188])
        self.assertEqual(rows.columns().tolist(), [5, 700])

    def test_arrays_and_coo_pack_alike(self):
        gen = torch.Generator().manual_seed(1)
        x = zipf_rows(6, 20, gen, empty=(0,))
        a = sparcast.csr_pack((x.crow_indices().numpy(), x.col_indices().int().numpy(),
                               x.values().double().numpy()), dim=D)
        coo = x.to_sparse_coo().coalesce()
        perm = torch.randperm(coo.values().numel(), generator=gen)
        b = sparcast.csr_pack(coo=(coo.indices()[0][perm], coo.indices()[1][perm],
                                   coo.values()[perm]), rows=6, dim=D)
        c = sparcast.csr_pack(coo)
        for other in (b, c):
            for name in ("row_ptr", "col_ids", "values", "norms"):
                self.assertTrue(torch.equal(getattr(a, name), getattr(other, name)), name)

    def test_torch_coo_repeats_are_summed(self):
        x = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [3, 3, 2]]), torch.tensor([1.0, 2.0, 4.0]),
                                    size=(2, 10))
        rows = sparcast.csr_pack(x)
        self.assertEqual(rows.values.tolist(), [3.0, 4.0])
        self.assertEqual(rows.norms.tolist(), [3.0, 4.0])

    def test_head_and_split(self):
        gen = torch.Generator().manual_seed(3)
        q, i = zipf_rows(20, 40, gen, empty=(3,)), zipf_rows(30, 35, gen)
        head, coverage = sparcast.csr_head(q, i, max_head=16)
        qd, idn = q.to_dense().double(), i.to_dense().double()
        products = (qd != 0).sum(0) * (idn != 0).sum(0)
        self.assertEqual(head.numel(), 16)
        # Most productive first, and none left out carries more.
        counts = products[head]
        self.assertTrue(bool((counts[:-1] >= counts[1:]).all()))
        rest = torch.ones(D, dtype=torch.bool)
        rest[head] = False
        self.assertLessEqual(products[rest].max().item(), counts[-1].item())
        self.assertAlmostEqual(coverage, counts.sum().item() / products.sum().item(), places=9)
        self.assertGreater(coverage, 0.5)  # Zipf: a few dims carry most
        # Head dot + tail dot = the rows' dot.
        qh, qt = sparcast.csr_split(q, head)
        ih, it = sparcast.csr_split(i, head)
        unpack = lambda t: torch.zeros(t.shape, dtype=torch.float64).index_put_(
            (torch.repeat_interleave(torch.arange(t.shape[0]), t.row_ptr[1:] - t.row_ptr[:-1]),
             t.columns()), t.values.double())
        got = qh.double() @ ih.double().t() + unpack(qt) @ unpack(it).t()
        self.assertTrue(torch.allclose(got, qd @ idn.t(), rtol=0, atol=1e-9))
        self.assertEqual(qt.values.numel() + (qh != 0).sum().item(), q.values().numel())

    def test_transpose(self):
        gen = torch.Generator().manual_seed(5)
        x = zipf_rows(12, 25, gen, empty=(7,))
        t = sparcast.csr_transpose(x)
        self.assertEqual(t.shape, (D, 12))
        rows = torch.repeat_interleave(torch.arange(D), (t.row_ptr[1:] - t.row_ptr[:-1]).long())
        dense = torch.zeros(D, 12).index_put_((rows, t.columns()), t.values)
        self.assertTrue(torch.equal(dense, x.to_dense().t()))
        # From packed rows too.
        again = sparcast.csr_transpose(sparcast.csr_pack(x))
        self.assertTrue(torch.equal(again.col_ids, t.col_ids))

    def test_inverse_norms_match_the_c_entry(self):
        # As csr::inverseNorm: the fp64 reciprocal rounded once, 0 for an
        # empty row, FLT_MAX for a norm whose reciprocal would overflow.
        from sparcast.similarity import _inverse_norms
        norms = torch.tensor([0.0, 4.0, 3.0, 1e-45, 7.0])
        got = _inverse_norms(norms)
        self.assertEqual(got.dtype, torch.float32)
        self.assertEqual(got.tolist()[:2], [0.0, 0.25])
        self.assertEqual(got[2].item(), torch.tensor(1 / 3.0, dtype=torch.float32).item())
        self.assertEqual(got[3].item(), torch.finfo(torch.float32).max)
        self.assertEqual(got[4].item(), torch.tensor(1 / 7.0, dtype=torch.float32).item())

    def test_similarity_inputs_reproduce_the_cosines(self):
        # What the compiled entry computes, evaluated here from its inputs:
        # heads' product + tails' product over the norms.
        gen = torch.Generator().manual_seed(8)
        q, i = zipf_rows(15, 40, gen, empty=(2,)), zipf_rows(22, 35, gen, empty=(0,))
        inputs = sparcast.similarity_inputs(q, i, max_head=20)
        qh, ih, qp, qi, qv, dp, di, dv, qr, ir = inputs.args
        self.assertEqual(qh.shape, (15, 32))  # 20 head dims padded to 32
        self.assertEqual(ih.shape, (22, 32))
        self.assertEqual(inputs.head.numel(), 20)
        unpack = lambda p, w, v, shape: torch.zeros(shape, dtype=torch.float64).index_put_(
            (torch.repeat_interleave(torch.arange(shape[0]), (p[1:] - p[:-1]).long()),
             ((w.long() & 0xFFFFFFFF) >> 10) * 1024 + (w.long() & 1023)), v.double(), accumulate=True)
        dots = qh.double() @ ih.double().t() + unpack(qp, qi, qv, (15, D)) @ unpack(dp, di, dv, (D, 22))
        qd, idn = q.to_dense().double(), i.to_dense().double()
        norms = qd.norm(dim=1)[:, None] * idn.norm(dim=1)[None, :]
        want = torch.where(norms == 0, torch.zeros_like(norms), qd @ idn.t() / norms)
        # The inverse norms: 1 / norm within an ulp, 0 for the empty rows.
        for r, rows in ((qr, qd), (ir, idn)):
            n = rows.norm(dim=1)
            self.assertTrue(torch.equal(r[n == 0], torch.zeros_like(r[n == 0])))
            self.assertTrue(torch.allclose(r.double()[n > 0], 1 / n[n > 0], rtol=2.4e-7, atol=0))
        got = dots * qr.double()[:, None] * ir.double()[None, :]
        self.assertTrue(torch.allclose(got, want, rtol=0, atol=1e-6))
        self.assertGreater((want != 0).sum().item(), 15 * 22 // 2)

    def test_similarity_refuses_before_the_gpu(self):
        # The similarity artifact compiles (both entries); the package
        # refuses row sets over different dims and a k outside [1, N]
        # before anything reaches the GPU.
        import subprocess
        import tempfile
        aot = os.environ.get("SPARCAST_AOT")
        if not aot:
            self.skipTest("SPARCAST_AOT not set")
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([aot, os.path.join(root, "examples", "similarity.mlir"), "-o", out],
                           check=True, capture_output=True)
            module = sparcast.load(out)
            self.assertEqual(sorted(module.entries), ["cosine", "cosine_candidates"])
            gen = torch.Generator().manual_seed(9)
            q, i = zipf_rows(12, 30, gen), zipf_rows(40, 25, gen)
            narrow = torch.sparse_csr_tensor(torch.tensor([0, 1]), torch.tensor([3]),
                                             torch.tensor([1.0]), size=(1, 7))
            with self.assertRaises(sparcast.SparcastError) as caught:
                sparcast.similarity(q, narrow, artifact=module, k=5, chunk=128)
            self.assertIn("queries over D = %d, items over D = 7" % D, str(caught.exception))
            with self.assertRaises(sparcast.SparcastError) as caught:
                sparcast.similarity(q, i, artifact=module, k=0, chunk=128)
            self.assertIn("k must be in [1, 40]", str(caught.exception))
        # Without an artifact, examples/similarity.mlir is compiled (with
        # $SPARCAST_AOT) and kept: the same refusal from it.
        with self.assertRaises(sparcast.SparcastError) as caught:
            sparcast.similarity(q, i, k=41, chunk=128)
        self.assertIn("k must be in [1, 40]", str(caught.exception))

    def test_top_k_through_candidates_matches_brute_force(self):
        # The package's top-k driver (chunks, the first dense, the others'
        # candidates above the k-th largest so far, merged) against a full
        # sort, with the entries evaluated here from their inputs as the
        # kernels define them: every pair above its query's threshold once,
        # emptied slots (-inf, -1) among them as the rescoring kernel
        # leaves, the count past the slots when they do not fit.
        gen = torch.Generator().manual_seed(11)
        q, i = zipf_rows(12, 40, gen, empty=(3,)), zipf_rows(700, 30, gen, empty=(5, 400))
        qd, idn = q.to_dense().double(), i.to_dense().double()
        norms = qd.norm(dim=1)[:, None] * idn.norm(dim=1)[None, :]
        want = torch.where(norms == 0, torch.zeros_like(norms), qd @ idn.t() / norms).float()
        unpack = lambda p, w, v, shape: torch.zeros(shape, dtype=torch.float64).index_put_(
            (torch.repeat_interleave(torch.arange(shape[0]), (p[1:] - p[:-1]).long()),
             ((w.long() & 0xFFFFFFFF) >> 10) * 1024 + (w.long() & 1023)), v.double(), accumulate=True)

        def cosines(qh, ih, qp, qi, qv, dp, di, dv, qr, ir):  # as the example's entries
            dots = qh.double() @ ih.double().t() + \
                unpack(qp, qi, qv, (qh.shape[0], D)) @ unpack(dp, di, dv, (D, ih.shape[0]))
            return (dots * qr.double()[:, None] * ir.double()[None, :]).float()

        class Entry:
            def __init__(self, slots):
                self._spec = {"results": [{}, {"shape": ["m", slots]}]}

        calls = []

        class Candidates(sparcast.Module):
            def __init__(self, slots):
                self.slots = slots
                self.entries = {"cosine": Entry(0), "cosine_candidates": Entry(slots)}

            def cosine(self, *args):
                calls.append("cosine")
                return cosines(*args)

            def cosine_candidates(self, *args):
                calls.append("cosine_candidates")
                scores, theta = cosines(*args[:-1]), args[-1]
                m = scores.shape[0]
                counts = torch.zeros(m, dtype=torch.int32)
                values = torch.full((m, self.slots), float("-inf"))
                cols = torch.full((m, self.slots), -1, dtype=torch.int32)
                for r in range(m):
                    at = 0
                    for c in torch.nonzero(scores[r] > theta[r]).flatten().tolist():
                        at += c % 3 == 0  # an emptied slot before every third
                        if at < self.slots:
                            values[r, at], cols[r, at] = scores[r, c], c
                        at += 1
                    counts[r] = at
                return counts, values, cols

        for slots, chunk in [(256, 128), (32, 128)]:
            calls.clear()
            values, ids = sparcast.similarity(q, i, k=10, chunk=chunk, artifact=Candidates(slots),
                                              device="cpu", progress=False)
            top = torch.topk(want, 10, dim=1).values
            self.assertTrue(torch.allclose(values, top, rtol=0, atol=1e-6))
            self.assertTrue(torch.allclose(want.gather(1, ids), values, rtol=0, atol=1e-6))
            self.assertTrue((ids >= 0).all())
            self.assertEqual(calls[0], "cosine")  # the first chunk densely
            self.assertIn("cosine_candidates", calls)
            # With 32 slots some chunk overflows and is scored densely.
            recomputed = sys.modules["sparcast.similarity"]._top_k_by_candidates.recomputed
            self.assertEqual(recomputed > 0, slots == 32)

    def test_candidate_chunks_cover_the_items_and_cannot_overflow_first(self):
        from sparcast.similarity import _candidate_chunks
        for items, k, capacity, size in [(200000, 100, 4096, 200000), (2000000, 100, 4096, 500000),
                                         (1000, 100, 128, 1000), (3000, 1024, 4096, 3000)]:
            chunks = _candidate_chunks(items, k, capacity, size)
            # Contiguous from 0 to the last item, none empty.
            self.assertEqual(chunks[0][0], 0)
            self.assertEqual(chunks[-1][1], items)
            for (a, b), (c, _) in zip(chunks, chunks[1:]):
                self.assertEqual(b, c)
            self.assertTrue(all(a < b for a, b in chunks))
            # The first, with no threshold, takes every pair at most twice:
            # half the slots at most. The others at most `size`.
            self.assertLessEqual(chunks[0][1], capacity // 2)
            self.assertTrue(all(b - a <= max(size, 128) for a, b in chunks[1:]))

    def test_refusals(self):
        bad = [
            (dict(x=(torch.tensor([0, 2]), torch.tensor([7, 3]), torch.tensor([1.0, 1.0])), dim=10),
             "not strictly increasing"),
            (dict(x=(torch.tensor([0, 1]), torch.tensor([10]), torch.tensor([1.0])), dim=10),
             "outside [0, D = 10)"),
            (dict(x=(torch.tensor([0, 1]), torch.tensor([1]), torch.tensor([float("inf")])), dim=10),
             "not finite"),
            (dict(coo=(torch.tensor([0, 0]), torch.tensor([4, 4]), torch.tensor([1.0, 1.0])),
                  rows=1, dim=10), "sum duplicates"),
            (dict(x=(torch.tensor([0, 1]), torch.tensor([1]), torch.tensor([1.0])), dim=5000,
                  block_size=1024, offset_bits=30), "id bits"),
        ]
        for kwargs, why in bad:
            with self.assertRaises(sparcast.SparcastError) as caught:
                sparcast.csr_pack(**kwargs)
            self.assertIn(why, str(caught.exception))
        with self.assertRaises(sparcast.SparcastError):
            sparcast.csr_pack(torch.zeros(3, 3))


if __name__ == "__main__":
    unittest.main()
