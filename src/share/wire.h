// Byte streams of the RFB proxy: what the message parsers (rfb.h) read from
// and write to. The proxy gives them sockets (FdReader, FdWriter); the unit
// tests and the fuzzer give them memory.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace deid::share {

// A source of bytes. read() returns exactly `n` bytes or throws
// ConnectionClosed (the peer closed) or ProtocolError (timed out).
class Reader {
 public:
  virtual ~Reader() = default;
  virtual void read(std::uint8_t* out, std::size_t n) = 0;
};

// A sink of bytes; write() may buffer, flush() sends what is buffered.
// Throws ConnectionClosed when the peer is gone.
class Writer {
 public:
  virtual ~Writer() = default;
  virtual void write(const std::uint8_t* data, std::size_t n) = 0;
  virtual void flush() {}
};

// Big-endian helpers (RFB is big-endian throughout, RFC 6143 section 7).
std::uint8_t read_u8(Reader& in);
std::uint16_t read_u16(Reader& in);
std::uint32_t read_u32(Reader& in);
void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v);
void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v);
inline std::uint16_t get_u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] << 8 | p[1]); }
inline std::uint32_t get_u32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

// Copies `n` bytes from `in` to `out` in pieces of 64 KiB (a framebuffer
// update may be large; it is never held whole); `out` null: discards them.
void pass_through(Reader& in, Writer* out, std::uint64_t n);

// A socket read through a buffer. With a deadline (set_deadline), a read
// that waits past it throws ProtocolError; without one it waits until data
// comes or the socket is shut down.
class FdReader : public Reader {
 public:
  explicit FdReader(int fd) : fd_(fd) {}
  void read(std::uint8_t* out, std::size_t n) override;
  void set_deadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; has_deadline_ = true; }
  void clear_deadline() { has_deadline_ = false; }
  // True when a byte can be read without waiting longer than `wait`.
  bool readable(std::chrono::milliseconds wait);

 private:
  void fill();
  int fd_;
  std::vector<std::uint8_t> buffer_ = std::vector<std::uint8_t>(64 * 1024);
  std::size_t begin_ = 0, end_ = 0;
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
};

// A socket written through a buffer of 64 KiB.
class FdWriter : public Writer {
 public:
  explicit FdWriter(int fd) : fd_(fd) {}
  void write(const std::uint8_t* data, std::size_t n) override;
  void flush() override;

 private:
  int fd_;
  std::vector<std::uint8_t> buffer_;
};

// Memory streams, for the tests and the fuzzer.
class MemoryReader : public Reader {
 public:
  MemoryReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  void read(std::uint8_t* out, std::size_t n) override;
  std::size_t remaining() const { return size_ - pos_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

class MemoryWriter : public Writer {
 public:
  void write(const std::uint8_t* data, std::size_t n) override { bytes.insert(bytes.end(), data, data + n); }
  std::vector<std::uint8_t> bytes;
};

}  // namespace deid::share
