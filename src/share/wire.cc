#include "wire.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "deid/share.h"

namespace deid::share {

std::uint8_t read_u8(Reader& in) {
  std::uint8_t b = 0;
  in.read(&b, 1);
  return b;
}

std::uint16_t read_u16(Reader& in) {
  std::uint8_t b[2];
  in.read(b, 2);
  return get_u16(b);
}

std::uint32_t read_u32(Reader& in) {
  std::uint8_t b[4];
  in.read(b, 4);
  return get_u32(b);
}

void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

void pass_through(Reader& in, Writer* out, std::uint64_t n) {
  std::uint8_t piece[64 * 1024];
  while (n > 0) {
    const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(n, sizeof piece));
    in.read(piece, k);
    if (out != nullptr) out->write(piece, k);
    n -= k;
  }
}

bool FdReader::readable(std::chrono::milliseconds wait) {
  if (begin_ < end_) return true;
  pollfd p{fd_, POLLIN, 0};
  const int rc = ::poll(&p, 1, static_cast<int>(wait.count()));
  return rc > 0;
}

void FdReader::fill() {
  begin_ = end_ = 0;
  for (;;) {
    int wait = -1;
    if (has_deadline_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw ProtocolError("the peer did not answer in time");
      wait = static_cast<int>(left.count());
    }
    pollfd p{fd_, POLLIN, 0};
    const int rc = ::poll(&p, 1, wait);
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) throw ConnectionClosed(fmt::format("poll: {}", std::strerror(errno)));
    if (rc == 0) continue;  // the deadline is checked above
    const ssize_t got = ::recv(fd_, buffer_.data(), buffer_.size(), 0);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) throw ConnectionClosed(got == 0 ? "connection closed" : std::strerror(errno));
    end_ = static_cast<std::size_t>(got);
    return;
  }
}

void FdReader::read(std::uint8_t* out, std::size_t n) {
  while (n > 0) {
    if (begin_ == end_) fill();
    const std::size_t k = std::min(n, end_ - begin_);
    std::memcpy(out, buffer_.data() + begin_, k);
    begin_ += k;
    out += k;
    n -= k;
  }
}

void FdWriter::write(const std::uint8_t* data, std::size_t n) {
  buffer_.insert(buffer_.end(), data, data + n);
  if (buffer_.size() >= 64 * 1024) flush();
}

void FdWriter::flush() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t sent = ::send(fd_, buffer_.data() + done, buffer_.size() - done, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) {
      buffer_.clear();
      throw ConnectionClosed(sent == 0 ? "connection closed" : std::strerror(errno));
    }
    done += static_cast<std::size_t>(sent);
  }
  buffer_.clear();
}

void MemoryReader::read(std::uint8_t* out, std::size_t n) {
  if (n == 0) return;
  if (size_ - pos_ < n) {
    pos_ = size_;
    throw ConnectionClosed("end of input");
  }
  std::memcpy(out, data_ + pos_, n);
  pos_ += n;
}

}  // namespace deid::share
