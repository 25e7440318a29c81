// The share's configuration file (docs/share.md, "Settings") into
// ProxyOptions.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "deid/share.h"

namespace deid::share {

namespace fs = std::filesystem;

namespace {

class Reader {
 public:
  explicit Reader(fs::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& problem) const {
    const std::uint64_t line = node.IsDefined() ? static_cast<std::uint64_t>(node.Mark().line + 1) : 0;
    throw JobError(Location{file_.string(), line, 0, {}}, problem);
  }

  void keys(const YAML::Node& map, const std::string& where, const std::set<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, fmt::format("{} must be a mapping", where));
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      if (allowed.count(key) == 0) {
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, fmt::format("unknown key '{}' in {} (allowed: {})", key, where, list));
      }
    }
  }

  std::string text(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, fmt::format("{} must be a string", what));
    return n.as<std::string>();
  }

  double number(const YAML::Node& n, const std::string& what) const {
    try {
      if (n.IsScalar()) return n.as<double>();
    } catch (const YAML::Exception&) {
    }
    fail(n, fmt::format("{} must be a number, got '{}'", what, n.IsScalar() ? n.as<std::string>() : "a collection"));
  }

  fs::path path(const YAML::Node& n, const std::string& what) const {
    const fs::path p = text(n, what);
    return p.is_absolute() ? p : file_.parent_path() / p;
  }

  RateLimit rate(const YAML::Node& n, const std::string& where, RateLimit r) const {
    keys(n, where, {"burst", "per-second", "per-minute"});
    if (n["burst"]) r.burst = number(n["burst"], where + ".burst");
    if (n["per-second"]) r.per_second = number(n["per-second"], where + ".per-second");
    if (n["per-minute"]) r.per_minute = number(n["per-minute"], where + ".per-minute");
    return r;
  }

 private:
  fs::path file_;
};

// The VNC server's password, from a file only its owner may read.
std::string read_secret(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw IoError(Location{path.string(), 0, 0, {}}, fmt::format("cannot read: {}", std::strerror(errno)));
  if ((st.st_mode & 077) != 0)
    throw IoError(Location{path.string(), 0, 0, {}}, "others may read this password file: chmod 600 it");
  std::ifstream in(path, std::ios::binary);
  std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty()) throw IoError(Location{path.string(), 0, 0, {}}, "the password file is empty");
  return secret;
}

// desktop.table and desktop.explorer-port: the data explorer the kiosk
// shows instead of a url (docs/share.md, "The data explorer").
void read_explorer(const Reader& r, const YAML::Node& desktop, DesktopOptions& d) {
  if (desktop["url"])
    r.fail(desktop["url"], "desktop has both 'url' and 'table': the kiosk shows either a page or the data explorer");
  if (!desktop["table"]) r.fail(desktop, "desktop.explorer-port without desktop.table (the table to explore)");
  d.table = r.path(desktop["table"], "desktop.table");
  std::error_code ec;
  if (!fs::is_regular_file(d.table, ec))
    r.fail(desktop["table"], fmt::format("desktop.table '{}' is not a file", d.table.string()));
  if (const YAML::Node port = desktop["explorer-port"]) {
    const double n = r.number(port, "desktop.explorer-port");
    if (n < 0 || n > 65535 || n != static_cast<double>(static_cast<int>(n)))
      r.fail(port, "desktop.explorer-port must be a port, 1 to 65535 (0: any free port)");
    d.explorer_port = static_cast<int>(n);
  }
}

// The `web` section: browser access through websockify and noVNC
// (share.h, WebOptions).
WebOptions read_web(const Reader& r, const YAML::Node& web) {
  WebOptions w;
  if (web.IsNull()) return w;  // `web:` alone: every default
  r.keys(web, "web", {"listen", "novnc", "websockify", "log"});
  if (web["listen"]) {
    w.listen = r.text(web["listen"], "web.listen");
    try {
      check_web_listen(w.listen);
    } catch (const InputError& e) {
      r.fail(web["listen"], e.problem());
    }
  }
  if (web["novnc"]) w.novnc = r.path(web["novnc"], "web.novnc");
  if (const YAML::Node command = web["websockify"]) {
    if (!command.IsSequence() || command.size() == 0)
      r.fail(command, "web.websockify must be a list: the command and its arguments");
    w.command.clear();
    for (const YAML::Node& arg : command) w.command.push_back(r.text(arg, "web.websockify"));
  }
  if (web["log"]) w.log = r.path(web["log"], "web.log");
  return w;
}

}  // namespace

ShareConfig read_share_config(const fs::path& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::BadFile&) {
    throw IoError(Location{path.string(), 0, 0, {}}, "cannot read the share's configuration");
  } catch (const YAML::Exception& e) {
    throw JobError(Location{path.string(), static_cast<std::uint64_t>(e.mark.line + 1), 0, {}}, e.msg);
  }
  const Reader r(path);
  r.keys(root, "the share's configuration",
         {"listen", "upstream", "desktop", "tokens", "audit", "sessions", "limits", "web"});
  ShareConfig config;
  ProxyOptions& o = config.proxy;
  if (root["listen"]) o.listen = r.text(root["listen"], "listen");
  if (root["upstream"] && root["desktop"])
    r.fail(root["desktop"], "a configuration has either 'upstream' (a VNC server of yours) or 'desktop' (one the "
                            "share starts), not both");
  if (const YAML::Node desktop = root["desktop"]) {
    r.keys(desktop, "desktop", {"size", "url", "table", "explorer-port", "browser", "recordings"});
    DesktopOptions d;
    if (desktop["table"] || desktop["explorer-port"]) {
      read_explorer(r, desktop, d);
    } else {
      if (!desktop["url"])
        r.fail(desktop, "desktop has no 'url' (the page the kiosk shows) and no 'table' (a released table for the "
                        "data explorer)");
      d.url = r.text(desktop["url"], "desktop.url");
      try {
        url_origin(d.url);
      } catch (const InputError& e) {
        r.fail(desktop["url"], e.problem());
      }
    }
    if (desktop["size"]) {
      const std::string size = r.text(desktop["size"], "desktop.size");
      unsigned w = 0, h = 0;
      char x = 0, rest = 0;
      std::istringstream in(size);
      if (!(in >> w >> x >> h) || x != 'x' || in >> rest || w < 320 || h < 200 || w > 8192 || h > 8192)
        r.fail(desktop["size"], fmt::format("desktop.size '{}' is not WIDTHxHEIGHT from 320x200 to 8192x8192", size));
      d.width = w;
      d.height = h;
    }
    if (const YAML::Node browser = desktop["browser"]) {
      if (!browser.IsSequence() || browser.size() == 0)
        r.fail(browser, "desktop.browser must be a list: the command and its arguments");
      d.browser.clear();
      for (const YAML::Node& arg : browser) d.browser.push_back(r.text(arg, "desktop.browser"));
    }
    if (desktop["recordings"]) d.recordings = r.path(desktop["recordings"], "desktop.recordings");
    config.desktop = d;
  } else {
    if (!root["upstream"]) r.fail(root, "the configuration has no 'upstream' (the VNC server's address) and no "
                                        "'desktop' (for the share to start one)");
    const YAML::Node up = root["upstream"];
    r.keys(up, "upstream", {"address", "password-file"});
    if (!up["address"]) r.fail(up, "upstream has no 'address'");
    o.upstream = r.text(up["address"], "upstream.address");
    if (up["password-file"]) o.upstream_password = read_secret(r.path(up["password-file"], "upstream.password-file"));
  }
  if (!root["tokens"]) r.fail(root, "the configuration has no 'tokens' (the token store's file)");
  o.tokens = r.path(root["tokens"], "tokens");
  if (!root["audit"]) r.fail(root, "the configuration has no 'audit' (the audit log's file)");
  o.audit = r.path(root["audit"], "audit");
  if (root["sessions"]) {
    const double n = r.number(root["sessions"], "sessions");
    if (n < 1 || n > 64 || n != static_cast<double>(static_cast<int>(n)))
      r.fail(root["sessions"], "sessions must be a whole number from 1 to 64");
    o.max_sessions = static_cast<std::size_t>(n);
  }
  if (const YAML::Node limits = root["limits"]) {
    r.keys(limits, "limits", {"keys", "buttons", "moves-per-second", "max-clipboard-bytes"});
    if (limits["keys"]) o.limits.keys = r.rate(limits["keys"], "limits.keys", o.limits.keys);
    if (limits["buttons"]) o.limits.buttons = r.rate(limits["buttons"], "limits.buttons", o.limits.buttons);
    if (limits["moves-per-second"]) o.limits.moves_per_second = r.number(limits["moves-per-second"], "limits.moves-per-second");
    if (limits["max-clipboard-bytes"]) {
      const double n = r.number(limits["max-clipboard-bytes"], "limits.max-clipboard-bytes");
      if (n < 0 || n > (1 << 30)) r.fail(limits["max-clipboard-bytes"], "limits.max-clipboard-bytes must be 0 to 2^30");
      o.limits.max_cut_text = static_cast<std::uint32_t>(n);
    }
  }
  check_limits(o.limits, path.string());
  if (const YAML::Node web = root["web"]) config.web = read_web(r, web);
  return config;
}

}  // namespace deid::share
