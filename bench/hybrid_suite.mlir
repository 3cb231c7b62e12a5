// The hybrid-tiled GEMMs of bench/hybrid_check.py (written by
// bench/make_hybrid_suite.py: edit that, not this).

func.func @check_f16(%kinds: tensor<2x4xi8>, %slots: tensor<2x4xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x19x512xf16>) -> tensor<?x19x256xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<2x4xi8>, tensor<2x4xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<256x512xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [2, 4], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x19x512xf16>, tensor<256x512xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [2, 4], kinds = "">> -> tensor<?x19x256xf16>
  return %y : tensor<?x19x256xf16>
}

func.func @check_bf16_bias_relu(%kinds: tensor<3x3xi8>, %slots: tensor<3x3xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x5x384xbf16>, %bias: tensor<384xf32>) -> tensor<?x5x384xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<3x3xi8>, tensor<3x3xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<384x384xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [3, 3], kinds = "">>
  %y = sc.batch_matmul %x, %w epilogue_ins(%bias : tensor<384xf32>) {transpose_rhs} : tensor<?x5x384xbf16>, tensor<384x384xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [3, 3], kinds = "">> -> tensor<?x5x384xbf16> {
  ^bb0(%acc: f32, %b: index, %i: index, %j: index, %bs: tensor<384xf32>):
    %v = tensor.extract %bs[%j] : tensor<384xf32>
    %a = arith.addf %acc, %v : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    %o = arith.truncf %r : f32 to bf16
    sc.yield %o : bf16
  }
  return %y : tensor<?x5x384xbf16>
}

func.func @check_f16_m300(%kinds: tensor<2x2xi8>, %slots: tensor<2x2xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x300x256xf16>) -> tensor<?x300x256xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<256x256xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [2, 2], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x300x256xf16>, tensor<256x256xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [2, 2], kinds = "">> -> tensor<?x300x256xf16>
  return %y : tensor<?x300x256xf16>
}

func.func @linear_11008x4096_m1_f16(%kinds: tensor<86x32xi8>, %slots: tensor<86x32xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x1x4096xf16>) -> tensor<?x1x11008xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<11008x4096xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x4096xf16>, tensor<11008x4096xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">> -> tensor<?x1x11008xf16>
  return %y : tensor<?x1x11008xf16>
}

func.func @linear_11008x4096_m1_bf16(%kinds: tensor<86x32xi8>, %slots: tensor<86x32xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x1x4096xbf16>) -> tensor<?x1x11008xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<11008x4096xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x4096xbf16>, tensor<11008x4096xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">> -> tensor<?x1x11008xbf16>
  return %y : tensor<?x1x11008xbf16>
}

func.func @linear_11008x4096_m16_f16(%kinds: tensor<86x32xi8>, %slots: tensor<86x32xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x16x4096xf16>) -> tensor<?x16x11008xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<11008x4096xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x16x4096xf16>, tensor<11008x4096xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">> -> tensor<?x16x11008xf16>
  return %y : tensor<?x16x11008xf16>
}

func.func @linear_11008x4096_m16_bf16(%kinds: tensor<86x32xi8>, %slots: tensor<86x32xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x16x4096xbf16>) -> tensor<?x16x11008xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<11008x4096xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x16x4096xbf16>, tensor<11008x4096xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">> -> tensor<?x16x11008xbf16>
  return %y : tensor<?x16x11008xbf16>
}

func.func @linear_11008x4096_m2048_f16(%kinds: tensor<86x32xi8>, %slots: tensor<86x32xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x2048x4096xf16>) -> tensor<?x2048x11008xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<11008x4096xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x2048x4096xf16>, tensor<11008x4096xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">> -> tensor<?x2048x11008xf16>
  return %y : tensor<?x2048x11008xf16>
}

func.func @linear_11008x4096_m2048_bf16(%kinds: tensor<86x32xi8>, %slots: tensor<86x32xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x2048x4096xbf16>) -> tensor<?x2048x11008xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<11008x4096xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x2048x4096xbf16>, tensor<11008x4096xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">> -> tensor<?x2048x11008xbf16>
  return %y : tensor<?x2048x11008xbf16>
}

func.func @linear_11008x4096_m8192_f16(%kinds: tensor<86x32xi8>, %slots: tensor<86x32xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x8192x4096xf16>) -> tensor<?x8192x11008xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<11008x4096xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x8192x4096xf16>, tensor<11008x4096xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">> -> tensor<?x8192x11008xf16>
  return %y : tensor<?x8192x11008xf16>
}

func.func @linear_11008x4096_m8192_bf16(%kinds: tensor<86x32xi8>, %slots: tensor<86x32xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x8192x4096xbf16>) -> tensor<?x8192x11008xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<11008x4096xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x8192x4096xbf16>, tensor<11008x4096xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">> -> tensor<?x8192x11008xbf16>
  return %y : tensor<?x8192x11008xbf16>
}

func.func @linear_4096x11008_m1_f16(%kinds: tensor<32x86xi8>, %slots: tensor<32x86xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x1x11008xf16>) -> tensor<?x1x4096xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<32x86xi8>, tensor<32x86xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<4096x11008xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x11008xf16>, tensor<4096x11008xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">> -> tensor<?x1x4096xf16>
  return %y : tensor<?x1x4096xf16>
}

func.func @linear_4096x11008_m1_bf16(%kinds: tensor<32x86xi8>, %slots: tensor<32x86xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x1x11008xbf16>) -> tensor<?x1x4096xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<32x86xi8>, tensor<32x86xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<4096x11008xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x11008xbf16>, tensor<4096x11008xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">> -> tensor<?x1x4096xbf16>
  return %y : tensor<?x1x4096xbf16>
}

func.func @linear_4096x11008_m16_f16(%kinds: tensor<32x86xi8>, %slots: tensor<32x86xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x16x11008xf16>) -> tensor<?x16x4096xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<32x86xi8>, tensor<32x86xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<4096x11008xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x16x11008xf16>, tensor<4096x11008xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">> -> tensor<?x16x4096xf16>
  return %y : tensor<?x16x4096xf16>
}

func.func @linear_4096x11008_m16_bf16(%kinds: tensor<32x86xi8>, %slots: tensor<32x86xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x16x11008xbf16>) -> tensor<?x16x4096xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<32x86xi8>, tensor<32x86xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<4096x11008xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x16x11008xbf16>, tensor<4096x11008xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">> -> tensor<?x16x4096xbf16>
  return %y : tensor<?x16x4096xbf16>
}

func.func @linear_4096x11008_m2048_f16(%kinds: tensor<32x86xi8>, %slots: tensor<32x86xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x2048x11008xf16>) -> tensor<?x2048x4096xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<32x86xi8>, tensor<32x86xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<4096x11008xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x2048x11008xf16>, tensor<4096x11008xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">> -> tensor<?x2048x4096xf16>
  return %y : tensor<?x2048x4096xf16>
}

func.func @linear_4096x11008_m2048_bf16(%kinds: tensor<32x86xi8>, %slots: tensor<32x86xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x2048x11008xbf16>) -> tensor<?x2048x4096xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<32x86xi8>, tensor<32x86xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<4096x11008xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x2048x11008xbf16>, tensor<4096x11008xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">> -> tensor<?x2048x4096xbf16>
  return %y : tensor<?x2048x4096xbf16>
}

func.func @linear_4096x11008_m8192_f16(%kinds: tensor<32x86xi8>, %slots: tensor<32x86xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x8192x11008xf16>) -> tensor<?x8192x4096xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<32x86xi8>, tensor<32x86xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<4096x11008xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x8192x11008xf16>, tensor<4096x11008xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">> -> tensor<?x8192x4096xf16>
  return %y : tensor<?x8192x4096xf16>
}

func.func @linear_4096x11008_m8192_bf16(%kinds: tensor<32x86xi8>, %slots: tensor<32x86xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x8192x11008xbf16>) -> tensor<?x8192x4096xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<32x86xi8>, tensor<32x86xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<4096x11008xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x8192x11008xbf16>, tensor<4096x11008xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [32, 86], kinds = "">> -> tensor<?x8192x4096xbf16>
  return %y : tensor<?x8192x4096xbf16>
}

func.func @linear_8192x8192_m1_f16(%kinds: tensor<64x64xi8>, %slots: tensor<64x64xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x1x8192xf16>) -> tensor<?x1x8192xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<64x64xi8>, tensor<64x64xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<8192x8192xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x8192xf16>, tensor<8192x8192xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">> -> tensor<?x1x8192xf16>
  return %y : tensor<?x1x8192xf16>
}

func.func @linear_8192x8192_m1_bf16(%kinds: tensor<64x64xi8>, %slots: tensor<64x64xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x1x8192xbf16>) -> tensor<?x1x8192xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<64x64xi8>, tensor<64x64xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<8192x8192xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x8192xbf16>, tensor<8192x8192xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">> -> tensor<?x1x8192xbf16>
  return %y : tensor<?x1x8192xbf16>
}

func.func @linear_8192x8192_m16_f16(%kinds: tensor<64x64xi8>, %slots: tensor<64x64xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x16x8192xf16>) -> tensor<?x16x8192xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<64x64xi8>, tensor<64x64xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<8192x8192xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x16x8192xf16>, tensor<8192x8192xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">> -> tensor<?x16x8192xf16>
  return %y : tensor<?x16x8192xf16>
}

func.func @linear_8192x8192_m16_bf16(%kinds: tensor<64x64xi8>, %slots: tensor<64x64xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x16x8192xbf16>) -> tensor<?x16x8192xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<64x64xi8>, tensor<64x64xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<8192x8192xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x16x8192xbf16>, tensor<8192x8192xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">> -> tensor<?x16x8192xbf16>
  return %y : tensor<?x16x8192xbf16>
}

func.func @linear_8192x8192_m2048_f16(%kinds: tensor<64x64xi8>, %slots: tensor<64x64xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x2048x8192xf16>) -> tensor<?x2048x8192xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<64x64xi8>, tensor<64x64xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<8192x8192xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x2048x8192xf16>, tensor<8192x8192xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">> -> tensor<?x2048x8192xf16>
  return %y : tensor<?x2048x8192xf16>
}

func.func @linear_8192x8192_m2048_bf16(%kinds: tensor<64x64xi8>, %slots: tensor<64x64xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x2048x8192xbf16>) -> tensor<?x2048x8192xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<64x64xi8>, tensor<64x64xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<8192x8192xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x2048x8192xbf16>, tensor<8192x8192xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">> -> tensor<?x2048x8192xbf16>
  return %y : tensor<?x2048x8192xbf16>
}

func.func @linear_8192x8192_m8192_f16(%kinds: tensor<64x64xi8>, %slots: tensor<64x64xi32>, %dense: tensor<?x128x128xf16>, %sparse: tensor<?x128x64xf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x8192x8192xf16>) -> tensor<?x8192x8192xf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<64x64xi8>, tensor<64x64xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<8192x8192xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x8192x8192xf16>, tensor<8192x8192xf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">> -> tensor<?x8192x8192xf16>
  return %y : tensor<?x8192x8192xf16>
}

func.func @linear_8192x8192_m8192_bf16(%kinds: tensor<64x64xi8>, %slots: tensor<64x64xi32>, %dense: tensor<?x128x128xbf16>, %sparse: tensor<?x128x64xbf16>, %meta: tensor<?x128x4xi32>, %x: tensor<?x8192x8192xbf16>) -> tensor<?x8192x8192xbf16> {
  %w = sc.assemble_hybrid %kinds, %slots, %dense, %sparse, %meta : tensor<64x64xi8>, tensor<64x64xi32>, tensor<?x128x128xbf16>, tensor<?x128x64xbf16>, tensor<?x128x4xi32> -> tensor<8192x8192xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x8192x8192xbf16>, tensor<8192x8192xbf16, #sc.hybrid_tiles<tile = [128, 128], grid = [64, 64], kinds = "">> -> tensor<?x8192x8192xbf16>
  return %y : tensor<?x8192x8192xbf16>
}

