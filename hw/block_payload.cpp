// Deterministic block contents and their checksum: what a written block file holds and how a read verifies it.
#include <cstring>

#include "hw/block_store.hpp"

namespace dualpath::hw {

namespace {
uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

void BlockStore::fill_payload(BlockKey key, char* out, size_t n) {
  const uint64_t seed = mix(key.stream * 0x100000001b3ull ^ key.index);
  size_t i = 0;
  for (uint64_t w = 0; i + 8 <= n; i += 8, ++w) {
    const uint64_t v = mix(seed + w);
    std::memcpy(out + i, &v, 8);
  }
  if (i < n) {
    const uint64_t v = mix(seed + n);
    std::memcpy(out + i, &v, n - i);
  }
}

uint64_t BlockStore::checksum(const char* data, size_t n) {
  // Four interleaved multiply-xor lanes over 8-byte words: fast, and sensitive to position and content.
  uint64_t h[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int l = 0; l < 4; ++l) {
      uint64_t v;
      std::memcpy(&v, data + i + 8 * l, 8);
      h[l] = (h[l] ^ v) * 0x100000001b3ull + (h[l] >> 29);
    }
  for (; i < n; ++i) h[0] = (h[0] ^ static_cast<unsigned char>(data[i])) * 0x100000001b3ull;
  return mix(h[0] ^ mix(h[1] ^ mix(h[2] ^ mix(h[3] ^ n))));
}

}  // namespace dualpath::hw
