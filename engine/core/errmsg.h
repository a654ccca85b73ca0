/* engine/core/errmsg.h: one-line error messages for the text pipeline ("NAME:...: problem"). */
#ifndef VT_CORE_ERRMSG_H
#define VT_CORE_ERRMSG_H

#include <stddef.h>

/* The room for a one-line message ("NAME:LINE: problem"): what the library's callers hand the
 * functions that take `char *err, size_t errlen`. */
#define VT_ERR_LINE 512

/* Formats "NAME: MESSAGE" (or "MESSAGE" when name is NULL) into err (errlen bytes, may be 0),
 * truncating, always NUL-terminated; control characters become '?' so it stays one line. */
void vt_errorf(char *err, size_t errlen, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include "vitesse.h"

/* Formats "MESSAGE" into err as vt_errorf does (no name) and returns `st`: a failure's status
 * and its line in one step, for the functions below the public ones. */
vt_status vt_fail_into(char *err, size_t errlen, vt_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The one way a parser refuses its input: formats "NAME: MESSAGE" into the function's `err`
 * (`errlen` bytes), sets its status `st` to VT_EFORMAT and jumps to its cleanup label `label`.
 * A parser binds it once to its own names, e.g. #define BAD(...) VT_BAD(fail, path, __VA_ARGS__).
 */
#define VT_BAD(label, name, ...)                                                                   \
  do {                                                                                             \
    vt_errorf(err, errlen, name, __VA_ARGS__);                                                     \
    st = VT_EFORMAT;                                                                               \
    goto label;                                                                                    \
  } while (0)

/* Records the thread's last error (vt_last_error) and returns `st`: the message is printf-style
 * `fmt`, or vt_strerror(st) when fmt is NULL; control characters become '?'. VT_OK records
 * nothing. Every public function that fails returns through it. */
vt_status vt_fail(vt_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
