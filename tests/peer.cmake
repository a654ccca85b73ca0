# tests/peer.cmake: models of other toolkits (issue 14): CRF++ and Wapiti models written by the
# test itself, checked against brute force, converted, damaged (tests/test_peer.c).
vt_add_test(test_peer exactness)
