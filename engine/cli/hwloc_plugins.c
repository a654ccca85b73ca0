/* engine/cli/hwloc_plugins.c: the tools load none of hwloc's device plugins.
 *
 * Debian's hwloc (libhwloc-plugins) loads every plugin it finds at the first topology it builds:
 * the GL, OpenCL and PCI discovery and the libxml reader, which bring in libxml2, ICU, X11 and
 * OpenCL with them (22 libraries: 3 to 5 ms of wall time and 2 ms of CPU in a short run). The
 * engine asks hwloc for cores, caches and NUMA nodes only: I/O devices are filtered out of its
 * topologies, and an XML topology is read by hwloc's own parser when libxml's is not loaded. hwloc
 * reads the list of plugins to skip from its environment when it loads them, so setting it here,
 * before any topology, is enough; a list the user set is kept. The library itself leaves hwloc be:
 * a program that links it may want those devices. */
#define _GNU_SOURCE /* setenv */
#include <stdlib.h>

#include "cli/cli.h"

void vt_cli_hwloc_plugins_off(void) {
  setenv("HWLOC_PLUGINS_BLACKLIST",
         "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml,hwloc_cuda,hwloc_nvml,hwloc_rsmi,"
         "hwloc_levelzero",
         0);
}
