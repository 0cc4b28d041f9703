# cuda_tests.cmake - CUDA programs run under the preload, as ctests.
#
# Each tests/cuda/<name>.cu is compiled by nvcc with -cudart shared (static
# cudart cannot be interposed) into one or more variants and registered as
# ctest "cuda.<name>[.<variant>]", run with LD_PRELOAD=libtorchfl.so.
# A line "// tfl-variants: <v> ..." in the file selects variants; default
# "sass" only.  Variants:
#   sass    -arch=sm_80 (SASS sm_80 + PTX compute_80, nvcc's default zstd)
#   ptx     -gencode arch=compute_80,code=compute_80 (PTX only)
#   zstd    -Xfatbin -compress-all -compress-mode=size
#   lz4     -Xfatbin -compress-all -compress-mode=speed
#   nocomp  -Xfatbin -compress=false
#   sassonly -gencode arch=compute_80,code=sm_80 (SASS only, no PTX: as the
#           PyTorch wheels ship their kernels)
# A line "// tfl-expect-fail" marks a program that must exit non-zero.
# A line "// tfl-libs: -lcublas ..." adds link flags (libraries the program
# links against; their entry points are served by the preload).
# A line "// tfl-env: VAR=value ..." adds environment variables to the run
# (@BUILD@ in a value stands for the build directory).
# A line "// tfl-backends: opencl ..." runs the first variant once more per
# backend named, as ctest "cuda.<name>.<backend>" with FL_BACKEND=<backend>
# (the plugin must be built).
set(TFL_NVCC_FLAGS -O2 -cudart shared -Wno-deprecated-gpu-targets
    -I${CMAKE_SOURCE_DIR}/tests/cuda)
set(TFL_VARIANT_sass   -arch=sm_80)
set(TFL_VARIANT_ptx    -gencode arch=compute_80,code=compute_80)
set(TFL_VARIANT_zstd   -arch=sm_80 -Xfatbin -compress-all -Xfatbin -compress-mode=size)
set(TFL_VARIANT_lz4    -arch=sm_80 -Xfatbin -compress-all -Xfatbin -compress-mode=speed)
set(TFL_VARIANT_nocomp -arch=sm_80 -Xfatbin -compress=false)
set(TFL_VARIANT_sassonly -gencode arch=compute_80,code=sm_80)

# tfl_directive(src key default out): the words after "// <key>:" in src, as
# a list in out, or default when the line is absent.
function(tfl_directive src key default out)
  file(STRINGS ${src} line REGEX "${key}:")
  set(words ${default})
  if(line)
    string(REGEX REPLACE ".*${key}:[ ]*" "" line "${line}")
    string(REPLACE " " ";" words "${line}")
  endif()
  set(${out} "${words}" PARENT_SCOPE)
endfunction()

function(tfl_add_cuda_program src)
  get_filename_component(name ${src} NAME_WE)
  tfl_directive(${src} tfl-variants sass variants)
  tfl_directive(${src} tfl-libs "" libs)
  tfl_directive(${src} tfl-env "" extra_env)
  string(REPLACE "@BUILD@" "${CMAKE_BINARY_DIR}" extra_env "${extra_env}")
  list(LENGTH variants nvar)
  foreach(v ${variants})
    if(nvar GREATER 1)
      set(tname ${name}.${v})
    else()
      set(tname ${name})
    endif()
    set(out ${CMAKE_BINARY_DIR}/tests/cuda/${tname})
    add_custom_command(OUTPUT ${out}
      COMMAND ${NVCC} ${TFL_NVCC_FLAGS} ${TFL_VARIANT_${v}} -o ${out} ${src} ${libs}
      DEPENDS ${src} ${CMAKE_SOURCE_DIR}/tests/cuda/check.h
      COMMENT "nvcc ${tname}" VERBATIM)
    add_custom_target(cuda_${tname} ALL DEPENDS ${out})
    add_test(NAME cuda.${tname} COMMAND ${out})
    set_tests_properties(cuda.${tname} PROPERTIES
      ENVIRONMENT "LD_PRELOAD=$<TARGET_FILE:torchfl>;TORCHFL_CONFIG=/dev/null;${extra_env}"
      TIMEOUT 300)
    if(NOT first_out)
      set(first_out ${out})
    endif()
  endforeach()
  tfl_directive(${src} tfl-backends "" backends)
  foreach(b ${backends})
    if(b STREQUAL "opencl" AND NOT TFL_HAVE_OPENCL)
      message(WARNING "cuda.${name}.${b} not registered: the OpenCL backend is not built")
      continue()
    endif()
    add_test(NAME cuda.${name}.${b} COMMAND ${first_out})
    set_tests_properties(cuda.${name}.${b} PROPERTIES
      ENVIRONMENT "LD_PRELOAD=$<TARGET_FILE:torchfl>;TORCHFL_CONFIG=/dev/null;FL_BACKEND=${b};${extra_env}"
      TIMEOUT 300)
  endforeach()
endfunction()

file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/cuda)
file(GLOB TFL_CUDA_PROGRAMS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cuda/*.cu)
# The CUDA examples are run as tests too (they check themselves).
file(GLOB TFL_CUDA_EXAMPLES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/*.cu)
foreach(src ${TFL_CUDA_PROGRAMS} ${TFL_CUDA_EXAMPLES})
  tfl_add_cuda_program(${src})
endforeach()
