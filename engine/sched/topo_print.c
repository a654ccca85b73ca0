/* engine/sched/topo_print.c: the placement plan as `vitesse topo` prints it. */
#include "sched/topo.h"

/* Prints "-" for a negative index. */
static void put_index(FILE *f, int width, int v) {
  if (v < 0)
    fprintf(f, "%*s", width, "-");
  else
    fprintf(f, "%*d", width, v);
}

void vt_plan_print(FILE *f, const vt_topo *t, const vt_plan *p) {
  fprintf(f, "topology: %s%s\n", t->source,
          t->this_system ? "" : " (not this machine: the plan is shown, nothing is bound)");
  fprintf(f, "  %d package(s), %d NUMA node(s), %d core(s), %d PU(s)\n", t->packages, t->numa_nodes,
          t->cores, t->pus);
  fprintf(f, "plan: %d worker(s), bind %s, %d queue(s), %d model replica(s)%s\n", p->n_workers,
          vt_bind_name(p->bind), p->n_nodes, p->n_nodes,
          p->oversubscribed ? ", oversubscribed (more workers than PUs)" : "");
  fprintf(f, "worker     PU  PU(os)   core   NUMA  package  queue/replica\n");
  for (int w = 0; w < p->n_workers; w++) {
    const vt_plan_worker *pw = &p->workers[w];
    fprintf(f, "%6d ", w);
    put_index(f, 6, pw->pu);
    put_index(f, 8, pw->pu_os);
    put_index(f, 7, pw->core);
    put_index(f, 7, pw->numa);
    put_index(f, 9, pw->package);
    fprintf(f, "%15d\n", pw->node);
  }
  for (int n = 0; n < p->n_nodes; n++) {
    const vt_plan_node *pn = &p->nodes[n];
    fprintf(f, "queue/replica %d: ", n);
    if (pn->numa < 0)
      fprintf(f, "no NUMA binding (ordinary memory)");
    else
      fprintf(f, "NUMA node %d (os %d)%s", pn->numa, pn->numa_os,
              t->this_system ? ", memory bound to it" : "");
    fprintf(f, ", %d worker(s):", pn->workers);
    for (int w = 0; w < p->n_workers; w++)
      if (p->workers[w].node == n) fprintf(f, " %d", w);
    fputc('\n', f);
  }
}
