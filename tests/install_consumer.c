/* tests/install_consumer.c: decodes one tiny sentence through the installed vitesse.h. */
#include <stdio.h>
#include <vitesse.h>

int main(void) {
  double A[4] = {0, -1, -1, 0}, E[6] = {1, 0, 0, 1, 1, 0};
  int32_t labels[3], n = 0;
  double score = 0;
  vt_trans *tr = NULL;
  vt_arena *ar = NULL;
  vt_decode_opts o;
  vt_decode_opts_init(&o);
  if (vt_trans_create(&tr, 2, A, NULL, NULL, NULL) || vt_arena_create(&ar, 0)) return 1;
  int st = vt_decode(tr, &o, ar, E, 3, labels, &score, &n, NULL);
  printf("%d %d %g %d %d %d\n", st, n, score, labels[0], labels[1], labels[2]);
  vt_arena_destroy(ar);
  vt_trans_destroy(tr);
  /* Best path: 0 0 0 scores 1 + 0 + 1 = 2 (0 1 0 would score 0 - 1 + 1 - 1 + 1 = 0). */
  return st == 0 && n == 1 && score == 2 && labels[0] == 0 && labels[1] == 0 && labels[2] == 0 ? 0
                                                                                               : 1;
}
