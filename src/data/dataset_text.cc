// A table as CSV text (dataset.h, dataset_csv_text).
#include "deid/csv.h"
#include "deid/dataset.h"

namespace deid {

std::string dataset_csv_text(const Dataset& data, char delimiter) {
  std::string text;
  for (std::size_t c = 0; c < data.columns.size(); ++c) {
    if (c > 0) text += delimiter;
    append_csv_field(text, data.columns[c].name, delimiter);
  }
  text += '\n';
  for (std::uint64_t r = 0; r < data.rows; ++r) {
    for (std::size_t c = 0; c < data.columns.size(); ++c) {
      if (c > 0) text += delimiter;
      const Column& col = data.columns[c];
      append_csv_field(text, col.dictionary.value(col.codes[r]), delimiter);
    }
    text += '\n';
  }
  return text;
}

}  // namespace deid
