# The OpenCL backend: libtorchfl-opencl.so, a plugin like any vendor's
# (include/torchfl/backend.h), built next to libtorchfl.so where the
# plugin search path finds it.  Needs the OpenCL headers, the ICD loader
# and CLBlast (Debian: opencl-headers ocl-icd-opencl-dev libclblast-dev;
# scripts/setup.sh installs them); without them it is skipped, loudly.
find_path(OPENCL_INCLUDE CL/cl.h)
find_library(OPENCL_LIB NAMES OpenCL libOpenCL.so.1)
find_path(CLBLAST_INCLUDE clblast_c.h)
find_library(CLBLAST_LIB NAMES clblast)
if(OPENCL_INCLUDE AND OPENCL_LIB AND CLBLAST_INCLUDE AND CLBLAST_LIB)
  set(TFL_HAVE_OPENCL ON)
  file(GLOB TFL_OPENCL_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/backends/opencl/*.c)
  add_library(torchfl-opencl MODULE ${TFL_OPENCL_SRC})
  target_include_directories(torchfl-opencl PRIVATE
    ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src ${OPENCL_INCLUDE} ${CLBLAST_INCLUDE})
  target_link_libraries(torchfl-opencl PRIVATE ${CLBLAST_LIB} ${OPENCL_LIB} Threads::Threads m)
  # only the entry point is exported: a plugin must not interpose on the
  # program's symbols
  set_target_properties(torchfl-opencl PROPERTIES
    PREFIX lib SUFFIX .so OUTPUT_NAME torchfl-opencl C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
else()
  set(TFL_HAVE_OPENCL OFF)
  message(WARNING "OpenCL backend not built: need CL/cl.h, libOpenCL and CLBlast "
                  "(scripts/setup.sh installs opencl-headers ocl-icd-opencl-dev libclblast-dev)")
endif()
