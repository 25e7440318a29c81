#include "deid/dataset.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "deid/error.h"

namespace deid {

struct Dictionary::Index {
  absl::flat_hash_map<std::string, std::uint32_t> map;
};

Dictionary::Dictionary() : index_(std::make_unique<Index>()) {}
Dictionary::~Dictionary() = default;
Dictionary::Dictionary(Dictionary&&) noexcept = default;
Dictionary& Dictionary::operator=(Dictionary&&) noexcept = default;

std::uint32_t Dictionary::intern(std::string_view value) {
  auto [it, inserted] = index_->map.try_emplace(absl::string_view(value.data(), value.size()),
                                                static_cast<std::uint32_t>(values_.size()));
  if (inserted) values_.emplace_back(value);
  return it->second;
}

std::int64_t Dictionary::find(std::string_view value) const {
  auto it = index_->map.find(absl::string_view(value.data(), value.size()));
  return it == index_->map.end() ? -1 : static_cast<std::int64_t>(it->second);
}

int Dataset::column_index(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

template <class Reader>
Dataset encode(const std::string& name, Reader&& read) {
  Dataset ds;
  ds.source = name;
  bool header_seen = false;
  std::uint64_t header_line = 0;
  ds.delimiter = read([&](const CsvRecord& rec) {
    if (!header_seen) {
      header_seen = true;
      header_line = rec.line;
      for (std::size_t c = 0; c < rec.fields.size(); ++c) {
        const std::string_view h = rec.fields[c];
        if (h.empty())
          throw InputError(Location{name, rec.line, c + 1, {}},
                           fmt::format("column {} has an empty name in the header row; every column needs a name",
                                       c + 1));
        for (std::size_t d = 0; d < c; ++d)
          if (ds.columns[d].name == h)
            throw InputError(Location{name, rec.line, c + 1, std::string(h)},
                             fmt::format("duplicate column name '{}' in the header row (columns {} and {})", h,
                                         d + 1, c + 1));
        ds.columns.emplace_back();
        ds.columns.back().name = std::string(h);
      }
      return;
    }
    // The reader has checked that the record has one field per column.
    for (std::size_t c = 0; c < rec.fields.size(); ++c) {
      Column& col = ds.columns[c];
      const std::uint32_t code = col.dictionary.intern(rec.fields[c]);
      if (code == col.first_line.size()) col.first_line.push_back(rec.line);
      col.codes.push_back(code);
    }
    ++ds.rows;
  });
  if (!header_seen) throw InputError(Location{name, 0, 0, {}}, "the file is empty: a header row is required");
  if (ds.rows == 0)
    throw InputError(Location{name, header_line, 0, {}}, "the file has a header row but no data records");
  return ds;
}

CsvOptions with_header(CsvOptions options) {
  options.header = true;
  options.ragged = false;
  return options;
}

}  // namespace

Dataset read_dataset(const std::string& path, const CsvOptions& options) {
  return encode(path, [&](auto&& cb) { return read_csv(path, with_header(options), cb); });
}

Dataset read_dataset_text(std::string_view text, const std::string& name, const CsvOptions& options) {
  return encode(name, [&](auto&& cb) { return read_csv_text(text, name, with_header(options), cb); });
}

}  // namespace deid
