#include <fmt/format.h>

#include "deid/error.h"
#include "job/sections.h"

namespace deid::job_parse {

void parse_local_recoding(const Ctx& ctx, const YAML::Node& root, Job& job) {
  const YAML::Node& s = root["local-recoding"];
  if (!s) return;
  if (!s.IsMap())
    ctx.fail(s, "local-recoding must be a mapping (mode, gs-factor, max-iterations, adaption-factor, records, "
                "column)");
  ctx.keys(s, "local-recoding", Section::local_recoding);
  using Mode = Job::LocalRecoding::Mode;
  Job::LocalRecoding lr;
  lr.line = line_of(s);
  if (s["mode"])
    lr.mode = ctx.choice<Mode>(s["mode"], "local-recoding.mode",
                               {{"single", Mode::single}, {"fast", Mode::fast}, {"iterative", Mode::iterative}});
  const char* mode = lr.mode == Mode::single ? "single" : lr.mode == Mode::fast ? "fast" : "iterative";
  if (s["gs-factor"]) lr.gs_factor = ctx.fraction(s["gs-factor"], "local-recoding.gs-factor");
  // Each mode's own settings (ARX's optimizeIterative and
  // optimizeIterativeFast take them; optimize none).
  for (const char* key : {"max-iterations", "adaption-factor"})
    if (s[key] && lr.mode != Mode::iterative)
      ctx.fail(s[key], fmt::format("local-recoding.{} is a setting of mode: iterative, got mode: {}", key, mode));
  if (s["records"] && lr.mode != Mode::fast)
    ctx.fail(s["records"], fmt::format("local-recoding.records is a setting of mode: fast, got mode: {}", mode));
  if (s["max-iterations"])
    lr.max_iterations = ctx.integer(s["max-iterations"], "local-recoding.max-iterations", 1, kMaxCount);
  if (s["adaption-factor"]) lr.adaption_factor = ctx.fraction(s["adaption-factor"], "local-recoding.adaption-factor");
  if (s["records"]) {
    lr.records = ctx.fraction(s["records"], "local-recoding.records");
    if (lr.records <= 0)
      ctx.fail(s["records"], "local-recoding.records must be in (0, 1] (the share of the records each pass must "
                             "release at least), got 0");
  }
  if (s["column"]) lr.column = ctx.name(s["column"], "local-recoding.column");
  job.local_recoding = std::move(lr);
}

}  // namespace deid::job_parse
