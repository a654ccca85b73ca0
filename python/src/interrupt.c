/* python/src/interrupt.c: Ctrl-C during an engine run. The engine calls its progress callback on
 * the calling thread about every 0.25 s; the callback takes the GIL, runs Python's signal handlers,
 * and when one raises (KeyboardInterrupt) keeps the exception and cancels the run, which then
 * returns VT_ECANCELED after its running batches finish. */
#include "vtpy.h"

void vtpy_interrupt_progress(void *ctx, const vt_progress *p) {
  vtpy_interrupt *in = ctx;
  (void)p;
  if (!in->e || in->type) return;
  PyGILState_STATE g = PyGILState_Ensure();
  if (PyErr_CheckSignals() < 0) {
    PyErr_Fetch(&in->type, &in->value, &in->tb);
    vt_engine_cancel(in->e);
  }
  PyGILState_Release(g);
}

int vtpy_interrupt_raise(vtpy_interrupt *in) {
  if (!in->type) return 0;
  PyErr_Restore(in->type, in->value, in->tb);
  in->type = in->value = in->tb = NULL;
  return 1;
}
