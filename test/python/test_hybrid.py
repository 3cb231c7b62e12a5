"""sparcast.hybrid_pack / hybrid_unpack on torch tensors (CPU): the kinds
found, exact round trips, pruning to 2:4 within a dense budget, the
metadata's bits and the refusals.

Run by ctest with the Debian interpreter that has python3-torch, and
SPARCAST_RUNTIME_LIB pointing at the built runtime.
"""

import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import sparcast  # noqa: E402


def mixed_weight(dtype):
    """128 x 64 in 64 x 32 tiles: (0, 0) zero, (0, 1) 2:4, (1, 0) dense,
    (1, 1) 2:4 with groups of one non-zero."""
    g = torch.Generator().manual_seed(0)
    w = (torch.randint(1, 8, (128, 64), generator=g) * (1 - 2 * (torch.arange(64) % 2))).to(dtype)
    w[:64, :32] = 0
    cols = torch.arange(64)
    w[:, 32:][:, (cols[32:] % 4) >= 2] = 0
    w[64::2, 33::4] = 0
    return w


class HybridTest(unittest.TestCase):
    def test_kinds_and_exact_round_trip(self):
        for dtype in (torch.float16, torch.bfloat16):
            w = mixed_weight(dtype)
            p = sparcast.hybrid_pack(w, tile=(64, 32))
            self.assertEqual(p.kinds.tolist(), [[sparcast.hybrid.TILE_ZERO, sparcast.hybrid.TILE_SPARSE24],
                                                [sparcast.hybrid.TILE_DENSE, sparcast.hybrid.TILE_SPARSE24]])
            self.assertEqual(p.slots.tolist(), [[-1, 0], [0, 1]])
            self.assertEqual((p.num_dense, p.num_sparse), (1, 2))
            self.assertEqual(tuple(p.sparse.shape), (2, 64, 16))
            self.assertEqual(tuple(p.meta.shape), (2, 64, 1))
            self.assertTrue(torch.equal(p.error, torch.zeros(2, 2)))
            back = sparcast.hybrid_unpack(p)
            self.assertEqual(back.dtype, dtype)
            self.assertTrue(torch.equal(back, w))
            # Positions 0 and 1 kept in every group of tile (0, 1).
            self.assertEqual(p.meta[0, 0, 0].item() & 0xffffffff, 0x44444444)
            # In the order an entry's sc.assemble_hybrid takes them.
            self.assertEqual([t.data_ptr() for t in p.buffers()],
                             [t.data_ptr() for t in (p.kinds, p.slots, p.dense,
                                                     p.sparse, p.meta)])

    def test_pruning_within_a_dense_budget(self):
        g = torch.Generator().manual_seed(1)
        w = (torch.rand(128, 128, generator=g) - 0.5).half()
        exact = sparcast.hybrid_pack(w)
        self.assertEqual(exact.kinds.tolist(), [[1, 1], [1, 1]])
        p = sparcast.hybrid_pack(w, prune=True, dense_budget=0.25)
        self.assertEqual(p.num_dense, 1)
        self.assertEqual(p.num_sparse, 3)
        back = sparcast.hybrid_unpack(p).float()
        for t in range(4):
            r, c = divmod(t, 2)
            tile = w[64 * r:64 * r + 64, 64 * c:64 * c + 64].float()
            got = back[64 * r:64 * r + 64, 64 * c:64 * c + 64]
            if p.kinds[r, c] == 1:
                self.assertTrue(torch.equal(got, tile))
                self.assertEqual(p.error[r, c].item(), 0.0)
                continue
            # The two largest of every four kept, and the error reported is
            # that of the pruned tile.
            groups = tile.reshape(64, 16, 4)
            keep = groups.abs().topk(2, dim=-1).indices
            pruned = torch.zeros_like(groups).scatter(-1, keep, groups.gather(-1, keep))
            self.assertTrue(torch.equal(got, pruned.reshape(64, 64)))
            error = ((tile - got).norm() / tile.norm()).item()
            self.assertAlmostEqual(p.error[r, c].item(), error, places=5)
        # The dense tile is the one pruning would change most.
        dense = (p.kinds == 1).nonzero()[0].tolist()
        losses = [p.error[i // 2, i % 2].item() for i in range(4) if [i // 2, i % 2] != dense]
        sparse_all = sparcast.hybrid_pack(w, prune=True, dense_budget=0.0)
        self.assertEqual(sparse_all.num_dense, 0)
        self.assertGreaterEqual(sparse_all.error[dense[0], dense[1]].item(), max(losses))

    def test_refusals(self):
        w = torch.zeros(128, 96, dtype=torch.float16)
        with self.assertRaisesRegex(sparcast.SparcastError, "does not divide the 128 x 96 weight"):
            sparcast.hybrid_pack(w, tile=(64, 64))
        with self.assertRaisesRegex(sparcast.SparcastError, "f16 or bf16"):
            sparcast.hybrid_pack(w.float(), tile=(64, 32))
        with self.assertRaisesRegex(sparcast.SparcastError, "dense budget"):
            sparcast.hybrid_pack(w, tile=(64, 32), prune=True, dense_budget=2.0)
        p = sparcast.hybrid_pack(mixed_weight(torch.float16), tile=(64, 32))
        p.meta[0, 3, 0] = 0x44444414  # positions (1, 0) in group 1
        with self.assertRaisesRegex(sparcast.SparcastError,
                                    r"tile \(0, 1\), row 3, columns 4..7: metadata positions 1, 0"):
            sparcast.hybrid_unpack(p)


if __name__ == "__main__":
    unittest.main()
