/* examples/decode_npy.c: decode score lattices with the batch engine, as `vitesse decode` does.
 *
 *   decode_npy DIR ALGO [K]
 *
 * Reads DIR/E.npy, DIR/N.npy, DIR/A.npy and, when present, DIR/S.npy, DIR/F.npy, DIR/R.npy (as
 * `vitesse synth -o DIR` writes them) and prints one line per sentence and path on stdout:
 * the bytes of `vitesse decode --emissions DIR/E.npy ... --algo ALGO -k K`. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <vitesse.h>

/* DIR/NAME.npy into buf when the file exists (or when `required`), else NULL. */
static const char *npy(char *buf, size_t len, const char *dir, const char *name, int required) {
  snprintf(buf, len, "%s/%s.npy", dir, name);
  return required || access(buf, R_OK) == 0 ? buf : NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: decode_npy DIR ALGO [K]\n");
    return 2;
  }
  char e[4096], n[4096], a[4096], s[4096], f[4096], r[4096];
  int rc = 1;
  vt_lattices *lat = NULL;
  vt_trans *trans = NULL;
  vt_engine *engine = NULL;
  vt_decode_opts opts;
  vt_decode_opts_init(&opts);
  opts.k = argc > 3 ? atoi(argv[3]) : 1;
  if (vt_algo_parse(argv[2], &opts.algo) != VT_OK) {
    fprintf(stderr, "decode_npy: unknown algorithm %s\n", argv[2]);
    return 2;
  }
  if (vt_lattices_open(&lat, npy(e, sizeof e, argv[1], "E", 1),
                       npy(n, sizeof n, argv[1], "N", 1)) != VT_OK ||
      vt_trans_load(&trans, npy(a, sizeof a, argv[1], "A", 1), npy(s, sizeof s, argv[1], "S", 0),
                    npy(f, sizeof f, argv[1], "F", 0), npy(r, sizeof r, argv[1], "R", 0),
                    lat) != VT_OK ||
      vt_engine_create(&engine, NULL) != VT_OK)
    goto done;
  vt_run_report rep;
  if (vt_engine_decode(engine, trans, &opts, lat, vt_sink_file, stdout, &rep) != VT_OK) goto done;
  if (fflush(stdout) != 0) goto done;
  fprintf(stderr, "decode_npy: %lld sentences, %.0f sentences/s\n", (long long)rep.sentences,
          rep.wall_seconds > 0 ? (double)rep.sentences / rep.wall_seconds : 0.0);
  rc = 0;
done:
  if (rc) fprintf(stderr, "decode_npy: %s\n", vt_last_error());
  vt_engine_destroy(engine);
  vt_trans_destroy(trans);
  vt_lattices_close(lat);
  return rc;
}
