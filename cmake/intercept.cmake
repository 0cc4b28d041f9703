# intercept.cmake - build libtorchfl.so and the SONAME aliases
# (libcuda.so.1, libnvidia-ml.so.1).
#
# libtorchfl.so holds every exported entry point (src/intercept/**) over
# torchfl_core.  Symbols carry the version nodes of the libraries they
# replace (libcudart.so.13 and .12, libcublas.so.13, ...) so a caller linked
# against either CUDA major binds to the ABI it was built for.
#
# The exported surface is generated at build time by
# scripts/gen_intercept.py from the checked-in lists scripts/symbols/*.txt
# (made by scripts/gen_symbol_lists.sh) and the CUDA headers: a weak
# refusal for every function (hand-written strong definitions override
# them), the CUDA 12 ABI trampolines, and the version script.
find_package(Python3 REQUIRED COMPONENTS Interpreter)

file(GLOB_RECURSE TFL_INTERCEPT_SRC CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/src/intercept/*.c
     ${CMAKE_SOURCE_DIR}/src/intercept/*.S)
file(GLOB TFL_SYMBOL_LISTS CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/scripts/symbols/*.txt
     ${CMAKE_SOURCE_DIR}/scripts/symbols/*.types
     ${CMAKE_SOURCE_DIR}/scripts/symbols/*.abi-differs)

set(TFL_GEN_DIR ${CMAKE_BINARY_DIR}/intercept)
set(TFL_GEN_LIBS cudart driver cublas cublasLt cudnn cusolver cufft cusparse nccl nvml)
set(TFL_GEN_SRC ${TFL_GEN_DIR}/abi12.S)
foreach(lib ${TFL_GEN_LIBS})
  list(APPEND TFL_GEN_SRC ${TFL_GEN_DIR}/refusals_${lib}.c)
endforeach()
set(TFL_EXPORTS_MAP ${TFL_GEN_DIR}/exports.map)

# The generator scans the hand-written sources (overrides, functions that
# must be hand-written), so it reruns when any of them changes, or when one
# is added or removed (sources.list is rewritten only when the set
# changes).  It rewrites only the outputs whose content changed, and
# touches gen.stamp.
string(REPLACE ";" "\n" TFL_SRC_LINES "${TFL_INTERCEPT_SRC}")
file(CONFIGURE OUTPUT ${TFL_GEN_DIR}/sources.list CONTENT "${TFL_SRC_LINES}\n")
add_custom_command(
  OUTPUT ${TFL_GEN_DIR}/gen.stamp
  BYPRODUCTS ${TFL_GEN_SRC} ${TFL_EXPORTS_MAP} ${TFL_GEN_DIR}/classes.txt
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/gen_intercept.py
          --out ${TFL_GEN_DIR} --symbols ${CMAKE_SOURCE_DIR}/scripts/symbols
          --include ${CUDA_INCLUDE} --src ${CMAKE_SOURCE_DIR}/src/intercept
          --cc ${CMAKE_C_COMPILER}
  COMMAND ${CMAKE_COMMAND} -E touch ${TFL_GEN_DIR}/gen.stamp
  DEPENDS ${CMAKE_SOURCE_DIR}/scripts/gen_intercept.py ${TFL_SYMBOL_LISTS}
          ${TFL_INTERCEPT_SRC} ${TFL_GEN_DIR}/sources.list
  COMMENT "Generating the exported symbol surface (scripts/gen_intercept.py)"
  VERBATIM)
add_custom_target(torchfl_intercept_gen DEPENDS ${TFL_GEN_DIR}/gen.stamp)
set_source_files_properties(${TFL_GEN_SRC} ${TFL_EXPORTS_MAP} PROPERTIES GENERATED TRUE)

# The CUDA 12 ABI of functions whose layout differs is compiled against the
# CUDA 12 headers (fetched once from PyPI into ~/.cache/torchfl/cuda12);
# everything else against the toolkit's CUDA 13 headers.
set(TFL_ABI12_SRC ${TFL_INTERCEPT_SRC})
list(FILTER TFL_ABI12_SRC INCLUDE REGEX "/src/intercept/abi12/")
list(FILTER TFL_INTERCEPT_SRC EXCLUDE REGEX "/src/intercept/abi12/")
if(NOT CUDA12_INCLUDE)
  execute_process(COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/fetch_cuda12_headers.sh
                  OUTPUT_VARIABLE tfl_cuda12_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE tfl_cuda12_rc)
  if(NOT tfl_cuda12_rc EQUAL 0)
    message(FATAL_ERROR "CUDA 12 headers unavailable: run scripts/fetch_cuda12_headers.sh "
                        "(needs PyPI once) or pass -DCUDA12_INCLUDE=<dir>")
  endif()
  set(CUDA12_INCLUDE ${tfl_cuda12_dir}/include CACHE PATH "CUDA 12 runtime headers")
endif()
add_library(torchfl_abi12 OBJECT ${TFL_ABI12_SRC})
target_include_directories(torchfl_abi12 PRIVATE ${CUDA12_INCLUDE}
  ${CMAKE_SOURCE_DIR}/src/intercept ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)

add_library(torchfl SHARED ${TFL_INTERCEPT_SRC} ${TFL_GEN_SRC}
            $<TARGET_OBJECTS:torchfl_abi12>)
add_dependencies(torchfl torchfl_intercept_gen)
target_include_directories(torchfl PRIVATE ${CUDA_INCLUDE}
  ${CMAKE_SOURCE_DIR}/src/intercept)
target_link_libraries(torchfl PRIVATE
  -Wl,--whole-archive torchfl_core -Wl,--no-whole-archive)
target_link_options(torchfl PRIVATE
  -Wl,--version-script=${TFL_EXPORTS_MAP} -Wl,-z,defs)
# OpenBLAS (static, see CMakeLists.txt) stays private to libtorchfl.so.
if(OPENBLAS_STATIC_LIB)
  get_filename_component(TFL_OPENBLAS_AR ${OPENBLAS_STATIC_LIB} NAME)
  target_link_options(torchfl PRIVATE -Wl,--exclude-libs,${TFL_OPENBLAS_AR})
endif()
set_target_properties(torchfl PROPERTIES LINK_DEPENDS ${TFL_EXPORTS_MAP})

# SONAME aliases: a library's SONAME with no code of its own; its
# dependency on libtorchfl.so makes dlsym(handle, "...") find the entry
# points there.  libtorchfl.so dlopens them at start so that a later
# dlopen("libcuda.so.1") (PyTorch's) or ctypes' dlopen("libnvidia-ml.so.1")
# (torch.cuda.device_count) matches by SONAME.
function(tfl_add_alias target soname)
  add_library(${target} SHARED ${CMAKE_SOURCE_DIR}/src/intercept/alias/alias.c)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${soname} PREFIX "" SUFFIX "" NO_SONAME ON
    BUILD_RPATH "$ORIGIN" INSTALL_RPATH "$ORIGIN")
  target_link_options(${target} PRIVATE -Wl,-soname,${soname}
    -Wl,--no-as-needed)
  target_link_libraries(${target} PRIVATE torchfl)
endfunction()
tfl_add_alias(torchfl_cuda_alias libcuda.so.1)
tfl_add_alias(torchfl_nvml_alias libnvidia-ml.so.1)
tfl_add_alias(torchfl_nvrtc_alias libnvrtc.so.13)
