// Request timelines as Chrome trace event JSON (analysis/tracetimeline.h): `run --trace-out` and
// `export-trace` against the simulator, the size rule on synthetic runs, hostile run directories.
// The format: the Trace Event Format document (Google, "Trace Event Format", the JSON Object
// Format: traceEvents, ph X with ts/dur in µs, i with s, C with args, M process_name/thread_name).
#include "analysis/tracetimeline.h"
#include "results/rundirectory.h"
#include "sim/simulatorhost.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/testfiles.h"
#include "support/testsimulator.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

using namespace tb;
using nlohmann::json;

namespace {

using Track = std::pair<std::int64_t, std::int64_t>; // pid, tid

/// What Perfetto's JSON importer needs of every event (google/perfetto
/// src/trace_processor/importers/json/json_trace_parser_impl.cc, 2024), checked as a viewer would:
/// each "X" has ts, dur ≥ 0, pid and tid; each "i" and "C" ts and pid; every track an event is on
/// is named by an "M" thread_name (counters: their process by process_name); a thread id belongs to
/// one process (Perfetto takes one seen in another process for another thread); and the slices of
/// one track nest (a slice that starts inside another ends inside it). Empty when valid, else the
/// first problem.
QString traceProblem(const json &trace)
{
    if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array())
        return QStringLiteral("no traceEvents array");
    std::set<std::int64_t> namedProcesses;
    std::set<Track> namedThreads;
    std::map<Track, std::vector<std::pair<std::int64_t, std::int64_t>>> slices;
    std::set<Track> used;
    std::set<std::int64_t> counterProcesses;
    std::map<std::int64_t, std::int64_t> processOfThread;
    for (const json &e : trace["traceEvents"]) {
        if (e.contains("tid") && e.contains("pid") && e["tid"].is_number_integer()) {
            const auto [at, added] =
                processOfThread.emplace(e["tid"].get<std::int64_t>(), e["pid"].get<std::int64_t>());
            if (!added && at->second != e["pid"].get<std::int64_t>())
                return QStringLiteral("thread %1 in processes %2 and %3")
                    .arg(at->first)
                    .arg(at->second)
                    .arg(e["pid"].get<std::int64_t>());
        }
        const std::string ph = e.value("ph", "");
        if (!e.contains("pid") || !e["pid"].is_number_integer())
            return QStringLiteral("an event without pid: %1").arg(QString::fromStdString(e.dump()));
        const std::int64_t pid = e["pid"];
        if (ph == "M") {
            const std::string name = e.value("name", "");
            if (name == "process_name")
                namedProcesses.insert(pid);
            else if (name == "thread_name")
                namedThreads.insert({pid, e["tid"].get<std::int64_t>()});
            continue;
        }
        if (!e.contains("ts") || !e["ts"].is_number() || !e.contains("name"))
            return QStringLiteral("an event without ts or name: %1").arg(QString::fromStdString(e.dump()));
        if (ph == "C") {
            counterProcesses.insert(pid);
            continue;
        }
        if (!e.contains("tid") || !e["tid"].is_number_integer())
            return QStringLiteral("an event without tid: %1").arg(QString::fromStdString(e.dump()));
        const Track track{pid, e["tid"].get<std::int64_t>()};
        used.insert(track);
        if (ph == "X") {
            if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0)
                return QStringLiteral("a slice without dur ≥ 0: %1").arg(QString::fromStdString(e.dump()));
            slices[track].emplace_back(e["ts"].get<std::int64_t>(),
                                       e["ts"].get<std::int64_t>() + e["dur"].get<std::int64_t>());
        } else if (ph != "i") {
            return QStringLiteral("an event of phase '%1'").arg(QString::fromStdString(ph));
        }
    }
    for (const Track &t : used) {
        if (!namedThreads.count(t))
            return QStringLiteral("track %1/%2 has no thread_name").arg(t.first).arg(t.second);
        if (!namedProcesses.count(t.first))
            return QStringLiteral("process %1 has no process_name").arg(t.first);
    }
    for (const std::int64_t pid : counterProcesses) {
        if (!namedProcesses.count(pid))
            return QStringLiteral("counter process %1 has no process_name").arg(pid);
    }
    for (auto &[track, list] : slices) {
        // Longest first at one start: a parent before its children.
        std::sort(list.begin(), list.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        std::vector<std::int64_t> open; // ends of the enclosing slices
        for (const auto &[from, to] : list) {
            while (!open.empty() && open.back() <= from)
                open.pop_back();
            if (!open.empty() && to > open.back())
                return QStringLiteral("track %1/%2: a slice %3..%4 overlaps its parent ending at %5")
                    .arg(track.first)
                    .arg(track.second)
                    .arg(from)
                    .arg(to)
                    .arg(open.back());
            open.push_back(to);
        }
    }
    return {};
}

/// A request with every stamp: scheduled at `at`, 100 µs blocked, 200 µs connect, 300 µs TLS,
/// 50 µs sending, TTFB 10 ms, first token 5 ms later, `chunks` chunks 1 ms apart, done 1 ms after
/// the last. Times in ns.
RequestRecord fullRecord(std::uint64_t id, std::int64_t at, int chunks)
{
    RequestRecord r;
    r.id = id;
    r.scheduledNs = at;
    r.blockedNs = 100'000;
    r.connectNs = 200'000;
    r.tlsNs = 300'000;
    r.sendingNs = 50'000;
    r.sentNs = at + 650'000;
    r.headersNs = r.sentNs + 10'000'000;
    r.firstTokenNs = r.headersNs + 5'000'000;
    for (int c = 0; c < chunks; ++c)
        r.tokenChunks.push_back({r.firstTokenNs + std::int64_t(c) * 1'000'000, 4});
    r.chunks = chunks;
    r.lastTokenNs = chunks > 0 ? r.tokenChunks.back().tNs : r.firstTokenNs;
    r.doneNs = r.lastTokenNs + 1'000'000;
    r.completionTokens = chunks;
    return r;
}

RunData runOf(std::vector<RequestRecord> records)
{
    RunData run;
    run.info.config.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
    run.name = QStringLiteral("synthetic");
    run.records = std::move(records);
    return run;
}

/// The events of one kind, by name.
std::vector<json> events(const json &trace, const std::string &ph, const std::string &name = {})
{
    std::vector<json> out;
    for (const json &e : trace["traceEvents"]) {
        if (e.value("ph", "") == ph && (name.empty() || e.value("name", "") == name))
            out.push_back(e);
    }
    return out;
}

/// Tracks of process `pid` named by thread_name.
std::size_t tracksOf(const json &trace, std::int64_t pid)
{
    std::size_t n = 0;
    for (const json &e : events(trace, "M", "thread_name"))
        n += e["pid"].get<std::int64_t>() == pid;
    return n;
}

std::int64_t pidNamed(const json &trace, const QString &prefix)
{
    for (const json &e : events(trace, "M", "process_name")) {
        if (QString::fromStdString(e["args"]["name"].get<std::string>()).startsWith(prefix))
            return e["pid"].get<std::int64_t>();
    }
    return -1;
}

std::int64_t us(std::int64_t ns)
{
    return ns / 1000;
}

} // namespace

class TestTraceTimeline : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_base; ///< a real run's directory: its run.json, summary.json and timeseries.csv make the hostile ones

private slots:
    void initTestCase()
    {
        auto host = test::startSimulator(*sim::SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(host);
        const QString out = m_tmp.filePath(QStringLiteral("base"));
        const CliResult run = runCli({QStringLiteral("run"), QStringLiteral("--url"), host->baseUrl().toString(),
                                      QStringLiteral("--model"), host->config().model, QStringLiteral("--requests"),
                                      QStringLiteral("2"), QStringLiteral("--quiet"), QStringLiteral("--out"), out});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        m_base = out;
    }

    // A closed-loop run of 4 users over HTTP/1.1 keep-alive: 4 connections, each carrying one
    // user's requests one after another. The trace has exactly those tracks, each request's
    // slices span its recorded times, its phases nest and add up, every chunk is an instant, and
    // the in-flight counter peaks at the run's peak; export-trace makes the same file later.
    void runTraceOutMatchesItsRunDirectory()
    {
        auto host = test::startSimulator(*sim::SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(host);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const QString traceFile = dir.filePath(QStringLiteral("run.trace.json"));
        const CliResult run = runCli({QStringLiteral("run"), QStringLiteral("--url"), host->baseUrl().toString(),
                                      QStringLiteral("--model"), host->config().model, QStringLiteral("--concurrency"),
                                      QStringLiteral("4"), QStringLiteral("--requests"), QStringLiteral("40"),
                                      QStringLiteral("--out"), out, QStringLiteral("--trace-out"), traceFile});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("Wrote ")) && run.err.contains(QStringLiteral("40 requests")),
                 qPrintable(run.err));
        const QByteArray text = test::readFile(traceFile);
        const json trace = json::parse(text.constData(), text.constData() + text.size());
        const QString problem = traceProblem(trace);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        QString why;
        const auto saved = RunReader::load(out, &why, RunReader::Chunks);
        QVERIFY2(saved, qPrintable(why));
        QCOMPARE(saved->records.size(), std::size_t(40));
        QCOMPARE(saved->summary.total.connections.opened, std::int64_t(4));
        const std::int64_t instancePid = pidNamed(trace, QStringLiteral("instance 1"));
        const std::int64_t usersPid = pidNamed(trace, QStringLiteral("virtual users"));
        QCOMPARE(tracksOf(trace, instancePid), std::size_t(4));
        QCOMPARE(tracksOf(trace, usersPid), std::size_t(4));

        std::map<std::int64_t, json> userSlice;
        std::map<std::int64_t, json> connectionSlice;
        for (const json &e : events(trace, "X", "request")) {
            (e["pid"] == usersPid ? userSlice : connectionSlice)[e["args"]["id"].get<std::int64_t>()] = e;
        }
        std::map<Track, std::vector<json>> phasesOn;
        for (const json &e : events(trace, "X")) {
            if (e["pid"] == instancePid && e["name"] != "request")
                phasesOn[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}].push_back(e);
        }
        std::size_t chunks = 0;
        for (const RequestRecord &r : saved->records) {
            const json &user = userSlice.at(std::int64_t(r.id));
            QCOMPARE(user["ts"].get<std::int64_t>(), us(r.scheduledNs));
            QCOMPARE(user["ts"].get<std::int64_t>() + user["dur"].get<std::int64_t>(), us(r.doneNs));
            const json &conn = connectionSlice.at(std::int64_t(r.id));
            const auto from = conn["ts"].get<std::int64_t>();
            const std::int64_t to = from + conn["dur"].get<std::int64_t>();
            QCOMPARE(to, us(r.doneNs));
            // Its connection phase: back from sent by the phases timed (never before scheduled).
            QCOMPARE(from, std::max(us(r.scheduledNs), us(r.sentNs) - us(r.sendingNs) - us(r.tlsNs) - us(r.connectNs)));
            // Its phases: inside it, one after another, adding up to it.
            std::int64_t sum = 0;
            std::int64_t at = from;
            std::set<std::string> names;
            for (const json &p : phasesOn[{conn["pid"].get<std::int64_t>(), conn["tid"].get<std::int64_t>()}]) {
                const auto ts = p["ts"].get<std::int64_t>();
                if (ts < from || ts >= to)
                    continue;
                QCOMPARE(ts, at);
                at += p["dur"].get<std::int64_t>();
                sum += p["dur"].get<std::int64_t>();
                names.insert(p["name"].get<std::string>());
            }
            QCOMPARE(sum, to - from);
            // A phase of no whole µs is left out: on a loaded machine a reply's every token can come
            // in one read (first token = last), and a run on one failed so.
            QCOMPARE(names.count("TTFB") == 1, us(r.headersNs) > us(r.sentNs));
            QCOMPARE(names.count("decode") == 1, us(r.lastTokenNs) > us(r.firstTokenNs));
            chunks += r.tokenChunks.size();
        }
        QCOMPARE(userSlice.size(), std::size_t(40));
        QCOMPARE(connectionSlice.size(), std::size_t(40));
        QVERIFY(chunks > 40);
        QCOMPARE(events(trace, "i", "chunk").size(), chunks);
        QCOMPARE(trace["otherData"]["chunk_instants"].get<std::size_t>(), chunks);

        int peak = 0;
        for (const json &c : events(trace, "C", "in flight"))
            peak = std::max(peak, c["args"]["requests"].get<int>());
        QCOMPARE(peak, saved->summary.total.concurrency.peakInFlight);
        QCOMPARE(peak, 4);
        std::int64_t tokens = 0;
        for (const json &c : events(trace, "C", "output tokens/s"))
            tokens += c["args"]["tokens"].get<std::int64_t>();
        QCOMPARE(tokens, saved->summary.total.tokens.output);

        const QString exported = dir.filePath(QStringLiteral("exported.json"));
        const CliResult later = runCli({QStringLiteral("export-trace"), out, QStringLiteral("--out"), exported});
        QVERIFY2(later.exitCode == 0, qPrintable(later.err));
        QCOMPARE(test::readFile(exported), text);
    }

    // Issue 31: the connections the native transport numbered (requests.csv's `connection`) are
    // the tracks. 10 requests by 2 users against the simulator: kept alive over HTTP/1.1 on 2
    // transport threads, 2 connections numbered apart (1 and 2, not 1 twice), a request at a time
    // on each; over h2c on one thread, 1 connection whose requests overlap (2 tracks: overlapping
    // slices do not nest on one); closed after each streamed response (close_after_stream,
    // llama.cpp's habit), a connection per request — one sent on a connection the server had
    // closed went again on a new one, which is the one it records.
    void tracksAreTheRecordedConnections_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("closeAfterStream");
        QTest::addColumn<int>("connections");
        QTest::addColumn<int>("tracks");
        QTest::newRow("HTTP/1.1 kept alive, 2 threads")
            << QStringList{QStringLiteral("--workers"), QStringLiteral("2")} << false << 2 << 2;
        QTest::newRow("h2c, 1 thread") << QStringList{QStringLiteral("--http2"), QStringLiteral("--workers"),
                                                      QStringLiteral("1")}
                                       << false << 1 << 2;
        QTest::newRow("closed after each stream") << QStringList{} << true << 10 << 10;
    }

    void tracksAreTheRecordedConnections()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, closeAfterStream);
        QFETCH(int, connections);
        QFETCH(int, tracks);
        sim::SimConfig simConfig = *sim::SimConfig::preset(QStringLiteral("fast"));
        simConfig.closeAfterStream = closeAfterStream ? 1 : 0;
        auto host = test::startSimulator(simConfig);
        QVERIFY(host);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const QString traceFile = dir.filePath(QStringLiteral("run.trace.json"));
        const CliResult run =
            runCli(QStringList{QStringLiteral("run"), QStringLiteral("--url"), host->baseUrl().toString(),
                               QStringLiteral("--model"), host->config().model, QStringLiteral("--concurrency"),
                               QStringLiteral("2"), QStringLiteral("--requests"), QStringLiteral("10"),
                               QStringLiteral("--quiet"), QStringLiteral("--out"), out, QStringLiteral("--trace-out"),
                               traceFile} +
                   args);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QString why;
        const auto saved = RunReader::load(out, &why, RunReader::Records);
        QVERIFY2(saved, qPrintable(why));
        QCOMPARE(saved->records.size(), std::size_t(10));
        std::set<std::uint64_t> numbers;
        for (const RequestRecord &r : saved->records) {
            QVERIFY2(r.ok(), qPrintable(r.errorMessage));
            QVERIFY(r.connection > 0);
            numbers.insert(r.connection);
        }
        QCOMPARE(numbers.size(), std::size_t(connections));
        QCOMPARE(*numbers.rbegin(), std::uint64_t(connections)); // numbered from 1, none skipped

        const QByteArray text = test::readFile(traceFile);
        const json trace = json::parse(text.constData(), text.constData() + text.size());
        const QString problem = traceProblem(trace);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(trace["otherData"]["connections"].get<int>(), connections);
        const std::int64_t instancePid = pidNamed(trace, QStringLiteral("instance 1"));
        QCOMPARE(tracksOf(trace, instancePid), std::size_t(tracks));
        std::map<std::int64_t, std::string> trackName;
        for (const json &e : events(trace, "M", "thread_name")) {
            if (e["pid"] == instancePid)
                trackName[e["tid"].get<std::int64_t>()] = e["args"]["name"].get<std::string>();
        }
        // Each request on a track of its own connection; the slices of one connection.
        std::map<std::uint64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> onConnection;
        std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> onTrack;
        std::map<std::int64_t, std::uint64_t> connectionOf;
        for (const RequestRecord &r : saved->records)
            connectionOf[std::int64_t(r.id)] = r.connection;
        for (const json &e : events(trace, "X", "request")) {
            if (e["pid"] != instancePid)
                continue;
            const std::uint64_t number = connectionOf.at(e["args"]["id"].get<std::int64_t>());
            const std::string name = trackName.at(e["tid"].get<std::int64_t>());
            const std::string expected = "connection " + std::to_string(number);
            QVERIFY2(name == expected || name.rfind(expected + ", lane ", 0) == 0, name.c_str());
            const auto from = e["ts"].get<std::int64_t>();
            onConnection[number].emplace_back(from, from + e["dur"].get<std::int64_t>());
            onTrack[e["tid"].get<std::int64_t>()].emplace_back(from, from + e["dur"].get<std::int64_t>());
        }
        QCOMPARE(onConnection.size(), std::size_t(connections));
        // Requests on one track never overlap; on one connection they do over HTTP/2 only.
        const auto overlaps = [](std::vector<std::pair<std::int64_t, std::int64_t>> slices) {
            std::sort(slices.begin(), slices.end());
            for (std::size_t i = 1; i < slices.size(); ++i) {
                if (slices[i].first < slices[i - 1].second)
                    return true;
            }
            return false;
        };
        for (const auto &[tid, slices] : onTrack)
            QVERIFY2(!overlaps(slices), trackName.at(tid).c_str());
        const bool http2 = args.contains(QStringLiteral("--http2"));
        for (const auto &[number, slices] : onConnection)
            QCOMPARE(overlaps(slices), http2);
        for (const RequestRecord &r : saved->records)
            QCOMPARE(r.httpVersion, http2 ? 2 : 1);
    }

    // A conversation's turns (--turns) share a user track, one after another: 3 users holding
    // conversations of 3 turns, 18 turns in all (6 conversations or more: the last ones may be
    // cut by --requests), make 3 user tracks, each conversation's turns on one.
    void conversationTurnsShareAUserTrack()
    {
        auto host = test::startSimulator(*sim::SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(host);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const QString traceFile = dir.filePath(QStringLiteral("run.trace.json"));
        const CliResult run = runCli({QStringLiteral("run"), QStringLiteral("--url"), host->baseUrl().toString(),
                                      QStringLiteral("--model"), host->config().model, QStringLiteral("--concurrency"),
                                      QStringLiteral("3"), QStringLiteral("--turns"), QStringLiteral("3"),
                                      QStringLiteral("--requests"), QStringLiteral("18"), QStringLiteral("--quiet"),
                                      QStringLiteral("--out"), out, QStringLiteral("--trace-out"), traceFile});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QString why;
        const auto saved = RunReader::load(out, &why, RunReader::Records);
        QVERIFY2(saved, qPrintable(why));
        QCOMPARE(saved->records.size(), std::size_t(18));
        const QByteArray text = test::readFile(traceFile);
        const json trace = json::parse(text.constData(), text.constData() + text.size());
        const QString problem = traceProblem(trace);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const std::int64_t usersPid = pidNamed(trace, QStringLiteral("virtual users"));
        QCOMPARE(tracksOf(trace, usersPid), std::size_t(3));
        std::map<std::int64_t, std::int64_t> userOf; // request id → user track
        for (const json &e : events(trace, "X", "request")) {
            if (e["pid"] == usersPid)
                userOf[e["args"]["id"].get<std::int64_t>()] = e["tid"].get<std::int64_t>();
        }
        std::map<std::uint64_t, std::set<std::int64_t>> tracksOfConversation;
        for (const RequestRecord &r : saved->records) {
            QVERIFY(r.conversation > 0);
            tracksOfConversation[r.conversation].insert(userOf.at(std::int64_t(r.id)));
        }
        QVERIFY(tracksOfConversation.size() >= std::size_t(6));
        for (const auto &[conversation, userTracks] : tracksOfConversation)
            QCOMPARE(userTracks.size(), std::size_t(1));
    }

    // A requests.csv from before the connection column (or QNAM's, empty in it): the requests
    // take lanes, named "connection N" as before; a number in it is the track's name; a number
    // that is not one refuses the file.
    void connectionColumn_data()
    {
        QTest::addColumn<QByteArray>("column"); // appended to the header; "" for none
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("track");
        QTest::addColumn<int>("connections");
        QTest::newRow("oldRunWithoutConnectionColumnGetsLanes")
            << QByteArray() << QByteArray() << 0 << QStringLiteral("connection 1") << 0;
        QTest::newRow("empty: QNAM") << QByteArray(",connection") << QByteArray(",") << 0
                                     << QStringLiteral("connection 1") << 0;
        QTest::newRow("a number") << QByteArray(",connection") << QByteArray(",7") << 0
                                  << QStringLiteral("connection 7") << 1;
        QTest::newRow("zero") << QByteArray(",connection") << QByteArray(",0") << 2 << QString() << 0;
        QTest::newRow("not a number") << QByteArray(",connection") << QByteArray(",x") << 2 << QString() << 0;
    }

    void connectionColumn()
    {
        QFETCH(QByteArray, column);
        QFETCH(QByteArray, value);
        QFETCH(int, exitCode);
        QFETCH(QString, track);
        QFETCH(int, connections);
        QTemporaryDir dir;
        for (const char *name : {"run.json", "summary.json", "timeseries.csv"})
            QVERIFY(QFile::copy(QDir(m_base).filePath(QLatin1String(name)), dir.filePath(QLatin1String(name))));
        const QByteArray header = "id,stage,warmup,scheduled_ms,sent_ms,ttfb_ms,ttft_ms,e2e_ms,queue_ms,tpot_ms,"
                                  "itl_mean_ms,chunks,prompt_tokens,completion_tokens,cached_tokens,reasoning_tokens,"
                                  "token_source,status,http_status,error,response_id,done_at_ms";
        const QByteArray row = "1,s,0,0.000,1.000,2.000,3.000,5.000,1.000,,,2,10,2,0,0,chunks,ok,200,,,7.000";
        QVERIFY(test::writeFile(dir.filePath(QStringLiteral("requests.csv")),
                                header + column + "\r\n" + row + value + "\r\n"));
        QString why;
        const auto loaded = RunReader::load(dir.path(), &why, RunReader::Records);
        QCOMPARE(bool(loaded), exitCode == 0);
        const QString traceFile = dir.filePath(QStringLiteral("t.json"));
        const CliResult result =
            runCli({QStringLiteral("export-trace"), dir.path(), QStringLiteral("--out"), traceFile});
        QVERIFY2(result.exitCode == exitCode, qPrintable(result.err));
        if (exitCode != 0) {
            QVERIFY2(why.contains(QStringLiteral("'connection'")), qPrintable(why));
            return;
        }
        QCOMPARE(loaded->records.at(0).connection, std::uint64_t(connections > 0 ? 7 : 0));
        const QByteArray text = test::readFile(traceFile);
        const json trace = json::parse(text.constData(), text.constData() + text.size());
        QVERIFY(traceProblem(trace).isEmpty());
        QCOMPARE(trace["otherData"]["connections"].get<int>(), connections);
        const std::int64_t instancePid = pidNamed(trace, QStringLiteral("instance 1"));
        QCOMPARE(tracksOf(trace, instancePid), std::size_t(1));
        for (const json &e : events(trace, "M", "thread_name")) {
            if (e["pid"] == instancePid)
                QCOMPARE(QString::fromStdString(e["args"]["name"].get<std::string>()), track);
        }
    }

    void sizeRuleHolds_data()
    {
        QTest::addColumn<int>("requests");
        QTest::addColumn<int>("chunksEach");
        QTest::addColumn<int>("maxRequests");
        QTest::addColumn<int>("maxChunkInstants");
        QTest::addColumn<int>("inTrace");
        QTest::addColumn<int>("instants");
        // The first requests by id get slices; chunks go whole to the first requests while they fit.
        QTest::newRow("under both") << 20 << 8 << 100 << 1000 << 20 << 160;
        QTest::newRow("requests over") << 25 << 8 << 10 << 1000 << 10 << 80;
        QTest::newRow("chunks over") << 20 << 8 << 100 << 35 << 20 << 32;
        QTest::newRow("a request's chunks larger than the budget") << 5 << 50 << 100 << 40 << 5 << 0;
    }

    void sizeRuleHolds()
    {
        QFETCH(int, requests);
        QFETCH(int, chunksEach);
        QFETCH(int, maxRequests);
        QFETCH(int, maxChunkInstants);
        QFETCH(int, inTrace);
        QFETCH(int, instants);
        std::vector<RequestRecord> records;
        // Ids in reverse: the rule goes by id, not by the file's order.
        for (int i = requests; i >= 1; --i)
            records.push_back(fullRecord(std::uint64_t(i), std::int64_t(i) * 1'000'000, chunksEach));
        TraceTimeline::Stats stats;
        const std::string text = TraceTimeline::build(
            runOf(std::move(records)), {std::size_t(maxRequests), std::size_t(maxChunkInstants)}, &stats);
        const json trace = json::parse(text);
        const QString problem = traceProblem(trace);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(stats.requests, std::size_t(inTrace));
        QCOMPARE(stats.leftOut, std::size_t(requests - inTrace));
        QCOMPARE(stats.chunkInstants, std::size_t(instants));
        QCOMPARE(events(trace, "i", "chunk").size(), std::size_t(instants));
        QCOMPARE(trace["otherData"]["requests_left_out"].get<int>(), requests - inTrace);
        std::set<std::int64_t> ids;
        for (const json &e : events(trace, "X", "request"))
            ids.insert(e["args"]["id"].get<std::int64_t>());
        QCOMPARE(ids.size(), std::size_t(inTrace));
        QCOMPARE(*ids.rbegin(), std::int64_t(inTrace));
    }

    // The rule's figures in docs/output-files.md: a 100 000-request run, 64 chunks a request, with
    // the default limits: every request's slices, the first 3 906 requests' chunks (250 000 minus
    // the 16 left over), within the stated size — on lanes (no connection numbers), and with a
    // connection of its own for each request (a server that closes after every stream), whose
    // tracks' names the file holds too.
    void hundredThousandRequestsStayUnderTheStatedSize_data()
    {
        QTest::addColumn<bool>("connectionEach");
        QTest::addColumn<int>("maxMegabytes");
        QTest::newRow("lanes") << false << 130;
        QTest::newRow("a connection each") << true << 150;
    }

    void hundredThousandRequestsStayUnderTheStatedSize()
    {
        QFETCH(bool, connectionEach);
        QFETCH(int, maxMegabytes);
        std::vector<RequestRecord> records;
        records.reserve(100'000);
        for (int i = 1; i <= 100'000; ++i) {
            records.push_back(fullRecord(std::uint64_t(i), std::int64_t(i) * 2'000'000, 64));
            records.back().connection = connectionEach ? std::uint64_t(i) : 0;
        }
        TraceTimeline::Stats stats;
        const std::string text = TraceTimeline::build(runOf(std::move(records)), TraceTimeline::kLimits, &stats);
        QCOMPARE(stats.requests, std::size_t(100'000));
        QCOMPARE(stats.chunkInstants, std::size_t(3906 * 64));
        QCOMPARE(stats.connections, std::size_t(connectionEach ? 100'000 : 0));
        if (connectionEach)
            QCOMPARE(stats.connectionTracks, std::size_t(100'000));
        QCOMPARE(stats.bytes, text.size());
        qInfo("100000 requests, 64 chunks each: %.1f MB, %zu chunk instants, %zu connection tracks",
              double(text.size()) / 1e6, stats.chunkInstants, stats.connectionTracks);
        QVERIFY2(text.size() < std::size_t(maxMegabytes) * 1'000'000, qPrintable(QString::number(text.size())));
        QVERIFY(json::accept(text));
    }

    // Times a damaged requests.csv may hold: an end before the start, stamps out of order or past
    // the end, a request never sent. The trace stays valid: such a request has no slice, or its
    // phases are cut to fit inside it.
    void inconsistentTimesStayNested_data()
    {
        QTest::addColumn<int>("slices"); // request slices written (users' and connections')
        QTest::addColumn<int>("unusable");
        QTest::newRow("done before scheduled") << 0 << 1;
        QTest::newRow("headers after done") << 2 << 0;
        QTest::newRow("first token before sent") << 2 << 0;
        QTest::newRow("never sent") << 1 << 0;
        QTest::newRow("no times at all") << 0 << 1;
    }

    void inconsistentTimesStayNested()
    {
        QFETCH(int, slices);
        QFETCH(int, unusable);
        RequestRecord r = fullRecord(1, 5'000'000, 4);
        const QByteArray tag = QTest::currentDataTag();
        if (tag == "done before scheduled") {
            r.doneNs = 1'000'000;
        } else if (tag == "headers after done") {
            r.headersNs = r.doneNs + 50'000'000;
            r.tokenChunks.push_back({r.doneNs + 9'000'000, 3});
        } else if (tag == "first token before sent") {
            r.firstTokenNs = r.sentNs - 400'000;
            r.connectNs = 900'000'000'000;
        } else if (tag == "never sent") {
            r = RequestRecord();
            r.id = 1;
            r.scheduledNs = 1'000'000;
            r.doneNs = 2'000'000;
            r.instance = -1;
            r.status = RequestStatus::Connect;
        } else {
            r = RequestRecord();
            r.id = 1;
        }
        TraceTimeline::Stats stats;
        const json trace = json::parse(TraceTimeline::build(runOf({r}), TraceTimeline::kLimits, &stats));
        const QString problem = traceProblem(trace);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        std::size_t requestSlices = 0;
        for (const json &e : events(trace, "X"))
            requestSlices += QString::fromStdString(e["name"].get<std::string>()).startsWith(QStringLiteral("request"));
        QCOMPARE(requestSlices, std::size_t(slices));
        QCOMPARE(stats.unusable, std::size_t(unusable));
    }

    // A run directory someone else wrote: garbage in requests.csv is refused (exit 2, no file), a
    // chunks.jsonl whose lines are garbage or far too long gives no instants, not a crash.
    void hostileRunDirectory_data()
    {
        QTest::addColumn<QByteArray>("requestsCsv");
        QTest::addColumn<QByteArray>("chunksJsonl");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<int>("instants");
        const QByteArray header = "id,stage,warmup,scheduled_ms,sent_ms,ttfb_ms,ttft_ms,e2e_ms,queue_ms,tpot_ms,"
                                  "itl_mean_ms,chunks,prompt_tokens,completion_tokens,cached_tokens,reasoning_tokens,"
                                  "token_source,status,http_status,error,response_id,done_at_ms\r\n";
        const QByteArray row = "1,s,0,0.000,1.000,2.000,3.000,5.000,1.000,,,2,10,2,0,0,chunks,ok,200,,,7.000\r\n";
        const QByteArray goodChunks = "{\"id\":1,\"t_us\":[4000,1000],\"chars\":[3,4]}\n";
        QTest::newRow("one good row") << header + row << goodChunks << 0 << 2;
        QTest::newRow("garbage requests.csv") << QByteArray(5000, '\x01') << goodChunks << 2 << 0;
        QTest::newRow("garbage chunks.jsonl") << header + row << QByteArray(5000, '{') << 0 << 0;
        QTest::newRow("a chunks line longer than any kept")
            << header + row << QByteArray("{\"id\":1,\"t_us\":[") + QByteArray(8 << 20, '1') + "]}\n"
            << 0 << 0;
        QTest::newRow("a row claiming 2^31 chunks")
            << header + QByteArray(row).replace(",2,10,", ",2147483647,10,") << goodChunks << 0 << 0;
    }

    void hostileRunDirectory()
    {
        QFETCH(QByteArray, requestsCsv);
        QFETCH(QByteArray, chunksJsonl);
        QFETCH(int, exitCode);
        QFETCH(int, instants);
        QTemporaryDir dir;
        // With a summary and a time series the reader takes chunks.jsonl as it is (without one it recomputes the
        // summary from it, refusing a damaged file): the lines reach the trace's own reader.
        for (const char *name : {"run.json", "summary.json", "timeseries.csv"})
            QVERIFY(QFile::copy(QDir(m_base).filePath(QLatin1String(name)), dir.filePath(QLatin1String(name))));
        QVERIFY(test::writeFile(dir.filePath(QStringLiteral("requests.csv")), requestsCsv));
        QVERIFY(test::writeFile(dir.filePath(QStringLiteral("chunks.jsonl")), chunksJsonl));
        const QString traceFile = dir.filePath(QStringLiteral("t.json"));
        const CliResult result =
            runCli({QStringLiteral("export-trace"), dir.path(), QStringLiteral("--out"), traceFile});
        QVERIFY2(result.exitCode == exitCode, qPrintable(result.err));
        if (exitCode != 0) {
            QVERIFY(result.err.contains(QStringLiteral("requests.csv")));
            QVERIFY(!QFile::exists(traceFile));
            return;
        }
        const QByteArray text = test::readFile(traceFile);
        const json trace = json::parse(text.constData(), text.constData() + text.size());
        const QString problem = traceProblem(trace);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(events(trace, "i", "chunk").size(), std::size_t(instants));
        QVERIFY(text.size() < 100'000);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no --out") << QStringList{QStringLiteral("export-trace"), QStringLiteral("x")}
                                  << QStringLiteral("--out");
        QTest::newRow("no directory") << QStringList{QStringLiteral("export-trace"), QStringLiteral("--out"),
                                                     QStringLiteral("t.json")}
                                      << QStringLiteral("one run directory");
        QTest::newRow("not a run") << QStringList{QStringLiteral("export-trace"), QDir::tempPath(),
                                                  QStringLiteral("--out"), QStringLiteral("t.json")}
                                   << QStringLiteral("not a run directory");
        QTest::newRow("run --trace-out with --repeat")
            << QStringList{QStringLiteral("run"), QStringLiteral("--repeat"), QStringLiteral("2"),
                           QStringLiteral("--trace-out"), QStringLiteral("t.json")}
            << QStringLiteral("--trace-out");
    }

    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult result = runCli(args);
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains(message), qPrintable(result.err));
    }
};

QTEST_GUILESS_MAIN(TestTraceTimeline)
#include "tst_tracetimeline.moc"
