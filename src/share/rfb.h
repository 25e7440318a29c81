// The RFB messages the proxy parses (RFC 6143, version 3.8; 3.3 and 3.7
// clients are served too). Each relay reads one message from one peer,
// decides what of it goes on, and writes that to the other; it holds no
// socket, so the tests and the fuzzer drive it with memory streams.
//
// Why parse at all: the proxy must find the ClientCutText and
// ServerCutText messages (clipboard) in both streams to drop them, and the
// key and pointer events to limit and log them; RFB messages carry no
// length of their own, so finding one means parsing every message before
// it, framebuffer updates included. The proxy therefore lets the client
// ask only for the encodings it can parse (SetEncodings is rewritten):
// Raw, CopyRect, ZRLE and the DesktopSize pseudo-encoding. ZRLE data is
// length-prefixed, so it is passed through without being decompressed.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "deid/share.h"
#include "wire.h"

namespace deid::share {

using Clock = std::chrono::steady_clock;

namespace rfb {
// Client to server message types (RFC 6143 7.5).
inline constexpr std::uint8_t kSetPixelFormat = 0, kSetEncodings = 2, kFramebufferUpdateRequest = 3,
                              kKeyEvent = 4, kPointerEvent = 5, kClientCutText = 6;
// Server to client (RFC 6143 7.6).
inline constexpr std::uint8_t kFramebufferUpdate = 0, kSetColourMapEntries = 1, kBell = 2, kServerCutText = 3;
// Encodings (RFC 6143 7.7, 7.8).
inline constexpr std::int32_t kRaw = 0, kCopyRect = 1, kZrle = 16, kDesktopSize = -223;
// The encodings the proxy parses, in the order it prefers them when the
// client gives none of its own.
inline constexpr std::array<std::int32_t, 4> kAllowedEncodings{kZrle, kCopyRect, kRaw, kDesktopSize};
// Security types (RFC 6143 7.2.1).
inline constexpr std::uint8_t kSecurityNone = 1, kSecurityVncAuth = 2;
}  // namespace rfb

// The 20 bytes of ServerInit before the name: size and pixel format.
struct ServerInit {
  std::uint16_t width = 0, height = 0;
  std::array<std::uint8_t, 16> pixel_format{};
  std::string name;
  std::vector<std::uint8_t> bytes() const;
};

// What both directions share: the framebuffer's size (DesktopSize changes
// it) and the bytes per pixel of Raw data (SetPixelFormat changes it; the
// proxy takes the client's new format as in force from when it forwards
// the message, which is when the server may start using it).
struct StreamState {
  std::atomic<std::uint32_t> width{0}, height{0};
  std::atomic<std::uint32_t> bytes_per_pixel{4};
  // The byte of a 32-bit Raw pixel that holds no colour (raw_padding_byte),
  // set to 0xFF as Raw data passes; -1: none (or not known).
  std::atomic<int> raw_padding{-1};
};

// The byte (0 to 3, in the order sent) of a pixel of the 16-byte RFB pixel
// format `format` that no colour uses, or -1: for a true-colour format of
// 32 bits per pixel whose colours leave one byte free (depth 24), which
// the proxy sets to 0xFF in Raw data. Why: noVNC 1.3 (Debian 12) makes a
// Raw pixel opaque at the wrong offset (it forgets where its read buffer
// starts), so pixels whose free byte is 0, as x11vnc sends them, are drawn
// transparent; the free bits mean nothing in RFB (RFC 6143, 7.4), so every
// client draws 0xFF as it draws 0.
int raw_padding_byte(const std::uint8_t* format);
// Passes `n` bytes of Raw pixels of 4 bytes from `in` to `out` with byte
// `padding` (0 to 3) of each set to 0xFF, in pieces of 64 KiB.
void pass_raw_opaque(Reader& in, Writer& out, std::uint64_t n, unsigned padding);

// One token bucket pair (RateLimit in share.h).
class RateLimiter {
 public:
  explicit RateLimiter(const RateLimit& limit);
  // Takes a token at `now` when both buckets hold one; false otherwise.
  bool allow(Clock::time_point now);

 private:
  RateLimit limit_;
  double second_tokens_, minute_tokens_;
  Clock::time_point last_;
  bool started_ = false;
};

// An input event as the audit log records it.
struct InputEvent {
  enum class Kind { key, pointer, client_cut_text, server_cut_text, encodings };
  // forwarded; dropped by the rate limit; dropped as the release of a
  // press that was dropped; coalesced (a move sent later, or replaced by a
  // later one); dropped because it is clipboard data.
  enum class Verdict { forwarded, rate_limited, release_of_dropped, coalesced, clipboard_dropped, rewritten };
  Kind kind = Kind::key;
  Verdict verdict = Verdict::forwarded;
  bool down = false;
  std::uint32_t keysym = 0;
  std::uint8_t buttons = 0;
  std::uint16_t x = 0, y = 0;
  std::uint32_t length = 0;                 // cut text: bytes dropped
  std::vector<std::int32_t> asked, kept;    // encodings: the client's list and what the server got
};
const char* kind_name(InputEvent::Kind kind);
const char* verdict_name(InputEvent::Verdict verdict);

// Client to server: one message per call. Drops ClientCutText, rewrites
// SetEncodings, limits and logs KeyEvent and PointerEvent, tracks
// SetPixelFormat; throws ProtocolError for anything else or anything out
// of bounds (the session ends).
class ClientRelay {
 public:
  using Listener = std::function<void(const InputEvent&)>;
  ClientRelay(const InputLimits& limits, StreamState& state, Listener listener);

  void relay_one(Reader& in, Writer& out, Clock::time_point now);
  // Sends a coalesced pointer move whose time has come (call it when the
  // client is idle); returns whether it sent one.
  bool tick(Writer& out, Clock::time_point now);

  SessionSummary counts;  // the counters of SessionSummary (id and names left empty)

 private:
  void key(Reader& in, Writer& out, Clock::time_point now);
  void pointer(Reader& in, Writer& out, Clock::time_point now);
  void send_pointer(Writer& out, std::uint8_t mask, std::uint16_t x, std::uint16_t y);

  InputLimits limits_;
  StreamState& state_;
  Listener listener_;
  RateLimiter keys_, buttons_, moves_;
  std::set<std::uint32_t> keys_down_;  // presses forwarded, their releases not yet
  std::uint8_t mask_sent_ = 0;         // buttons the server believes are down
  std::uint8_t mask_dropped_ = 0;      // buttons held whose press was dropped
  struct Move {
    std::uint16_t x, y;
  };
  std::optional<Move> pending_;
};

// Server to client: one message per call. Passes framebuffer updates (of
// the allowed encodings, inside the framebuffer), colour maps and bells;
// drops ServerCutText; throws ProtocolError for anything else.
class ServerRelay {
 public:
  using Listener = std::function<void(const InputEvent&)>;
  ServerRelay(StreamState& state, std::uint32_t max_cut_text, Listener listener)
      : state_(state), max_cut_text_(max_cut_text), listener_(std::move(listener)) {}
  void relay_one(Reader& in, Writer& out);
  std::uint64_t cut_text_dropped = 0;

 private:
  StreamState& state_;
  std::uint32_t max_cut_text_;
  Listener listener_;
};

// VNC Authentication's response: the 16-byte challenge encrypted with DES
// under the password's first 8 bytes, each byte's bits mirrored (the
// convention of every VNC implementation; RFC 6143 7.2.2 leaves it out).
std::array<std::uint8_t, 16> vnc_auth_response(const std::array<std::uint8_t, 16>& challenge,
                                               const std::string& password);

// The handshake with the recipient (the proxy as server, RFC 6143 7.1-7.3):
// version, VNC Authentication with a fresh challenge. `check` gets the
// challenge and the response and returns the refusal reason, or nothing
// to admit; a refusal is sent to the client (3.8 with its reason) after
// `refusal_delay`. Returns the negotiated minor version (3, 7 or 8) when
// admitted, nothing when refused. Throws ProtocolError and
// ConnectionClosed.
struct ClientHandshake {
  int minor = 8;
  bool admitted = false;
  std::string refusal;
};
using TokenCheck = std::function<std::optional<std::string>(const std::array<std::uint8_t, 16>& challenge,
                                                            const std::array<std::uint8_t, 16>& response)>;
ClientHandshake client_handshake(Reader& in, Writer& out, const TokenCheck& check,
                                 std::chrono::milliseconds refusal_delay);
// Sends the SecurityResult: OK, or failed (with the reason in 3.8).
void send_security_result(Writer& out, int minor, const std::optional<std::string>& refusal);

// The handshake with the VNC server (the proxy as client): version, VNC
// Authentication with `password` (or None when it is empty), ClientInit
// (shared), ServerInit. Throws ProtocolError naming what the server said.
ServerInit server_handshake(Reader& in, Writer& out, const std::string& password);

}  // namespace deid::share
