#pragma once
// Where the `xapian` retriever's shards are searched from, and the connections to them: the
// layer Xapian's remote backend leaves to its client.
//
// A connection is one Xapian::Database combining every shard, local or remote; Xapian ranks
// over it with the statistics of all of them. Database objects are not thread-safe, so each
// search takes a connection of its own from a pool and gives it back (one per thread that
// searches at once). On any NetworkError the whole connection is dropped, with every idle one
// (a half-done exchange leaves a connection unusable, and a server that went away broke the
// others too), and the search runs again once on a new connection. A shard that cannot be
// reached, does not answer within the timeout, or serves other databases than the index's is
// an error naming it, or, with partial_results, left out with a warning naming it; a connection
// without some shards tries them again after kRetryMissing.
#include <xapian.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rag/retriever.hpp"
#include "shard_files.hpp"

namespace rag::xapian_shards {

/// A shard served by another process.
struct RemoteShard {
  std::string address;  ///< as the pipeline writes it
  std::string host;     ///< host name or address; for prog:, the program
  unsigned port = 0;    ///< 0 for prog:
  std::string args;     ///< for prog:, the program's arguments (split at spaces by Xapian, no shell)

  /// Parses `host:port` (xapian-tcpsrv; `[v6]:port` too) or `prog:PROGRAM ARGS...`
  /// (xapian-progsrv over a pipe, or `ssh HOST xapian-progsrv ...`). Throws rag::Error saying
  /// which forms are allowed.
  static RemoteShard parse(const std::string& address);
};

struct ConnectionSettings {
  std::vector<RemoteShard> remotes;  ///< shard i on remotes[i]; empty: the segments' own databases
  unsigned timeout_ms = 2000;         ///< for each exchange with a remote shard
  unsigned connect_timeout_ms = 1000;
  bool partial_results = false;
};

/// The shards of every segment as one Xapian::Database, and where its document ids come from.
struct Connection {
  Xapian::Database db;
  /// Sub-database i of `db` interleaves the documents of groups[i] (segment, shard) pairs, in
  /// order: a local shard is one pair; a remote serves its shard of every segment.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> groups;
  std::vector<std::string> missing;  ///< warnings for shards left out
  std::uint64_t epoch = 0;
  std::chrono::steady_clock::time_point created, last_used;

  struct Place {
    std::uint32_t segment, shard;
    Xapian::docid index;  ///< 0-based, in the shard's database
  };
  /// Where document `id` of `db` is.
  Place place(Xapian::docid id) const;
};

class ShardConnections {
 public:
  explicit ShardConnections(ConnectionSettings settings) : settings_(std::move(settings)) {}

  /// Takes the segments' folders and, for each shard, the uuid a remote serving it must report
  /// (its databases' uuids joined by ':', in segment order, as Xapian joins them), and connects
  /// once: throws rag::Error when a shard cannot be opened or reached (unless partial_results).
  void open(std::vector<std::filesystem::path> segment_dirs, std::vector<std::string> remote_uuids);
  /// Runs `query` on a connection and returns what it returns; thread-safe (see above). Gives
  /// the warnings of shards left out through warn_search. Throws rag::Error when a shard fails.
  std::vector<Hit> run(const std::function<std::vector<Hit>(const Connection&)>& query) const;
  bool remote() const { return !settings_.remotes.empty(); }

 private:
  std::unique_ptr<Connection> connect() const;
  std::unique_ptr<Connection> take(bool reuse) const;
  void give_back(std::unique_ptr<Connection> connection) const;
  void drop_all() const;
  /// Opens remote shard `shard` and checks it serves this index's databases.
  Xapian::Database open_remote(std::uint32_t shard) const;
  std::string name(std::uint32_t shard) const;

  ConnectionSettings settings_;
  std::vector<std::filesystem::path> segment_dirs_;
  std::vector<std::string> remote_uuids_;
  std::uint32_t shards_ = 1;

  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<Connection>> idle_;
  mutable std::uint64_t epoch_ = 0;  // bumped by drop_all: connections of older epochs are not kept
};

}  // namespace rag::xapian_shards
