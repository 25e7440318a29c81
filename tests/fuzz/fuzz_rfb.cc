// libFuzzer target: the RFB relays of deid share's proxy (src/share/rfb.h,
// docs/fuzzing.md, docs/share.md).
//
// Input: one byte of options, then a message stream. The options' low bit
// chooses the direction (0: client to server, through ClientRelay with
// tight limits; 1: server to client, through ServerRelay), the next two
// bits the bytes per pixel of Raw data (1, 2 or 4). Each message is
// relayed at a clock that advances 7 ms per message, until the stream
// ends or a relay throws.
//
// A relay may throw ProtocolError or ConnectionClosed (bad or truncated
// input); anything else is a defect. And what it let through must be a
// well-formed stream of what the proxy passes: relayed again through a
// fresh relay (no limits in the way), it must come out unchanged and
// without a clipboard message.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "deid/share.h"
#include "fuzz_common.h"
#include "rfb.h"
#include "wire.h"

namespace {

using namespace deid::share;

void set_state(StreamState& state, unsigned bytes_per_pixel) {
  state.width = 320;
  state.height = 200;
  state.bytes_per_pixel = bytes_per_pixel;
}

// Relays `input` one message at a time; returns what passed and whether a
// clipboard message was seen.
std::vector<std::uint8_t> relay(const std::vector<std::uint8_t>& input, bool from_server, unsigned bpp,
                                const InputLimits& limits, std::size_t& clipboard, bool& stopped) {
  StreamState state;
  set_state(state, bpp);
  auto count = [&](const InputEvent& e) {
    if (e.kind == InputEvent::Kind::client_cut_text || e.kind == InputEvent::Kind::server_cut_text) ++clipboard;
  };
  ClientRelay client(limits, state, count);
  ServerRelay server(state, limits.max_cut_text, count);
  MemoryReader in(input.data(), input.size());
  MemoryWriter out;
  const auto t0 = Clock::now();
  stopped = false;
  // What the relay wrote of a message it then gave up on is cut off: the
  // proxy ends the session there, and the peer sees a truncated stream.
  std::size_t complete = 0;
  try {
    for (int i = 0; in.remaining() > 0; ++i) {
      const auto now = t0 + std::chrono::milliseconds(7 * i);
      if (from_server) {
        server.relay_one(in, out);
      } else {
        client.relay_one(in, out, now);
        client.tick(out, now);
      }
      complete = out.bytes.size();
    }
  } catch (const ProtocolError&) {
    stopped = true;
  } catch (const ConnectionClosed&) {
    stopped = true;
  }
  out.bytes.resize(complete);
  return out.bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool from_server = (data[0] & 1) != 0;
  const unsigned bpp = std::array<unsigned, 4>{1, 2, 4, 4}[(data[0] >> 1) & 3];
  const std::vector<std::uint8_t> input(data + 1, data + size);

  InputLimits tight;
  tight.keys = RateLimit{3, 20, 100};
  tight.buttons = RateLimit{2, 10, 50};
  tight.moves_per_second = 30;
  tight.max_cut_text = 4096;
  std::size_t clipboard = 0;
  bool stopped = false;
  const std::vector<std::uint8_t> passed = relay(input, from_server, bpp, tight, clipboard, stopped);

  InputLimits open;
  open.keys = RateLimit{1e9, 1e9, 0};
  open.buttons = RateLimit{1e9, 1e9, 0};
  open.moves_per_second = 1e9;
  std::size_t clipboard_again = 0;
  bool stopped_again = false;
  const std::vector<std::uint8_t> again = relay(passed, from_server, bpp, open, clipboard_again, stopped_again);
  FUZZ_CHECK(!stopped_again, "what the relay passed does not parse again");
  FUZZ_CHECK(again == passed, "what the relay passed changes when relayed again");
  FUZZ_CHECK(clipboard_again == 0, "the relay passed a clipboard message");
  return 0;
}
