# tests/train.cmake: the public training API (vitesse.h, "training").
vt_add_test(test_train_api unit)
