#include "hw/gpu/cublas_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace dualpath::hw::cuda {
namespace {

// The pointer types are the header's: a cuBLAS whose signatures changed fails to compile here, not at run time.
using GemmEx = decltype(CublasLibrary::gemm_ex);
using GemmStridedBatchedEx = decltype(CublasLibrary::gemm_strided_batched_ex);
static_assert(std::is_same_v<decltype(&cublasCreate_v2), decltype(CublasLibrary::create)>);
static_assert(std::is_same_v<decltype(&cublasDestroy_v2), decltype(CublasLibrary::destroy)>);
static_assert(std::is_same_v<decltype(&cublasSetStream_v2), decltype(CublasLibrary::set_stream)>);
static_assert(requires { GemmEx{&cublasGemmEx}; });  // overloaded in C++: picks the C entry point, or fails to compile
static_assert(requires { GemmStridedBatchedEx{&cublasGemmStridedBatchedEx}; });  // overloaded too
static_assert(std::is_same_v<decltype(&cublasGetStatusName), decltype(CublasLibrary::status_name)>);
static_assert(std::is_same_v<decltype(&cublasGetStatusString), decltype(CublasLibrary::status_string)>);

template <typename F>
void bind(void* lib, F& to, const char* name, const std::string& from) {
  void* sym = dlsym(lib, name);
  if (!sym) throw std::runtime_error("cuBLAS (" + from + ") has no " + name + ": " + dlerror());
  to = reinterpret_cast<F>(sym);
}

CublasLibrary load() {
  const std::string path = DUALPATH_CUBLAS_PATH, soname = DUALPATH_CUBLAS_SONAME;
  std::string from = path;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const std::string first = dlerror();
    from = soname;
    lib = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      throw std::runtime_error("cannot load cuBLAS from " + path + " (" + first + ") nor as " + soname + " (" +
                               dlerror() + ")");
  }
  CublasLibrary c;  // the handle stays open for the process's life: cuBLAS handles may outlive any one user
  bind(lib, c.create, "cublasCreate_v2", from);
  bind(lib, c.destroy, "cublasDestroy_v2", from);
  bind(lib, c.set_stream, "cublasSetStream_v2", from);
  bind(lib, c.gemm_ex, "cublasGemmEx", from);
  bind(lib, c.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx", from);
  bind(lib, c.status_name, "cublasGetStatusName", from);
  bind(lib, c.status_string, "cublasGetStatusString", from);
  return c;
}

}  // namespace

const CublasLibrary& cublas_library() {
  static const CublasLibrary lib = load();  // a throw leaves it unset: the next call tries again
  return lib;
}

}  // namespace dualpath::hw::cuda
