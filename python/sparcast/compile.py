"""sparcast.compile: a torch.nn.Module as a Sparcast artifact, through ONNX.

    model = Ranker()                                   # a plain torch module
    fast = sparcast.compile(model, (user, cand, idx),
                            lineage={"user": "request", "cand": "candidate",
                                     "idx": "index"})
    out = fast(user, cand, idx)                        # CUDA tensors

The module is exported to ONNX (its parameters as inputs, so that the
artifact takes them at each call and stays small), compiled by sparcast-aot
(found as $SPARCAST_AOT, next to this package's build, or on PATH) and
loaded. Inputs named in `lineage` get a dynamic first dim: B for candidate
and index inputs, U for request inputs; the parameters are shared.
"""

import inspect
import json
import os
import shutil
import subprocess
import tempfile
import time

from . import SparcastError, _torch, load


def _find_aot(explicit):
    candidates = [explicit, os.environ.get("SPARCAST_AOT")]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    candidates.append(os.path.join(root, "build", "bin", "sparcast-aot"))
    candidates.append(shutil.which("sparcast-aot"))
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise SparcastError("cannot find sparcast-aot (set SPARCAST_AOT)")


class CompiledModule:
    """The artifact of a module: called with the module's forward arguments
    (the parameters are passed for it), the index as int32."""

    def __init__(self, artifact, entry, input_names, forward_names, parameters, lineage):
        self.artifact = artifact
        self.entry = entry
        self._inputs = input_names
        self._forward = forward_names
        self._parameters = parameters
        self._lineage = lineage

    def arguments(self, *args):
        """The artifact's arguments for forward arguments `args`, in the
        order of the model's graph."""
        torch = _torch()
        if len(args) != len(self._forward):
            raise SparcastError("expected %d arguments (%s), got %d" % (
                len(self._forward), ", ".join(self._forward), len(args)))
        given = dict(zip(self._forward, args))
        out = []
        for name in self._inputs:
            if name in given:
                t = given[name]
                if self._lineage.get(name) == "index" and t.dtype != torch.int32:
                    t = t.to(torch.int32)
                out.append(t.contiguous())
            elif name in self._parameters:
                out.append(self._parameters[name].detach().contiguous())
            else:
                raise SparcastError("the graph's input '%s' is neither an argument "
                                    "nor a parameter" % name)
        return out

    def result_shapes(self, *args):
        return self.entry.result_shapes(*self.arguments(*args))

    def __call__(self, *args, **kwargs):
        return self.entry(*self.arguments(*args), **kwargs)


def compile(module, example_inputs, lineage, output_dir=None, name=None, aot=None,
            aot_args=()):
    """Exports `module` with `example_inputs` to ONNX, compiles it with
    sparcast-aot into `output_dir` (a temporary folder by default) and
    returns a CompiledModule. `lineage` maps forward argument names to
    request, candidate or index (the rest: shared)."""
    torch = _torch()
    import onnx  # lazily: the package itself does not need it
    forward = list(inspect.signature(module.forward).parameters)
    if len(forward) != len(example_inputs):
        raise SparcastError("forward takes %d arguments, %d examples given"
                            % (len(forward), len(example_inputs)))
    for key, kind in lineage.items():
        if key not in forward or kind not in ("request", "candidate", "index", "shared"):
            raise SparcastError("lineage %s=%s: expected a forward argument and request, "
                                "candidate, index or shared" % (key, kind))
    name = name or type(module).__name__.lower()
    output_dir = output_dir or tempfile.mkdtemp(prefix="sparcast-")
    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, name + ".onnx")
    batch = {"request": "U", "candidate": "B", "index": "B"}
    dynamic = {arg: {0: batch[kind]} for arg, kind in lineage.items() if kind in batch}
    outputs = ["out"]
    if any(kind in ("candidate", "index") for kind in lineage.values()):
        dynamic["out"] = {0: "B"}
    started = time.perf_counter()
    torch.onnx.export(module, tuple(example_inputs), path, input_names=forward,
                      output_names=outputs, dynamic_axes=dynamic, export_params=False,
                      opset_version=17)
    model = onnx.load(path)
    model.graph.name = name
    onnx.save(model, path)
    inputs = [i.name for i in model.graph.input]
    parameters = dict(module.named_parameters())
    spec = ",".join("%s=%s" % (arg, kind) for arg, kind in lineage.items())
    artifact = os.path.join(output_dir, "artifact")
    cmd = [_find_aot(aot), path, "-o", artifact, "--onnx-lineage=" + spec] + list(aot_args)
    exported = time.perf_counter()
    run = subprocess.run(cmd, capture_output=True, text=True)
    compiled = time.perf_counter()
    if run.returncode != 0:
        raise SparcastError("sparcast-aot failed: " + (run.stderr.strip() or run.stdout.strip()))
    # What load_compiled needs to call the artifact again (on a machine
    # without ONNX or sparcast-aot).
    with open(os.path.join(output_dir, "compiled.json"), "w") as f:
        json.dump({"entry": name, "inputs": inputs, "forward": forward,
                   "lineage": dict(lineage),
                   # Seconds: the export to ONNX, then sparcast-aot (import,
                   # passes, PTX, ptxas).
                   "compile_seconds": {"onnx_export": round(exported - started, 3),
                                       "sparcast_aot": round(compiled - exported, 3)}},
                  f, indent=1)
    loaded = load(artifact)
    return CompiledModule(loaded, getattr(loaded, name), inputs, forward, parameters,
                          dict(lineage))


def load_compiled(output_dir, module, library=None):
    """The CompiledModule that compile() wrote into `output_dir`, calling its
    artifact with `module`'s parameters (the same module class, e.g. with
    the compiled one's state_dict loaded)."""
    path = os.path.join(output_dir, "compiled.json")
    try:
        with open(path) as f:
            spec = json.load(f)
        entry, inputs, forward, lineage = (spec["entry"], spec["inputs"], spec["forward"],
                                           spec["lineage"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SparcastError("%s: %s" % (path, e)) from e
    loaded = load(os.path.join(output_dir, "artifact"), library)
    return CompiledModule(loaded, getattr(loaded, entry), inputs, forward,
                          dict(module.named_parameters()), lineage)
