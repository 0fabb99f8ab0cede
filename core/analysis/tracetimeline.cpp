#include "tracetimeline.h"

#include "config/inputfile.h"
#include "config/outputfile.h"
#include "results/rundirectory.h"
#include "results/runfiles.h"
#include "tokenbench/version.h"

#include <QDir>
#include <QFile>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <string_view>
#include <unordered_map>

namespace tb {

namespace {

/// A chunks.jsonl line longer than this cannot belong to a request that gets instants (the budget's
/// chunks at about 20 bytes each): it is skipped unread.
constexpr qint64 kMaxChunkLineBytes = qint64(TraceTimeline::kMaxChunkInstants) * 24 + 4096;

/// The process ids: the run's counters, then one per instance, then the virtual users. Process-wide
/// events name the process's own id as their thread (what Perfetto assumes without a tid); the
/// tracks' thread ids follow the last process id and are unique in the trace, as a system's are
/// (Perfetto takes a thread id seen in another process for another thread).
constexpr int kCountersPid = 1;
constexpr int kFirstInstancePid = 2;

/// ns → whole µs, the trace's unit (a run directory's times are whole µs already).
std::int64_t toUs(std::int64_t ns)
{
    return ns / 1000;
}

void appendNumber(std::string &out, std::int64_t value)
{
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

/// A JSON string: URLs and directory names come from outside.
void appendString(std::string &out, const QString &text)
{
    out += '"';
    for (const char c : text.toStdString()) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\u00";
            out += kHex[u >> 4];
            out += kHex[u & 0xf];
        } else {
            out += c;
        }
    }
    out += '"';
}

void beginEvent(std::string &out, char ph, int pid, std::size_t tid, std::int64_t tsUs)
{
    out += ",\n{\"ph\":\"";
    out += ph;
    out += "\",\"pid\":";
    appendNumber(out, std::int64_t(pid));
    out += ",\"tid\":";
    appendNumber(out, std::int64_t(tid));
    out += ",\"ts\":";
    appendNumber(out, tsUs);
}

/// A complete event ("X") without arguments.
void appendSlice(std::string &out, int pid, std::size_t tid, std::int64_t fromUs, std::int64_t endUs, const char *name)
{
    beginEvent(out, 'X', pid, tid, fromUs);
    out += ",\"dur\":";
    appendNumber(out, endUs - fromUs);
    out += ",\"name\":\"";
    out += name;
    out += "\"}";
}

/// A metadata event up to its one argument's value: {"ph":"M",…,"args":{"<argument>":
void beginMetadata(std::string &out, const char *what, int pid, std::size_t tid, const char *argument)
{
    out += ",\n{\"ph\":\"M\",\"pid\":";
    appendNumber(out, std::int64_t(pid));
    out += ",\"tid\":";
    appendNumber(out, std::int64_t(tid));
    out += ",\"name\":\"";
    out += what;
    out += "\",\"args\":{\"";
    out += argument;
    out += "\":";
}

void appendMetadata(std::string &out, const char *what, int pid, std::size_t tid, const QString &name)
{
    beginMetadata(out, what, pid, tid, "name");
    appendString(out, name);
    out += "}}";
}

void appendSortIndex(std::string &out, const char *what, int pid, std::size_t tid, std::int64_t index)
{
    beginMetadata(out, what, pid, tid, "sort_index");
    appendNumber(out, index);
    out += "}}";
}

/// One request's times in µs, made consistent: every boundary within [start, end] and after the
/// one before it, so that its phases nest in its slice and sum to it.
struct Span {
    const RequestRecord *record = nullptr;
    std::uint64_t id = 0;            ///< the record's
    std::int64_t scheduledUs = 0;    ///< the request's start: scheduled (else sent)
    std::int64_t connectionUs = 0;   ///< its connection phase begins: sent − sending − TLS − connect
    std::int64_t endUs = 0;          ///< done
    bool sent = false;               ///< on an instance's connection (it was sent)
    std::size_t connectionTrack = 0; ///< lane of its instance (or of its connection), from 0
    std::size_t connectionTid = 0;   ///< the lane's thread id: unique in the trace
    std::size_t userTid = 0;
};

/// What a user track carries one after another: a conversation's turns while each begins after
/// the one before ended (they always do: a turn waits for its answer), else one request.
struct Unit {
    std::uint64_t id = 0;   ///< its first request's
    std::int64_t from = 0;  ///< its first request's start
    std::int64_t endUs = 0; ///< its last request's end
    std::size_t track = 0;
    std::vector<Span *> spans;
};

/// Lanes: each interval, in order of start, takes the lowest-numbered track free at its start
/// (one that ended at or before it). Returns the tracks used.
template<typename T> std::size_t assignTracks(std::vector<T *> &items, std::int64_t T::*from, std::size_t T::*track)
{
    std::sort(items.begin(), items.end(),
              [from](const T *a, const T *b) { return a->*from != b->*from ? a->*from < b->*from : a->id < b->id; });
    using Busy = std::pair<std::int64_t, std::size_t>; // end, track
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> free;
    std::size_t tracks = 0;
    for (T *item : items) {
        while (!busy.empty() && busy.top().first <= item->*from) {
            free.push(busy.top().second);
            busy.pop();
        }
        std::size_t lane = 0;
        if (free.empty()) {
            lane = tracks++;
        } else {
            lane = free.top();
            free.pop();
        }
        item->*track = lane;
        busy.emplace(item->endUs, lane);
    }
    return tracks;
}

/// A connection as requests.csv numbers it: the shard's number too in a merged run, whose shards
/// numbered their connections each from 1.
using ConnectionKey = std::pair<int, std::uint64_t>;

/// One recorded connection: its requests, and the tracks they need — one, unless it carried
/// requests at once (HTTP/2's streams), whose slices would not nest on one track.
struct Connection {
    ConnectionKey key;
    int instance = 0; ///< its first request's: all of its tracks are in that process
    std::vector<Span *> spans;
    std::size_t tracks = 0;
    std::size_t firstTid = 0;
};

std::optional<Span> spanOf(const RequestRecord &r)
{
    const std::int64_t start = r.scheduledNs >= 0 ? r.scheduledNs : r.sentNs;
    const std::int64_t end = r.doneNs >= 0 ? r.doneNs : r.lastTokenNs;
    if (start < 0 || end < start)
        return std::nullopt;
    Span s;
    s.record = &r;
    s.id = r.id;
    s.scheduledUs = toUs(start);
    s.endUs = toUs(end);
    s.sent = r.sentNs >= 0 && r.instance >= 0;
    if (s.sent) {
        // Backwards from sent, so that the phases the transport timed add up to it whatever
        // rounding did, and the rest of the wait is the user's (blocked, queued).
        std::int64_t connection = toUs(r.sentNs);
        for (const std::int64_t phase : {r.sendingNs, r.tlsNs, r.connectNs})
            connection -= phase > 0 ? toUs(phase) : 0;
        s.connectionUs = std::clamp(connection, s.scheduledUs, s.endUs);
    }
    return s;
}

struct Phase {
    std::int64_t us;  ///< -1: did not happen
    const char *name; ///< of the phase that ends at it
};

/// The phases under a request's connection slice, each named for what ended it.
void appendPhases(std::string &out, const Span &s, int pid)
{
    const RequestRecord &r = *s.record;
    const std::int64_t sentUs = toUs(r.sentNs);
    const std::int64_t connectEnd = r.connectNs > 0 ? s.connectionUs + toUs(r.connectNs) : -1;
    const std::int64_t tlsEnd = r.tlsNs > 0 ? std::max(connectEnd, s.connectionUs) + toUs(r.tlsNs) : -1;
    const bool decoded = r.firstTokenNs >= 0 && r.lastTokenNs >= 0;
    const char *last = decoded ? "finish" : r.headersNs >= 0 ? "receive" : "no response";
    const std::array<Phase, 7> boundaries{{
        {connectEnd, "connect"},
        {tlsEnd, "TLS"},
        {sentUs, "send"},
        {r.headersNs >= 0 ? toUs(r.headersNs) : -1, "TTFB"},
        {r.firstTokenNs >= 0 ? toUs(r.firstTokenNs) : -1, "first token"},
        {decoded ? toUs(r.lastTokenNs) : -1, "decode"},
        {s.endUs, last},
    }};
    std::int64_t at = s.connectionUs;
    for (const Phase &b : boundaries) {
        if (b.us < 0)
            continue;
        const std::int64_t to = std::clamp(b.us, at, s.endUs);
        if (to > at)
            appendSlice(out, pid, s.connectionTid, at, to, b.name);
        at = to;
    }
}

void appendRequestSlice(std::string &out, const Span &s, int pid, std::size_t tid, std::int64_t fromUs)
{
    const RequestRecord &r = *s.record;
    beginEvent(out, 'X', pid, tid, fromUs);
    out += ",\"dur\":";
    appendNumber(out, s.endUs - fromUs);
    out += ",\"name\":\"";
    out += r.warmup ? "warm-up " : "";
    out += r.ok() ? "request" : "request: ";
    if (!r.ok())
        out += statusName(r.status);
    out += "\",\"args\":{\"id\":";
    appendNumber(out, std::int64_t(std::min<std::uint64_t>(r.id, std::numeric_limits<std::int64_t>::max())));
    out += ",\"tokens\":";
    appendNumber(out, r.completionTokens);
    out += "}}";
}

/// The id a chunks.jsonl line starts with, as RunWriter writes it ({"id":N,…}); none for another
/// spelling, which is then parsed whole.
std::optional<std::uint64_t> leadingId(std::string_view line)
{
    constexpr std::string_view kPrefix = R"({"id":)";
    if (line.substr(0, kPrefix.size()) != kPrefix)
        return std::nullopt;
    std::uint64_t id = 0;
    const char *from = line.data() + kPrefix.size();
    const auto result = std::from_chars(from, line.data() + line.size(), id);
    if (result.ec != std::errc() || result.ptr == from || result.ptr == line.data() + line.size() ||
        (*result.ptr != ',' && *result.ptr != '}'))
        return std::nullopt;
    return id;
}

/// Gives the `wanted` records their chunks from chunks.jsonl; a line of another request is skipped
/// unparsed when it starts as RunWriter writes it, a line longer than any wanted one unread. A
/// missing or damaged file leaves the records without chunks (the trace has no instants for them).
void readChunks(const QString &path, const std::unordered_map<std::uint64_t, RequestRecord *> &wanted)
{
    QFile file;
    if (QString why; !openInputFile(file, path, runfiles::kMaxChunksJsonlBytes, &why))
        return;
    constexpr qint64 kBlock = 1 << 20;
    std::string pending;
    bool skipping = false; // inside a line too long to keep
    std::size_t found = 0;
    const auto take = [&](std::string_view line) {
        const auto id = leadingId(line);
        if (id && !wanted.count(*id))
            return;
        std::uint64_t lineId = 0;
        std::vector<ChunkStamp> chunks;
        QString why;
        if (!runfiles::parseChunksLine(line, &lineId, &chunks, &why))
            return;
        const auto it = wanted.find(lineId);
        if (it == wanted.end() || !it->second->tokenChunks.empty())
            return;
        it->second->tokenChunks = std::move(chunks);
        ++found;
    };
    while (found < wanted.size() && !file.atEnd()) {
        const QByteArray block = file.read(kBlock);
        if (block.isEmpty())
            break;
        std::string_view rest(block.constData(), std::size_t(block.size()));
        for (std::size_t end = rest.find('\n'); end != std::string_view::npos; end = rest.find('\n')) {
            if (!skipping) {
                pending.append(rest.substr(0, end));
                take(pending);
            }
            pending.clear();
            skipping = false;
            rest.remove_prefix(end + 1);
        }
        if (!skipping)
            pending.append(rest);
        if (qint64(pending.size()) > kMaxChunkLineBytes) {
            pending.clear();
            skipping = true;
        }
    }
    if (!skipping && !pending.empty())
        take(pending);
}

} // namespace

std::string TraceTimeline::build(const RunData &run, Limits limits, Stats *stats)
{
    Stats st;
    std::vector<const RequestRecord *> byId;
    byId.reserve(run.records.size());
    for (const RequestRecord &r : run.records)
        byId.push_back(&r);
    std::stable_sort(byId.begin(), byId.end(),
                     [](const RequestRecord *a, const RequestRecord *b) { return a->id < b->id; });
    if (byId.size() > limits.maxRequests) {
        st.leftOut = byId.size() - limits.maxRequests;
        byId.resize(limits.maxRequests);
    }

    std::vector<Span> spans;
    spans.reserve(byId.size());
    for (const RequestRecord *r : byId) {
        if (auto s = spanOf(*r))
            spans.push_back(*s);
        else
            ++st.unusable;
    }
    st.requests = spans.size();

    // Connection tracks: the connections requests.csv names, each with its requests; a request
    // without one (QNAM, a run from before the column) takes a lane of its instance.
    const QStringList urls = run.info.config.target.instanceUrls();
    int instances = int(urls.size());
    for (const Span &s : spans)
        instances = std::max(instances, s.sent ? s.record->instance + 1 : 0);
    std::vector<std::vector<Span *>> onInstance(static_cast<std::size_t>(instances));
    std::map<ConnectionKey, Connection> connections;
    for (Span &s : spans) {
        if (!s.sent)
            continue;
        if (s.record->connection == 0) {
            onInstance[std::size_t(s.record->instance)].push_back(&s);
            continue;
        }
        const ConnectionKey key{s.record->shard, s.record->connection};
        auto [it, added] = connections.try_emplace(key);
        if (added) {
            it->second.key = key;
            it->second.instance = s.record->instance; // spans are in order of id: its first request's
        }
        it->second.spans.push_back(&s);
    }
    std::vector<std::vector<Connection *>> connectionsOf(onInstance.size());
    for (auto &[key, c] : connections) {
        c.tracks = assignTracks(c.spans, &Span::connectionUs, &Span::connectionTrack);
        connectionsOf[std::size_t(c.instance)].push_back(&c);
    }
    std::vector<std::size_t> laneTracks(onInstance.size());
    for (std::size_t i = 0; i < onInstance.size(); ++i)
        laneTracks[i] = assignTracks(onInstance[i], &Span::connectionUs, &Span::connectionTrack);
    st.connections = connections.size();

    // User tracks: a conversation's turns on one, one after another; other requests alone.
    std::vector<Unit> units;
    units.reserve(spans.size());
    {
        std::map<std::pair<int, std::uint64_t>, std::size_t> open; // conversation → its last unit
        for (Span &s : spans) {
            const std::uint64_t conversation = s.record->conversation;
            if (conversation > 0) {
                const auto it = open.find({s.record->shard, conversation});
                if (it != open.end() && s.scheduledUs >= units[it->second].endUs) {
                    Unit &u = units[it->second];
                    u.endUs = s.endUs;
                    u.spans.push_back(&s);
                    continue;
                }
            }
            Unit &u = units.emplace_back();
            u.id = s.id;
            u.from = s.scheduledUs;
            u.endUs = s.endUs;
            u.spans.push_back(&s);
            if (conversation > 0)
                open[{s.record->shard, conversation}] = units.size() - 1;
        }
    }
    std::vector<Unit *> unitOrder;
    unitOrder.reserve(units.size());
    for (Unit &u : units)
        unitOrder.push_back(&u);
    st.userTracks = assignTracks(unitOrder, &Unit::from, &Unit::track);

    // Thread ids after the last process id, an instance's tracks together: its connections in
    // order of number, then its lanes.
    const int usersPid = kFirstInstancePid + instances;
    std::size_t nextTid = std::size_t(usersPid) + 1;
    std::vector<std::size_t> firstLaneTid(onInstance.size());
    for (std::size_t i = 0; i < onInstance.size(); ++i) {
        for (Connection *c : connectionsOf[i]) {
            c->firstTid = nextTid;
            nextTid += c->tracks;
            st.connectionTracks += c->tracks;
            for (Span *s : c->spans)
                s->connectionTid = c->firstTid + s->connectionTrack;
        }
        firstLaneTid[i] = nextTid;
        nextTid += laneTracks[i];
        st.connectionTracks += laneTracks[i];
        for (Span *s : onInstance[i])
            s->connectionTid = firstLaneTid[i] + s->connectionTrack;
    }
    const std::size_t firstUserTid = nextTid;
    for (const Unit &u : units) {
        for (Span *s : u.spans)
            s->userTid = firstUserTid + u.track;
    }

    std::string out;
    out.reserve(spans.size() * 900 + 4096);
    out += "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":";
    appendString(out, QStringLiteral("TokenBench ") + tb::version());
    out += ",\"run\":";
    appendString(out, run.label());
    out += ",\"requests\":";
    appendNumber(out, std::int64_t(run.records.size()));
    out += ",\"requests_in_trace\":";
    appendNumber(out, std::int64_t(st.requests));
    out += ",\"requests_left_out\":";
    appendNumber(out, std::int64_t(st.leftOut));
    out += ",\"requests_without_times\":";
    appendNumber(out, std::int64_t(st.unusable));
    out += ",\"max_requests\":";
    appendNumber(out, std::int64_t(limits.maxRequests));
    out += ",\"max_chunk_instants\":";
    appendNumber(out, std::int64_t(limits.maxChunkInstants));
    // Filled in below, once the instants are counted: a fixed-width placeholder.
    out += ",\"chunk_instants\":";
    const std::size_t chunkCountAt = out.size();
    out.append(20, ' ');
    out += ",\"connections\":";
    appendNumber(out, std::int64_t(st.connections));
    out += ",\"tracks\":";
    out += st.connections > 0 ? "\"connections as recorded, one track each (more where one carried requests at once); "
                                "users: a conversation's turns on one track\"},"
                              : "\"lanes: a request takes the lowest-numbered track free when it starts; users: a "
                                "conversation's turns on one track\"},";
    out += "\"traceEvents\":[";
    const std::size_t firstEventAt = out.size();

    // Processes and tracks, named, and ordered for chrome://tracing (which reads the sort indexes;
    // the ids follow the same order).
    appendMetadata(out, "process_name", kCountersPid, kCountersPid, QStringLiteral("run: ") + run.label());
    appendSortIndex(out, "process_sort_index", kCountersPid, kCountersPid, kCountersPid);
    const bool merged = !run.info.mergedFrom.isEmpty();
    for (int i = 0; i < instances; ++i) {
        const int pid = kFirstInstancePid + i;
        const QString url = run.info.config.target.instanceUrl(i);
        appendMetadata(
            out, "process_name", pid, std::size_t(pid),
            QStringLiteral("instance %1%2").arg(i + 1).arg(url.isEmpty() ? QString() : QStringLiteral(": ") + url));
        appendSortIndex(out, "process_sort_index", pid, std::size_t(pid), pid);
        std::int64_t sortIndex = 0;
        for (const Connection *c : connectionsOf[std::size_t(i)]) {
            const QString name = merged
                                     ? QStringLiteral("shard %1 connection %2").arg(c->key.first + 1).arg(c->key.second)
                                     : QStringLiteral("connection %1").arg(c->key.second);
            for (std::size_t t = 0; t < c->tracks; ++t) {
                const std::size_t tid = c->firstTid + t;
                appendMetadata(out, "thread_name", pid, tid,
                               t == 0 ? name : QStringLiteral("%1, lane %2").arg(name).arg(t + 1));
                appendSortIndex(out, "thread_sort_index", pid, tid, sortIndex++);
            }
        }
        // Lanes are "connection N" in a run that numbers none, as the file always named them.
        const QString lane =
            st.connections > 0 ? QStringLiteral("unnumbered lane %1") : QStringLiteral("connection %1");
        for (std::size_t t = 0; t < laneTracks[std::size_t(i)]; ++t) {
            const std::size_t tid = firstLaneTid[std::size_t(i)] + t;
            appendMetadata(out, "thread_name", pid, tid, lane.arg(t + 1));
            appendSortIndex(out, "thread_sort_index", pid, tid, sortIndex++);
        }
    }
    appendMetadata(out, "process_name", usersPid, std::size_t(usersPid), QStringLiteral("virtual users"));
    appendSortIndex(out, "process_sort_index", usersPid, std::size_t(usersPid), usersPid);
    for (std::size_t t = 0; t < st.userTracks; ++t) {
        appendMetadata(out, "thread_name", usersPid, firstUserTid + t, QStringLiteral("user %1").arg(t + 1));
        appendSortIndex(out, "thread_sort_index", usersPid, firstUserTid + t, std::int64_t(t));
    }

    // Requests in order of id: their slices, phases and chunks.
    std::size_t chunkBudget = limits.maxChunkInstants;
    bool chunksFit = true;
    for (const Span &span : spans) {
        const Span *s = &span;
        const RequestRecord &r = *s->record;
        const std::size_t userTid = s->userTid;
        appendRequestSlice(out, *s, usersPid, userTid, s->scheduledUs);
        const std::int64_t waitEnd = s->sent ? s->connectionUs : s->endUs;
        if (waitEnd > s->scheduledUs)
            appendSlice(out, usersPid, userTid, s->scheduledUs, waitEnd, s->sent ? "wait" : "not sent");
        if (!s->sent)
            continue;
        const int pid = kFirstInstancePid + r.instance;
        appendRequestSlice(out, *s, pid, s->connectionTid, s->connectionUs);
        appendPhases(out, *s, pid);
        // Whole requests only, while they fit: a trace with some requests' every chunk says
        // more than one with every request's first few.
        if (!chunksFit || r.tokenChunks.empty())
            continue;
        if (r.tokenChunks.size() > chunkBudget) {
            chunksFit = false;
            continue;
        }
        chunkBudget -= r.tokenChunks.size();
        ++st.chunkRequests;
        for (const ChunkStamp &c : r.tokenChunks) {
            const std::int64_t at = std::clamp(toUs(c.tNs), s->connectionUs, s->endUs);
            beginEvent(out, 'i', pid, s->connectionTid, at);
            out += R"(,"s":"t","name":"chunk","args":{"chars":)";
            appendNumber(out, std::int64_t(c.chars));
            out += "}}";
            ++st.chunkInstants;
        }
    }

    // Requests in flight (sent → done, warm-up left out, ends before starts at one instant: the
    // summary's count, metrics/inflighttracker.h), one value per instant it changed.
    std::vector<std::pair<std::int64_t, int>> changes;
    changes.reserve(spans.size() * 2);
    for (const Span &s : spans) {
        const RequestRecord &r = *s.record;
        if (r.warmup || r.sentNs < 0 || r.doneNs < r.sentNs)
            continue;
        changes.emplace_back(toUs(r.sentNs), +1);
        changes.emplace_back(toUs(r.doneNs), -1);
    }
    std::sort(changes.begin(), changes.end());
    int inFlight = 0;
    for (std::size_t i = 0; i < changes.size(); ++i) {
        inFlight += changes[i].second;
        if (i + 1 < changes.size() && changes[i + 1].first == changes[i].first)
            continue;
        st.peakInFlight = std::max(st.peakInFlight, inFlight);
        beginEvent(out, 'C', kCountersPid, kCountersPid, changes[i].first);
        out += R"(,"name":"in flight","args":{"requests":)";
        appendNumber(out, std::int64_t(inFlight));
        out += "}}";
    }
    // Output tokens a second: the run's own time series (each chunk's tokens in its second).
    for (const TimeSeriesRow &row : run.timeSeries) {
        beginEvent(out, 'C', kCountersPid, kCountersPid, std::int64_t(row.second) * 1'000'000);
        out += R"(,"name":"output tokens/s","args":{"tokens":)";
        appendNumber(out, row.outputTokens);
        out += "}}";
    }
    out += "\n]}\n";

    if (out.size() > firstEventAt && out[firstEventAt] == ',')
        out.erase(firstEventAt, 1);
    const std::string count = std::to_string(st.chunkInstants);
    out.replace(chunkCountAt, count.size(), count);
    st.bytes = out.size();
    if (stats)
        *stats = st;
    return out;
}

std::optional<std::string> TraceTimeline::fromDirectory(const QString &directory, QString *error, Limits limits,
                                                        Stats *stats)
{
    auto run = RunReader::load(directory, error, RunReader::Records);
    if (!run)
        return std::nullopt;
    // The requests that will get chunk instants, from requests.csv's chunk counts: only their
    // lines of chunks.jsonl are parsed and kept, so memory stays within the budget.
    std::vector<RequestRecord *> byId;
    byId.reserve(run->records.size());
    for (RequestRecord &r : run->records)
        byId.push_back(&r);
    std::stable_sort(byId.begin(), byId.end(),
                     [](const RequestRecord *a, const RequestRecord *b) { return a->id < b->id; });
    if (byId.size() > limits.maxRequests)
        byId.resize(limits.maxRequests);
    std::unordered_map<std::uint64_t, RequestRecord *> wanted;
    std::size_t budget = limits.maxChunkInstants;
    for (RequestRecord *r : byId) {
        if (r->chunks <= 0 || r->sentNs < 0)
            continue;
        if (std::size_t(r->chunks) > budget)
            break;
        budget -= std::size_t(r->chunks);
        wanted.emplace(r->id, r);
    }
    if (!wanted.empty())
        readChunks(QDir(directory).filePath(QLatin1String(runfiles::kChunksJsonl)), wanted);

    return build(*run, limits, stats);
}

bool TraceTimeline::write(const QString &directory, const QString &path, QString *error, Limits limits, Stats *stats)
{
    const auto trace = fromDirectory(directory, error, limits, stats);
    if (!trace)
        return false;
    if (QString why; !writeFileAtomically(path, *trace, &why)) {
        *error = QStringLiteral("cannot write %1: %2").arg(QDir::toNativeSeparators(path), why);
        return false;
    }
    return true;
}

} // namespace tb
