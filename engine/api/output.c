/* engine/api/output.c: the public vt_output (vitesse.h), an atomic output file over io/outfile. */
#include <stdlib.h>

#include "core/errmsg.h"
#include "io/outfile.h"

struct vt_output {
  vt_outfile of;
};

vt_status vt_output_open(vt_output **out, const char *path) {
  char err[VT_ERR_LINE];
  vt_output *o = calloc(1, sizeof *o);
  *out = NULL;
  if (!o) return vt_fail(VT_ENOMEM, "out of memory");
  int st = vt_outfile_open(&o->of, path, err, sizeof err);
  if (st != VT_OK) {
    free(o);
    return vt_fail((vt_status)st, "%s", err);
  }
  *out = o;
  return VT_OK;
}

FILE *vt_output_file(const vt_output *o) { return o->of.fp; }

int vt_output_is_atomic(const vt_output *o) { return o->of.tmp != NULL; }

const char *vt_output_temp_path(const vt_output *o) { return o ? o->of.tmp : NULL; }

vt_status vt_output_commit(vt_output *o) {
  char err[VT_ERR_LINE];
  int st = vt_outfile_commit(&o->of, err, sizeof err);
  free(o);
  return st == VT_OK ? VT_OK : vt_fail((vt_status)st, "%s", err);
}

void vt_output_abort(vt_output *o) {
  if (!o) return;
  vt_outfile_abort(&o->of);
  free(o);
}
