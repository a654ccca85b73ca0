# cmake/VtLayers.cmake: the library's layers, and the include root each target sees.
#
# Every internal include names its layer's folder ("decode/degen.h") from one include root. A
# target's root (a folder under the build tree, views/NAME) holds vitesse.h and a link to each
# layer that target may use and no other, so the compiler itself rejects an upward include: a
# layer sees itself and the layers below it; the CLI sees vitesse.h and its own folder only.
# tests/layering.sh checks the same order on the sources (relative paths included).

# The layers, lowest first, and the folder of each.
set(VT_LAYERS alloc core io decode text chunk models train sched api)
set(VT_LAYER_DIR_alloc ${PROJECT_SOURCE_DIR}/alloc)
set(VT_LAYER_DIR_io ${PROJECT_SOURCE_DIR}/io)
foreach(layer core decode text chunk models train sched api cli)
  set(VT_LAYER_DIR_${layer} ${PROJECT_SOURCE_DIR}/engine/${layer})
endforeach()

# vt_layer_view(OUT NAME [LAYER...]): makes the include root views/NAME (vitesse.h and a link to
# each LAYER's folder) and stores its path in OUT.
function(vt_layer_view out name)
  set(dir ${PROJECT_BINARY_DIR}/views/${name})
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/engine/vitesse.h ${dir}/vitesse.h SYMBOLIC)
  foreach(layer ${ARGN})
    file(CREATE_LINK ${VT_LAYER_DIR_${layer}} ${dir}/${layer} SYMBOLIC)
  endforeach()
  set(${out} ${dir} PARENT_SCOPE)
endfunction()

# vt_layer_below(OUT LAYER): stores in OUT LAYER and every layer below it, lowest first.
function(vt_layer_below out layer)
  list(FIND VT_LAYERS ${layer} idx)
  if(idx LESS 0)
    message(FATAL_ERROR "vt_layer_below: ${layer} is not a layer of VT_LAYERS")
  endif()
  math(EXPR n "${idx} + 1")
  list(SUBLIST VT_LAYERS 0 ${n} seen)
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# vt_layer_library(LAYER): the object library vt_LAYER of the layer folder's plain sources (the
# per-ISA files come from vt_isa_family), compiled against the layer's own include root.
function(vt_layer_library layer)
  file(GLOB sources CONFIGURE_DEPENDS ${VT_LAYER_DIR_${layer}}/*.c)
  list(FILTER sources EXCLUDE REGEX "${VT_ISA_SOURCE_REGEX}")
  add_library(vt_${layer} OBJECT ${sources})
  vt_layer_below(seen ${layer})
  vt_layer_view(root ${layer} ${seen})
  target_include_directories(vt_${layer} PRIVATE ${root})
  target_compile_definitions(vt_${layer} PRIVATE ${VT_ISA_DEFINITIONS})
  target_link_libraries(vt_${layer} PRIVATE vt_flags OpenMP::OpenMP_C)
  set_target_properties(vt_${layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# The include root of what sits on top of the library and may use any layer: tests, perf
# drivers, fuzz targets.
vt_layer_view(VT_INTERNAL_INCLUDES all ${VT_LAYERS})
# The include root of the front ends: vitesse.h and the CLI's own headers (vitesse-mpi parses
# its options with the CLI's parsers).
vt_layer_view(VT_FRONT_INCLUDES front cli)
# The include root of the library's users while building (the installed tree has vitesse.h
# alone too): the public header only.
vt_layer_view(VT_PUBLIC_INCLUDES public)
