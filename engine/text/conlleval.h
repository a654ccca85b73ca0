/* engine/text/conlleval.h: token accuracy and the chunk precision / recall / F1 of conlleval.
 *
 * A label "B-NP" is the chunk tag "B" and the type "NP" (split at the first '-'; "O" has the
 * empty type). Chunk starts and ends follow conlleval.pl exactly for IOB1, IOB2, IOE1 and IOE2
 * (tags B, I, O, E, and '[' ']' '.'); for IOBES, S is a one-token chunk and E followed by B
 * ends a chunk (as conlleval.py), rules that never fire on the other schemes. */
#ifndef VT_TEXT_CONLLEVAL_H
#define VT_TEXT_CONLLEVAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "text/featdict.h"
#include "vitesse.h"

typedef struct vt_conlleval {
  int64_t tokens, correct_tags;
  int64_t correct_chunk, found_correct, found_guessed;
  vt_featdict types;                                               /* chunk types seen */
  int64_t *type_correct, *type_found_correct, *type_found_guessed; /* per type id */
  int32_t cap_types;
  int in_correct;
  char last_correct, last_guessed; /* tag codes */
  int32_t last_correct_type, last_guessed_type;
} vt_conlleval;

/* Starts an evaluation. VT_OK or VT_ENOMEM. */
vt_status vt_conlleval_init(vt_conlleval *ev);

/* Frees it; *ev becomes zeroed. */
void vt_conlleval_free(vt_conlleval *ev);

/* Adds one token with gold label [g, g+gl) and guessed label [p, p+pl). VT_OK or VT_ENOMEM. */
vt_status vt_conlleval_token(vt_conlleval *ev, const char *g, size_t gl, const char *p, size_t pl);

/* A sentence boundary (conlleval's blank line). */
void vt_conlleval_boundary(vt_conlleval *ev);

/* Ends the input (closes an open chunk) and prints conlleval's report to `out`. */
void vt_conlleval_report(vt_conlleval *ev, FILE *out);

/* Overall figures after vt_conlleval_report or vt_conlleval_finish: percentages. */
void vt_conlleval_finish(vt_conlleval *ev, double *precision, double *recall, double *f1);

#endif
