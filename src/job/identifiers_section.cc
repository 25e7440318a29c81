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

MaskSpec parse_mask(const Ctx& ctx, const YAML::Node& v, const std::string& what) {
  MaskSpec m;
  const bool keep = v["keep-first"] || v["keep-last"];
  const bool classes = v["digits"] || v["letters"];
  const bool regex = v["regex"] || v["replacement"];
  if (int(keep) + int(classes) + int(regex) != 1)
    ctx.fail(v["action"], fmt::format("{}: action: mask takes one of keep-first/keep-last (with symbol), "
                                      "digits/letters, or regex with replacement{}",
                                      what, keep || classes || regex ? ", not several" : ""));
  if (v["symbol"] && !keep)
    ctx.fail(v["symbol"], fmt::format("{}: 'symbol' is used with keep-first and keep-last", what));
  if (v["keep-first"]) m.keep_first = static_cast<int>(ctx.integer(v["keep-first"], "keep-first", 0, 10000));
  if (v["keep-last"]) m.keep_last = static_cast<int>(ctx.integer(v["keep-last"], "keep-last", 0, 10000));
  if (v["symbol"]) m.symbol = ctx.str(v["symbol"], "symbol");
  if (v["digits"]) m.digits = ctx.str(v["digits"], "digits");
  if (v["letters"]) m.letters = ctx.str(v["letters"], "letters");
  if (regex) {
    if (!v["regex"] || !v["replacement"])
      ctx.fail(v["action"], fmt::format("{}: a mask by regex needs both 'regex' and 'replacement'", what));
    m.regex = ctx.str(v["regex"], "regex");
    m.replacement = ctx.str(v["replacement"], "replacement");
    try {
      (void)std::regex(*m.regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      ctx.fail(v["regex"], fmt::format("{}: regex '{}' is not a valid ECMAScript regular expression ({})",
                                       what, *m.regex, e.what()));
    }
  }
  return m;
}

}  // namespace

void parse_action(const Ctx& ctx, const YAML::Node& v, const YAML::Node& root, const std::string& what, Role role,
                  IdentifierActionSpec& s) {
  if (!v["action"]) {
    for (const ActionKey& k : kActionKeys)
      if (v[k.key])
        ctx.fail(v[k.key], fmt::format("{}: '{}' is used only with action: {}", what, k.key,
                                       to_string(k.action)));
    return;
  }
  s.line = line_of(v["action"]);
  s.action = ctx.choice<IdentifierAction>(v["action"], what + ": action",
                                          {{"remove", IdentifierAction::remove},
                                           {"pseudonym", IdentifierAction::pseudonym},
                                           {"mask", IdentifierAction::mask},
                                           {"date-shift", IdentifierAction::date_shift}});
  if (role != Role::identifying)
    ctx.fail(v["action"], fmt::format("{}: 'action' is for identifying attributes (what becomes of "
                                      "them in the release); this one has role {}",
                                      what, to_string(role)));
  for (const ActionKey& k : kActionKeys)
    if (v[k.key] && k.action != s.action)
      ctx.fail(v[k.key], fmt::format("{}: '{}' is used only with action: {}", what, k.key,
                                     to_string(k.action)));
  if (s.action != IdentifierAction::remove && root["cell-suppression"])
    ctx.fail(v["action"], fmt::format("{}: actions other than remove are applied by deid anonymize, "
                                      "not by cell suppression",
                                      what));
  switch (s.action) {
    case IdentifierAction::pseudonym:
      if (v["length"]) s.length = static_cast<int>(ctx.integer(v["length"], "length", 8, 64));
      break;
    case IdentifierAction::mask: s.mask = parse_mask(ctx, v, what); break;
    case IdentifierAction::date_shift:
      if (v["format"]) {
        s.date_format = ctx.str(v["format"], "format");
        try {
          check_date_format(s.date_format);
        } catch (const std::invalid_argument& e) {
          ctx.fail(v["format"], fmt::format("{}: date format '{}': {}", what, s.date_format, e.what()));
        }
      }
      break;
    case IdentifierAction::remove: break;
  }
}

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
        parse_action(ctx, kv.second, root, fmt::format("attribute '{}'", a.name), a.role, a.identifier);
        const IdentifierAction action = a.identifier.action;
        if (action != IdentifierAction::remove && action != IdentifierAction::mask && !keyed) keyed = kv.second["action"];
        if (action == IdentifierAction::date_shift && !shifted) shifted = kv.second["action"];
        if (action == IdentifierAction::pseudonym) pseudonymized = true;
        break;
      }
    }
  }
  // The actions of the linked tables' columns (parse_linked read them).
  const YAML::Node& linked = root["linked"];
  for (std::size_t t = 0; t < job.linked.size() && linked && linked.IsSequence(); ++t)
    for (const LinkedColumn& c : job.linked[t].columns) {
      const IdentifierAction action = c.identifier.action;
      if (action == IdentifierAction::remove || action == IdentifierAction::mask) continue;
      const YAML::Node node = linked[t]["columns"][c.name]["action"];
      if (!keyed) keyed = node;
      if (action == IdentifierAction::date_shift && !shifted) shifted = node;
    }

  if (root["output"] && root["output"]["linkage"] && !pseudonymized)
    ctx.fail(root["output"]["linkage"], "output.linkage lists each value beside its pseudonym: no attribute has "
                                        "action: pseudonym");
  const YAML::Node& n = root["identifiers"];
  if (!n) {
    if (!job.linked.empty())
      ctx.fail(linked, "linked tables are joined to the job's table by its person column: the job needs "
                       "identifiers: {person: COLUMN} (with a secret when a column is pseudonymized or shifted)");
    if (keyed)
      ctx.fail(*keyed, "pseudonyms and date shifts are keyed: the job needs an 'identifiers' section with the "
                       "secret (identifiers: {secret: {file: PATH}} or {secret: {env: NAME}})");
    return;
  }
  if (!n.IsMap()) ctx.fail(n, "identifiers must be a mapping {secret: ..., person: ..., shift-days: ...}");
  ctx.keys(n, "identifiers", Section::identifiers);
  if (!keyed && job.linked.empty())
    ctx.fail(n, "the 'identifiers' section keys pseudonyms and date shifts and names the person of linked tables, "
                "but no attribute has action: pseudonym or date-shift and the job links no table");
  IdentifiersSpec spec;
  spec.line = line_of(n);
  if (!n["secret"] && keyed)
    ctx.fail(n, "identifiers needs 'secret': {file: PATH} or {env: NAME}, where the secret key is kept (never in "
                "the job)");
  if (n["secret"] && !keyed)
    ctx.fail(n["secret"], "identifiers.secret keys pseudonyms and date shifts, but no column has action: pseudonym "
                          "or date-shift");
  if (keyed) {
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
  }
  if (!n["person"] && !job.linked.empty())
    ctx.fail(n, "linked tables need identifiers.person: the column of the job's table that names the person, whose "
                "values the linked tables' key columns hold");
  for (const char* key : {"person", "shift-days"}) {
    if (n[key] && !shifted && (std::string_view(key) != "person" || job.linked.empty()))
      ctx.fail(n[key], fmt::format("identifiers.{} is used by date shifts{}: no column has action: date-shift", key,
                                   std::string_view(key) == "person" ? " and linked tables" : ""));
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
