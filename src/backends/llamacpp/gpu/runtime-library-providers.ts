/**
 * Where the runtime libraries of node-llama-cpp's GPU builds come from. Their RUNPATH is only $ORIGIN,
 * so each must be installed system-wide (ldconfig) or on LD_LIBRARY_PATH.
 */
const providers: Readonly<Record<string, string>> = {
  "libcudart.so.13":
    "the CUDA 13 runtime (NVIDIA's apt/dnf package cuda-cudart-13-0, part of the CUDA 13 toolkit; pip: nvidia-cuda-runtime)",
  "libcublas.so.13":
    "cuBLAS 13 (NVIDIA's apt/dnf package libcublas-13-0, part of the CUDA 13 toolkit; pip: nvidia-cublas)",
  "libcublasLt.so.13": "cuBLAS 13 (NVIDIA's apt/dnf package libcublas-13-0, part of the CUDA 13 toolkit)",
  "libcudart.so.12":
    "the CUDA 12 runtime (NVIDIA's apt/dnf package cuda-cudart-12-<minor>; Debian/Ubuntu: libcudart12; pip: nvidia-cuda-runtime-cu12)",
  "libcublas.so.12":
    "cuBLAS 12 (NVIDIA's apt/dnf package libcublas-12-<minor>; Debian/Ubuntu: libcublas12; pip: nvidia-cublas-cu12)",
  "libcublasLt.so.12": "cuBLAS 12 (NVIDIA's package libcublas-12-<minor>; Debian/Ubuntu: libcublaslt12)",
  "libcuda.so.1":
    "the NVIDIA driver (Debian: libcuda1; Ubuntu: libnvidia-compute-<driver version>; or NVIDIA's driver installer)",
  "libvulkan.so.1":
    "the Vulkan loader (Debian/Ubuntu: libvulkan1; Fedora: vulkan-loader) plus a GPU driver's ICD",
};

/** What provides a runtime library, for the error that says it is missing. */
export function runtimeLibraryProvider(library: string): string {
  return providers[library] ?? "a package of your distribution (search for the file name)";
}
