/*
 * attrs.c - device attributes, in the numbering cudaDeviceAttr and
 * CUdevice_attribute share (the runtime's enum mirrors the driver's).
 *
 * The values describe an sm_80-class device (or the configured compute
 * capability) whose limits are what CUDA code is written against: 1024
 * threads per block, 48 KB of static shared memory (227 KB opt-in), 64K
 * registers, warps of 32.  The host executor honours exactly these limits.
 * Unknown attributes are an error, as in CUDA.
 */
#include "route/runtime.h"

#include <limits.h>

tfl_status tfl_rt_device_attr(int dev, int attr, int *value)
{
    const tfl_device_info *d = tfl_rt_device_info(dev);
    if (!d || !value)
        return TFL_ERR_INVALID;
    int v;
    switch (attr) {
    case 1:  v = 1024; break;                       /* MaxThreadsPerBlock */
    case 2:  v = 1024; break;                       /* MaxBlockDimX */
    case 3:  v = 1024; break;
    case 4:  v = 64; break;
    case 5:  v = INT_MAX; break;                    /* MaxGridDimX */
    case 6:  v = 65535; break;
    case 7:  v = 65535; break;
    case 8:  v = 48 * 1024; break;                  /* MaxSharedMemoryPerBlock */
    case 9:  v = 64 * 1024; break;                  /* TotalConstantMemory */
    case 10: v = 32; break;                         /* WarpSize */
    case 11: v = INT_MAX; break;                    /* MaxPitch */
    case 12: v = 65536; break;                      /* MaxRegistersPerBlock */
    case 13: v = d->clock_khz; break;               /* ClockRate (kHz) */
    case 14: v = 512; break;                        /* TextureAlignment */
    case 15: v = 1; break;                          /* GpuOverlap */
    case 16: v = d->multiprocessors; break;         /* MultiProcessorCount */
    case 17: v = 0; break;                          /* KernelExecTimeout */
    case 18: v = d->integrated; break;              /* Integrated */
    case 19: v = 1; break;                          /* CanMapHostMemory */
    case 20: v = 0; break;                          /* ComputeMode default */
    case 21: v = 131072; break;                     /* texture/surface limits */
    case 22: case 23: v = 131072; break;
    case 24: case 25: case 26: v = 16384; break;
    case 27: case 28: v = 32768; break;
    case 29: v = 2048; break;
    case 30: v = 512; break;                        /* SurfaceAlignment */
    case 31: v = 1; break;                          /* ConcurrentKernels */
    case 32: v = 0; break;                          /* EccEnabled */
    case 33: v = d->pci_bus; break;                 /* PciBusId */
    case 34: v = d->pci_device; break;              /* PciDeviceId */
    case 35: v = 0; break;                          /* TccDriver */
    case 36: v = d->mem_clock_khz; break;           /* MemoryClockRate */
    case 37: v = d->mem_bus_width; break;           /* GlobalMemoryBusWidth */
    case 38: v = d->l2_cache_bytes; break;          /* L2CacheSize */
    case 39: v = 2048; break;                       /* MaxThreadsPerMultiProcessor */
    case 40: v = 2; break;                          /* AsyncEngineCount */
    case 41: v = 1; break;                          /* UnifiedAddressing */
    case 42: v = 32768; break;
    case 43: v = 2048; break;
    case 45: case 46: v = 32768; break;
    case 47: case 48: v = 8192; break;
    case 49: v = 32768; break;
    case 50: v = d->pci_domain; break;              /* PciDomainId */
    case 51: v = 32; break;                         /* TexturePitchAlignment */
    case 52: case 53: v = 32768; break;
    case 54: v = 2046; break;
    case 55: case 56: v = 32768; break;
    case 57: v = 65536; break;
    case 58: case 59: case 60: v = 16384; break;
    case 61: v = 32768; break;
    case 62: v = 2048; break;
    case 63: v = 32768; break;
    case 64: v = 32768; break;
    case 65: v = 2048; break;
    case 66: case 67: v = 32768; break;
    case 68: v = 2046; break;
    case 69: v = 268435456; break;
    case 70: case 71: v = 131072; break;
    case 72: v = 2097120; break;
    case 73: case 74: v = 32768; break;
    case 75: v = d->cc_major; break;                /* ComputeCapabilityMajor */
    case 76: v = d->cc_minor; break;
    case 77: v = 32768; break;
    case 78: v = 1; break;                          /* StreamPrioritiesSupported */
    case 79: case 80: v = 1; break;                 /* Global/Local L1 */
    case 81: v = 164 * 1024; break;                 /* MaxSharedMemoryPerMultiprocessor */
    case 82: v = 65536; break;                      /* MaxRegistersPerMultiprocessor */
    case 83: v = 1; break;                          /* ManagedMemory */
    case 84: v = 0; break;                          /* IsMultiGpuBoard */
    case 85: v = dev; break;                        /* MultiGpuBoardGroupID */
    case 86: v = 1; break;                          /* HostNativeAtomicSupported */
    case 87: v = 2; break;                          /* SingleToDoublePrecisionPerfRatio */
    case 88: v = 1; break;                          /* PageableMemoryAccess */
    case 89: v = 1; break;                          /* ConcurrentManagedAccess */
    case 90: v = 1; break;                          /* ComputePreemptionSupported */
    case 91: v = 1; break;                          /* CanUseHostPointerForRegisteredMem */
    case 92: case 93: case 94: v = 0; break;        /* reserved */
    case 95: v = 1; break;                          /* CooperativeLaunch */
    case 96: v = 0; break;
    case 97: v = 163 * 1024; break;                 /* MaxSharedMemoryPerBlockOptin (sm_80) */
    case 98: v = 1; break;                          /* CanFlushRemoteWrites */
    case 99: v = 1; break;                          /* HostRegisterSupported */
    case 100: v = 1; break;                         /* PageableMemoryAccessUsesHostPageTables */
    case 101: v = 1; break;                         /* DirectManagedMemAccessFromHost */
    case 106: v = 32; break;                        /* MaxBlocksPerMultiprocessor */
    case 108: v = 0; break;                         /* MaxPersistingL2CacheSize */
    case 109: v = 0; break;                         /* MaxAccessPolicyWindowSize */
    case 111: v = 1024; break;                      /* ReservedSharedMemoryPerBlock */
    case 112: v = 0; break;                         /* SparseCudaArraySupported */
    case 113: v = 1; break;                         /* HostRegisterReadOnlySupported */
    case 114: v = 0; break;
    case 115: v = 1; break;                         /* MemoryPoolsSupported */
    case 116: v = 0; break;                         /* GPUDirectRDMASupported */
    case 117: case 118: v = 0; break;
    case 119: v = 0; break;                         /* MemoryPoolSupportedHandleTypes */
    case 120: v = 0; break;                         /* ClusterLaunch (sm_90+) */
    case 121: v = 0; break;
    case 122: case 123: case 124: v = 0; break;
    case 125: v = 0; break;                         /* IpcEventSupport */
    case 126: v = 1; break;                         /* MemSyncDomainCount */
    case 127: case 128: case 129: v = 0; break;
    case 130: v = 0; break;                         /* NumaConfig: none */
    case 131: v = -1; break;                        /* NumaId */
    case 132: v = 0; break;
    case 133: v = 0; break;                         /* MpsEnabled */
    case 134: v = -1; break;                        /* HostNumaId */
    case 135: case 138: v = 0; break;               /* D3D12/Vulkan CIG */
    case 139: v = 0; break;                         /* GpuPciDeviceId */
    case 140: v = 0; break;                         /* GpuPciSubsystemId */
    case 141: case 145: v = 0; break;
    case 142: case 143: case 144: v = 0; break;     /* host NUMA/memory pools */
    case 147: v = 0; break;
    default:
        return TFL_ERR_INVALID;
    }
    *value = v;
    return TFL_OK;
}
