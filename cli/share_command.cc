// `deid share`: the controlled data-sharing environment (docs/share.md).
// `deid share token add|revoke|list` edit the token store; `deid share
// proxy CONFIG` runs the RFB proxy (src/share, include/deid/share.h) in
// front of a VNC server until Ctrl-C or SIGTERM; `deid share run CONFIG`
// starts the desktop too and supervises both. This file parses options and prints; the library does
// the rest.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "signal_wait.h"
#include "deid/error.h"
#include "deid/share.h"

namespace deid::cli {

namespace {

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Browser access (the configuration's `web` section): websockify with
// noVNC in front of the proxy, started once the proxy listens; nothing
// without the section.
void start_web(std::optional<share::WebAccess>& web, const share::ShareConfig& config, const std::string& proxy,
               const char* command) {
  if (!config.web) return;
  web.emplace(*config.web);
  web->start(proxy);
  fmt::print("deid share {}: noVNC on {} (websockify, pid {})\n", command, web->url(), web->pid());
}

// Why the share must stop because websockify exited, or nothing.
std::optional<std::string> web_exit(std::optional<share::WebAccess>& web) {
  if (!web) return std::nullopt;
  auto exit = web->wait_exit(std::chrono::milliseconds(0));
  if (!exit) return std::nullopt;
  return "the web access failed: " + *exit;
}

}  // namespace

Command add_share_command(CLI::App& app, const bool& quiet) {
  struct Options {
    std::string tokens, recipient, expires = "8h", config, listen;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "share", "The controlled data-sharing environment (docs/share.md): recipients' tokens, the RFB proxy");
  cmd->require_subcommand(1);

  CLI::App* token = cmd->add_subcommand("token", "Edit the token store: add, revoke, list");
  token->require_subcommand(1);
  CLI::App* add = token->add_subcommand("add", "Give a recipient a new token (printed once)");
  add->add_option("--tokens", o->tokens, "The token store (JSON; created when missing)")->required();
  add->add_option("--recipient", o->recipient, "The recipient's name (letters, digits, . _ @ -)")->required();
  add->add_option("--expires", o->expires,
                  "When the token expires: a duration (30m, 8h, 7d), a UTC time (2026-12-01T18:00:00Z) or never "
                  "(default 8h)");
  CLI::App* revoke = token->add_subcommand("revoke", "Revoke every token of a recipient; running sessions end");
  revoke->add_option("--tokens", o->tokens, "The token store")->required()->check(CLI::ExistingFile);
  revoke->add_option("--recipient", o->recipient, "The recipient's name")->required();
  CLI::App* list = token->add_subcommand("list", "List the tokens (their first two characters) and their state");
  list->add_option("--tokens", o->tokens, "The token store")->required()->check(CLI::ExistingFile);

  CLI::App* proxy = cmd->add_subcommand("proxy", "Run the RFB proxy in front of the VNC server until Ctrl-C");
  proxy->add_option("config", o->config, "The share's configuration (YAML, docs/share.md)")
      ->required()
      ->check(CLI::ExistingFile);
  proxy->add_option("--listen", o->listen, "Listen here instead: HOST:PORT (port 0: any free port) or unix:PATH");

  CLI::App* run_cmd = cmd->add_subcommand(
      "run", "Start the desktop (Xvfb, x11vnc, the kiosk browser) and the proxy in front of it; supervise them "
             "until Ctrl-C or until a component exits");
  run_cmd->add_option("config", o->config, "The share's configuration, with a 'desktop' section (docs/share.md)")
      ->required()
      ->check(CLI::ExistingFile);
  run_cmd->add_option("--listen", o->listen, "Listen here instead: HOST:PORT (port 0: any free port) or unix:PATH");

  auto run = [o, add, revoke, list, proxy, run_cmd, &quiet]() -> int {
    if (*add) {
      share::TokenStore store(o->tokens);
      const std::int64_t now = now_seconds();
      const share::RecipientToken t = store.add(o->recipient, share::parse_expiry(o->expires, now), now);
      fmt::print("{}\n", t.token);
      if (!quiet)
        fmt::print(stderr, "deid share: token for '{}', {}\n", t.recipient,
                   t.expires == 0 ? std::string("never expires") : "valid until " + share::utc_text(t.expires));
      return 0;
    }
    if (*revoke) {
      share::TokenStore store(o->tokens);
      const std::size_t n = store.revoke(o->recipient, now_seconds());
      if (!quiet)
        fmt::print("deid share: revoked {} token{} of '{}'{}\n", n, n == 1 ? "" : "s", o->recipient,
                   n > 0 ? "; a running session ends within a second" : "");
      return n > 0 ? 0 : 1;
    }
    if (*list) {
      share::TokenStore store(o->tokens);
      const std::int64_t now = now_seconds();
      fmt::print("{:<24} {:<8} {:<21} {:<21} {}\n", "recipient", "token", "created", "expires", "state");
      for (const share::RecipientToken& t : store.load()) {
        const auto refusal = t.refusal(now);
        fmt::print("{:<24} {:<8} {:<21} {:<21} {}\n", t.recipient, t.token.substr(0, 2) + "......",
                   share::utc_text(t.created), t.expires == 0 ? std::string("never") : share::utc_text(t.expires),
                   refusal ? refusal->substr(6) : std::string("valid"));
      }
      return 0;
    }
    if (*run_cmd) {
      share::ShareConfig config = share::read_share_config(o->config);
      if (!config.desktop)
        throw InputError(Location{o->config, 0, 0, {}},
                         "'deid share run' needs a 'desktop' section (for a VNC server of yours: 'deid share proxy')");
      if (!o->listen.empty()) config.proxy.listen = o->listen;
      // The data explorer (desktop.table) is served by this very program.
      if (!config.desktop->table.empty()) {
        std::error_code ec;
        const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
        if (ec) throw IoError(Location{}, "cannot find this program (/proc/self/exe) to serve the data explorer");
        config.desktop->explorer = {self.string()};
      }
      // Signals are waited for below (sigtimedwait), blocked before any
      // thread starts; the desktop's components get default signals back.
      sigset_t signals;
      sigemptyset(&signals);
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, sig);
      pthread_sigmask(SIG_BLOCK, &signals, nullptr);
      share::Desktop desktop(*config.desktop);
      desktop.start();
      config.proxy.upstream = desktop.vnc_address();
      config.proxy.upstream_password = desktop.vnc_password();
      config.proxy.recording = desktop.recording().string();
      share::Proxy server(config.proxy);
      server.bind();
      fmt::print("deid share run: listening on {}\n", server.address());
      std::string parts;
      for (const auto& [name, pid] : desktop.components())
        parts += fmt::format("{}{} (pid {})", parts.empty() ? "" : ", ", name, pid);
      fmt::print("deid share run: desktop {}: {}\n", desktop.display(), parts);
      if (!desktop.recording().empty()) fmt::print("deid share run: recording to {}\n", desktop.recording().string());
      std::optional<share::WebAccess> web;
      start_web(web, config, server.address(), "run");
      std::fflush(stdout);
      // Supervision: a signal stops everything (exit 0); so does any
      // component's exit (exit 3: the environment is down).
      const std::optional<std::string> gone = serve_until_signal(
          signals, [&] { server.run(); },
          [&](const std::optional<std::string>& why) { server.stop(why.value_or("the share was stopped")); },
          [&]() -> std::optional<std::string> {
            // Before the desktop's reaping (every child of the process),
            // so that websockify's exit status is its own to read.
            if (auto web_gone = web_exit(web)) return web_gone;
            if (auto exit = desktop.wait_exit(std::chrono::milliseconds(0))) return "the desktop failed: " + *exit;
            return std::nullopt;
          },
          100'000'000);
      if (web) web->stop();
      desktop.stop();
      if (gone) fmt::print(stderr, "deid share run: {}; every component stopped\n", *gone);
      return gone ? 3 : 0;
    }
    if (*proxy) {
      share::ShareConfig config = share::read_share_config(o->config);
      if (config.desktop)
        throw InputError(Location{o->config, 0, 0, {}},
                         "'deid share proxy' needs an 'upstream' (a configuration with a 'desktop' is for 'deid "
                         "share run')");
      share::ProxyOptions& options = config.proxy;
      if (!o->listen.empty()) options.listen = o->listen;
      // The signals are taken by a thread of ours, which stops the proxy:
      // every session ends and is logged. Blocked before any thread starts.
      sigset_t signals;
      sigemptyset(&signals);
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, sig);
      pthread_sigmask(SIG_BLOCK, &signals, nullptr);
      share::Proxy server(options);
      server.bind();
      fmt::print("deid share proxy: listening on {}\n", server.address());
      if (!quiet)
        fmt::print("deid share proxy: VNC server {}, tokens {}, audit log {}\n", options.upstream,
                   options.tokens.string(), options.audit.string());
      std::optional<share::WebAccess> web;
      start_web(web, config, server.address(), "proxy");
      std::fflush(stdout);
      const std::optional<std::string> gone = serve_until_signal(
          signals, [&] { server.run(); },
          [&](const std::optional<std::string>& why) { why ? server.stop(*why) : server.stop(); },
          [&] { return web_exit(web); });
      if (web) web->stop();
      if (gone) fmt::print(stderr, "deid share proxy: {}; the proxy stopped\n", *gone);
      return gone ? 3 : 0;
    }
    return 3;
  };
  return {cmd, run};
}

}  // namespace deid::cli
