// What the parts of the Store (store.h) share: writing and reading the
// files of its state directory, and replacing text. Internal to serve/;
// nothing here prints or exits.
#pragma once

#include <filesystem>
#include <string>

namespace deid::serve {

// Replaces every occurrence of `from` (not empty) in `text` by `to`.
void replace_all(std::string& text, const std::string& from, const std::string& to);
// Writes `text` to `path`; throws std::runtime_error when it cannot.
void write_file(const std::filesystem::path& path, const std::string& text);
// The whole file at `path`; throws std::runtime_error when it cannot be read.
std::string read_file(const std::filesystem::path& path);
// `text` without control characters: a file name as job.yaml and the app
// show it.
std::string printable(const std::string& text);

}  // namespace deid::serve
