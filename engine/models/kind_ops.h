/* engine/models/kind_ops.h: a loaded model of any kind (the public vt_model of vitesse.h) and the
 * one table of operations each kind fills in (kind.c lists the kinds, kind_shared.c holds what
 * their tables share, kind_tagger.c, kind_joint.c, kind_crfsuite.c and kind_transitions.c one
 * kind each).
 *
 * Everything above this layer asks the model's table instead of testing its kind: opening,
 * saving, describing, the decoder policy, tagging sentences held in memory, and the worker side
 * of a corpus run (the engine's generic corpus job, engine/sched/corpus_job.c, drives the
 * reading, the threads and the ordered output the same way for every kind). The kind's own
 * model sits behind vt_model.impl, read by its kind's file alone, and what a kind can do is its
 * table's `can` (vt_model_info.can, which the front ends ask). A new kind (a CRF trained by
 * vitesse, say) is one more table in engine/models, not one more branch or field elsewhere. */
#ifndef VT_MODELS_KIND_OPS_H
#define VT_MODELS_KIND_OPS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/arena.h"
#include "alloc/mem.h"
#include "chunk/chunk_model.h"
#include "io/crfs_items.h"
#include "io/sentbatch.h"
#include "text/batch_tag.h"
#include "text/crfs.h"
#include "text/rowcache.h"
#include "text/textmodel.h"
#include "vitesse.h"

typedef struct vt_kind_ops vt_kind_ops;

struct vt_model {
  const vt_kind_ops *ops; /* its kind's table */
  void *impl;             /* the kind's own model, made by its table's load and freed by its free
                             (only the kind's file reads it) */
  char **names;           /* info.labels label names, NUL-terminated (one allocation each) */
  char **chunk_names;     /* info.chunk_labels chunk label names: "O", "B-X", "I-X", ... */
  char *tmpl;             /* tagger: NUL-terminated copy of the templates */
  char *name;             /* the path it was opened from, or the name given (messages) */
  vt_model_info info;
};

/* One thread's scratch for tagging sentences held in memory (the public vt_tagger): kept across
 * sentences, so the steady state allocates nothing. */
typedef struct vt_cells_scratch {
  vt_arena *arena;    /* reset per sentence */
  vt_rowcache *cache; /* a tagger's cache of local emission rows; NULL when none */
  char *bytes;        /* the cells of the sentence, back to back */
  size_t cap_bytes;
  uint32_t *fields; /* (offset, length) per cell */
  size_t cap_fields;
  vt_text_conf conf; /* constraints (vt_tagger_constrain) */
} vt_cells_scratch;

/* What a worker of a corpus run hands its kind for one batch. */
typedef struct vt_corpus_work {
  const vt_model *m;
  const void *replica;      /* the worker's node's copy of the kind's model (corpus.clone) */
  const vt_tag_opts *o;     /* the run's options (decoder checked) */
  const atomic_int *cancel; /* the engine's cancel flag: long sentences poll it */
  vt_arena *arena;          /* the worker's; reset it as you like */
  void *worker;             /* corpus.worker_size zeroed bytes of the worker's own, kept */
  void *slot;               /* corpus.slot_size zeroed bytes of the batch's slot, kept */
  vt_sentbatch *sb;         /* column corpora: the batch's sentences, parsed */
  const vt_items_batch *ib; /* CRFsuite item files: the batch's sequences */
  vt_textbuf *out;          /* the batch's output text (empty at the start) */
  char *err;                /* a one-line message on failure */
  size_t errlen;
} vt_corpus_work;

/* The worker side of a corpus run with one model kind. */
typedef struct vt_corpus_ops {
  int items;          /* the input: 1 CRFsuite item files, 0 column corpora */
  size_t worker_size; /* bytes of state per worker (a cache line apart), 0: none */
  size_t slot_size;   /* bytes of state per slot of the engine's ring, 0: none */
  /* Optional: a copy of what the workers read of `model` (the vt_model) into NUMA-bound memory,
   * one per plan node, handed to tag_batch as its replica (NULL: the workers share the model). */
  vt_status (*clone)(const void *model, const vt_mem *mem, void **out);
  void (*clone_free)(void *replica, const vt_mem *mem);
  /* Checks the run's options against the model before anything starts: VT_OK, or a failure with
   * its line in err. */
  vt_status (*check)(const vt_model *m, const vt_tag_opts *o, char *err, size_t errlen);
  /* Tags the batch of `w` into w->out. Returns VT_OK or a failure with its line in w->err. */
  vt_status (*tag_batch)(const vt_corpus_work *w);
  /* Adds a worker's counters to the run's report. */
  void (*report)(const void *worker, vt_run_report *rep);
  /* Optional: free what a worker's or a slot's state holds (not the state itself). */
  void (*worker_free)(void *worker);
  void (*slot_free)(void *slot);
} vt_corpus_ops;

struct vt_kind_ops {
  vt_model_kind kind;
  const char *name; /* "tagger", "joint", "transitions", "crfsuite" (vt_model_kind_name) */
  uint32_t can;     /* what a model of this kind can do: VT_CAN_* (vt_model_info.can) */
  /* 1 when the first `n` bytes of a file start a model of this kind. */
  int (*sniff)(const unsigned char *head, size_t n);
  /* Loads `path` (or the `size` bytes at `data`, named `name`) into m's field of this kind.
   * Returns VT_OK or a failure with one line "NAME: problem" in err. */
  vt_status (*load)(vt_model *m, const char *path, char *err, size_t errlen);
  vt_status (*load_mem)(vt_model *m, const void *data, size_t size, const char *name, char *err,
                        size_t errlen);
  /* Optional: writes the model to `path` atomically (NULL: this kind cannot be saved). */
  vt_status (*save)(const vt_model *m, const char *path, char *err, size_t errlen);
  /* Optional: writes the model to `path` atomically as CRFsuite's crf1d file (NULL: this kind
   * cannot be one). */
  vt_status (*save_crfsuite)(const vt_model *m, const char *path, char *err, size_t errlen);
  /* Fills m->info (kind and defaults set already) and m->names, m->chunk_names, m->tmpl.
   * Returns VT_OK or VT_ENOMEM. */
  vt_status (*describe)(vt_model *m);
  /* Frees m's field of this kind. */
  void (*free)(vt_model *m);
  /* The bound transitions decoders read, which forbidden transitions change in place (NULL: the
   * kind has none, e.g. the joint model). */
  vt_trans *(*trans)(const vt_model *m);
  /* The features labels are constrained and marginals computed with (NULL: not this kind). */
  vt_textmodel *(*features)(const vt_model *m);
  /* 1: the model knows the corpus options it was trained with (info.reader), which tagging
   * takes unless told otherwise (vt_tag_opts.reader_from_model). */
  int reader_from_model;
  /* The decoder policy: sets the default decoder for k paths into *o; checks a chosen one
   * (VT_OK, or a failure with its line in err). */
  void (*decoder_default)(const vt_model *m, int32_t k, vt_decode_opts *o);
  vt_status (*decoder_check)(const vt_model *m, const vt_decode_opts *o, char *err, size_t errlen);
  /* Tagging sentences held in memory: T tokens of ncols cells (column corpora), or T item
   * lines; VT_OK, or a failure with its line in err. NULL: the kind does not take that input
   * (vt_tagger says which one it does). */
  vt_status (*tag_cells)(const vt_model *m, const vt_decode_opts *opts, vt_cells_scratch *s,
                         const char *const *cells, int32_t T, int32_t ncols, vt_tag_out *out,
                         char *err, size_t errlen);
  vt_status (*tag_items)(const vt_model *m, const vt_decode_opts *opts, vt_cells_scratch *s,
                         const char *const *items, int32_t T, vt_tag_out *out, char *err,
                         size_t errlen);
  /* The corpus run of vt_engine_tag (NULL: the kind has no features to tag with). */
  const vt_corpus_ops *corpus;
};

/* Loads a peer's model (format `fmt`, engine/models/peer_model.h: CRF++, Wapiti) from the `size`
 * bytes at `data` into `m` as a tagger model (m->ops set); as a kind's load_mem otherwise, with
 * cost_factor as vt_model_open_as takes it. */
vt_status vt_kind_tagger_load_peer(vt_model *m, int fmt, const void *data, size_t size,
                                   const char *name, double cost_factor, char *err, size_t errlen);

/* Makes `m` a transition model from arrays in memory (vt_model_open_trans; m->ops set). */
vt_status vt_kind_transitions_make(vt_model *m, int32_t L, const double *A, const double *S,
                                   const double *F, const int32_t *rank);

/* The table of kind `kind`, or NULL when there is none. */
const vt_kind_ops *vt_kind_ops_of(vt_model_kind kind);

/* The table of the kind the first `n` bytes of a file start, or NULL (a peer's model, or bytes
 * of no kind: the caller tries the peers' formats, then the tagger's loader, which says what is
 * wrong). */
const vt_kind_ops *vt_kind_ops_sniff(const unsigned char *head, size_t n);

/* m's features (ops->features), or NULL for a kind without. */
vt_textmodel *vt_kind_features(const vt_model *m);

/* The decoder policy every kind starts from: the library's default decoder for the model's
 * label count and k paths (vt_decode_opts_default). */
void vt_kind_decoder_default(const vt_model *m, int32_t k, vt_decode_opts *o);

/* The check every kind shares: k >= 1, and k > 1 only with a k-best decoder (else the failure
 * with its line in err). */
vt_status vt_kind_decoder_check(const vt_model *m, const vt_decode_opts *o, char *err,
                                size_t errlen);

/* Returns a NUL-terminated heap copy of the `len` bytes at `s`, or NULL. */
char *vt_kind_dup(const char *s, size_t len);

/* Allocates `n` NULL label names into *names (NULL when n is 0). VT_OK or VT_ENOMEM. */
vt_status vt_kind_names_alloc(char ***names, int32_t n);

/* The kinds' tables (kind_tagger.c, kind_joint.c, kind_transitions.c, kind_crfsuite.c). */
extern const vt_kind_ops vt_kind_tagger, vt_kind_joint, vt_kind_transitions, vt_kind_crfsuite;

#endif
