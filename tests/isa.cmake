# tests/isa.cmake: the "same bits as scalar" tests of the kernel families (cmake/VtIsa.cmake):
# every level the CPU runs against the scalar table, on lengths around the vector widths.
foreach(family kernel rowadd degen_ops chunk_simd lse crf_kern)
  vt_add_test(test_isa_${family} exactness)
endforeach()
