/* engine/api/model_impl.h: what a public vt_model holds (vitesse.h): one of the four model
 * kinds, plus the NUL-terminated label names and the description the public calls hand out. */
#ifndef VT_API_MODEL_IMPL_H
#define VT_API_MODEL_IMPL_H

#include "chunk/chunk_model.h"
#include "text/crfs.h"
#include "text/textmodel.h"
#include "vitesse.h"

struct vt_model {
  vt_model_kind kind;
  vt_textmodel *text;   /* VT_MODEL_TAGGER (owned) */
  vt_chunk_model chunk; /* VT_MODEL_JOINT_CHUNK (zeroed otherwise) */
  vt_trans *trans;      /* VT_MODEL_TRANSITIONS (owned); taggers use text->trans */
  vt_crfs *crfs;        /* VT_MODEL_CRFSUITE (owned) */
  char **names;         /* info.labels label names, NUL-terminated (one allocation each) */
  char **chunk_names;   /* info.chunk_labels chunk label names: "O", "B-X", "I-X", ... */
  char *tmpl;           /* tagger: NUL-terminated copy of the templates */
  char *name;           /* the path it was opened from, or the name given (messages) */
  vt_model_info info;
};

/* Fills m->names, m->chunk_names, m->tmpl and m->info from the loaded model of m->kind.
 * Returns VT_OK or VT_ENOMEM. */
vt_status vt_model_finish(vt_model *m);

#endif
