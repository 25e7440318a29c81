// The page `deid serve` answers GET / with: compiled into the binary, so
// nothing is loaded from elsewhere. No inline script or style (the
// Content-Security-Policy forbids them); the web app comes later.
#pragma once

namespace deid::serve {

inline constexpr const char* kIndexHtml = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>deid serve</title>
</head>
<body>
<h1>deid serve</h1>
<p>The deid REST API is up at <a href="/api/v1/version">/api/v1</a>.
This browser now holds the access token as a cookie for this server only.</p>
<p>The API (upload a CSV, run a job, fetch its output, result and report)
is described in <code>docs/web.md</code> and <code>docs/openapi.yaml</code>
of the deid sources.</p>
</body>
</html>
)html";

}  // namespace deid::serve
