/* engine/decode/posteriors.h: the exp-space steps of forward-backward (posteriors_fast.c), which
 * vt_posteriors (posteriors.c) uses on sentences long enough to pay for the per-sentence tables. */
#ifndef VT_DECODE_POSTERIORS_H
#define VT_DECODE_POSTERIORS_H

#include "core/lse.h"
#include "core/trans_layout.h"

/* Sentences of at least this many tokens take the exp-space steps (unless constraints leave
 * fewer than 1 label in 8 finite: those keep the log-space steps, which skip -inf rows). */
#define VT_POST_FAST_MIN_T 4

#endif
