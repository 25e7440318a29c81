#include "rfb.h"

// VNC Authentication is single DES, which OpenSSL 3 keeps in its
// deprecated low-level API only (the EVP cipher needs the legacy
// provider). The protocol fixes the cipher; see docs/share.md for what
// that means for the token's strength.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/des.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace deid::share {

namespace {

bool is_digit(std::uint8_t c) { return c >= '0' && c <= '9'; }

// "RFB xxx.yyy\n" (RFC 6143 7.1.1) -> (major, minor).
std::pair<int, int> parse_version(const std::uint8_t* v, const char* who) {
  const bool ok = std::memcmp(v, "RFB ", 4) == 0 && is_digit(v[4]) && is_digit(v[5]) && is_digit(v[6]) &&
                  v[7] == '.' && is_digit(v[8]) && is_digit(v[9]) && is_digit(v[10]) && v[11] == '\n';
  if (!ok) throw ProtocolError(fmt::format("{} sent no RFB protocol version", who));
  const int major = (v[4] - '0') * 100 + (v[5] - '0') * 10 + (v[6] - '0');
  const int minor = (v[8] - '0') * 100 + (v[9] - '0') * 10 + (v[10] - '0');
  if (major != 3) throw ProtocolError(fmt::format("{} speaks RFB {}.{}, not 3.x", who, major, minor));
  // 3.3 to 3.6 are 3.3; 3.8 and later (Apple's 3.889) are 3.8 (RFC 6143 7.1.1).
  return {major, minor >= 8 ? 8 : minor == 7 ? 7 : 3};
}

std::string read_reason(Reader& in) {
  const std::uint32_t n = read_u32(in);
  if (n > 4096) throw ProtocolError(fmt::format("a reason string of {} bytes", n));
  std::string s(n, '\0');
  in.read(reinterpret_cast<std::uint8_t*>(s.data()), n);
  return s;
}

void write_bytes(Writer& out, const std::vector<std::uint8_t>& bytes) { out.write(bytes.data(), bytes.size()); }

void check_pixel_format(const std::uint8_t* pf, const char* who) {
  const std::uint8_t bpp = pf[0], depth = pf[1];
  if ((bpp != 8 && bpp != 16 && bpp != 32) || depth == 0 || depth > bpp)
    throw ProtocolError(fmt::format("{} set a pixel format of {} bits per pixel, depth {}", who, bpp, depth));
}

}  // namespace

std::vector<std::uint8_t> ServerInit::bytes() const {
  std::vector<std::uint8_t> out;
  put_u16(out, width);
  put_u16(out, height);
  out.insert(out.end(), pixel_format.begin(), pixel_format.end());
  put_u32(out, static_cast<std::uint32_t>(name.size()));
  out.insert(out.end(), name.begin(), name.end());
  return out;
}

// ------------------------------------------------------------ rate limit

RateLimiter::RateLimiter(const RateLimit& limit)
    : limit_(limit), second_tokens_(limit.burst), minute_tokens_(limit.per_minute) {}

bool RateLimiter::allow(Clock::time_point now) {
  if (!started_) {
    last_ = now;
    started_ = true;
  }
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  if (elapsed > 0) {
    second_tokens_ = std::min(limit_.burst, second_tokens_ + elapsed * limit_.per_second);
    if (limit_.per_minute > 0)
      minute_tokens_ = std::min(limit_.per_minute, minute_tokens_ + elapsed * limit_.per_minute / 60.0);
    last_ = now;
  }
  const bool minute_ok = limit_.per_minute <= 0 || minute_tokens_ >= 1;
  if (second_tokens_ < 1 || !minute_ok) return false;
  second_tokens_ -= 1;
  if (limit_.per_minute > 0) minute_tokens_ -= 1;
  return true;
}

// ----------------------------------------------------------- audit names

const char* kind_name(InputEvent::Kind kind) {
  switch (kind) {
    case InputEvent::Kind::key: return "key";
    case InputEvent::Kind::pointer: return "pointer";
    case InputEvent::Kind::client_cut_text: return "client-cut-text";
    case InputEvent::Kind::server_cut_text: return "server-cut-text";
    case InputEvent::Kind::encodings: return "set-encodings";
  }
  return "?";
}

const char* verdict_name(InputEvent::Verdict verdict) {
  switch (verdict) {
    case InputEvent::Verdict::forwarded: return "forwarded";
    case InputEvent::Verdict::rate_limited: return "rate-limited";
    case InputEvent::Verdict::release_of_dropped: return "release-of-dropped";
    case InputEvent::Verdict::coalesced: return "coalesced";
    case InputEvent::Verdict::clipboard_dropped: return "dropped";
    case InputEvent::Verdict::rewritten: return "rewritten";
  }
  return "?";
}

// ---------------------------------------------------------- client relay

ClientRelay::ClientRelay(const InputLimits& limits, StreamState& state, Listener listener)
    : limits_(limits),
      state_(state),
      listener_(std::move(listener)),
      keys_(limits.keys),
      buttons_(limits.buttons),
      moves_(RateLimit{std::max(1.0, limits.moves_per_second), limits.moves_per_second, 0}) {}

void ClientRelay::relay_one(Reader& in, Writer& out, Clock::time_point now) {
  const std::uint8_t type = read_u8(in);
  switch (type) {
    case rfb::kSetPixelFormat: {
      std::uint8_t m[20];
      m[0] = type;
      in.read(m + 1, 19);
      check_pixel_format(m + 4, "the client");
      out.write(m, 20);
      out.flush();
      state_.bytes_per_pixel = m[4] / 8u;
      state_.raw_padding = raw_padding_byte(m + 4);
      return;
    }
    case rfb::kSetEncodings: {
      std::uint8_t head[3];
      in.read(head, 3);
      const std::uint16_t n = get_u16(head + 1);
      InputEvent e;
      e.kind = InputEvent::Kind::encodings;
      e.verdict = InputEvent::Verdict::rewritten;
      for (std::uint16_t i = 0; i < n; ++i) {
        const auto enc = static_cast<std::int32_t>(read_u32(in));
        e.asked.push_back(enc);
        const bool allowed = std::find(rfb::kAllowedEncodings.begin(), rfb::kAllowedEncodings.end(), enc) !=
                             rfb::kAllowedEncodings.end();
        if (allowed && std::find(e.kept.begin(), e.kept.end(), enc) == e.kept.end()) e.kept.push_back(enc);
      }
      std::vector<std::uint8_t> m{type, 0};
      put_u16(m, static_cast<std::uint16_t>(e.kept.size()));
      for (std::int32_t enc : e.kept) put_u32(m, static_cast<std::uint32_t>(enc));
      write_bytes(out, m);
      out.flush();
      counts.encodings_removed += e.asked.size() - e.kept.size();
      if (listener_) listener_(e);
      return;
    }
    case rfb::kFramebufferUpdateRequest: {
      std::uint8_t m[10];
      m[0] = type;
      in.read(m + 1, 9);
      out.write(m, 10);
      out.flush();
      return;
    }
    case rfb::kKeyEvent: return key(in, out, now);
    case rfb::kPointerEvent: return pointer(in, out, now);
    case rfb::kClientCutText: {
      std::uint8_t head[7];
      in.read(head, 7);
      const std::uint32_t n = get_u32(head + 3);
      InputEvent e;
      e.kind = InputEvent::Kind::client_cut_text;
      e.verdict = InputEvent::Verdict::clipboard_dropped;
      e.length = n;
      ++counts.client_cut_text_dropped;
      if (listener_) listener_(e);
      if (n > limits_.max_cut_text)
        throw ProtocolError(fmt::format("the client sent {} bytes of clipboard text (at most {} are read)", n,
                                        limits_.max_cut_text));
      pass_through(in, nullptr, n);
      return;
    }
    default:
      throw ProtocolError(fmt::format("the client sent a message of type {}, which the proxy does not pass", type));
  }
}

void ClientRelay::key(Reader& in, Writer& out, Clock::time_point now) {
  std::uint8_t m[8];
  m[0] = rfb::kKeyEvent;
  in.read(m + 1, 7);
  InputEvent e;
  e.kind = InputEvent::Kind::key;
  e.down = m[1] != 0;
  e.keysym = get_u32(m + 4);
  if (e.down) {
    // Every press counts, a key's auto-repeat too: each one types.
    ++counts.keys;
    if (keys_.allow(now)) {
      keys_down_.insert(e.keysym);
    } else {
      ++counts.keys_dropped;
      e.verdict = InputEvent::Verdict::rate_limited;
    }
  } else if (keys_down_.erase(e.keysym) == 0) {
    // The release of a press that never reached the server.
    e.verdict = InputEvent::Verdict::release_of_dropped;
  }
  // Logged before it is forwarded: an event the audit log cannot take
  // (the listener throws) never reaches the server.
  if (listener_) listener_(e);
  if (e.verdict == InputEvent::Verdict::forwarded) {
    m[1] = e.down ? 1 : 0;
    out.write(m, 8);
    out.flush();
  }
}

void ClientRelay::send_pointer(Writer& out, std::uint8_t mask, std::uint16_t x, std::uint16_t y) {
  const std::uint8_t m[6] = {rfb::kPointerEvent, mask, static_cast<std::uint8_t>(x >> 8), static_cast<std::uint8_t>(x),
                             static_cast<std::uint8_t>(y >> 8), static_cast<std::uint8_t>(y)};
  out.write(m, 6);
  out.flush();
  mask_sent_ = mask;
  pending_.reset();
}

void ClientRelay::pointer(Reader& in, Writer& out, Clock::time_point now) {
  std::uint8_t m[5];
  in.read(m, 5);
  InputEvent e;
  e.kind = InputEvent::Kind::pointer;
  e.buttons = m[0];
  e.x = get_u16(m + 1);
  e.y = get_u16(m + 3);
  // A button whose press was dropped stays ignored until the client
  // releases it; a button the server holds is always released (a dropped
  // release would leave it held).
  mask_dropped_ &= e.buttons;
  const std::uint8_t pressed = e.buttons & ~mask_sent_ & ~mask_dropped_;
  const std::uint8_t released = mask_sent_ & ~e.buttons;
  std::optional<std::uint8_t> send;  // the button mask to send now, if any
  bool move = false;
  if (pressed != 0) {
    counts.buttons += static_cast<std::uint64_t>(__builtin_popcount(pressed));
    if (!buttons_.allow(now)) {
      counts.buttons_dropped += static_cast<std::uint64_t>(__builtin_popcount(pressed));
      mask_dropped_ |= pressed;
      e.verdict = InputEvent::Verdict::rate_limited;
    }
    if (e.verdict == InputEvent::Verdict::forwarded || released != 0)
      send = static_cast<std::uint8_t>(e.buttons & ~mask_dropped_);
    else
      move = true;
  } else if (released != 0) {
    send = static_cast<std::uint8_t>(e.buttons & ~mask_dropped_);
  } else {
    move = true;
  }
  if (move) {
    ++counts.moves;
    if (moves_.allow(now)) {
      send = mask_sent_;
    } else {
      ++counts.moves_coalesced;
      if (e.verdict == InputEvent::Verdict::forwarded) e.verdict = InputEvent::Verdict::coalesced;
    }
  }
  // Logged before it is forwarded, as keys are.
  if (listener_) listener_(e);
  if (send)
    send_pointer(out, *send, e.x, e.y);
  else if (move)
    pending_ = Move{e.x, e.y};
}

bool ClientRelay::tick(Writer& out, Clock::time_point now) {
  if (!pending_ || !moves_.allow(now)) return false;
  send_pointer(out, mask_sent_, pending_->x, pending_->y);
  return true;
}

// ---------------------------------------------------------- server relay

void ServerRelay::relay_one(Reader& in, Writer& out) {
  const std::uint8_t type = read_u8(in);
  switch (type) {
    case rfb::kFramebufferUpdate: {
      std::uint8_t head[4];
      head[0] = type;
      in.read(head + 1, 3);
      out.write(head, 4);
      const std::uint16_t rects = get_u16(head + 2);
      for (std::uint16_t i = 0; i < rects; ++i) {
        std::uint8_t r[12];
        in.read(r, 12);
        const std::uint32_t x = get_u16(r), y = get_u16(r + 2), w = get_u16(r + 4), h = get_u16(r + 6);
        const auto enc = static_cast<std::int32_t>(get_u32(r + 8));
        const std::uint32_t fw = state_.width, fh = state_.height;
        if (enc == rfb::kDesktopSize) {
          if (w == 0 || h == 0) throw ProtocolError("the server resized the desktop to nothing");
          out.write(r, 12);
          state_.width = w;
          state_.height = h;
          continue;
        }
        if (x + w > fw || y + h > fh)
          throw ProtocolError(fmt::format("the server sent a rectangle {}x{} at ({}, {}) outside its {}x{} desktop",
                                          w, h, x, y, fw, fh));
        out.write(r, 12);
        const std::uint64_t area = std::uint64_t{w} * h;
        if (enc == rfb::kRaw) {
          const int padding = state_.raw_padding;
          if (padding < 0 || state_.bytes_per_pixel != 4)
            pass_through(in, &out, area * state_.bytes_per_pixel);
          else
            pass_raw_opaque(in, out, area * 4, static_cast<unsigned>(padding));
        } else if (enc == rfb::kCopyRect) {
          std::uint8_t src[4];
          in.read(src, 4);
          if (get_u16(src) + w > fw || get_u16(src + 2) + h > fh)
            throw ProtocolError("the server copied a rectangle from outside its desktop");
          out.write(src, 4);
        } else if (enc == rfb::kZrle) {
          std::uint8_t len[4];
          in.read(len, 4);
          const std::uint32_t n = get_u32(len);
          // ZRLE is at worst raw pixels plus a byte per 64x64 tile and
          // zlib's framing; twice raw and 64 KiB more is beyond any
          // honest rectangle.
          if (n > area * 8 + 65536)
            throw ProtocolError(fmt::format("the server sent {} bytes of ZRLE for a {}x{} rectangle", n, w, h));
          out.write(len, 4);
          pass_through(in, &out, n);
        } else {
          throw ProtocolError(fmt::format("the server sent encoding {}, which the proxy did not offer", enc));
        }
      }
      out.flush();
      return;
    }
    case rfb::kSetColourMapEntries: {
      std::uint8_t head[6];
      head[0] = type;
      in.read(head + 1, 5);
      out.write(head, 6);
      pass_through(in, &out, std::uint64_t{get_u16(head + 4)} * 6);
      out.flush();
      return;
    }
    case rfb::kBell:
      out.write(&type, 1);
      out.flush();
      return;
    case rfb::kServerCutText: {
      std::uint8_t head[7];
      in.read(head, 7);
      const std::uint32_t n = get_u32(head + 3);
      ++cut_text_dropped;
      InputEvent e;
      e.kind = InputEvent::Kind::server_cut_text;
      e.verdict = InputEvent::Verdict::clipboard_dropped;
      e.length = n;
      if (listener_) listener_(e);
      if (n > max_cut_text_)
        throw ProtocolError(fmt::format("the server sent {} bytes of clipboard text (at most {} are read)", n,
                                        max_cut_text_));
      pass_through(in, nullptr, n);
      return;
    }
    default:
      throw ProtocolError(fmt::format("the server sent a message of type {}, which the proxy does not pass", type));
  }
}

// ------------------------------------------------------ authentication

std::array<std::uint8_t, 16> vnc_auth_response(const std::array<std::uint8_t, 16>& challenge,
                                               const std::string& password) {
  DES_cblock key{};
  for (std::size_t i = 0; i < 8 && i < password.size(); ++i) {
    std::uint8_t b = static_cast<std::uint8_t>(password[i]), mirrored = 0;
    for (int bit = 0; bit < 8; ++bit)
      if (b & (1u << bit)) mirrored |= static_cast<std::uint8_t>(0x80u >> bit);
    key[i] = mirrored;
  }
  DES_key_schedule schedule;
  DES_set_key_unchecked(&key, &schedule);
  std::array<std::uint8_t, 16> response{};
  for (int block = 0; block < 2; ++block) {
    DES_cblock in, out;
    std::memcpy(in, challenge.data() + block * 8, 8);
    DES_ecb_encrypt(&in, &out, &schedule, DES_ENCRYPT);
    std::memcpy(response.data() + block * 8, out, 8);
  }
  OPENSSL_cleanse(&schedule, sizeof schedule);
  OPENSSL_cleanse(key, sizeof key);
  return response;
}

void send_security_result(Writer& out, int minor, const std::optional<std::string>& refusal) {
  std::vector<std::uint8_t> m;
  put_u32(m, refusal ? 1 : 0);
  if (refusal && minor >= 8) {
    put_u32(m, static_cast<std::uint32_t>(refusal->size()));
    m.insert(m.end(), refusal->begin(), refusal->end());
  }
  write_bytes(out, m);
  out.flush();
}

ClientHandshake client_handshake(Reader& in, Writer& out, const TokenCheck& check,
                                 std::chrono::milliseconds refusal_delay) {
  static const char kVersion[] = "RFB 003.008\n";
  out.write(reinterpret_cast<const std::uint8_t*>(kVersion), 12);
  out.flush();
  std::uint8_t version[12];
  in.read(version, 12);
  ClientHandshake result;
  result.minor = parse_version(version, "the client").second;
  auto refuse = [&](std::string reason) {
    std::this_thread::sleep_for(refusal_delay);
    send_security_result(out, result.minor, reason);
    result.refusal = std::move(reason);
    return result;
  };
  if (result.minor >= 7) {
    const std::uint8_t offer[2] = {1, rfb::kSecurityVncAuth};
    out.write(offer, 2);
    out.flush();
    const std::uint8_t chosen = read_u8(in);
    if (chosen != rfb::kSecurityVncAuth)
      return refuse(fmt::format("security type {} was not offered (only VNC Authentication, 2)", chosen));
  } else {
    std::vector<std::uint8_t> m;
    put_u32(m, rfb::kSecurityVncAuth);
    write_bytes(out, m);
    out.flush();
  }
  std::array<std::uint8_t, 16> challenge{}, response{};
  if (RAND_bytes(challenge.data(), static_cast<int>(challenge.size())) != 1)
    throw ProtocolError("no random bytes for a challenge");
  out.write(challenge.data(), challenge.size());
  out.flush();
  in.read(response.data(), response.size());
  if (std::optional<std::string> refusal = check(challenge, response)) return refuse(std::move(*refusal));
  result.admitted = true;
  return result;
}

ServerInit server_handshake(Reader& in, Writer& out, const std::string& password) {
  std::uint8_t version[12];
  in.read(version, 12);
  const int minor = parse_version(version, "the VNC server").second;
  const std::string mine = fmt::format("RFB 003.00{}\n", minor);
  out.write(reinterpret_cast<const std::uint8_t*>(mine.data()), 12);
  out.flush();
  std::uint32_t type = 0;
  if (minor >= 7) {
    const std::uint8_t n = read_u8(in);
    if (n == 0) throw ProtocolError("the VNC server refused the connection: " + read_reason(in));
    std::vector<std::uint8_t> types(n);
    in.read(types.data(), n);
    const std::uint8_t want = password.empty() ? rfb::kSecurityNone : rfb::kSecurityVncAuth;
    if (std::find(types.begin(), types.end(), want) == types.end())
      throw ProtocolError(password.empty()
                              ? "the VNC server asks for a password, and the share has none for it (upstream password)"
                              : "the VNC server does not offer VNC Authentication for the share's upstream password");
    out.write(&want, 1);
    out.flush();
    type = want;
  } else {
    type = read_u32(in);
    if (type == 0) throw ProtocolError("the VNC server refused the connection: " + read_reason(in));
    if (type != rfb::kSecurityNone && type != rfb::kSecurityVncAuth)
      throw ProtocolError(fmt::format("the VNC server wants security type {}", type));
    if ((type == rfb::kSecurityVncAuth) == password.empty())
      throw ProtocolError("the VNC server's security does not match the share's upstream password");
  }
  if (type == rfb::kSecurityVncAuth) {
    std::array<std::uint8_t, 16> challenge{};
    in.read(challenge.data(), 16);
    const auto response = vnc_auth_response(challenge, password);
    out.write(response.data(), 16);
    out.flush();
  }
  if (type == rfb::kSecurityVncAuth || minor >= 8) {
    if (read_u32(in) != 0)
      throw ProtocolError(minor >= 8 ? "the VNC server refused the proxy: " + read_reason(in)
                                     : std::string("the VNC server refused the proxy's password"));
  }
  const std::uint8_t shared = 1;
  out.write(&shared, 1);
  out.flush();
  std::uint8_t init[24];
  in.read(init, 24);
  ServerInit s;
  s.width = get_u16(init);
  s.height = get_u16(init + 2);
  std::memcpy(s.pixel_format.data(), init + 4, 16);
  check_pixel_format(init + 4, "the VNC server");
  const std::uint32_t name_length = get_u32(init + 20);
  if (name_length > 4096) throw ProtocolError(fmt::format("the VNC server sent a name of {} bytes", name_length));
  s.name.resize(name_length);
  in.read(reinterpret_cast<std::uint8_t*>(s.name.data()), name_length);
  return s;
}

}  // namespace deid::share
