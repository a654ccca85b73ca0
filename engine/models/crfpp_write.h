/* engine/models/crfpp_write.h: writing CRF++ 0.58 models, the binary file crf_test reads (a
 * double-array trie of the feature strings, float weights) and the text file of crf_learn -t,
 * and reading that text file back for crf_learn -C. */
#ifndef VT_MODELS_CRFPP_WRITE_H
#define VT_MODELS_CRFPP_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vitesse.h"

/* A CRF++ model as its files hold it. Feature k is the string keys[k] (key_lens[k] bytes; a `U`
 * string owns the weights w[ids[k] .. + L), a `B` string L * L of them, previous label major);
 * the keys are sorted bytewise and distinct. Labels in their order in the model (crf_learn
 * sorts them bytewise), templates as the file lists them (unigram ones first). */
typedef struct vt_crfpp_image {
  uint32_t xsize;     /* columns before the label */
  double cost_factor; /* 1 as crf_learn writes it */
  int32_t L;          /* labels */
  char **labels;      /* L NUL-terminated names */
  int32_t n_tmpl;     /* templates */
  char **tmpl;        /* n_tmpl NUL-terminated lines */
  int64_t n_keys;     /* features */
  char **keys;        /* n_keys strings, not NUL-terminated (key_lens) */
  size_t *key_lens;   /* their lengths */
  int32_t *ids;       /* their first weights */
  uint32_t maxid;     /* weights */
  double *w;          /* maxid weights */
  char *arena;        /* what a read image's strings point into (freed with it), or NULL */
} vt_crfpp_image;

/* Writes img as CRF++'s binary model to f: header, labels, templates, the trie of the keys,
 * the weights as floats. Returns VT_OK, VT_EINVAL (img does not hold together: keys unsorted,
 * a feature's weights past maxid; message in err), VT_ENOMEM or VT_EIO (a failed write). */
vt_status vt_crfpp_write_binary(FILE *f, const vt_crfpp_image *img, char *err, size_t errlen);

/* Writes img as crf_learn -t's text model to f (weights with 16 decimals). Returns VT_OK or
 * VT_EIO. */
vt_status vt_crfpp_write_text(FILE *f, const vt_crfpp_image *img, char *err, size_t errlen);

/* Reads the text model of `size` bytes at `data` (`name` in messages) into *img (its own memory:
 * vt_crfpp_image_free), keys sorted. Returns VT_OK, VT_EFORMAT ("NAME:LINE: problem" in err) or
 * VT_ENOMEM. */
vt_status vt_crfpp_read_text(vt_crfpp_image *img, const char *data, size_t size, const char *name,
                             char *err, size_t errlen);

/* Frees what vt_crfpp_read_text allocated; *img becomes zeroed. */
void vt_crfpp_image_free(vt_crfpp_image *img);

/* Sorts keys [0, n) bytewise, carrying lens and ids along. Returns 0, or -1 (no memory). */
int vt_crfpp_keys_sort(char **keys, size_t *lens, int32_t *ids, int64_t n);

#endif
