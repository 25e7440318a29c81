// The RFB message relays of the proxy (src/share/rfb.h), driven with memory
// streams: what passes, what is dropped, what is rewritten, what ends a
// session.
#include <gtest/gtest.h>

#include <cstring>

#include "rfb.h"
#include "share_fixture.h"

namespace deid::share {
namespace {

using Bytes = std::vector<std::uint8_t>;
using namespace std::chrono_literals;

using testing::concat;
using testing::cut_text;
using testing::key_event;
using testing::pointer_event;

Bytes rect(std::uint16_t x, std::uint16_t y, std::uint16_t w, std::uint16_t h, std::int32_t encoding) {
  Bytes m;
  put_u16(m, x);
  put_u16(m, y);
  put_u16(m, w);
  put_u16(m, h);
  put_u32(m, static_cast<std::uint32_t>(encoding));
  return m;
}

Bytes update_header(std::uint16_t rects) {
  Bytes m{rfb::kFramebufferUpdate, 0};
  put_u16(m, rects);
  return m;
}

// The client side of a session: relays every message of `input` at `now`.
struct ClientSide {
  explicit ClientSide(InputLimits limits = {}) : relay(limits, state, [this](const InputEvent& e) { events.push_back(e); }) {
    state.width = 100;
    state.height = 50;
  }
  void run(const Bytes& input, Clock::time_point now) {
    MemoryReader in(input.data(), input.size());
    while (in.remaining() > 0) relay.relay_one(in, out, now);
  }
  StreamState state;
  std::vector<InputEvent> events;
  MemoryWriter out;
  ClientRelay relay;
};

struct ServerSide {
  ServerSide() : relay(state, 1 << 20, [this](const InputEvent& e) { events.push_back(e); }) {
    state.width = 100;
    state.height = 50;
    state.bytes_per_pixel = 4;
  }
  void run(const Bytes& input) {
    MemoryReader in(input.data(), input.size());
    while (in.remaining() > 0) relay.relay_one(in, out);
  }
  StreamState state;
  std::vector<InputEvent> events;
  MemoryWriter out;
  ServerRelay relay;
};

// Cross-checked with vncdotool 1.4.2's des_encrypt(_vnc_des(password),
// challenge), an independent implementation (Python's cryptography).
TEST(VncAuth, ResponseMatchesAnIndependentImplementation) {
  std::array<std::uint8_t, 16> challenge{};
  for (int i = 0; i < 16; ++i) challenge[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
  auto hex = [](const std::array<std::uint8_t, 16>& a) {
    std::string s;
    for (std::uint8_t b : a) s += "0123456789abcdef"[b >> 4], s += "0123456789abcdef"[b & 15];
    return s;
  };
  EXPECT_EQ(hex(vnc_auth_response(challenge, "password")), "b866924125c8eebb9debc1db61c538e2");
  for (int i = 0; i < 16; ++i) challenge[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(16 + i);
  EXPECT_EQ(hex(vnc_auth_response(challenge, "Ab3xY9qZ")), "99cbfdd5e289dd6fd00ba71e35ac5492");
  // Only the first 8 bytes count (the protocol's DES key).
  EXPECT_EQ(vnc_auth_response(challenge, "Ab3xY9qZ"), vnc_auth_response(challenge, "Ab3xY9qZ-and-more"));
}

TEST(ClientRelay, ClientCutTextIsDroppedAndTheStreamGoesOn) {
  ClientSide c;
  c.run(concat({cut_text(rfb::kClientCutText, "123-45-6789 Jane Doe"), key_event(true, 'a'), key_event(false, 'a')}),
        Clock::now());
  EXPECT_EQ(c.out.bytes, concat({key_event(true, 'a'), key_event(false, 'a')}));
  ASSERT_EQ(c.events.size(), 3u);
  EXPECT_EQ(c.events[0].kind, InputEvent::Kind::client_cut_text);
  EXPECT_EQ(c.events[0].length, 20u);
  EXPECT_EQ(c.relay.counts.client_cut_text_dropped, 1u);
}

TEST(ClientRelay, ClipboardLongerThanTheLimitEndsTheSession) {
  InputLimits limits;
  limits.max_cut_text = 16;
  ClientSide c(limits);
  EXPECT_THROW(c.run(cut_text(rfb::kClientCutText, std::string(17, 'x')), Clock::now()), ProtocolError);
  EXPECT_TRUE(c.out.bytes.empty());
}

TEST(ClientRelay, HugeClipboardLengthIsRefusedBeforeReading) {
  ClientSide c;
  Bytes m{rfb::kClientCutText, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  EXPECT_THROW(c.run(m, Clock::now()), ProtocolError);
}

TEST(ClientRelay, SetEncodingsKeepsOnlyWhatTheProxyParses) {
  ClientSide c;
  Bytes m{rfb::kSetEncodings, 0};
  const std::vector<std::int32_t> asked{7 /* Tight */, 16, -239 /* Cursor */, 0, 5 /* Hextile */, 1, -223, 16,
                                        -224 /* LastRect */, 6 /* zlib */};
  put_u16(m, static_cast<std::uint16_t>(asked.size()));
  for (std::int32_t e : asked) put_u32(m, static_cast<std::uint32_t>(e));
  c.run(m, Clock::now());
  Bytes expected{rfb::kSetEncodings, 0};
  put_u16(expected, 4);
  for (std::int32_t e : {16, 0, 1, -223}) put_u32(expected, static_cast<std::uint32_t>(e));
  EXPECT_EQ(c.out.bytes, expected);
  EXPECT_EQ(c.relay.counts.encodings_removed, 6u);
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].asked, asked);
}

TEST(ClientRelay, KeyPressesBeyondTheBurstAreDroppedAndCounted) {
  InputLimits limits;
  limits.keys = RateLimit{5, 1, 0};
  ClientSide c(limits);
  const auto t0 = Clock::now();
  for (std::uint32_t k = 0; k < 20; ++k) c.run(concat({key_event(true, 'a' + k), key_event(false, 'a' + k)}), t0);
  // The first five presses and their releases pass; the other presses and
  // their releases do not.
  Bytes expected;
  for (std::uint32_t k = 0; k < 5; ++k) expected = concat({expected, key_event(true, 'a' + k), key_event(false, 'a' + k)});
  EXPECT_EQ(c.out.bytes, expected);
  EXPECT_EQ(c.relay.counts.keys, 20u);
  EXPECT_EQ(c.relay.counts.keys_dropped, 15u);
  std::size_t rate_limited = 0, orphan_releases = 0;
  for (const InputEvent& e : c.events) {
    rate_limited += e.verdict == InputEvent::Verdict::rate_limited;
    orphan_releases += e.verdict == InputEvent::Verdict::release_of_dropped;
  }
  EXPECT_EQ(rate_limited, 15u);
  EXPECT_EQ(orphan_releases, 15u);
  // Two seconds later two more presses pass at 1 per second.
  c.out.bytes.clear();
  for (std::uint32_t k = 0; k < 4; ++k) c.run(key_event(true, 'A' + k), t0 + 2s);
  EXPECT_EQ(c.out.bytes, concat({key_event(true, 'A'), key_event(true, 'B')}));
}

TEST(ClientRelay, PerMinuteLimitBoundsASteadyStream) {
  InputLimits limits;
  limits.keys = RateLimit{10, 10, 12};
  ClientSide c(limits);
  const auto t0 = Clock::now();
  // 10 per second for 6 seconds: the minute's 12 (plus 1 refilled per
  // 5 s) pass, nothing more.
  for (int i = 0; i < 60; ++i) c.run(key_event(true, 'x'), t0 + std::chrono::milliseconds(100 * i));
  EXPECT_EQ(c.relay.counts.keys, 60u);
  EXPECT_EQ(c.relay.counts.keys - c.relay.counts.keys_dropped, 13u);
}

TEST(ClientRelay, AHeldKeyIsReleasedEvenWhenTheLimitIsExhausted) {
  InputLimits limits;
  limits.keys = RateLimit{1, 0.001, 0};
  ClientSide c(limits);
  const auto t0 = Clock::now();
  c.run(concat({key_event(true, 0xffe1 /* Shift */), key_event(true, 'b'), key_event(false, 0xffe1)}), t0);
  EXPECT_EQ(c.out.bytes, concat({key_event(true, 0xffe1), key_event(false, 0xffe1)}));
}

TEST(ClientRelay, ButtonPressesAreLimitedAndReleasesOfForwardedPressesPass) {
  InputLimits limits;
  limits.buttons = RateLimit{1, 0.001, 0};
  limits.moves_per_second = 1000;
  ClientSide c(limits);
  const auto t0 = Clock::now();
  c.run(pointer_event(1, 10, 10), t0);  // press left: passes
  c.run(pointer_event(3, 11, 10), t0);  // press right too: dropped (moves on with left held)
  c.run(pointer_event(2, 12, 10), t0);  // left released, right still held by the client
  c.run(pointer_event(0, 13, 10), t0);  // right released
  EXPECT_EQ(c.out.bytes, concat({pointer_event(1, 10, 10), pointer_event(1, 11, 10), pointer_event(0, 12, 10),
                                 pointer_event(0, 13, 10)}));
  EXPECT_EQ(c.relay.counts.buttons, 2u);
  EXPECT_EQ(c.relay.counts.buttons_dropped, 1u);
}

TEST(ClientRelay, ExcessPointerMovesAreCoalescedToTheLatestPosition) {
  InputLimits limits;
  limits.moves_per_second = 2;
  ClientSide c(limits);
  const auto t0 = Clock::now();
  for (std::uint16_t x = 0; x < 10; ++x) c.run(pointer_event(0, x, 5), t0);
  EXPECT_EQ(c.out.bytes, concat({pointer_event(0, 0, 5), pointer_event(0, 1, 5)}));
  EXPECT_EQ(c.relay.counts.moves_coalesced, 8u);
  EXPECT_FALSE(c.relay.tick(c.out, t0 + 100ms));
  EXPECT_TRUE(c.relay.tick(c.out, t0 + 600ms));
  EXPECT_EQ(c.out.bytes, concat({pointer_event(0, 0, 5), pointer_event(0, 1, 5), pointer_event(0, 9, 5)}));
  EXPECT_FALSE(c.relay.tick(c.out, t0 + 2s));  // nothing left to send
}

TEST(ClientRelay, SetPixelFormatChangesTheSizeOfRawPixels) {
  ClientSide c;
  Bytes m{rfb::kSetPixelFormat, 0, 0, 0, 8, 8, 0, 1, 0, 7, 0, 7, 0, 3, 0, 3, 6, 0, 0, 0};
  c.run(m, Clock::now());
  EXPECT_EQ(c.out.bytes, m);
  EXPECT_EQ(c.state.bytes_per_pixel.load(), 1u);
  m[4] = 24;  // 24 bits per pixel: not an RFB pixel format
  EXPECT_THROW(c.run(m, Clock::now()), ProtocolError);
}

TEST(ClientRelay, UnknownOrTruncatedMessagesEndTheSession) {
  for (std::uint8_t type : {1, 7, 150, 248, 250, 251, 255}) {
    ClientSide c;
    EXPECT_THROW(c.run(Bytes{type, 0, 0, 0, 0, 0, 0, 0}, Clock::now()), ProtocolError) << int{type};
  }
  ClientSide c;
  EXPECT_THROW(c.run(Bytes{rfb::kKeyEvent, 1, 0}, Clock::now()), ConnectionClosed);
  EXPECT_THROW(c.run(Bytes{rfb::kSetEncodings, 0, 0xff, 0xff, 0, 0}, Clock::now()), ConnectionClosed);
}

TEST(ServerRelay, ServerCutTextIsDroppedAndTheStreamGoesOn) {
  ServerSide s;
  s.run(concat({cut_text(rfb::kServerCutText, "a cell of the table"), Bytes{rfb::kBell}}));
  EXPECT_EQ(s.out.bytes, Bytes{rfb::kBell});
  EXPECT_EQ(s.relay.cut_text_dropped, 1u);
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].kind, InputEvent::Kind::server_cut_text);
}

TEST(ServerRelay, UpdatesOfTheParsedEncodingsPassUnchanged) {
  ServerSide s;
  Bytes raw = rect(0, 0, 2, 3, rfb::kRaw);
  raw.resize(raw.size() + 2 * 3 * 4, 0xab);
  Bytes copy = rect(10, 10, 5, 5, rfb::kCopyRect);
  put_u16(copy, 0);
  put_u16(copy, 0);
  Bytes zrle = rect(90, 40, 10, 10, rfb::kZrle);
  put_u32(zrle, 7);
  for (std::uint8_t b : {1, 2, 3, 4, 5, 6, 7}) zrle.push_back(b);
  Bytes colours{rfb::kSetColourMapEntries, 0, 0, 0, 0, 2};
  colours.resize(colours.size() + 12, 0x11);
  const Bytes all = concat({update_header(3), raw, copy, zrle, colours, Bytes{rfb::kBell}});
  s.run(all);
  EXPECT_EQ(s.out.bytes, all);
}

// noVNC 1.3 draws a Raw pixel whose free byte is 0 transparent
// (raw_padding_byte): the proxy sets that byte, and only that byte.
TEST(ServerRelay, RawPixelsGetTheirFreeByteSetWhenTheFormatHasOne) {
  // x11vnc's format (little-endian, red at 16) and noVNC's (red at 0): byte 3 is free.
  const Bytes server{32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0};
  const Bytes novnc{32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0};
  const Bytes big{32, 24, 1, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0};
  const Bytes full{32, 32, 0, 1, 0x03, 0xff, 0x03, 0xff, 0x03, 0xff, 20, 10, 0, 0, 0, 0};
  const Bytes eight{8, 8, 0, 1, 0, 7, 0, 7, 0, 3, 0, 3, 6, 0, 0, 0};
  EXPECT_EQ(deid::share::raw_padding_byte(server.data()), 3);
  EXPECT_EQ(deid::share::raw_padding_byte(novnc.data()), 3);
  EXPECT_EQ(deid::share::raw_padding_byte(big.data()), 0);
  EXPECT_EQ(deid::share::raw_padding_byte(full.data()), -1);  // 10-bit colours: no byte entirely free
  EXPECT_EQ(deid::share::raw_padding_byte(eight.data()), -1);
  ServerSide s;
  s.state.raw_padding = 3;
  Bytes raw = rect(0, 0, 2, 1, rfb::kRaw);
  const Bytes pixels{0, 153, 102, 0, 1, 2, 3, 0};
  const Bytes header = concat({update_header(1), raw});
  s.run(concat({header, pixels, Bytes{rfb::kBell}}));
  EXPECT_EQ(s.out.bytes, concat({header, Bytes{0, 153, 102, 0xff, 1, 2, 3, 0xff}, Bytes{rfb::kBell}}));
}

TEST(ServerRelay, DesktopSizeMovesTheBounds) {
  ServerSide s;
  s.run(concat({update_header(1), rect(0, 0, 200, 100, rfb::kDesktopSize)}));
  EXPECT_EQ(s.state.width.load(), 200u);
  Bytes zrle = rect(150, 60, 10, 10, rfb::kZrle);
  put_u32(zrle, 0);
  s.run(concat({update_header(1), zrle}));
  EXPECT_THROW(s.run(concat({update_header(1), rect(0, 0, 0, 100, rfb::kDesktopSize)})), ProtocolError);
}

TEST(ServerRelay, HostileUpdatesEndTheSession) {
  {
    ServerSide s;  // a rectangle outside the 100x50 desktop
    EXPECT_THROW(s.run(concat({update_header(1), rect(90, 0, 20, 10, rfb::kRaw)})), ProtocolError);
  }
  {
    ServerSide s;  // coordinates that overflow 16 bits
    EXPECT_THROW(s.run(concat({update_header(1), rect(65535, 65535, 65535, 65535, rfb::kRaw)})), ProtocolError);
  }
  {
    ServerSide s;  // an encoding that was not offered (Tight)
    EXPECT_THROW(s.run(concat({update_header(1), rect(0, 0, 1, 1, 7)})), ProtocolError);
  }
  {
    ServerSide s;  // 4 GB of ZRLE for a 10x10 rectangle
    Bytes zrle = rect(0, 0, 10, 10, rfb::kZrle);
    put_u32(zrle, 0xffffffff);
    EXPECT_THROW(s.run(concat({update_header(1), zrle})), ProtocolError);
  }
  {
    ServerSide s;  // a copy from outside the desktop
    Bytes copy = rect(0, 0, 10, 10, rfb::kCopyRect);
    put_u16(copy, 95);
    put_u16(copy, 0);
    EXPECT_THROW(s.run(concat({update_header(1), copy})), ProtocolError);
  }
  {
    ServerSide s;  // truncated Raw data
    Bytes raw = rect(0, 0, 10, 10, rfb::kRaw);
    raw.resize(raw.size() + 17);
    EXPECT_THROW(s.run(concat({update_header(1), raw})), ConnectionClosed);
  }
  for (std::uint8_t type : {4, 5, 150, 248, 255}) {
    ServerSide s;
    EXPECT_THROW(s.run(Bytes{type, 0, 0, 0}), ProtocolError) << int{type};
  }
}

}  // namespace
}  // namespace deid::share
