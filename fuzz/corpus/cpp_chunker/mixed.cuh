// A seed mixing the constructs the cpp chunker looks at: directives, namespaces, classes,
// templates, CUDA kernels and launches, lambdas, raw strings and macros it cannot know.
#pragma once
#include <cstdint>

#define CHECK(cond)                  \
  do {                               \
    if (!(cond)) throw std::error(); \
  } while (0)

#if defined(USE_ROCM)
  #define WARP 64
#elif defined(USE_XPU)
  #define WARP 16
#else
  #define WARP 32
#endif

namespace vllm::detail {

/** The state of a block.
 *  Kept small on purpose. */
struct alignas(16) Block {
  int32_t id = -1;
  union {
    float f;
    int32_t i;
  } value;
  enum class Kind : uint8_t { kFree, kUsed };
};

template <typename T, int N = 4>
class Ring final : public Base<T> {
 public:
  Ring() = default;
  ~Ring() override;
  T& operator[](int i) { return items_[i % N]; }
  operator bool() const noexcept { return size_ > 0; }
  friend bool operator==(const Ring&, const Ring&) = default;

 protected:
  DEVICE_INLINE
  int size() const { return size_; }

 private:
  T items_[N];
  int size_ = 0;
};

template <typename T, int N>
Ring<T, N>::~Ring() {}

}  // namespace vllm::detail

template <typename scalar_t, int BLOCK>
__global__ void __launch_bounds__(BLOCK) copy_kernel(scalar_t* __restrict__ dst, const scalar_t* src, int n) {
  extern __shared__ char smem[];
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) {
#pragma unroll
    for (int j = 0; j < 4; ++j) dst[i] = src[i];
  }
  __syncthreads();
}

void launch(torch::Tensor& dst, const torch::Tensor& src) {
  const auto stream = at::cuda::getCurrentCUDAStream();
  VLLM_DISPATCH_FLOATING_TYPES(src.scalar_type(), "copy", [&] {
    copy_kernel<scalar_t, 256><<<dim3(64), dim3(256), 0, stream>>>(dst.data_ptr<scalar_t>(),
                                                                   src.data_ptr<scalar_t>(), src.numel());
  });
  switch (dst.dim()) {
    case 1:
      CHECK(dst.size(0) > 0);
      break;
    default: {
      auto text = R"doc(a raw string with } and #endif inside)doc";
      (void)text;
    }
  }
  try {
    CHECK(true);
  } catch (const std::exception& e) {
    throw;
  }
}

extern "C" {
int version(void) { return 2; }
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("copy(Tensor! dst, Tensor src) -> ()");
  ops.impl("copy", torch::kCUDA, &launch);
}
