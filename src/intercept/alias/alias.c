/*
 * alias.c - body of the SONAME alias libraries (libcuda.so.1, ...).
 *
 * An alias exists only to be found by name: the dynamic loader matches a
 * later dlopen("libcuda.so.1") or DT_NEEDED entry against the SONAME of an
 * object already loaded.  The symbols themselves live in libtorchfl.so,
 * which the alias depends on, so dlsym on the alias handle finds them.
 */
int torchfl_alias_marker;
