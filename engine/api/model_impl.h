/* engine/api/model_impl.h: what the public model calls share: a vt_model is the models layer's
 * (engine/models/kind_ops.h: the loaded model of one kind and its kind's table). */
#ifndef VT_API_MODEL_IMPL_H
#define VT_API_MODEL_IMPL_H

#include "models/kind_ops.h"
#include "vitesse.h"

/* Fills m->info (its kind's description) and the label names of m, whose kind's model is
 * loaded. Returns VT_OK or VT_ENOMEM. */
vt_status vt_model_finish(vt_model *m);

#endif
