"""sparcast.compile on the CPU: a plain torch LCE module exported to ONNX,
compiled by sparcast-aot (the IKBO decomposition applies to it), loaded;
its arguments ordered and typed for the artifact, and the result shapes
the runtime computes for them. Running it needs a GPU (bench/).

Run by ctest with the Debian interpreter (python3-torch, python3-onnx),
SPARCAST_RUNTIME_LIB and SPARCAST_AOT pointing at the built tools.
"""

import json
import os
import sys
import tempfile
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import sparcast  # noqa: E402


class LCE(torch.nn.Module):
    """Candidate features concatenated with their user's along K, times a
    shared weight, the way a model is written before IKBO."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(7, 24))

    def forward(self, user, cand, idx):
        return torch.matmul(self.w, torch.cat([user[idx], cand], dim=1))


def _cpu_fill(c, tensor, role):
    # The result-shape query reads shapes and dtypes only: host tensors do.
    c.data = tensor.data_ptr()
    c.dtype = sparcast._DTYPE_CODES[sparcast._dtype_name(tensor)]
    c.rank = tensor.dim()
    c.shape[:tensor.dim()] = tensor.shape


class CompileTest(unittest.TestCase):
    def test_a_plain_module_compiles_and_takes_its_arguments(self):
        model = LCE()
        user, cand = torch.randn(2, 11, 6), torch.randn(3, 13, 6)
        idx = torch.tensor([0, 1, 1])
        with tempfile.TemporaryDirectory() as out:
            fast = sparcast.compile(model, (user, cand, idx), name="lce", output_dir=out,
                                    lineage={"user": "request", "cand": "candidate", "idx": "index"},
                                    aot_args=["--report"])
            with open(os.path.join(out, "artifact", "manifest.json")) as f:
                manifest = json.load(f)
            entry = manifest["entries"][0]
            self.assertEqual(entry["name"], "lce")
            # The IKBO decomposition ran: a request GEMM into a workspace.
            self.assertTrue(entry["workspace"])
            # The compile's time is kept beside it, export and sparcast-aot apart.
            with open(os.path.join(out, "compiled.json")) as f:
                seconds = json.load(f)["compile_seconds"]
            self.assertEqual(sorted(seconds), ["onnx_export", "sparcast_aot"])
            self.assertTrue(all(0 < t < 600 for t in seconds.values()))
            # What compile() wrote calls the artifact again (on a GPU
            # machine without ONNX or sparcast-aot).
            again = sparcast.load_compiled(out, model)
            self.assertEqual([tuple(a.shape) for a in again.arguments(user, cand, idx)],
                             [(2, 11, 6), (3, 13, 6), (3,), (7, 24)])
            args = fast.arguments(user, cand, idx)
            self.assertEqual([tuple(a.shape) for a in args], [(2, 11, 6), (3, 13, 6), (3,), (7, 24)])
            self.assertEqual(args[2].dtype, torch.int32)
            self.assertTrue(torch.equal(args[3], model.w.detach()))
            saved = sparcast._fill
            sparcast._fill = _cpu_fill
            try:
                self.assertEqual(fast.result_shapes(user, cand, idx), [(3, 7, 6)])
                self.assertEqual(fast.result_shapes(torch.randn(4, 11, 6), torch.randn(9, 13, 6),
                                                    torch.zeros(9, dtype=torch.int64)), [(9, 7, 6)])
            finally:
                sparcast._fill = saved

    def test_refusals(self):
        model = LCE()
        examples = (torch.randn(2, 11, 6), torch.randn(3, 13, 6), torch.tensor([0, 1, 1]))
        with self.assertRaisesRegex(sparcast.SparcastError, "lineage items=candidate"):
            sparcast.compile(model, examples, lineage={"items": "candidate"})
        with self.assertRaisesRegex(sparcast.SparcastError, "forward takes 3 arguments, 2"):
            sparcast.compile(model, examples[:2], lineage={})


if __name__ == "__main__":
    unittest.main()
