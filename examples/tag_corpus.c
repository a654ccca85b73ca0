/* examples/tag_corpus.c: tag a corpus file with the batch engine, as `vitesse tag` does.
 *
 *   tag_corpus MODEL CORPUS OUT [THREADS]
 *
 * Opens the model, plans THREADS workers (default: one per core), runs the engine over CORPUS
 * and writes the tagged corpus to OUT atomically: the bytes `vitesse tag -m MODEL CORPUS -o OUT`
 * writes, for any thread count. */
#include <stdio.h>
#include <stdlib.h>

#include <vitesse.h>

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: tag_corpus MODEL CORPUS OUT [THREADS]\n");
    return 2;
  }
  int rc = 1;
  vt_model *model = NULL;
  vt_engine *engine = NULL;
  vt_output *out = NULL;
  vt_engine_opts eo;
  vt_engine_opts_init(&eo);
  eo.threads = argc > 4 ? atoi(argv[4]) : 0;
  if (vt_model_open(&model, argv[1]) != VT_OK || vt_engine_create(&engine, &eo) != VT_OK ||
      vt_output_open(&out, argv[3]) != VT_OK)
    goto done;
  const char *files[1] = {argv[2]};
  vt_run_report rep;
  /* NULL options: the model's own decoder and corpus options. */
  if (vt_engine_tag(engine, model, NULL, files, 1, vt_sink_file, vt_output_file(out), &rep) !=
      VT_OK)
    goto done;
  vt_status st = vt_output_commit(out);
  out = NULL;
  if (st != VT_OK) goto done;
  fprintf(stderr, "tag_corpus: %lld sentences, %lld tokens on %d thread(s)\n",
          (long long)rep.sentences, (long long)rep.tokens, vt_engine_threads(engine));
  rc = 0;
done:
  if (rc) fprintf(stderr, "tag_corpus: %s\n", vt_last_error());
  vt_output_abort(out);
  vt_engine_destroy(engine);
  vt_model_close(model);
  return rc;
}
