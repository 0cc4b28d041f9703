#!/usr/bin/env bash
# test_abi12.sh - a CUDA 12 program runs under LD_PRELOAD=libtorchfl.so.
#
#   test_abi12.sh LIBTORCHFL CC CUDA13_INCLUDE WORKDIR
#
# Builds a stand-in libcudart.so.12 (version node libcudart.so.12), links
# abi12_prog.c (compiled against the CUDA 12.x headers, fetched by
# scripts/fetch_cuda12_headers.sh if not cached) against it, checks with
# readelf that the program's references carry @libcudart.so.12, and runs it
# with the preload.
set -euo pipefail
LIB=$(readlink -f "$1"); CC=$2; INC13=$3; WORK=$4
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

CUDA12=$("$ROOT/scripts/fetch_cuda12_headers.sh" | tail -n 1)
mkdir -p "$WORK/stub"
cat > "$WORK/stub/cudart12.map" <<MAP
libcudart.so.12 { global: *; };
MAP
"$CC" -shared -fPIC -o "$WORK/stub/libcudart.so.12" "$HERE/cudart12_stub.c" \
    -Wl,-soname,libcudart.so.12 -Wl,--version-script="$WORK/stub/cudart12.map"
"$CC" -Wall -Wextra -Werror -c -o "$WORK/abi12_prog.o" -I "$CUDA12/include" \
    "$HERE/abi12_prog.c"
"$CC" -Wall -Wextra -Werror -c -o "$WORK/abi13_props.o" -I "$INC13" \
    "$HERE/abi13_props.c"
"$CC" -o "$WORK/abi12_prog" "$WORK/abi12_prog.o" "$WORK/abi13_props.o" \
    "$WORK/stub/libcudart.so.12" -Wl,-rpath,"$WORK/stub" -ldl

fail=0
syms=$(readelf -W --dyn-syms "$WORK/abi12_prog")
for f in cudaGetDeviceCount cudaMalloc cudaFree cudaGetDeviceProperties_v2; do
    if ! grep -qE " UND ${f}@libcudart\.so\.12( |$)" <<<"$syms"; then
        echo "abi12_prog's reference to $f is not versioned @libcudart.so.12"
        fail=1
    fi
done
[ $fail = 0 ] || exit 1
LD_PRELOAD=$LIB "$WORK/abi12_prog"
