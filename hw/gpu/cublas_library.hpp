// cuBLAS, loaded when the first CUDA compute device starts rather than when the program does. Linked normally,
// libcublas and the libcublasLt it pulls in cost about 210 MB of resident memory at load (their relocations and
// static initialisers), and every command paid it: `dualpath --version`, `check` and the trace converters took
// ~250 MB (issue 68). Only a hardware run on a real GPU, `hw calibrate` and the GPU check use cuBLAS, so they load
// it, once, through dlopen; the CUDA runtime (0.3 MB) stays linked. Compiled only with DUALPATH_HAVE_CUDA.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace dualpath::hw::cuda {

// The entry points cuda_device.cpp calls, with the header's signatures (checked at compile time).
struct CublasLibrary {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                            cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                            const void*, const void*, cudaDataType, int, long long int, const void*,
                                            cudaDataType, int, long long int, const void*, void*, cudaDataType, int,
                                            long long int, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  const char* (*status_name)(cublasStatus_t) = nullptr;
  const char* (*status_string)(cublasStatus_t) = nullptr;
};

// The library, loaded on the first call (thread-safe): the toolkit's own file found at build time
// (DUALPATH_CUBLAS_PATH), else its soname on the loader's search path. std::runtime_error naming both and dlerror()
// when neither loads or a symbol is missing.
const CublasLibrary& cublas_library();

}  // namespace dualpath::hw::cuda
