// starc MPI runtime: what a superstep's messages are made of (operators, values, varints).
//
// Part of the header-only runtime of starc-generated MPI programs, included by
// starc_mpi_superstep.hpp: the operators the owners apply and the ranks combine, applying one
// received update, copying and comparing a type's values in bulk (byte for byte, as one
// integer where the size allows: a NaN that stays NaN is unchanged), and the encoding of a
// message's sections (varints, zigzag differences, section headers).
#ifndef STARC_MPI_VALUES_HPP
#define STARC_MPI_VALUES_HPP

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "starc_mpi.hpp"

namespace starc_mpi {

enum class Op { Store, Add, Sub, Mul, And, Or, Min, Max };
enum class Scope { Neighbour, Anywhere };
enum class Combine { Add, Sub, Mul, And, Or, Min, Max, Flag, Store };

template <class T> MPI_Datatype datatype();
template <> inline MPI_Datatype datatype<int>() { return MPI_INT; }
template <> inline MPI_Datatype datatype<long long>() { return MPI_LONG_LONG; }
template <> inline MPI_Datatype datatype<float>() { return MPI_FLOAT; }
template <> inline MPI_Datatype datatype<double>() { return MPI_DOUBLE; }
template <> inline MPI_Datatype datatype<unsigned char>() { return MPI_UNSIGNED_CHAR; }

namespace detail {

template <class T> T identity(Op op) {
  switch (op) {
    case Op::Mul: return T(1);
    case Op::And:
      if constexpr (std::is_integral<T>::value) return static_cast<T>(~T(0));
      return T(1);
    default: return T(0);
  }
}

template <class T> bool same(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

/// Applies one received update `value` to `cell`; true when it changed the cell in a way that
/// wins (Min/Max: strictly better; the others always apply).
template <class T> bool apply(T& cell, T value, Op op) {
  if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;   // wrap like the kernels (-fwrapv)
    switch (op) {
      case Op::Add: case Op::Sub: cell = static_cast<T>(static_cast<U>(cell) + static_cast<U>(value)); return true;
      case Op::Mul: cell = static_cast<T>(static_cast<U>(cell) * static_cast<U>(value)); return true;
      case Op::And: cell = static_cast<T>(cell & value); return true;
      case Op::Or: cell = static_cast<T>(cell | value); return true;
      default: break;
    }
  } else {
    switch (op) {
      case Op::Add: case Op::Sub: cell = cell + value; return true;
      case Op::Mul: cell = cell * value; return true;
      default: break;
    }
  }
  switch (op) {
    case Op::Min: if (value < cell) { cell = value; return true; } return false;
    case Op::Max: if (value > cell) { cell = value; return true; } return false;
    default: cell = value; return true;
  }
}

/// Copies one value of `size` bytes. For the sizes of scalars it is a load and a store, where
/// std::memcpy with a size known only at run time is a call into libc, once per entry of the
/// supersteps' messages (6.9% of bfs's samples on 16 ranks, R-MAT 18).
inline void copy_value(void* to, const void* from, size_t size) {
  switch (size) {
    case 4: std::memcpy(to, from, 4); return;
    case 8: std::memcpy(to, from, 8); return;
    case 1: std::memcpy(to, from, 1); return;
    case 2: std::memcpy(to, from, 2); return;
    default: std::memcpy(to, from, size);
  }
}

/// The unsigned integer of T's size, to compare values byte for byte in one instruction.
template <size_t Bytes> struct Bits { using type = void; };
template <> struct Bits<1> { using type = std::uint8_t; };
template <> struct Bits<2> { using type = std::uint16_t; };
template <> struct Bits<4> { using type = std::uint32_t; };
template <> struct Bits<8> { using type = std::uint64_t; };

template <class T> bool differs(const char* a, const char* b) {
  using U = typename Bits<sizeof(T)>::type;
  if constexpr (std::is_void<U>::value) {
    return std::memcmp(a, b, sizeof(T)) != 0;
  } else {
    U x, y;
    std::memcpy(&x, a, sizeof(U));
    std::memcpy(&y, b, sizeof(U));
    return x != y;
  }
}

/// out[i] = the T at data[at[i]] (i < count).
template <class T> void gather(const char* data, const int* at, size_t count, char* out) {
  for (size_t i = 0; i < count; ++i)
    std::memcpy(out + i * sizeof(T), data + static_cast<size_t>(at[i]) * sizeof(T), sizeof(T));
}

/// The T at data[at[i]] = in[i] (i < count).
template <class T> void scatter(char* data, const int* at, size_t count, const char* in) {
  for (size_t i = 0; i < count; ++i)
    std::memcpy(data + static_cast<size_t>(at[i]) * sizeof(T), in + i * sizeof(T), sizeof(T));
}

/// Appends to `out` each i (ascending) where the T at data[at[i]] differs, byte for byte, from
/// before[i].
/// Written without a branch on the outcome (every i is stored, the count advances where it
/// differs): the changes are scattered, a push_back per change cost as much as the loads.
/// Room is made a chunk at a time: a resize to every i zero-filled the whole list each
/// superstep (a fresh vector: page faults too), for the few that change.
template <class T> void compare(const char* data, const int* at, size_t count, const char* before, std::vector<int>& out) {
  constexpr size_t kChunk = 1024;
  out.clear();
  for (size_t from = 0; from < count; from += kChunk) {
    const size_t to = std::min(count, from + kChunk), used = out.size();
    out.resize(used + (to - from));
    int* next = out.data() + used;
    for (size_t i = from; i < to; ++i) {
      *next = static_cast<int>(i);
      next += differs<T>(data + static_cast<size_t>(at[i]) * sizeof(T), before + i * sizeof(T));
    }
    out.resize(static_cast<size_t>(next - out.data()));
  }
}

/// gather, scatter and compare over `runs` of consecutive positions (IdRun) instead of a list
/// of them: copies of whole blocks, and a comparison that skips a block of equal values with
/// one memcmp (most of a superstep's ghosts do not change).
template <class T> void gather_runs(const char* data, const std::vector<IdRun>& runs, char* out) {
  for (const IdRun& run : runs) {
    size_t bytes = static_cast<size_t>(run.length) * sizeof(T);
    std::memcpy(out, data + static_cast<size_t>(run.first) * sizeof(T), bytes);
    out += bytes;
  }
}

template <class T> void scatter_runs(char* data, const std::vector<IdRun>& runs, const char* in) {
  for (const IdRun& run : runs) {
    size_t bytes = static_cast<size_t>(run.length) * sizeof(T);
    std::memcpy(data + static_cast<size_t>(run.first) * sizeof(T), in, bytes);
    in += bytes;
  }
}

template <class T> void compare_runs(const char* data, const std::vector<IdRun>& runs, const char* before,
                                     std::vector<int>& out) {
  constexpr int kBlock = sizeof(T) >= 64 ? 1 : static_cast<int>(64 / sizeof(T));
  out.clear();   // room made a changed block at a time (compare)
  int at = 0;    // the position of the run's first value among all of them
  for (const IdRun& run : runs) {
    const char* now = data + static_cast<size_t>(run.first) * sizeof(T);
    const char* was = before + static_cast<size_t>(at) * sizeof(T);
    for (int k = 0; k < run.length; k += kBlock) {
      int stop = std::min(k + kBlock, run.length);
      if (stop - k == kBlock && std::memcmp(now + static_cast<size_t>(k) * sizeof(T),
                                            was + static_cast<size_t>(k) * sizeof(T), kBlock * sizeof(T)) == 0)
        continue;
      const size_t used = out.size();
      out.resize(used + static_cast<size_t>(stop - k));
      int* next = out.data() + used;
      for (int j = k; j < stop; ++j) {
        *next = at + j;
        next += differs<T>(now + static_cast<size_t>(j) * sizeof(T), was + static_cast<size_t>(j) * sizeof(T));
      }
      out.resize(static_cast<size_t>(next - out.data()));
    }
    at += run.length;
  }
}

/// The most bytes put_varint writes for any integer, and for one below 2^32 (an entry's step).
constexpr size_t kMaxVarint = 10, kMaxIntVarint = 5;

/// An unsigned integer in 7-bit groups, low first, the high bit saying another follows, at
/// `p` (room for kMaxVarint bytes); returns the byte after it.
inline char* put_varint(char* p, unsigned long long x) {
  while (x >= 0x80) {
    *p++ = static_cast<char>((x & 0x7f) | 0x80);
    x >>= 7;
  }
  *p++ = static_cast<char>(x);
  return p;
}

inline void put_varint(std::vector<char>& out, unsigned long long x) {
  char bytes[kMaxVarint];
  out.insert(out.end(), bytes, put_varint(bytes, x));
}

inline unsigned long long get_varint(const char*& p) {
  unsigned long long x = 0;
  for (int shift = 0;; shift += 7) {
    unsigned char byte = static_cast<unsigned char>(*p++);
    x |= static_cast<unsigned long long>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return x;
  }
}

/// A signed difference as an unsigned one, small either way: 0, -1, 1, -2 ... -> 0, 1, 2, 3 ...
inline unsigned long long zigzag(long long x) {
  return (static_cast<unsigned long long>(x) << 1) ^ static_cast<unsigned long long>(x >> 63);
}

inline long long unzigzag(unsigned long long x) {
  return static_cast<long long>(x >> 1) ^ -static_cast<long long>(x & 1);
}

/// The header of a bitmap section (starc_mpi_superstep.hpp): one bit per vertex of the list
/// the two ranks share, then the values of the set bits in order. A named section's header is
/// never 2 (a single entry folds its name in: an odd header), so the one byte 0x02 tells it.
constexpr unsigned char kBitmapSection = 2;

/// The bits of bitmap bytes p[0 .. n) (n <= 8), the first byte lowest: the same on every host.
inline std::uint64_t bitmap_word(const unsigned char* p, size_t n) {
  std::uint64_t word = 0;
  for (size_t j = 0; j < n; ++j) word |= static_cast<std::uint64_t>(p[j]) << (8 * j);
  return word;
}

/// The set bits of x, without a call: __builtin_popcountll is one to libgcc unless the
/// target has a popcount instruction (the programs build for plain x86-64).
inline size_t popcount(std::uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<size_t>((x * 0x0101010101010101ULL) >> 56);
}

/// How many bits the bitmap bytes p[0 .. bytes) set.
inline size_t count_bits(const unsigned char* p, size_t bytes) {
  size_t count = 0;
  for (size_t k = 0; k < bytes; k += 8)
    count += popcount(bitmap_word(p + k, std::min<size_t>(8, bytes - k)));
  return count;
}

/// Calls at(name) for each set bit of a bitmap of `names` bits at `p`, in ascending order.
template <class At> void for_bits(const unsigned char* p, size_t names, At at) {
  const size_t bytes = (names + 7) / 8;
  for (size_t k = 0; k < bytes; k += 8) {
    std::uint64_t word = bitmap_word(p + k, std::min<size_t>(8, bytes - k));
    while (word) {
      at(static_cast<int>(8 * k) + __builtin_ctzll(word));
      word &= word - 1;
    }
  }
}

/// Reads a named section's header (see the file comment): returns its entry count and sets
/// `first` to its first entry's name; `base` is the previous section's first name, updated.
inline size_t get_section(const char*& p, int& base, int& first) {
  unsigned long long header = get_varint(p);
  if (header == 0) return 0;
  unsigned long long first_code = header & 1 ? header >> 1 : get_varint(p);
  first = base + static_cast<int>(unzigzag(first_code));
  base = first;
  return header & 1 ? 1 : static_cast<size_t>(header >> 1);
}

}  // namespace detail

}  // namespace starc_mpi

#endif  // STARC_MPI_VALUES_HPP
