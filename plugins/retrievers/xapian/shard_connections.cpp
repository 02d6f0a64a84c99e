#include "shard_connections.hpp"

#include <tbb/parallel_for.h>

#include <charconv>
#include <optional>

#include "rag/error.hpp"

namespace rag::xapian_shards {
namespace {

using Clock = std::chrono::steady_clock;
// A connection missing shards (partial_results) tries them again after this long.
constexpr auto kRetryMissing = std::chrono::seconds(10);
// A connection idle this long is checked with keep_alive() before use: servers cut idle ones
// (xapian-tcpsrv's idle timeout is 60 s unless --timeout 0).
constexpr auto kKeepAliveAfter = std::chrono::seconds(30);

}  // namespace

RemoteShard RemoteShard::parse(const std::string& address) {
  const auto bad = [&](const std::string& why) -> Error {
    return Error("remote shard '" + address + "': " + why +
                 " (write host:port for xapian-tcpsrv, or prog:PROGRAM ARGS... for xapian-progsrv over a pipe)");
  };
  RemoteShard r;
  r.address = address;
  if (address.rfind("prog:", 0) == 0) {
    const std::string command = address.substr(5);
    const std::size_t space = command.find(' ');
    r.host = command.substr(0, space);
    if (space != std::string::npos) r.args = command.substr(space + 1);
    if (r.host.empty()) throw bad("names no program");
    return r;
  }
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) throw bad("has no port");
  r.host = address.substr(0, colon);
  if (r.host.size() >= 2 && r.host.front() == '[' && r.host.back() == ']') r.host = r.host.substr(1, r.host.size() - 2);
  if (r.host.empty() || r.host.find_first_of(" /[]") != std::string::npos) throw bad("has no host name");
  const std::string port = address.substr(colon + 1);
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), r.port);
  if (ec != std::errc() || end != port.data() + port.size() || r.port < 1 || r.port > 65535)
    throw bad("port '" + port + "' is not a number from 1 to 65535");
  return r;
}

Connection::Place Connection::place(Xapian::docid id) const {
  const std::size_t n = groups.size();
  const std::size_t sub = (id - 1) % n;
  const Xapian::docid in_sub = (id - 1) / static_cast<Xapian::docid>(n);
  const auto& group = groups[sub];
  const auto& [segment, shard] = group[in_sub % group.size()];
  return {segment, shard, in_sub / static_cast<Xapian::docid>(group.size())};
}

void ShardConnections::open(std::vector<std::filesystem::path> segment_dirs, std::vector<std::string> remote_uuids) {
  segment_dirs_ = std::move(segment_dirs);
  shards_ = static_cast<std::uint32_t>(remote_uuids.size());
  remote_uuids_ = std::move(remote_uuids);
  {
    const std::lock_guard lock(mutex_);
    ++epoch_;
    idle_.clear();
  }
  if (!segment_dirs_.empty()) give_back(connect());
}

std::string ShardConnections::name(std::uint32_t shard) const {
  std::string n = "xapian shard " + std::to_string(shard) + " of " + std::to_string(shards_);
  if (remote()) n += " (" + settings_.remotes[shard].address + ")";
  return n;
}

Xapian::Database ShardConnections::open_remote(std::uint32_t shard) const {
  const RemoteShard& r = settings_.remotes[shard];
  Xapian::Database db = r.port == 0
                            ? Xapian::Remote::open(r.host, r.args, settings_.timeout_ms)
                            : Xapian::Remote::open(r.host, r.port, settings_.timeout_ms, settings_.connect_timeout_ms);
  // The server must serve this shard of every segment, in the index's order: the uuids say so.
  if (db.get_uuid() != remote_uuids_[shard])
    throw Error("serves other databases than this index's shard " + std::to_string(shard) +
                " (deploy the index's shard databases to it again, in manifest order: docs/scale-out.md)");
  return db;
}

std::unique_ptr<Connection> ShardConnections::connect() const {
  auto c = std::make_unique<Connection>();
  {
    const std::lock_guard lock(mutex_);
    c->epoch = epoch_;
  }
  c->created = c->last_used = Clock::now();
  const auto segments = static_cast<std::uint32_t>(segment_dirs_.size());
  if (!remote()) {
    for (std::uint32_t j = 0; j < segments; ++j)
      for (std::uint32_t s = 0; s < shards_; ++s) {
        const std::filesystem::path path = shard_dir(segment_dirs_[j], s);
        try {
          c->db.add_database(Xapian::Database(path.string()));
        } catch (const Xapian::Error& e) {
          throw Error(path.string() + ": Xapian: " + e.get_description() + ": the index is damaged; run `rag index --full` to rebuild it");
        }
        c->groups.push_back({{j, s}});
      }
    return c;
  }
  // Remote shards are opened at once, so that a dead one costs one timeout, not one each.
  std::vector<std::optional<Xapian::Database>> opened(shards_);
  std::vector<std::string> failures(shards_);
  tbb::parallel_for(std::uint32_t{0}, shards_, [&](std::uint32_t s) {
    try {
      opened[s] = open_remote(s);
    } catch (const Xapian::Error& e) {  // a server not there, not answering, or not started
      failures[s] = e.get_description() + (settings_.remotes[s].port == 0
                                               ? " (check that the command runs and starts xapian-progsrv)"
                                               : " (check that xapian-tcpsrv --timeout 0 serves it there)");
    } catch (const Error& e) {
      failures[s] = e.what();
    }
  });
  std::string errors;
  std::size_t failed = 0;
  for (std::uint32_t s = 0; s < shards_; ++s) {
    if (failures[s].empty()) continue;
    ++failed;
    errors += (errors.empty() ? "" : "; ") + name(s) + ": " + failures[s];
    c->missing.push_back(name(s) + " did not answer (" + failures[s] + "): these results leave out its chunks");
  }
  if (failed == shards_ || (failed > 0 && !settings_.partial_results))
    throw Error(errors + (failed == shards_ ? "" : "; or set partial_results: true to search the other shards"));
  for (std::uint32_t s = 0; s < shards_; ++s) {
    if (!opened[s]) continue;
    c->db.add_database(*opened[s]);
    c->groups.emplace_back();
    for (std::uint32_t j = 0; j < segments; ++j) c->groups.back().emplace_back(j, s);
  }
  return c;
}

std::unique_ptr<Connection> ShardConnections::take(bool reuse) const {
  if (reuse) {
    const std::lock_guard lock(mutex_);
    while (!idle_.empty()) {
      std::unique_ptr<Connection> c = std::move(idle_.back());
      idle_.pop_back();
      if (c->missing.empty() || Clock::now() - c->created < kRetryMissing) return c;
    }
  }
  return connect();
}

void ShardConnections::give_back(std::unique_ptr<Connection> connection) const {
  connection->last_used = Clock::now();
  const std::lock_guard lock(mutex_);
  if (connection->epoch == epoch_) idle_.push_back(std::move(connection));
}

void ShardConnections::drop_all() const {
  const std::lock_guard lock(mutex_);
  ++epoch_;
  idle_.clear();
}

std::vector<Hit> ShardConnections::run(const std::function<std::vector<Hit>(const Connection&)>& query) const {
  if (segment_dirs_.empty()) return {};
  std::string failure;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<Connection> c = take(attempt == 0);  // the second try connects anew
    try {
      if (remote() && Clock::now() - c->last_used > kKeepAliveAfter) c->db.keep_alive();
      std::vector<Hit> hits = query(*c);
      for (const std::string& m : c->missing) warn_search(m);
      give_back(std::move(c));
      return hits;
    } catch (const Xapian::NetworkError& e) {
      drop_all();
      failure = e.get_description();
    } catch (const Xapian::Error& e) {
      throw Error("Xapian: " + e.get_description() + (remote() ? "" : ": the index is damaged; run `rag index --full` to rebuild it"));
    }
  }
  throw Error("a xapian shard stopped answering during the search (" + failure +
              "); check its server, or set partial_results: true to search the other shards");
}

}  // namespace rag::xapian_shards
