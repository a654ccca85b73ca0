# tests/astar.cmake: the A* family (astar, iter-astar, viterbi-astar, iter-viterbi-astar) against
# kbest-viterbi on >= 20,000 random sentences, and their determinism across SIMD levels.
# Sanitizer builds run a quarter of the sentences (VT_TEST_SCALE), the normal build all of them.
vt_add_test(test_astar exactness)
if(VT_SANITIZE OR VT_TSAN)
  set_tests_properties(test_astar PROPERTIES ENVIRONMENT VT_TEST_SCALE=0.25)
endif()
