// RUN: sparcast-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: sparcast-opt --help | FileCheck %s --check-prefix=HELP

// sparcast-opt is mlir-opt plus Sparcast: upstream dialects and passes are
// all there next to ours.
// DIALECTS-DAG: linalg
// DIALECTS-DAG: nvgpu
// DIALECTS-DAG: nvvm
// DIALECTS-DAG: sc
// DIALECTS-DAG: tensor
// HELP-DAG: Available Dialects: {{.*}}, sc,
// HELP-DAG: --sc-cpu-reference-pipeline
// HELP-DAG: --sc-drop-lineage
// HELP-DAG: --sc-lower-to-linalg
// HELP-DAG: --one-shot-bufferize
// HELP-DAG: --convert-gpu-to-nvvm
// HELP-DAG: --gpu-module-to-binary
