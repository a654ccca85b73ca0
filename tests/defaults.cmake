# tests/defaults.cmake: the default decoder rule (vt_decode_opts_default, issue 13).
vt_add_test(test_defaults unit)
