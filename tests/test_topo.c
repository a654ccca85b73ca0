/* tests/test_topo.c: the placement plan on synthetic topologies (hwloc_topology_set_synthetic),
 * an XML round trip, and this machine. Checks which worker goes on which PU, core and NUMA node,
 * the queues and replicas per node, without relying on the OS effect of binding. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sched/topo.h"
#include "test_util.h"

#define CHECK_EQ(a, b, ...)                                                                        \
  do {                                                                                             \
    char ctx_[160];                                                                                \
    snprintf(ctx_, sizeof ctx_, __VA_ARGS__);                                                      \
    EXPECT_EQ_INT(a, b, ctx_);                                                                     \
  } while (0)

static int load(vt_topo *t, const char *src) {
  char err[700];
  int st = vt_topo_load(t, src, err, sizeof err);
  if (st != VT_OK) fprintf(stderr, "load %s: %s\n", src ? src : "(this machine)", err);
  return st;
}

/* pack:2 numa:2 core:8 pu:2: 2 packages x 2 nodes x 8 cores x 2 PUs. Workers are dealt over the
 * 4 nodes: worker w is on node w%4, the (w/4)-th core of that node, on its first PU while every
 * core has fewer than one worker, its second PU after. */
TEST(pack2_numa2_core8_pu2) {
  vt_topo t;
  vt_plan p;
  REQUIRE(load(&t, "pack:2 numa:2 core:8 pu:2") == VT_OK, "load");
  CHECK_EQ(t.packages, 2, "packages");
  CHECK_EQ(t.numa_nodes, 4, "numa nodes");
  CHECK_EQ(t.cores, 32, "cores");
  CHECK_EQ(t.pus, 64, "pus");
  CHECK_EQ(t.this_system, 0, "synthetic is not this system");
  const int counts[] = {0, 3, 32, 64, 70};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    int threads = counts[c];
    if (vt_topo_plan(&t, threads, VT_BIND_CORE, &p) != VT_OK) {
      EXPECT(0, "threads %d: no plan", threads);
      continue;
    }
    int n = threads ? threads : 32;
    CHECK_EQ(p.n_workers, n, "threads %d: workers", threads);
    CHECK_EQ(p.oversubscribed, n > 64, "threads %d: oversubscribed", threads);
    CHECK_EQ(p.n_nodes, n < 4 ? n : 4, "threads %d: queues/replicas", threads);
    for (int w = 0; w < n; w++) {
      int v = w % 64, node = v % 4, core = node * 8 + (v / 4) % 8, hyper = v / 32;
      CHECK_EQ(p.workers[w].numa, node, "threads %d worker %d: numa", threads, w);
      CHECK_EQ(p.workers[w].node, node, "threads %d worker %d: queue", threads, w);
      CHECK_EQ(p.workers[w].core, core, "threads %d worker %d: core", threads, w);
      CHECK_EQ(p.workers[w].pu, 2 * core + hyper, "threads %d worker %d: pu", threads, w);
      CHECK_EQ(p.workers[w].pu_os, 2 * core + hyper, "threads %d worker %d: pu os", threads, w);
      CHECK_EQ(p.workers[w].package, node / 2, "threads %d worker %d: package", threads, w);
    }
    for (int q = 0; q < p.n_nodes; q++) {
      int expect = 0;
      for (int w = 0; w < n; w++) expect += w % 4 == q;
      CHECK_EQ(p.nodes[q].numa, q, "threads %d queue %d: numa node", threads, q);
      CHECK_EQ(p.nodes[q].workers, expect, "threads %d queue %d: workers", threads, q);
    }
    vt_plan_free(&p);
  }
  /* numa: the same placement (it picks the home node); none: one queue, nobody placed. */
  if (vt_topo_plan(&t, 8, VT_BIND_NUMA, &p) == VT_OK) {
    CHECK_EQ(p.bind, VT_BIND_NUMA, "bind numa");
    CHECK_EQ(p.n_nodes, 4, "bind numa: queues");
    CHECK_EQ(p.workers[5].pu, 18, "bind numa: worker 5 pu");
    vt_plan_free(&p);
  }
  if (vt_topo_plan(&t, 8, VT_BIND_NONE, &p) == VT_OK) {
    CHECK_EQ(p.n_nodes, 1, "bind none: one queue");
    CHECK_EQ(p.nodes[0].workers, 8, "bind none: all workers on it");
    CHECK_EQ(p.nodes[0].numa, -1, "bind none: no numa node");
    for (int w = 0; w < 8; w++) {
      CHECK_EQ(p.workers[w].node, 0, "bind none worker %d: queue", w);
      CHECK_EQ(p.workers[w].pu, -1, "bind none worker %d: no pu", w);
    }
    vt_plan_free(&p);
  }
  CHECK_EQ(vt_topo_bind(&t, &p, 0), VT_OK, "bind none binds nothing, successfully");
  vt_topo_free(&t);
}

/* numa:4 core:4 (hwloc wants "pu:1" appended; the loader does it). */
TEST(numa4_core4_and_xml) {
  vt_topo t;
  vt_plan p;
  REQUIRE(load(&t, "numa:4 core:4") == VT_OK, "load");
  CHECK_EQ(t.numa_nodes, 4, "numa nodes");
  CHECK_EQ(t.cores, 16, "cores");
  CHECK_EQ(t.pus, 16, "pus");
  if (vt_topo_plan(&t, 0, VT_BIND_CORE, &p) == VT_OK) {
    CHECK_EQ(p.n_workers, 16, "one worker per core");
    CHECK_EQ(p.n_nodes, 4, "4 queues/replicas");
    for (int w = 0; w < 16; w++) {
      CHECK_EQ(p.workers[w].numa, w % 4, "worker %d: numa", w);
      CHECK_EQ(p.workers[w].pu, (w % 4) * 4 + w / 4, "worker %d: pu", w);
      CHECK_EQ(p.workers[w].package, -1, "worker %d: no package level", w);
    }
    for (int q = 0; q < 4; q++) CHECK_EQ(p.nodes[q].workers, 4, "queue %d: workers", q);
    vt_plan_free(&p);
  } else {
    EXPECT(0, "no plan for numa:4 core:4");
  }
  /* 6 workers on 4 nodes: nodes 0 and 1 get two each, in dealing order. */
  if (vt_topo_plan(&t, 6, VT_BIND_CORE, &p) == VT_OK) {
    const int pu[6] = {0, 4, 8, 12, 1, 5};
    for (int w = 0; w < 6; w++) CHECK_EQ(p.workers[w].pu, pu[w], "6 workers: worker %d pu", w);
    CHECK_EQ(p.nodes[0].workers, 2, "6 workers: queue 0");
    CHECK_EQ(p.nodes[3].workers, 1, "6 workers: queue 3");
    vt_plan_free(&p);
  }
  /* XML round trip: the same machine through a file gives the same plan. */
  char path[] = "/tmp/vt_topo_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) {
    close(fd);
    vt_topo x;
    if (hwloc_topology_export_xml(t.hw, path, 0) == 0 && load(&x, path) == VT_OK) {
      CHECK_EQ(x.this_system, 0, "xml: not this system");
      CHECK_EQ(x.numa_nodes, 4, "xml: numa nodes");
      if (vt_topo_plan(&x, 0, VT_BIND_CORE, &p) == VT_OK) {
        for (int w = 0; w < 16; w++)
          CHECK_EQ(p.workers[w].pu, (w % 4) * 4 + w / 4, "xml worker %d: pu", w);
        vt_plan_free(&p);
      }
      vt_topo_free(&x);
    } else {
      EXPECT(0, "xml export/load failed");
    }
    unlink(path);
  }
  vt_topo_free(&t);
}

/* Bad input: an invalid synthetic description, an unknown bind mode. */
TEST(errors) {
  vt_topo t;
  char err[700];
  EXPECT(vt_topo_load(&t, "pack:2 banana:3", err, sizeof err) == VT_EINVAL, "bad synthetic");
  EXPECT(strstr(err, "banana") != NULL, "message names the input: %s", err);
  vt_bind b;
  EXPECT(vt_bind_parse("cores", &b) == VT_EINVAL, "bind parse rejects 'cores'");
}

/* This machine: a valid plan, one worker per core by default. */
TEST(this_machine) {
  vt_topo t;
  vt_plan p;
  REQUIRE(load(&t, NULL) == VT_OK, "load");
  CHECK_EQ(t.this_system, 1, "this system");
  if (vt_topo_plan(&t, 0, VT_BIND_CORE, &p) == VT_OK) {
    CHECK_EQ(p.n_workers, t.cores > 0 ? t.cores : t.pus, "one worker per core");
    for (int w = 0; w < p.n_workers; w++) {
      EXPECT(p.workers[w].pu >= 0 && p.workers[w].pu < t.pus, "worker %d pu %d", w,
             p.workers[w].pu);
    }
    vt_plan_free(&p);
  }
  vt_topo_free(&t);
}

TEST_MAIN(CASE(pack2_numa2_core8_pu2), CASE(numa4_core4_and_xml), CASE(errors), CASE(this_machine))
