// An append-only sequence whose elements never move (as std::deque's), stored in large chunks. libstdc++'s deque
// keeps 512-byte blocks: one Request (272 bytes) per block, so looking a request up by id reads a map entry and the
// element in two cold cache lines, and a 48P96D run's map alone is tens of MB. Here the chunk pointers are a few
// thousand (they stay in cache) and neighbouring ids sit side by side.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dualpath {

template <class T, size_t kChunk = 1024>
class ChunkedVector {
 public:
  template <bool kConst>
  class Iter {
   public:
    using Owner = std::conditional_t<kConst, const ChunkedVector, ChunkedVector>;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<kConst, const T&, T&>;
    using pointer = std::conditional_t<kConst, const T*, T*>;
    using iterator_category = std::forward_iterator_tag;
    Iter() = default;
    Iter(Owner* v, size_t i) : v_(v), i_(i) {}
    reference operator*() const { return (*v_)[i_]; }
    pointer operator->() const { return &(*v_)[i_]; }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    Iter operator++(int) {
      Iter old = *this;
      ++i_;
      return old;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }

   private:
    Owner* v_ = nullptr;
    size_t i_ = 0;
  };

  T& operator[](size_t i) { return chunk(i)[i % kChunk]; }
  const T& operator[](size_t i) const { return chunk(i)[i % kChunk]; }
  const T& at(size_t i) const {
    if (i >= size_)
      throw std::out_of_range("ChunkedVector::at: index " + std::to_string(i) + " of " + std::to_string(size_));
    return (*this)[i];
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& back() { return (*this)[size_ - 1]; }
  void push_back(T v) {
    if (size_ % kChunk == 0) chunks_.push_back(std::make_unique<T[]>(kChunk));
    chunks_.back()[size_ % kChunk] = std::move(v);
    ++size_;
  }
  Iter<false> begin() { return {this, 0}; }
  Iter<false> end() { return {this, size_}; }
  Iter<true> begin() const { return {this, 0}; }
  Iter<true> end() const { return {this, size_}; }

  // Releasing a whole chunk (elements [c * chunk_size(), (c + 1) * chunk_size())): they are freed and may not be
  // read again; indices stay what they were. A long online run frees the requests it has written out this way.
  static constexpr size_t chunk_size() { return kChunk; }
  void release_chunk(size_t c) { chunks_.at(c).reset(); }
  bool held(size_t i) const { return i < size_ && chunks_[i / kChunk] != nullptr; }

 private:
  // A read of a released element is a bug in its holder: a clear error, never a read of freed memory.
  T* chunk(size_t i) const {
    T* c = chunks_[i / kChunk].get();
    if (c == nullptr) [[unlikely]]
      released(i);
    return c;
  }
  [[noreturn]] static void released(size_t i) {
    throw std::logic_error("ChunkedVector: element " + std::to_string(i) + " was read after it was released");
  }
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace dualpath
