# tests/posteriors.cmake: forward-backward against brute force and a long-double reference.
vt_add_test(test_posteriors exactness)
