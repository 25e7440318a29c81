// deid serve under hostile traffic (docs/web.md, "Limits"): methods, bodies
// over the limit, nested JSON, invalid UTF-8, slow and half-sent requests,
// many connections, messages without server paths, quotas.
#include "serve_fixture.h"

namespace {

using namespace serve_test;

// A request head to `s` with its token: "METHOD PATH HTTP/1.1", Host,
// Authorization, `extra` (lines ending in CRLF), the blank line.
std::string fmt_request(const std::string& method, const std::string& path, const LiveServer& s,
                        const std::string& extra) {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(s.port()) +
         "\r\nAuthorization: Bearer " + s.server().token() + "\r\n" + extra + "\r\n";
}

// A connection spoken to byte by byte: half-sent requests, raw heads.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    timeval tv{60, 0};
    if (fd_ >= 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  bool connected() const { return fd_ >= 0; }
  bool send(const std::string& text) {
    return fd_ >= 0 && ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // What arrives until `needle` has arrived (empty: the end of the
  // stream), a minute passed or the connection failed.
  std::string read_until(const std::string& needle = {}) {
    char buffer[4096];
    while (fd_ >= 0 && (needle.empty() || got_.find(needle) == std::string::npos)) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        reset_ = n < 0 && errno == ECONNRESET;
        break;
      }
      got_.append(buffer, static_cast<std::size_t>(n));
    }
    return got_;
  }
  bool reset() const { return reset_; }

 private:
  int fd_ = -1;
  std::string got_;
  bool reset_ = false;
};

// The status of a raw response ("HTTP/1.1 413 ..."), 0 when there is none.
int raw_status(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.substr(9, 3).c_str());
}

// The error message of a JSON error response; fails the test when there is none.
std::string error_of(const httplib::Result& res) {
  if (!res) {
    ADD_FAILURE() << "no answer";
    return {};
  }
  const json body = json::parse(res->body, nullptr, false);
  if (!body.is_object() || !body.contains("error") || !body["error"].is_string()) {
    ADD_FAILURE() << "no error message in " << res->status << " " << res->body;
    return {};
  }
  return body["error"].get<std::string>();
}


TEST_F(Serve, UnsupportedMethodsAre405WithAllow) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id(32, 'a');
  struct Case {
    std::string method, path, allow;
  };
  for (const Case& k : {Case{"PUT", "/api/v1/jobs", "POST"}, Case{"PATCH", "/api/v1/datasets/" + id, "GET, HEAD, DELETE"},
                        Case{"GET", "/api/v1/jobs", "POST"}, Case{"DELETE", "/api/v1/version", "GET, HEAD"},
                        Case{"OPTIONS", "/", "GET, HEAD"}, Case{"PUT", "/api/v1/jobs/" + id + "/output", "GET, HEAD"}}) {
    httplib::Request req;
    req.method = k.method;
    req.path = k.path;
    req.headers = {{"Authorization", "Bearer " + s.server().token()}};
    if (k.method == "PUT" || k.method == "PATCH") req.body = "{}";
    const auto res = c->send(req);
    ASSERT_TRUE(res) << k.method << " " << k.path;
    EXPECT_EQ(res->status, 405) << k.method << " " << k.path;
    EXPECT_EQ(res->get_header_value("Allow"), k.allow) << k.method << " " << k.path;
    EXPECT_NE(error_of(res).find(k.method), std::string::npos);
  }
  // Methods httplib does not parse (found by the API fuzzer): 405 too.
  for (const char* method : {"QUERY", "TRACE", "FOO"}) {
    RawConnection raw(s.port());
    ASSERT_TRUE(raw.send(fmt_request(method, "/api/v1/jobs/" + id + "/result", s, "")));
    const std::string response = raw.read_until();
    EXPECT_EQ(raw_status(response), 405) << method;
    EXPECT_NE(response.find("Allow: GET, HEAD\r\n"), std::string::npos) << response;
    EXPECT_NE(response.find("\"error\""), std::string::npos);
  }
  // Without the token the method is not looked at: 401.
  auto bare = s.bare_client();
  const auto res = bare->Put("/api/v1/jobs", "{}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
}

TEST_F(Serve, ChunkedBodiesOverTheLimitAre413AndNothingIsStored) {
  auto o = options();
  o.max_upload_bytes = 64 << 10;
  LiveServer s(o);
  auto c = s.client();
  // A chunked body (no Content-Length): 1 MiB in 4 KiB chunks, sixteen
  // times the limit.
  auto chunked = [](std::size_t total) {
    return [total, sent = std::size_t{0}](std::size_t, httplib::DataSink& sink) mutable {
      if (sent >= total) {
        sink.done();
        return true;
      }
      const std::string chunk(4096, '1');
      sent += chunk.size();
      return sink.write(chunk.data(), chunk.size());
    };
  };
  auto res = c->Post("/api/v1/datasets", chunked(1 << 20), "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_NE(error_of(res).find("limit"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "uploads"));
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "datasets"));
  res = c->Post("/api/v1/jobs", chunked(1 << 20), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  // Within the limit a chunked upload is taken.
  std::string csv = "a,b\n";
  for (int i = 0; i < 100; ++i) csv += std::to_string(i) + ",x\n";
  res = c->Post(
      "/api/v1/datasets",
      [&csv, done = false](std::size_t, httplib::DataSink& sink) mutable {
        if (done) {
          sink.done();
          return true;
        }
        done = true;
        return sink.write(csv.data(), csv.size());
      },
      "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;
}

TEST_F(Serve, ContentLengthOverTheLimitIs413WithoutAReset) {
  auto o = options();
  o.max_upload_bytes = 1024;
  LiveServer s(o);
  RawConnection raw(s.port());
  ASSERT_TRUE(raw.connected());
  ASSERT_TRUE(raw.send(fmt_request("POST", "/api/v1/datasets", s, "Content-Type: text/csv\r\nContent-Length: 100000000\r\n") +
                       std::string(4096, 'x')));
  const std::string response = raw.read_until();
  EXPECT_EQ(raw_status(response), 413) << response;
  EXPECT_NE(response.find("\"error\""), std::string::npos);
  EXPECT_FALSE(raw.reset());
}

TEST_F(Serve, DeeplyNestedJsonIsRefusedBeforeParsing) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  // 25,000 arrays deep inside a job: refused by the pre-scan, no job made.
  const std::string deep = std::string(25000, '[') + std::string(25000, ']');
  auto res = c->Post("/api/v1/jobs", "{\"dataset\": \"" + id + "\", \"attributes\": " + deep + "}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(error_of(res).find("deep"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "datasets" / id / "jobs"));
  res = c->Post("/api/v1/datasets/" + id + "/hierarchy-preview", deep, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  res = c->Post("/api/v1/datasets", "{\"file\": " + deep + "}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  // Too many values: 413.
  std::string wide = "[";
  for (int i = 0; i < 300000; ++i) wide += i ? ",1" : "1";
  wide += "]";
  res = c->Post("/api/v1/jobs", "{\"dataset\": \"" + id + "\", \"attributes\": " + wide + "}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "datasets" / id / "jobs"));
}

TEST_F(Serve, InvalidUtf8IsAClientErrorWithAMessage) {
  LiveServer s(options());
  auto c = s.client();
  const std::string id = upload(*c, kSmallCsv);
  ASSERT_FALSE(id.empty());
  const std::string bad = "\xff\xfe\xc3";
  httplib::Headers host{{"Host", "a" + bad}};
  auto res = c->Get("/api/v1/version", host);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_FALSE(error_of(res).empty());
  res = c->Get("/api/v1/version", httplib::Headers{{"Origin", "http://" + bad}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_FALSE(error_of(res).empty());
  // In a job: a string, and a key.
  json job = small_job(id);
  std::string text = job.dump();
  text.insert(text.find("\"identifying\"") + 1, bad);
  res = c->Post("/api/v1/jobs", text, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_FALSE(error_of(res).empty());
  // The upload's name.
  res = c->Post("/api/v1/datasets?name=%FF%FE.csv", kSmallCsv, "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_NE(error_of(res).find("UTF-8"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "uploads"));
  res = c->Post("/api/v1/datasets", "{\"file\": \"a\xff.csv\"}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  // A table with invalid UTF-8 in a column name: the library's message.
  res = c->Post("/api/v1/datasets", "caf\xe9,b\n1,2\n", "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_FALSE(error_of(res).empty());
}

TEST_F(Serve, StatusAnswersWhileEventStreamsAndHalfSentRequestsAreOpen) {
  PhaseGate gate(deid::Phase::search);
  auto o = options();
  o.on_phase = gate.hook();
  LiveServer s(o);
  auto c = s.client();
  const std::string dataset = upload(*c, kSmallCsv);
  ASSERT_FALSE(dataset.empty());
  const std::string job = submit(*c, small_job(dataset));
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(gate.wait_reached());
  // 20 event streams of a job that does not end while the test runs.
  std::vector<std::unique_ptr<RawConnection>> streams, heads, bodies;
  for (int i = 0; i < 20; ++i) {
    streams.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(streams.back()->send(fmt_request("GET", "/api/v1/jobs/" + job + "/events", s, "")));
  }
  for (auto& stream : streams) EXPECT_EQ(raw_status(stream->read_until("event: status")), 200);
  // 20 heads half sent, without a token; 20 requests with a token whose
  // bodies are half sent.
  for (int i = 0; i < 20; ++i) {
    heads.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(heads.back()->send("POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"));
    bodies.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(bodies.back()->send(fmt_request("POST", "/api/v1/jobs", s, "Content-Length: 1000\r\n") + "{\"data"));
  }
  for (int i = 0; i < 10; ++i) {
    const auto res = c->Get("/api/v1/jobs/" + job);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(json::parse(res->body)["status"], "running");
  }
  gate.release();
  const json end = wait(*c, job);
  ASSERT_TRUE(end.is_object());
  EXPECT_EQ(end["status"], "done");
  for (auto& stream : streams) EXPECT_NE(stream->read_until("event: done").find("event: done"), std::string::npos);
}

TEST_F(Serve, EventStreamsBeyondTheirShareOfThreadsAre503AndOthersStillAnswer) {
  PhaseGate gate(deid::Phase::search);
  auto o = options();
  o.on_phase = gate.hook();
  o.max_threads = 8;  // streams may hold 4, 2 of them per client
  LiveServer s(o);
  auto c = s.client();
  const std::string dataset = upload(*c, kSmallCsv);
  const std::string job = submit(*c, small_job(dataset));
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(gate.wait_reached());
  std::vector<std::unique_ptr<RawConnection>> streams;
  int open = 0, refused = 0;
  for (int i = 0; i < 12; ++i) {
    streams.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(streams.back()->send(fmt_request("GET", "/api/v1/jobs/" + job + "/events", s, "")));
    const std::string head = streams.back()->read_until("\r\n\r\n");
    if (raw_status(head) == 200) ++open;
    if (raw_status(head) == 503) {
      ++refused;
      // Refused streams are let go at once, not held for the idle timeout.
      EXPECT_NE(head.find("Connection: close"), std::string::npos) << head;
      EXPECT_NE(streams.back()->read_until().find("poll GET"), std::string::npos);
    }
  }
  EXPECT_EQ(open, 2);
  EXPECT_EQ(refused, 10);
  const auto res = c->Get("/api/v1/jobs/" + job);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  gate.release();
}

TEST_F(Serve, HundredConcurrentConnectionsAreAllAnswered) {
  LiveServer s(options());
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 100; ++i)
    threads.emplace_back([&] {
      auto c = s.client();
      const auto res = c->Get("/api/v1/version");
      if (res && res->status == 200) ++answered;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(answered, 100);
}

TEST_F(Serve, AHeadThatDoesNotArriveIs408) {
  auto o = options();
  o.request_timeout = std::chrono::milliseconds(300);
  LiveServer s(o);
  RawConnection raw(s.port());
  ASSERT_TRUE(raw.send("GET /api/v1/version HTTP/1.1\r\nHost: 12"));
  const std::string response = raw.read_until();
  EXPECT_EQ(raw_status(response), 408) << response;
  EXPECT_NE(response.find("\"error\""), std::string::npos);
  // A head larger than the limit: 431.
  RawConnection big(s.port());
  ASSERT_TRUE(big.send("GET /api/v1/version HTTP/1.1\r\nX-A: " + std::string(70000, 'a')));
  EXPECT_EQ(raw_status(big.read_until()), 431);
}

TEST_F(Serve, NoServerDirectoryInAnyErrorMessage) {
  write(data_ / "hierarchies" / "bad.csv", "34;*\n35;*;extra\n");
  LiveServer s(options());
  auto c = s.client();
  const std::string dataset = upload(*c, kSmallCsv);
  ASSERT_FALSE(dataset.empty());
  const std::string root = tmp_.path.string();
  std::vector<std::string> messages;
  // The message of a refused job, or of the job's failure.
  auto message_of = [&](const json& job) {
    const auto res = c->Post("/api/v1/jobs", job.dump(), "application/json");
    if (!res) return std::string("no answer");
    if (res->status != 202) {
      EXPECT_GE(res->status, 400);
      EXPECT_LT(res->status, 500);
      return error_of(res);
    }
    const json end = wait(*c, json::parse(res->body)["id"].get<std::string>());
    EXPECT_TRUE(end.is_object() && end["status"] == "failed") << end;
    return end.is_object() && end["error"].is_string() ? end["error"].get<std::string>() : std::string();
  };
  for (const std::string file : {"hierarchies/missing.csv", "hierarchies/bad.csv", "hierarchies"}) {
    json job = small_job(dataset);
    job["attributes"]["age"]["hierarchy"] = file;
    messages.push_back(message_of(job));
  }
  // A subset file that is not there, an attribute not in the table.
  json job = small_job(dataset);
  job["subset"] = {{"file", "nothing.csv"}};
  messages.push_back(message_of(job));
  job = small_job(dataset);
  job["attributes"]["nope"] = {{"role", "quasi-identifying"}, {"hierarchy", {{"type", "masking"}, {"levels", 1}}}};
  messages.push_back(message_of(job));
  for (const std::string& m : messages) {
    EXPECT_FALSE(m.empty());
    EXPECT_EQ(m.find(root), std::string::npos) << m;
    EXPECT_EQ(m.find(s.server().state_dir().string()), std::string::npos) << m;
    EXPECT_EQ(m.find("deid-serve-"), std::string::npos) << m;
  }
}

TEST_F(Serve, DatasetQuotaAndMetadataOnDisk) {
  auto o = options();
  o.max_datasets = 2;
  LiveServer s(o);
  auto c = s.client();
  const std::string a = upload(*c, kSmallCsv);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(upload(*c, kSmallCsv).empty());
  const auto res = c->Post("/api/v1/datasets", kSmallCsv, "text/csv");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);
  EXPECT_NE(error_of(res).find("--max-datasets"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(s.server().state_dir() / "uploads"));
  // The summary and each column's distinct values are files of the dataset.
  const fs::path dir = s.server().state_dir() / "datasets" / a;
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  EXPECT_EQ(json::parse(slurp(dir / "values-2.json")), json::array({"male", "female"}));
  // Deleting one makes room.
  EXPECT_EQ(c->Delete("/api/v1/datasets/" + a)->status, 204);
  EXPECT_FALSE(upload(*c, kSmallCsv).empty());
}

}  // namespace
