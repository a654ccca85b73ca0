# tests/agenda.cmake: the A* agenda (engine/decode/agenda.c) directly: its pop order, tie rule
# and k-best floor decide every A* result.
vt_add_test(test_agenda exactness)
