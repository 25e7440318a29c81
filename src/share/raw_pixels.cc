// Raw pixels with their free byte set (rfb.h, raw_padding_byte): what lets
// noVNC 1.3 draw x11vnc's Raw pixels (docs/share.md, "Access from a
// browser").
#include <algorithm>

#include "rfb.h"
#include "wire.h"

namespace deid::share {

int raw_padding_byte(const std::uint8_t* f) {
  // f: bits per pixel, depth, big-endian, true colour, red/green/blue max
  // (16 bits each), red/green/blue shift, 3 bytes of padding.
  if (f[0] != 32 || f[3] == 0) return -1;
  std::uint64_t used = 0;
  for (int c = 0; c < 3; ++c) used |= std::uint64_t{get_u16(f + 4 + 2 * c)} << (f[10 + c] & 63);
  for (int k = 0; k < 4; ++k) {
    const int shift = f[2] != 0 ? 8 * (3 - k) : 8 * k;
    if (((used >> shift) & 0xff) == 0) return k;
  }
  return -1;
}

// Raw pixels of 4 bytes passed with byte `padding` of each set to 0xFF
// (raw_padding_byte), in pieces of 64 KiB.
void pass_raw_opaque(Reader& in, Writer& out, std::uint64_t n, unsigned padding) {
  std::uint8_t piece[64 * 1024];  // a multiple of 4: pixels never straddle pieces
  while (n > 0) {
    const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(n, sizeof piece));
    in.read(piece, k);
    for (std::size_t i = padding; i < k; i += 4) piece[i] = 0xff;
    out.write(piece, k);
    n -= k;
  }
}

}  // namespace deid::share
