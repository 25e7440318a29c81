#include "deid/output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <filesystem>
#include <random>
#include <streambuf>

#include <fmt/format.h>

#include "deid/error.h"

namespace deid {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw IoError(Location{path, 0, 0, {}}, problem);
}

std::string reason(int err) { return std::strerror(err); }

// --- The registry of unpublished temporaries ---------------------------------
//
// A fixed table, so that a signal handler can walk it without allocating or
// locking. A slot is free (0), being filled (1) or holds a temporary (2):
// its directory's descriptor and its name there. With more unpublished
// outputs at once than slots, the extra ones are cleaned up only by their
// destructors, not on a signal.
struct PendingSlot {
  std::atomic<int> state{0};
  int dir = -1;
  char name[NAME_MAX + 1];
};
std::array<PendingSlot, 64> g_pending;
static_assert(std::atomic<int>::is_always_lock_free);

int register_pending(int dir, const std::string& name) {
  if (name.size() > NAME_MAX) return -1;
  for (std::size_t i = 0; i < g_pending.size(); ++i) {
    int expected = 0;
    if (!g_pending[i].state.compare_exchange_strong(expected, 1)) continue;
    g_pending[i].dir = dir;
    std::memcpy(g_pending[i].name, name.c_str(), name.size() + 1);
    g_pending[i].state.store(2);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_pending(int slot) {
  if (slot >= 0) g_pending[static_cast<std::size_t>(slot)].state.store(0);
}

// Publishing and terminating signals: the number of batches publishing
// (> 0), none (0), or -1 once a handler has decided to end the process.
std::atomic<int> g_publishing{0};
std::atomic<int> g_deferred_signal{0};
std::atomic<bool> g_published{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// The target with symbolic links resolved (as far as they exist).
std::string resolve(const std::string& path) {
  // Absolute first: weakly_canonical keeps a relative path relative when
  // no prefix of it exists, and its parent would then be "".
  std::error_code ec;
  const fs::path absolute = fs::absolute(fs::path(path), ec);
  if (ec) return path;
  fs::path p = fs::weakly_canonical(absolute, ec);
  if (ec) p = absolute.lexically_normal();
  return p.string();
}

std::string random_suffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^
                                          (static_cast<std::uint64_t>(::getpid()) << 32)};
  return fmt::format("{:016x}", rng());
}

// Read-only by its permission bits: no write bit at all, or none the caller
// has. access(2) alone would let root replace a 0444 file.
bool read_only(const struct stat& st, int fd, const char* name) {
  if ((st.st_mode & 0222) == 0) return true;
  return ::faccessat(fd, name, W_OK, AT_EACCESS) != 0 && errno == EACCES;
}

}  // namespace

// --- OutputTarget --------------------------------------------------------------

struct OutputTarget::State {
  std::string path, role, resolved, name;
  int dir = -1;           // the target's directory, open
  bool dir_syncable = false;  // opened for reading (fsync works), not O_PATH
  ~State() {
    if (dir >= 0) ::close(dir);
  }
};

OutputTarget::OutputTarget(std::string path, std::string role) {
  auto st = std::make_shared<State>();
  st->path = std::move(path);
  st->role = std::move(role);
  st->resolved = resolve(st->path);
  const fs::path t(st->resolved);
  st->name = t.filename().string();
  const std::string dir = t.parent_path().string();
  if (st->name.empty() || st->name == "." || st->name == "..")
    fail(st->path, fmt::format("the {} is a directory; give a file name", st->role));
  st->dir = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  st->dir_syncable = st->dir >= 0;
  // A directory the caller may write and search but not read: held by
  // O_PATH, which renameat() and openat() take (only its fsync is lost).
  if (st->dir < 0 && errno == EACCES) st->dir = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (st->dir < 0) {
    const int err = errno;
    if (err == ENOTDIR) fail(st->path, fmt::format("'{}' is not a directory", dir));
    fail(st->path, fmt::format("the directory '{}' of the {} does not exist ({})", dir, st->role, reason(err)));
  }
  state_ = std::move(st);
}

const std::string& OutputTarget::path() const { return state_->path; }
const std::string& OutputTarget::role() const { return state_->role; }
const std::string& OutputTarget::resolved() const { return state_->resolved; }

const OutputTarget& CheckedFiles::output(std::string_view role) const {
  for (const auto& [r, t] : outputs_)
    if (r == role) return t;
  throw Error(fmt::format("CheckedFiles::output: no output '{}' was checked", role));
}

// --- check_files -------------------------------------------------------------

CheckedFiles check_files(const std::vector<FileUse>& reads, const std::vector<FileUse>& writes) {
  struct Identity {
    dev_t dev;
    ino_t ino;
    std::string name;  // for an output that does not exist yet: its name in directory (dev, ino)
    bool device;       // a character device: may be several outputs
    const FileUse* use;
  };
  std::vector<Identity> inputs;
  for (const FileUse& r : reads) {
    if (r.path.empty()) continue;
    struct stat st {};
    if (::stat(r.path.c_str(), &st) == 0) inputs.push_back({st.st_dev, st.st_ino, {}, false, &r});
  }
  CheckedFiles checked;
  std::vector<Identity> outputs;
  for (const FileUse& w : writes) {
    if (w.path.empty()) {
      checked.outputs_.emplace_back(w.role, OutputTarget{});
      continue;
    }
    // Resolved once, here: what is checked below is the directory and name
    // the output will be written to (OutputTarget), whatever the path
    // becomes during the run.
    OutputTarget target(w.path, w.role);
    const std::string& resolved = target.resolved();
    const int dir = target.state_->dir;
    const char* name = target.state_->name.c_str();
    const std::string shown = resolved == w.path ? w.path : fmt::format("{} (that is, {})", w.path, resolved);
    struct stat st {};
    Identity id{};
    id.use = &w;
    const bool exists = ::fstatat(dir, name, &st, 0) == 0;
    if (exists) {
      if (S_ISDIR(st.st_mode))
        fail(w.path, fmt::format("the {} is a directory; give a file name", w.role));
      if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
        fail(w.path, fmt::format("the {} is a {}; deid writes regular files, character devices and FIFOs only",
                                 w.role, S_ISBLK(st.st_mode) ? "block device" : "socket"));
      id.dev = st.st_dev;
      id.ino = st.st_ino;
      id.device = S_ISCHR(st.st_mode);
      for (const Identity& in : inputs)
        if (in.dev == id.dev && in.ino == id.ino)
          fail(w.path, fmt::format("the {} is the same file as the {} '{}'{}: deid never writes a file it reads; "
                                   "choose another path for the {}",
                                   w.role, in.use->role, in.use->path,
                                   in.use->path == w.path ? "" : " (a link to it, or the same file by another name)",
                                   w.role));
      if (S_ISREG(st.st_mode) && read_only(st, dir, name))
        fail(w.path, fmt::format("the {} exists and is read-only (mode {:04o}); deid does not replace a protected "
                                 "file",
                                 w.role, st.st_mode & 07777));
    }
    // The directory the file is (or will be) in must be writable: a regular
    // output is replaced by a rename inside it.
    struct stat ds {};
    if (::fstat(dir, &ds) != 0) fail(w.path, fmt::format("cannot examine the directory of the {} ({})", w.role,
                                                         reason(errno)));
    const std::string dir_name = fs::path(resolved).parent_path().string();
    if ((!exists || S_ISREG(st.st_mode)) &&
        ((ds.st_mode & 0222) == 0 || ::faccessat(dir, ".", W_OK | X_OK, 0) != 0))
      fail(w.path, fmt::format("cannot write the {} in the directory '{}' ({})", w.role, dir_name,
                               (ds.st_mode & 0222) == 0 ? fmt::format("it is read-only, mode {:04o}",
                                                                      ds.st_mode & 07777)
                                                        : reason(errno)));
    if (!exists) {
      id.dev = ds.st_dev;
      id.ino = ds.st_ino;
      id.name = name;
      id.device = false;
    }
    for (const Identity& o : outputs)
      if (o.dev == id.dev && o.ino == id.ino && o.name == id.name && !(o.device && id.device))
        fail(w.path, fmt::format("the {} and the {} are the same file{} ({}); give each output its own path",
                                 o.use->role, w.role, o.use->path == w.path ? "" : fmt::format(" ('{}')", o.use->path),
                                 shown));
    outputs.push_back(std::move(id));
    checked.outputs_.emplace_back(w.role, std::move(target));
  }
  return checked;
}

// --- OutputFile --------------------------------------------------------------

// A stream buffer over a file descriptor that hashes what it writes and
// keeps the first write error (errno) instead of throwing from inside the
// stream.
class OutputFile::Buffer final : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), buf_(1 << 20) { setp(buf_.data(), buf_.data() + buf_.size()); }

  int error() const { return error_; }
  std::uint64_t bytes() const { return bytes_; }
  std::string digest() { return sha_.hex(); }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (error_) return 0;
    if (n <= epptr() - pptr()) {
      std::memcpy(pptr(), s, static_cast<std::size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    if (!drain()) return 0;
    if (static_cast<std::size_t>(n) >= buf_.size()) return write_all(s, static_cast<std::size_t>(n)) ? n : 0;
    std::memcpy(pptr(), s, static_cast<std::size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }

 private:
  bool drain() {
    const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
    setp(buf_.data(), buf_.data() + buf_.size());
    return n == 0 ? error_ == 0 : write_all(buf_.data(), n);
  }
  bool write_all(const char* p, std::size_t n) {
    if (error_) return false;
    sha_.update(std::string_view(p, n));
    bytes_ += n;
    while (n > 0) {
      const ssize_t put = ::write(fd_, p, n);
      if (put < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += put;
      n -= static_cast<std::size_t>(put);
    }
    return true;
  }

  int fd_;
  std::vector<char> buf_;
  Sha256 sha_;
  std::uint64_t bytes_ = 0;
  int error_ = 0;
};

OutputFile::OutputFile(std::string path, std::string role)
    : OutputFile(OutputTarget(std::move(path), std::move(role))) {}

OutputFile::OutputFile(const OutputTarget& target) : target_(target) {
  if (target_.empty()) throw Error("OutputFile: no target");
  const OutputTarget::State& t = *target_.state_;
  path_ = t.path;
  role_ = t.role;
  // Looked at in the directory fixed by the check, without following a
  // symbolic link: one that appeared since is replaced, never followed.
  struct stat st {};
  const bool exists = ::fstatat(t.dir, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (exists && S_ISDIR(st.st_mode)) fail(path_, fmt::format("the {} is a directory; give a file name", role_));
  if (exists && (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)))
    fail(path_, fmt::format("the {} is a {}; deid writes regular files, character devices and FIFOs only", role_,
                            S_ISBLK(st.st_mode) ? "block device" : "socket"));
  if (exists && S_ISREG(st.st_mode) && read_only(st, t.dir, t.name.c_str()))
    fail(path_, fmt::format("the {} exists and is read-only (mode {:04o}); deid does not replace a protected file",
                            role_, st.st_mode & 07777));
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    // A device or a FIFO: written in place (a rename would replace the
    // device node itself).
    fd_ = ::openat(t.dir, t.name.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) fail(path_, fmt::format("cannot open the {} for writing ({})", role_, reason(errno)));
  } else {
    for (int attempt = 0; fd_ < 0; ++attempt) {
      temporary_ = fmt::format(".{}.deid-{}.tmp", t.name, random_suffix());
      if (temporary_.size() > NAME_MAX) temporary_ = fmt::format(".deid-{}.tmp", random_suffix());
      // Register before creating: a signal between the two finds nothing to
      // remove, rather than a file nobody will remove.
      slot_ = register_pending(t.dir, temporary_);
      fd_ = ::openat(t.dir, temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd_ >= 0) break;
      const int err = errno;
      unregister_pending(slot_);
      slot_ = -1;
      if (err != EEXIST || attempt > 16)
        fail(path_, fmt::format("cannot create the {} in '{}' ({})", role_,
                                fs::path(t.resolved).parent_path().string(), reason(err)));
    }
    // Replacing a file keeps its permissions: an output its owner made
    // private stays private.
    if (exists && S_ISREG(st.st_mode)) (void)::fchmod(fd_, st.st_mode & 07777);
  }
  buffer_ = std::make_unique<Buffer>(fd_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

void OutputFile::owner_only() {
  if (temporary_.empty()) return;  // a device or FIFO written in place keeps its mode
  if (::fchmod(fd_, 0600) != 0) fail(path_, fmt::format("cannot make the {} private ({})", role_, reason(errno)));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty() && !published_) ::unlinkat(target_.state_->dir, temporary_.c_str(), 0);
  unregister_pending(slot_);
}

std::ostream& OutputFile::stream() { return *stream_; }

FileDigest OutputFile::finish(const std::string& digest_role) {
  stream_->flush();
  if (buffer_->error() != 0 || !*stream_)
    fail(path_, fmt::format("cannot write the {} ({})", role_,
                            reason(buffer_->error() != 0 ? buffer_->error() : EIO)));
  // fsync: the data is on disk before the rename makes it the target. A
  // device written in place may not support it (EINVAL), which is no error.
  if (::fsync(fd_) != 0 && (temporary_.size() > 0 || (errno != EINVAL && errno != EROFS)))
    fail(path_, fmt::format("cannot write the {} ({})", role_, reason(errno)));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(path_, fmt::format("cannot write the {} ({})", role_, reason(errno)));
  finished_ = true;
  return FileDigest{digest_role, path_, buffer_->digest(), buffer_->bytes(), {}, 0};
}

void OutputFile::publish() {
  if (!finished_ || published_) throw Error("OutputFile::publish: not finished, or published twice");
  if (!temporary_.empty()) {
    const OutputTarget::State& t = *target_.state_;
    if (::renameat(t.dir, temporary_.c_str(), t.dir, t.name.c_str()) != 0)
      fail(path_, fmt::format("cannot replace the {} ({})", role_, reason(errno)));
    g_published.store(true);
    // The rename itself is durable once the directory is synced.
    if (t.dir_syncable) (void)::fsync(t.dir);
  }
  published_ = true;
  unregister_pending(slot_);
  slot_ = -1;
}

// --- Publishing as one step ----------------------------------------------------

PublishBatch::PublishBatch() {
  int s = g_publishing.load();
  for (;;) {
    // A handler on another thread is ending the process: it removes the
    // temporaries and exits; starting to rename now would race it.
    while (s < 0) {
      ::pause();
      s = g_publishing.load();
    }
    if (g_publishing.compare_exchange_weak(s, s + 1)) break;
  }
}

PublishBatch::~PublishBatch() {
  if (g_publishing.fetch_sub(1) != 1) return;
  if (const int sig = g_deferred_signal.exchange(0); sig != 0) ::raise(sig);
}

bool defer_signal_while_publishing(int sig) noexcept {
  // Recorded first, so that a batch ending between this and the test below
  // still raises it.
  g_deferred_signal.store(sig);
  int s = g_publishing.load();
  for (;;) {
    if (s > 0) return true;
    if (g_publishing.compare_exchange_weak(s, -1)) return false;
  }
}

bool outputs_published() noexcept { return g_published.load(); }

void publish_all(const std::vector<OutputFile*>& files) {
  PublishBatch batch;
  for (OutputFile* f : files)
    if (f != nullptr) f->publish();
}

void publish_all(std::initializer_list<OutputFile*> files) { publish_all(std::vector<OutputFile*>(files)); }

FileDigest write_file_atomically(const std::string& path, const std::string& role, std::string_view text,
                                 const std::string& digest_role) {
  return write_file_atomically(OutputTarget(path, role), text, digest_role);
}

FileDigest write_file_atomically(const OutputTarget& target, std::string_view text, const std::string& digest_role) {
  OutputFile f(target);
  f.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  FileDigest d = f.finish(digest_role);
  f.publish();
  return d;
}

void discard_unpublished_outputs() noexcept {
  for (PendingSlot& s : g_pending)
    if (s.state.load() == 2) ::unlinkat(s.dir, s.name, 0);
}

}  // namespace deid
