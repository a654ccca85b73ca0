/* engine/train/pipeline_joint.c: training the joint POS + chunk model from start to model file
 * (pipeline.h; the public vt_train_joint[_mem] of engine/api/train_joint.c; Shimizu & Haas
 * 2006): the corpora read (corpus_src.h: files
 * or sentences in memory), the feature rows built and the weights trained
 * (engine/train/chunk_train.h), the test corpus evaluated after each epoch for the caller's
 * callback, the model written atomically (engine/models/chunk_model_file.h). */
#include <stdio.h>
#include <string.h>

#include "chunk/chunk_corpus.h"
#include "chunk/chunk_tag.h"
#include "core/errmsg.h"
#include "io/outfile.h"
#include "models/chunk_model_file.h"
#include "train/chunk_train.h"
#include "train/corpus_src.h"
#include "train/pipeline.h"
#include "vitesse.h"

/* Adds the comma-separated chunk types of `list` to m. Returns VT_OK, VT_EINVAL (an empty type
 * or "O") or VT_ENOMEM (message in err). */
static vt_status add_types(vt_chunk_model *m, const char *list, char *err, size_t errlen) {
  for (const char *s = list; *s;) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    int32_t id;
    if (n == 0 || (n == 1 && *s == 'O'))
      return vt_fail_into(err, errlen, VT_EINVAL, "--chunk-types: bad type list '%s'", list);
    if (vt_featdict_add(&m->chunk_names, s, n, &id) != VT_OK)
      return vt_fail_into(err, errlen, VT_ENOMEM, "out of memory");
    s += n + (e ? 1 : 0);
  }
  m->c = m->chunk_names.n;
  return VT_OK;
}

/* What the epoch hook needs: the caller's options, the test corpus and the epochs done. */
typedef struct epoch_ctx {
  const vt_train_opts *o;
  const vt_chunk_corpus *test;
  int64_t n_train;
  int32_t epochs_done;
  double train_seconds;
  vt_status st; /* a failed test evaluation */
} epoch_ctx;

/* vt_chunk_train's epoch hook: evaluates the test corpus (only when the caller has a callback
 * to see it) and hands the caller a vt_epoch_report. */
static int on_epoch(void *vctx, const vt_chunk_model *m, const vt_chunk_epoch *ep) {
  epoch_ctx *x = vctx;
  const vt_train_opts *o = x->o;
  x->epochs_done = ep->epoch;
  x->train_seconds = ep->train_seconds;
  if (!o->on_epoch) return 0;
  vt_epoch_report r;
  memset(&r, 0, sizeof r);
  r.epoch = ep->epoch;
  r.epochs = o->epochs;
  r.sentences = x->n_train;
  r.mistakes = ep->mistakes;
  r.updates = ep->updates;
  r.train_accuracy = -1;
  r.dev_accuracy = r.dev_pos = r.dev_chunk_tags = r.dev_f1 = -1;
  r.seconds = ep->seconds;
  r.total_seconds = ep->train_seconds;
  if (x->test) {
    vt_chunk_eval ev;
    memset(&ev, 0, sizeof ev);
    double secs;
    x->st = vt_chunk_corpus_eval(m, x->test, o->max_chunk, &ev, &secs);
    if (x->st != VT_OK) return 1;
    r.dev_pos = vt_chunk_eval_pos_acc(&ev);
    r.dev_chunk_tags = vt_chunk_eval_tag_acc(&ev);
    r.dev_f1 = vt_chunk_eval_f1(&ev, 0, 0);
    r.dev_accuracy = r.dev_f1 / 100;
    r.dev_sentences = x->test->n_sent;
    r.dev_seconds = secs;
  }
  return o->on_epoch(o->ctx, &r);
}

/* Adds a batch to the corpus of a read_ctx; VT_ECANCELED once it holds max_sents sentences. */
typedef struct read_ctx {
  vt_chunk_corpus *cp;
  vt_chunk_model *m;
  const vt_chunk_read_opts *ro;
} read_ctx;

static vt_status read_batch(void *ctx, const vt_sentbatch *b, char *err, size_t errlen) {
  read_ctx *x = ctx;
  int full = 0;
  vt_status st = vt_chunk_corpus_add(x->cp, x->m, b, x->ro, &full, err, errlen);
  return st == VT_OK && full ? VT_ECANCELED : st;
}

vt_status vt_pipeline_joint_run(const vt_train_opts *o, const vt_corpus_src *train_src,
                                const vt_corpus_src *test_src, const char *out_path,
                                vt_train_report *rep, char *err, size_t errlen) {
  const char *train_path = train_src->sents ? train_src->name : train_src->files[0];
  const int has_test = test_src->sents || test_src->n_files > 0;
  vt_status st;
  vt_chunk_model m;
  vt_chunk_corpus train, test;
  memset(&train, 0, sizeof train);
  memset(&test, 0, sizeof test);
  if (vt_chunk_model_init(&m) != VT_OK)
    return vt_fail_into(err, errlen, VT_ENOMEM, "out of memory");
  if (!o || !train_path || !out_path) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "chunk-train: a training corpus and a model path are required");
    goto done;
  }
  if (o->epochs < 1 || o->lex_warmup < 0 || o->max_chunk < 0 || o->max_sentences < 0 ||
      o->reader.max_tokens < 1) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "chunk-train: epochs and max_tokens must be >= 1; lex_warmup, "
                      "max_chunk and max_sentences >= 0");
    goto done;
  }
  if (o->shards < 0 || o->shards > VT_TRAIN_SHARDS_MAX || o->threads < 0) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "chunk-train: shards must be in 0..%d and threads >= 0", VT_TRAIN_SHARDS_MAX);
    goto done;
  }
  if (o->collapse != VT_COLLAPSE_NONE && o->collapse != VT_COLLAPSE_PAPER) {
    st =
        vt_fail_into(err, errlen, VT_EINVAL, "chunk-train: collapse must be 0 (none) or 1 (paper)");
    goto done;
  }
  if (o->word_col < 0 || o->pos_col < 0) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "chunk-train: the word and POS columns cannot be 'last'");
    goto done;
  }
  if (o->chunk_col < -1) {
    st = vt_fail_into(err, errlen, VT_EINVAL,
                      "chunk-train: the chunk column must be >= -1 (-1: last)");
    goto done;
  }
  m.collapse = o->collapse;
  const char *types = o->chunk_types ? o->chunk_types : "NP";
  vt_chunk_read_opts ro;
  vt_chunk_read_opts_init(&ro);
  ro.word_col = o->word_col;
  ro.pos_col = o->pos_col;
  ro.chunk_col = o->chunk_col;
  ro.max_sents = o->max_sentences;
  ro.all_types = !strcmp(types, "all");
  if (!ro.all_types && (st = add_types(&m, types, err, errlen)) != VT_OK) goto done;
  ro.grow = 1;
  ro.max_chunk = o->max_chunk;
  read_ctx rx = {&train, &m, &ro};
  if ((st = vt_corpus_src_each(train_src, &o->reader, read_batch, &rx, err, errlen)) != VT_OK)
    goto done;
  if (train.n_sent == 0) {
    st = vt_fail_into(err, errlen, VT_EFORMAT, "%s: no sentences", train_path);
    goto done;
  }
  vt_chunk_read_opts te = ro;
  te.grow = 0;
  te.max_chunk = 0;
  te.max_sents = 0;
  read_ctx tx = {&test, &m, &te};
  if (has_test &&
      (st = vt_corpus_src_each(test_src, &o->reader, read_batch, &tx, err, errlen)) != VT_OK)
    goto done;
  rep->input_ok = 1;
  /* The model goes to out_path once trained: see now, not after the epochs, that it cannot. */
  if ((st = vt_outfile_probe(out_path, err, errlen)) != VT_OK) goto done;
  if (vt_chunk_features_build(&m, &train, o->observed_only ? VT_CFEAT_OBSERVED : VT_CFEAT_ALL) !=
      VT_OK) {
    st = vt_fail_into(err, errlen, VT_ENOMEM, "out of memory");
    goto done;
  }
  rep->sentences = train.n_sent;
  rep->tokens = train.n_tok;
  rep->labels = m.p;
  rep->chunk_labels = m.c;
  rep->features = m.n_feat;
  rep->chunks_cut = train.cut;
  if (o->on_start) o->on_start(o->ctx, rep);

  epoch_ctx x = {o, has_test ? &test : NULL, train.n_sent, 0, 0, VT_OK};
  vt_chunk_train_opts to;
  vt_chunk_train_opts_init(&to);
  to.epochs = o->epochs;
  to.margin = o->margin;
  to.lex_warmup = o->lex_warmup;
  to.max_chunk = o->max_chunk;
  to.seed = o->seed;
  to.shards = o->shards;
  to.threads = o->threads;
  to.on_epoch = on_epoch;
  to.ctx = &x;
  st = vt_chunk_train(&m, &train, &to);
  rep->epochs = x.epochs_done;
  rep->train_seconds = x.train_seconds;
  if (st == VT_OK) st = x.st;
  if (st != VT_OK) {
    st = vt_fail_into(err, errlen, st, "chunk-train: %s", vt_strerror(st));
    goto done;
  }
  st = vt_chunk_model_write(out_path, &m, err, errlen);
  if (st != VT_OK) st = (st == VT_ENOMEM ? VT_ENOMEM : VT_EIO);
done:
  vt_chunk_corpus_free(&train);
  vt_chunk_corpus_free(&test);
  vt_chunk_model_free(&m);
  return st;
}
