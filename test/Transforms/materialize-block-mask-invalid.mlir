// RUN: sparcast-opt %s -split-input-file -sc-materialize-block-mask -verify-diagnostics

// 2^40 tokens: the tables would not fit in memory (the pass used to run
// for ever enumerating them); a located error instead.
func.func @too_long(%q: tensor<1x1x1099511627776x64xf16>) -> tensor<1x1x1099511627776x64xf16> {
  // expected-error @+1 {{cannot materialize a block mask over 1099511627776 tokens: more than 65536 blocks of 64}}
  %o = sc.attention %q, %q, %q mask(#sc.log_linear<block_size = 64>) : tensor<1x1x1099511627776x64xf16>, tensor<1x1x1099511627776x64xf16>, tensor<1x1x1099511627776x64xf16> -> tensor<1x1x1099511627776x64xf16>
  return %o : tensor<1x1x1099511627776x64xf16>
}
