# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SPARCAST"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "lib", "unit", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sparcast_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%sparcast_src_root", config.sparcast_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "CUDA_HOME"])
llvm_config.use_default_substitutions()
# `not` and `FileCheck` are in LLVM's bin/ but not on PATH on Debian.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# ptxas is optional: tests that assemble PTX say `REQUIRES: ptxas`.
if config.ptxas and not config.ptxas.endswith("-NOTFOUND") and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
else:
    lit_config.note("ptxas not found: tests that need it are skipped")

tool_dirs = [config.sparcast_tools_dir, config.llvm_tools_dir]
tools = ["sparcast-aot", "sparcast-opt", "sparcast-translate", "sparcast-equiv"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
