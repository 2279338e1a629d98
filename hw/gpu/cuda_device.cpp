// The CUDA compute device: runs each ComputeWork as the BF16 GEMMs of hw/gpu/layer_shapes on a stream of its own
// and reports the GPU time between two events. Compiled only when DUALPATH_WITH_CUDA is ON (DUALPATH_HAVE_CUDA);
// plain C++ on the CUDA runtime and cuBLAS, no device code of our own.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <thread>

#include "hw/gpu/cublas_library.hpp"
#include "hw/gpu/cuda_internal.hpp"

namespace dualpath::hw::cuda {

namespace {

// No operand of one launch holds more than this many BF16 elements (1 GiB): bigger GEMMs are split
// (split_to_fit), which keeps the three shared buffers at 3 GiB per GPU however many emulated GPUs share it.
constexpr double kMaxElems = 512.0 * 1024 * 1024;

std::string cuda_error(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cuda_error(e));
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublas_library().status_name(s) + ": " +
                             cublas_library().status_string(s));
}

// Operand buffers shared by every stream on one device. Their contents are never read back (only the time
// matters), so concurrent work items may overwrite each other's outputs; what they must not do is use a buffer
// while it is being replaced: work items hold the lock shared until their kernels finished, growth exclusive.
struct SharedBuffers {
  std::shared_mutex mu;
  void* ptr[3] = {nullptr, nullptr, nullptr};  // A, B, C
  size_t bytes[3] = {0, 0, 0};
};

SharedBuffers& buffers_of(int device) {
  static std::mutex mu;
  static std::map<int, std::unique_ptr<SharedBuffers>> all;  // process lifetime: freed with the context
  std::lock_guard g(mu);
  auto& b = all[device];
  if (!b) b = std::make_unique<SharedBuffers>();
  return *b;
}

// Returns a shared lock on buffers at least `need` bytes each (grown, and filled with a small constant so the
// kernels see finite numbers, when too small).
std::shared_lock<std::shared_mutex> buffers_for(SharedBuffers& sb, const size_t need[3]) {
  for (;;) {
    std::shared_lock lk(sb.mu);
    if (sb.bytes[0] >= need[0] && sb.bytes[1] >= need[1] && sb.bytes[2] >= need[2]) return lk;
    lk.unlock();
    std::unique_lock ex(sb.mu);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize before growing buffers");
    for (int i = 0; i < 3; ++i) {
      if (sb.bytes[i] >= need[i]) continue;
      if (sb.ptr[i]) check(cudaFree(sb.ptr[i]), "cudaFree");
      sb.ptr[i] = nullptr, sb.bytes[i] = 0;
      check(cudaMalloc(&sb.ptr[i], need[i]), "cudaMalloc");
      check(cudaMemset(sb.ptr[i], 0x3c, need[i]), "cudaMemset");  // BF16 0x3c3c = 0.0115
      sb.bytes[i] = need[i];
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after growing buffers");
  }
}

// A stream, a cuBLAS handle bound to it and two events: what one compute device (or one calibration) owns.
class Runner {
 public:
  explicit Runner(int device) : device_(device), buffers_(buffers_of(device)) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cublas_library().create(&blas_), "cublasCreate");
    check(cublas_library().set_stream(blas_, stream_), "cublasSetStream");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~Runner() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    if (blas_) cublas_library().destroy(blas_);
    cudaStreamDestroy(stream_);
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // GPU seconds of `times` passes over `gemms` (each split to fit the buffers), timed by events on the stream.
  double run(const std::vector<Gemm>& gemms, int64_t times) {
    check(cudaSetDevice(device_), "cudaSetDevice");  // per thread: the worker may be a fresh one
    std::vector<GemmPiece> pieces;
    size_t need[3] = {2, 2, 2};
    for (const auto& g : gemms) {
      for (auto& p : split_to_fit(g, kMaxElems)) {
        need[0] = std::max(need[0], static_cast<size_t>(p.gemm.a_elems()) * 2);
        need[1] = std::max(need[1], static_cast<size_t>(p.gemm.b_elems()) * 2);
        need[2] = std::max(need[2], static_cast<size_t>(p.gemm.c_elems()) * 2);
        pieces.push_back(std::move(p));
      }
    }
    auto lock = buffers_for(buffers_, need);
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    for (int64_t t = 0; t < times; ++t)
      for (const auto& p : pieces)
        for (int64_t r = 0; r < p.repeat; ++r) launch(p.gemm);
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms / 1e3;
  }

 private:
  // Row-major C = A.B is column-major C^T = B^T.A^T: cuBLAS gets (n, m, k) with B first; row-major B is
  // column-major B^T with leading dimension n.
  void launch(const Gemm& g) {
    const float alpha = 1, beta = 0;
    const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
    void* a = buffers_.ptr[0];
    void* b = buffers_.ptr[1];
    void* c = buffers_.ptr[2];
    if (g.batch == 1) {
      check(cublas_library().gemm_ex(blas_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16BF, n, a, CUDA_R_16BF, k,
                         &beta, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
    } else {
      check(cublas_library().gemm_strided_batched_ex(blas_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16BF, n,
                                       static_cast<long long>(k) * n, a, CUDA_R_16BF, k,
                                       static_cast<long long>(m) * k, &beta, c, CUDA_R_16BF, n,
                                       static_cast<long long>(m) * n, static_cast<int>(g.batch),
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx");
    }
  }

  int device_;
  SharedBuffers& buffers_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// One compute device: a worker thread runs work items in order on the device's own stream, so several devices
// on one GPU overlap as several engines' kernels would.
class CudaDevice final : public ComputeDevice {
 public:
  CudaDevice(const ModelSpec& model, int device) : model_(model), runner_(device), device_(device) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    name_ = std::string("cuda: ") + prop.name + " (device " + std::to_string(device) + "), cuBLAS BF16";
    // The copy engine's side: a pinned host staging buffer (page-locked, so copies run at PCIe speed via DMA), the
    // device window it lands in, and a stream of its own so copies overlap kernels as Layer Block loads do.
    try {
      check(cudaSetDevice(device), "cudaSetDevice");
      check(cudaHostAlloc(&pinned_, kCopyWindow, cudaHostAllocDefault), "cudaHostAlloc");
      check(cudaMalloc(&window_, kCopyWindow), "cudaMalloc");
      check(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
      check(cudaEventCreate(&copy_start_), "cudaEventCreate");
      check(cudaEventCreate(&copy_stop_), "cudaEventCreate");
    } catch (...) {
      release_copy_engine();
      throw;
    }
    worker_ = std::thread([this] { loop(); });
    copier_ = std::thread([this] { copy_loop(); });
  }
  ~CudaDevice() override {
    {
      std::lock_guard g(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
    copier_.join();
    release_copy_engine();
  }
  void copy(bool to_device, uint64_t bytes, Done done) override {
    {
      std::lock_guard g(mu_);
      copies_.push_back(Copy{to_device, bytes, std::move(done)});
    }
    cv_.notify_all();
  }
  std::string name() const override { return name_; }
  bool real() const override { return true; }
  void run(const ComputeWork& work, Done done) override {
    {
      std::lock_guard g(mu_);
      queue_.emplace_back(work, std::move(done));
    }
    cv_.notify_all();  // the copier waits on the same condition
  }

 private:
  void loop() {
    for (;;) {
      std::pair<ComputeWork, Done> item;
      {
        std::unique_lock lk(mu_);
        cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, nothing left
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      const ComputeWork& w = item.first;
      double seconds = 0;
      std::string error;
      try {
        const LayerShapes shapes = layer_shapes(model_, w);
        std::vector<Gemm> layer = shapes.linear;
        layer.insert(layer.end(), shapes.attention.begin(), shapes.attention.end());
        seconds = runner_.run(layer, static_cast<int64_t>(std::max(0, w.layers)) * std::max(1, w.steps));
      } catch (const std::exception& e) {
        error = std::string("cuda: ") + e.what();
      }
      item.second(seconds, error);
    }
  }

  void release_copy_engine() {
    cudaSetDevice(device_);  // device memory and streams are freed on their own device
    if (copy_start_) cudaEventDestroy(copy_start_);
    if (copy_stop_) cudaEventDestroy(copy_stop_);
    if (copy_stream_) cudaStreamDestroy(copy_stream_);
    if (window_) cudaFree(window_);
    if (pinned_) cudaFreeHost(pinned_);
  }

  // Copies run in order on the copy stream, timed by events: host staging <-> device window, piece by piece.
  void copy_loop() {
    for (;;) {
      Copy c;
      {
        std::unique_lock lk(mu_);
        cv_.wait(lk, [&] { return stop_ || !copies_.empty(); });
        if (copies_.empty()) return;
        c = std::move(copies_.front());
        copies_.pop_front();
      }
      double seconds = 0;
      std::string error;
      try {
        check(cudaSetDevice(device_), "cudaSetDevice");
        check(cudaEventRecord(copy_start_, copy_stream_), "cudaEventRecord");
        for (uint64_t left = c.bytes; left > 0;) {
          const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kCopyWindow));
          if (c.to_device) check(cudaMemcpyAsync(window_, pinned_, n, cudaMemcpyHostToDevice, copy_stream_), "H2D");
          else check(cudaMemcpyAsync(pinned_, window_, n, cudaMemcpyDeviceToHost, copy_stream_), "D2H");
          left -= n;
        }
        check(cudaEventRecord(copy_stop_, copy_stream_), "cudaEventRecord");
        check(cudaEventSynchronize(copy_stop_), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, copy_start_, copy_stop_), "cudaEventElapsedTime");
        seconds = ms / 1e3;
      } catch (const std::exception& e) {
        error = std::string("cuda: ") + e.what();
      }
      c.done(seconds, error);
    }
  }

  struct Copy {
    bool to_device = true;
    uint64_t bytes = 0;
    Done done;
  };
  static constexpr size_t kCopyWindow = size_t{64} << 20;

  ModelSpec model_;
  std::string name_;
  Runner runner_;
  int device_;
  void* pinned_ = nullptr;
  void* window_ = nullptr;
  cudaStream_t copy_stream_ = nullptr;
  cudaEvent_t copy_start_ = nullptr, copy_stop_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<ComputeWork, Done>> queue_;
  std::deque<Copy> copies_;
  bool stop_ = false;
  std::thread worker_, copier_;
};

}  // namespace

int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

std::string probe(int device) {
  int n = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&n); e != cudaSuccess) return cuda_error(e);
  if (n == 0) return cuda_error(cudaErrorNoDevice);
  if (device < 0 || device >= n)
    return "device ordinal " + std::to_string(device) + " out of range (" + std::to_string(n) + " devices)";
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return cuda_error(e);
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) return cuda_error(e);  // creates the context
  return cublas_problem();  // the device is usable only if its GEMMs can run
}

std::string cublas_problem() {
  try {
    (void)cublas_library();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::unique_ptr<ComputeDevice> make_device(const ModelSpec& model, int device) {
  return std::make_unique<CudaDevice>(model, device);
}

double time_gemms(int device, const std::vector<Gemm>& gemms, int repeats) {
  Runner runner(device);
  runner.run(gemms, 1);  // warm-up: buffers, cuBLAS heuristics, clocks
  std::vector<double> t;
  for (int i = 0; i < std::max(1, repeats); ++i) t.push_back(runner.run(gemms, 1));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

CopyRates copy_rates(int device, size_t bytes, int repeats) {
  check(cudaSetDevice(device), "cudaSetDevice");
  CopyRates out;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  out.device_name = prop.name;
  void* host = nullptr;
  void* dev = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::string failure;
  try {
    check(cudaHostAlloc(&host, bytes, cudaHostAllocDefault), "cudaHostAlloc");  // pinned: DMA at PCIe speed
    check(cudaMalloc(&dev, bytes), "cudaMalloc");
    check(cudaMemset(dev, 0, bytes), "cudaMemset");
    std::fill_n(static_cast<char*>(host), bytes, 1);  // touch every page before timing
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    auto rate = [&](cudaMemcpyKind kind) {
      std::vector<double> r;
      for (int i = 0; i <= std::max(1, repeats); ++i) {  // the first copy is a warm-up
        check(cudaEventRecord(start, stream), "cudaEventRecord");
        if (kind == cudaMemcpyHostToDevice)
          check(cudaMemcpyAsync(dev, host, bytes, kind, stream), "cudaMemcpyAsync H2D");
        else
          check(cudaMemcpyAsync(host, dev, bytes, kind, stream), "cudaMemcpyAsync D2H");
        check(cudaEventRecord(stop, stream), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        if (i > 0) r.push_back(static_cast<double>(bytes) / (ms / 1e3));
      }
      std::sort(r.begin(), r.end());
      return r[r.size() / 2];
    };
    out.h2d = rate(cudaMemcpyHostToDevice);
    out.d2h = rate(cudaMemcpyDeviceToHost);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  if (stream) cudaStreamDestroy(stream);
  if (dev) cudaFree(dev);
  if (host) cudaFreeHost(host);
  if (!failure.empty()) throw std::runtime_error(failure);
  return out;
}

}  // namespace dualpath::hw::cuda
