# intercept.cmake - build libtorchfl.so and libcuda.so.1.
#
# libtorchfl.so holds every exported entry point (src/intercept/**) over
# torchfl_core.  Symbols carry the version nodes of the libraries they
# replace (libcudart.so.13 and .12, libcublas.so.13, ...) so a caller linked
# against either CUDA major binds to the ABI it was built for.
file(GLOB_RECURSE TFL_INTERCEPT_SRC CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/src/intercept/*.c
     ${CMAKE_SOURCE_DIR}/src/intercept/*.S)
set(TFL_EXPORTS_MAP ${CMAKE_SOURCE_DIR}/src/intercept/exports.map)

add_library(torchfl SHARED ${TFL_INTERCEPT_SRC})
target_include_directories(torchfl PRIVATE ${CUDA_INCLUDE}
  ${CMAKE_SOURCE_DIR}/src/intercept)
target_link_libraries(torchfl PRIVATE
  -Wl,--whole-archive torchfl_core -Wl,--no-whole-archive)
target_link_options(torchfl PRIVATE
  -Wl,--version-script=${TFL_EXPORTS_MAP} -Wl,-z,defs)
set_target_properties(torchfl PROPERTIES LINK_DEPENDS ${TFL_EXPORTS_MAP})

# libcuda.so.1: the driver API under the driver's SONAME.  It holds no code
# of its own; its dependency on libtorchfl.so makes dlsym(handle, "cu...")
# find the entry points there.  libtorchfl.so dlopens it at start so that
# PyTorch's dlopen("libcuda.so.1") matches it by SONAME.
add_library(torchfl_cuda_alias SHARED ${CMAKE_SOURCE_DIR}/src/intercept/alias/alias.c)
set_target_properties(torchfl_cuda_alias PROPERTIES
  OUTPUT_NAME cuda PREFIX lib SUFFIX .so.1 NO_SONAME ON
  BUILD_RPATH "$ORIGIN" INSTALL_RPATH "$ORIGIN")
target_link_options(torchfl_cuda_alias PRIVATE -Wl,-soname,libcuda.so.1
  -Wl,--no-as-needed)
target_link_libraries(torchfl_cuda_alias PRIVATE torchfl)
