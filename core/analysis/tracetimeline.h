#pragma once

#include <QString>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tb {

struct RunData;

/// A run's requests as a Chrome trace event JSON file (docs/output-files.md "Request timelines"),
/// which ui.perfetto.dev and chrome://tracing open: one process per instance (--url) with a track
/// per connection, one process of virtual users with a track per user, a slice per request with
/// its phases nested under it (connect, TLS, send, TTFB, first token, decode, finish), an instant
/// per streamed chunk, and the counters "in flight" and "output tokens/s".
///
/// Connections are the ones requests.csv's `connection` column names (the native transport
/// numbers them as it opens them): a track "connection N" each, in the process of the instance of
/// its first request. An HTTP/1.1 connection carries one request at a time, so its slices follow
/// one another on its one track; an HTTP/2 connection carries several at once, and slices that
/// overlap do not nest on one track (the format wants them nested; viewers drop or misdraw the
/// rest), so it gets a track per stream in use at once: "connection N", "connection N, lane 2", ….
/// A request without a number (QNAM, which does not say; a run from before the column) takes a
/// lane: the lowest-numbered track of its instance free when its connection phase begins.
///
/// Users: a conversation's turns (--turns) follow one another on one user track; other requests,
/// and whole conversations, take the lowest-numbered user track free when they are scheduled, so
/// closed loop gives one track per user.
///
/// Size: every request up to maxRequests (the first by id) gets its slices; chunk instants go to
/// the first requests by id while their chunks fit in maxChunkInstants. The output is at most
/// about maxRequests × 1.7 kB (1.4 kB of slices, 0.27 kB for a connection track of its own: a
/// server that closes after every response) + maxChunkInstants × 95 bytes (365 MB), whatever the
/// run directory holds (docs/output-files.md "Request timelines").
class TraceTimeline
{
public:
    /// Requests with slices; more are counted in the file's otherData and left out.
    static constexpr std::size_t kMaxRequests = 200'000;
    /// Chunk instants in all (the first requests' chunks, each request's whole or none).
    static constexpr std::size_t kMaxChunkInstants = 250'000;

    struct Limits {
        std::size_t maxRequests;
        std::size_t maxChunkInstants;
    };
    static constexpr Limits kLimits{kMaxRequests, kMaxChunkInstants};

    /// What a build put in the file.
    struct Stats {
        std::size_t requests = 0;         ///< requests with a slice
        std::size_t leftOut = 0;          ///< over maxRequests
        std::size_t unusable = 0;         ///< no start or an end before the start: no slice
        std::size_t chunkRequests = 0;    ///< requests with chunk instants
        std::size_t chunkInstants = 0;    ///< instants written
        std::size_t connectionTracks = 0; ///< over all instances, lanes included
        std::size_t connections = 0;      ///< numbered connections (requests.csv's column)
        std::size_t userTracks = 0;
        int peakInFlight = 0; ///< the in-flight counter's largest value
        std::size_t bytes = 0;
    };

    /// The trace of `run` (its records; each record's tokenChunks become its chunk instants).
    static std::string build(const RunData &run, Limits limits = kLimits, Stats *stats = nullptr);

    /// Reads the run directory (requests.csv, and from chunks.jsonl only the lines of the requests
    /// that get chunk instants) and makes its trace. std::nullopt with *error as RunReader::load
    /// says it (the directory is not a run, a file is damaged).
    static std::optional<std::string> fromDirectory(const QString &directory, QString *error, Limits limits = kLimits,
                                                    Stats *stats = nullptr);
    /// fromDirectory(), written to `path` whole or not at all (never through a link). False with
    /// *error naming the directory or the file.
    static bool write(const QString &directory, const QString &path, QString *error, Limits limits = kLimits,
                      Stats *stats = nullptr);
};

} // namespace tb
