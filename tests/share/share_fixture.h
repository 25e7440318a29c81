// What the proxy's tests share: RFB messages as bytes, a temporary
// directory, a fake VNC server (RFB 3.8, VNC Authentication) and a fake
// VNC client, both on 127.0.0.1 in the test process.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "deid/share.h"
#include "rfb.h"
#include "wire.h"

namespace deid::share::testing {

using Bytes = std::vector<std::uint8_t>;

inline Bytes key_event(bool down, std::uint32_t keysym) {
  Bytes m{rfb::kKeyEvent, static_cast<std::uint8_t>(down), 0, 0};
  put_u32(m, keysym);
  return m;
}

inline Bytes pointer_event(std::uint8_t mask, std::uint16_t x, std::uint16_t y) {
  Bytes m{rfb::kPointerEvent, mask};
  put_u16(m, x);
  put_u16(m, y);
  return m;
}

inline Bytes cut_text(std::uint8_t type, const std::string& text) {
  Bytes m{type, 0, 0, 0};
  put_u32(m, static_cast<std::uint32_t>(text.size()));
  m.insert(m.end(), text.begin(), text.end());
  return m;
}

inline Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes all;
  for (const Bytes& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

inline std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline bool eventually(const std::function<bool()>& done, std::chrono::milliseconds within) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

inline std::vector<nlohmann::json> audit_lines(const std::filesystem::path& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// A directory removed with everything in it at the end of the test.
struct TempDir {
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "deid-share-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::filesystem::path path;
};

inline int listen_loopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 8) != 0)
    throw std::runtime_error("listen");
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

// A VNC server that admits the password it was given (RFB 3.8, VNC
// Authentication), sends a 64x48 ServerInit named "secret-host:0", then
// keeps what its one client sends; send() writes to that client.
class FakeVncServer {
 public:
  explicit FakeVncServer(std::string password) : password_(std::move(password)) {
    listen_fd_ = listen_loopback(port_);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeVncServer() {
    stop_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    {
      std::lock_guard lock(mutex_);
      if (client_fd_ >= 0) ::shutdown(client_fd_, SHUT_RDWR);
    }
    thread_.join();
    ::close(listen_fd_);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int connections() {
    std::lock_guard lock(mutex_);
    return connections_;
  }
  Bytes received() {
    std::lock_guard lock(mutex_);
    return received_;
  }
  bool wait_for_bytes(std::size_t n, std::chrono::milliseconds within) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, within, [&] { return received_.size() >= n; });
  }
  bool wait_closed(std::chrono::milliseconds within) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, within, [&] { return client_fd_ < 0 && connections_ > 0; });
  }
  void send(const Bytes& bytes) {
    std::lock_guard lock(mutex_);
    if (client_fd_ >= 0) ::send(client_fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }

 private:
  void serve() {
    while (!stop_) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      {
        std::lock_guard lock(mutex_);
        ++connections_;
        received_.clear();
      }
      try {
        FdReader in(fd);
        FdWriter out(fd);
        const std::string version = "RFB 003.008\n";
        out.write(reinterpret_cast<const std::uint8_t*>(version.data()), 12);
        out.flush();
        std::uint8_t buffer[16];
        in.read(buffer, 12);
        const std::uint8_t offer[2] = {1, rfb::kSecurityVncAuth};
        out.write(offer, 2);
        out.flush();
        if (read_u8(in) != rfb::kSecurityVncAuth) throw ProtocolError("type");
        std::array<std::uint8_t, 16> challenge{}, response{};
        for (std::size_t i = 0; i < 16; ++i) challenge[i] = static_cast<std::uint8_t>(i * 7 + 3);
        out.write(challenge.data(), 16);
        out.flush();
        in.read(response.data(), 16);
        const bool ok = response == vnc_auth_response(challenge, password_);
        Bytes result;
        put_u32(result, ok ? 0 : 1);
        if (!ok) {
          put_u32(result, 5);
          for (char c : std::string("wrong")) result.push_back(static_cast<std::uint8_t>(c));
        }
        out.write(result.data(), result.size());
        out.flush();
        if (!ok) throw ProtocolError("password");
        read_u8(in);  // ClientInit
        ServerInit init;
        init.width = 64;
        init.height = 48;
        init.pixel_format = {32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0};
        init.name = "secret-host:0";
        const Bytes bytes = init.bytes();
        out.write(bytes.data(), bytes.size());
        out.flush();
        {
          std::lock_guard lock(mutex_);
          client_fd_ = fd;
        }
        for (;;) {
          in.read(buffer, 1);
          std::lock_guard lock(mutex_);
          received_.push_back(buffer[0]);
          changed_.notify_all();
        }
      } catch (const Error&) {
      }
      std::lock_guard lock(mutex_);
      client_fd_ = -1;
      ::close(fd);
      changed_.notify_all();
    }
  }

  std::string password_;
  int listen_fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int client_fd_ = -1;
  int connections_ = 0;
  Bytes received_;
};

// A VNC client speaking to the proxy.
class FakeVncClient {
 public:
  explicit FakeVncClient(const std::string& address) {
    const std::size_t colon = address.rfind(':');
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1))));
    ::inet_pton(AF_INET, address.substr(0, colon).c_str(), &a.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("connect");
    in_ = std::make_unique<FdReader>(fd_);
    in_->set_deadline(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  }
  ~FakeVncClient() { close(); }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  // The handshake with `token` as the password; "" when admitted, the
  // refusal's reason otherwise ("refused" for 3.3, which has none).
  std::string handshake(const std::string& token, int minor = 8) {
    std::uint8_t version[12];
    in_->read(version, 12);
    const std::string mine = minor == 3 ? "RFB 003.003\n" : "RFB 003.008\n";
    send(Bytes(mine.begin(), mine.end()));
    if (minor == 3) {
      if (read_u32(*in_) != rfb::kSecurityVncAuth) return "not VNC Authentication";
    } else {
      const std::uint8_t n = read_u8(*in_);
      Bytes types(n);
      in_->read(types.data(), n);
      send(Bytes{rfb::kSecurityVncAuth});
    }
    std::array<std::uint8_t, 16> challenge{};
    in_->read(challenge.data(), 16);
    const auto response = vnc_auth_response(challenge, token);
    send(Bytes(response.begin(), response.end()));
    return result(minor);
  }
  std::string handshake_without_auth() {
    std::uint8_t version[12];
    in_->read(version, 12);
    const std::string mine = "RFB 003.008\n";
    send(Bytes(mine.begin(), mine.end()));
    const std::uint8_t n = read_u8(*in_);
    Bytes types(n);
    in_->read(types.data(), n);
    send(Bytes{rfb::kSecurityNone});
    return result(8);
  }
  ServerInit server_init() {
    send(Bytes{1});
    std::uint8_t init[24];
    in_->read(init, 24);
    ServerInit s;
    s.width = get_u16(init);
    s.height = get_u16(init + 2);
    s.name.resize(get_u32(init + 20));
    in_->read(reinterpret_cast<std::uint8_t*>(s.name.data()), s.name.size());
    return s;
  }
  void send(const Bytes& bytes) { ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
  Bytes receive(std::size_t n, std::chrono::milliseconds within) {
    in_->set_deadline(std::chrono::steady_clock::now() + within);
    Bytes b(n);
    in_->read(b.data(), n);
    return b;
  }
  // True when the proxy closes the connection within `within` (whatever
  // it sent before is read and ignored).
  bool closed_within(std::chrono::milliseconds within) {
    in_->set_deadline(std::chrono::steady_clock::now() + within);
    try {
      for (;;) read_u8(*in_);
    } catch (const ConnectionClosed&) {
      return true;
    } catch (const ProtocolError&) {
      return false;  // timed out
    }
  }

 private:
  std::string result(int minor) {
    if (read_u32(*in_) == 0) return "";
    if (minor == 3) return "refused";
    const std::uint32_t n = read_u32(*in_);
    std::string reason(n, '\0');
    in_->read(reinterpret_cast<std::uint8_t*>(reason.data()), n);
    return reason;
  }
  int fd_ = -1;
  std::unique_ptr<FdReader> in_;
};

}  // namespace deid::share::testing
