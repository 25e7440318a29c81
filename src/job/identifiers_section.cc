#include <fmt/format.h>

#include <optional>
#include <regex>
#include <stdexcept>

#include "deid/error.h"
#include "job/sections.h"

namespace deid::job_parse {
namespace {

// Which keys of an attribute belong to which action.
struct ActionKey {
  const char* key;
  IdentifierAction action;
};
constexpr ActionKey kActionKeys[] = {
    {"length", IdentifierAction::pseudonym},  {"keep-first", IdentifierAction::mask},
    {"keep-last", IdentifierAction::mask},    {"symbol", IdentifierAction::mask},
    {"digits", IdentifierAction::mask},       {"letters", IdentifierAction::mask},
    {"regex", IdentifierAction::mask},        {"replacement", IdentifierAction::mask},
    {"format", IdentifierAction::date_shift},
};

MaskSpec parse_mask(const Ctx& ctx, const YAML::Node& v, const std::string& name) {
  MaskSpec m;
  const bool keep = v["keep-first"] || v["keep-last"];
  const bool classes = v["digits"] || v["letters"];
  const bool regex = v["regex"] || v["replacement"];
  if (int(keep) + int(classes) + int(regex) != 1)
    ctx.fail(v["action"], fmt::format("attribute '{}': action: mask takes one of keep-first/keep-last (with symbol), "
                                      "digits/letters, or regex with replacement{}",
                                      name, keep || classes || regex ? ", not several" : ""));
  if (v["symbol"] && !keep)
    ctx.fail(v["symbol"], fmt::format("attribute '{}': 'symbol' is used with keep-first and keep-last", name));
  if (v["keep-first"]) m.keep_first = static_cast<int>(ctx.integer(v["keep-first"], "keep-first", 0, 10000));
  if (v["keep-last"]) m.keep_last = static_cast<int>(ctx.integer(v["keep-last"], "keep-last", 0, 10000));
  if (v["symbol"]) m.symbol = ctx.str(v["symbol"], "symbol");
  if (v["digits"]) m.digits = ctx.str(v["digits"], "digits");
  if (v["letters"]) m.letters = ctx.str(v["letters"], "letters");
  if (regex) {
    if (!v["regex"] || !v["replacement"])
      ctx.fail(v["action"], fmt::format("attribute '{}': a mask by regex needs both 'regex' and 'replacement'", name));
    m.regex = ctx.str(v["regex"], "regex");
    m.replacement = ctx.str(v["replacement"], "replacement");
    try {
      (void)std::regex(*m.regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      ctx.fail(v["regex"], fmt::format("attribute '{}': regex '{}' is not a valid ECMAScript regular expression ({})",
                                       name, *m.regex, e.what()));
    }
  }
  return m;
}

void parse_action(const Ctx& ctx, const YAML::Node& v, const YAML::Node& root, AttributeSpec& a) {
  if (!v["action"]) {
    for (const ActionKey& k : kActionKeys)
      if (v[k.key])
        ctx.fail(v[k.key], fmt::format("attribute '{}': '{}' is used only with action: {}", a.name, k.key,
                                       to_string(k.action)));
    return;
  }
  IdentifierActionSpec& s = a.identifier;
  s.line = line_of(v["action"]);
  s.action = ctx.choice<IdentifierAction>(v["action"], fmt::format("attribute '{}': action", a.name),
                                          {{"remove", IdentifierAction::remove},
                                           {"pseudonym", IdentifierAction::pseudonym},
                                           {"mask", IdentifierAction::mask},
                                           {"date-shift", IdentifierAction::date_shift}});
  if (a.role != Role::identifying)
    ctx.fail(v["action"], fmt::format("attribute '{}': 'action' is for identifying attributes (what becomes of "
                                      "them in the release); this one has role {}",
                                      a.name, to_string(a.role)));
  for (const ActionKey& k : kActionKeys)
    if (v[k.key] && k.action != s.action)
      ctx.fail(v[k.key], fmt::format("attribute '{}': '{}' is used only with action: {}", a.name, k.key,
                                     to_string(k.action)));
  if (s.action != IdentifierAction::remove && root["cell-suppression"])
    ctx.fail(v["action"], fmt::format("attribute '{}': actions other than remove are applied by deid anonymize, "
                                      "not by cell suppression",
                                      a.name));
  switch (s.action) {
    case IdentifierAction::pseudonym:
      if (v["length"]) s.length = static_cast<int>(ctx.integer(v["length"], "length", 8, 64));
      break;
    case IdentifierAction::mask: s.mask = parse_mask(ctx, v, a.name); break;
    case IdentifierAction::date_shift:
      if (v["format"]) {
        s.date_format = ctx.str(v["format"], "format");
        try {
          check_date_format(s.date_format);
        } catch (const std::invalid_argument& e) {
          ctx.fail(v["format"], fmt::format("attribute '{}': date format '{}': {}", a.name, s.date_format, e.what()));
        }
      }
      break;
    case IdentifierAction::remove: break;
  }
}

}  // namespace

void parse_identifiers(const Ctx& ctx, const YAML::Node& root, Job& job) {
  // What the actions need of the section, with the first attribute that
  // needs it (for messages).
  std::optional<YAML::Node> keyed;    // pseudonym or date-shift: the secret
  std::optional<YAML::Node> shifted;  // date-shift: the person and the range
  bool pseudonymized = false;
  if (root["attributes"] && root["attributes"].IsMap()) {
    for (const auto& kv : root["attributes"]) {
      const std::string name = kv.first.as<std::string>();
      for (AttributeSpec& a : job.attributes) {
        if (a.name != name) continue;
        parse_action(ctx, kv.second, root, a);
        const IdentifierAction action = a.identifier.action;
        if (action != IdentifierAction::remove && action != IdentifierAction::mask && !keyed) keyed = kv.second["action"];
        if (action == IdentifierAction::date_shift && !shifted) shifted = kv.second["action"];
        if (action == IdentifierAction::pseudonym) pseudonymized = true;
        break;
      }
    }
  }

  if (root["output"] && root["output"]["linkage"] && !pseudonymized)
    ctx.fail(root["output"]["linkage"], "output.linkage lists each value beside its pseudonym: no attribute has "
                                        "action: pseudonym");
  const YAML::Node& n = root["identifiers"];
  if (!n) {
    if (keyed)
      ctx.fail(*keyed, "pseudonyms and date shifts are keyed: the job needs an 'identifiers' section with the "
                       "secret (identifiers: {secret: {file: PATH}} or {secret: {env: NAME}})");
    return;
  }
  if (!n.IsMap()) ctx.fail(n, "identifiers must be a mapping {secret: ..., person: ..., shift-days: ...}");
  ctx.keys(n, "identifiers", Section::identifiers);
  if (!keyed)
    ctx.fail(n, "the 'identifiers' section keys pseudonyms and date shifts, but no attribute has action: pseudonym "
                "or date-shift");
  IdentifiersSpec spec;
  spec.line = line_of(n);
  if (!n["secret"])
    ctx.fail(n, "identifiers needs 'secret': {file: PATH} or {env: NAME}, where the secret key is kept (never in "
                "the job)");
  const YAML::Node& secret = n["secret"];
  if (!secret.IsMap())
    ctx.fail(secret, "identifiers.secret must be {file: PATH} or {env: NAME}: the secret itself never goes into "
                     "the job");
  ctx.keys(secret, "identifiers.secret", Section::identifiers_secret);
  if (bool(secret["file"]) == bool(secret["env"]))
    ctx.fail(secret, "identifiers.secret takes one of 'file' and 'env'");
  spec.secret_line = line_of(secret);
  if (secret["file"]) spec.secret_file = ctx.path(secret["file"], "identifiers.secret.file");
  if (secret["env"]) spec.secret_env = ctx.name(secret["env"], "identifiers.secret.env");
  for (const char* key : {"person", "shift-days"}) {
    if (n[key] && !shifted)
      ctx.fail(n[key], fmt::format("identifiers.{} is used by date shifts: no attribute has action: date-shift", key));
    if (!n[key] && shifted)
      ctx.fail(*shifted, fmt::format("action: date-shift needs identifiers.{} ({})", key,
                                     std::string_view(key) == "person"
                                         ? "the column that names the person, whose dates all move by one offset"
                                         : "the dates move by up to this many days either way"));
  }
  if (n["person"]) spec.person = ctx.name(n["person"], "identifiers.person");
  if (n["shift-days"]) spec.shift_days = static_cast<int>(ctx.integer(n["shift-days"], "identifiers.shift-days", 1, 36500));
  job.identifiers = std::move(spec);
}

}  // namespace deid::job_parse
