// Internal to libdeid (and its tests and benchmarks): read_dataset with the
// block and piece sizes exposed, so that tests can make a small text cross
// many blocks and pieces.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "deid/dataset.h"

namespace deid::detail {

struct ReadTuning {
  // Text read per block (a block grows when one record is longer). A block
  // of text is what the reader holds of the file at a time.
  std::size_t block_bytes = std::size_t{16} << 20;
  // Target size of the pieces a block is cut into for parallel encoding
  // (at least this much, up to the next record end). Pieces are cut by
  // bytes, never by thread count, so the result is the same for any number
  // of threads.
  std::size_t piece_bytes = std::size_t{512} << 10;
};

Dataset read_dataset_text(std::string_view text, const std::string& name, const CsvOptions& options,
                          const ReadTuning& tuning);

}  // namespace deid::detail
