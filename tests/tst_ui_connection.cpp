// "Test connection": the target form asks a real HTTP server on 127.0.0.1 for its models, shows the
// list or the error, and lets the user pick a model from it; the GUI thread never blocks.
#include "editors/configeditor.h"
#include "editors/modellister.h"
#include "editors/targeteditor.h"

#include "support/httprequest.h"
#include "support/testproxy.h"
#include "support/tlsserver.h"

#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

using namespace Qt::Literals::StringLiterals;

using namespace tb;

namespace {

/// A one-route HTTP server: answers every request with the given status and body, and keeps each
/// request's head so the test can check what was sent.
class ModelsServer : public QObject
{
public:
    ModelsServer(int status, QByteArray body, int delayMs = 0)
        : m_status(status)
        , m_body(std::move(body))
        , m_delayMs(delayMs)
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    const auto request = tb::test::readRequest(*socket, m_pending[socket]);
                    if (!request)
                        return;
                    m_pending.remove(socket);
                    heads << request->head;
                    QTimer::singleShot(m_delayMs, socket, [this, socket] { answer(socket); });
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    bool listen() { return m_server.listen(QHostAddress(QStringLiteral("127.0.0.1")), 0); }
    QString baseUrl() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort()); }

    QList<QByteArray> heads;

private:
    void answer(QTcpSocket *socket)
    {
        socket->write("HTTP/1.1 " + QByteArray::number(m_status) +
                      " X\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(m_body.size()) +
                      "\r\nConnection: close\r\n\r\n" + m_body);
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    int m_status;
    QByteArray m_body;
    int m_delayMs;
    QHash<QTcpSocket *, QByteArray> m_pending;
};

TargetConfig targetAt(const QString &url)
{
    TargetConfig t;
    t.name = QStringLiteral("server under test");
    t.url = url;
    t.model = QStringLiteral("placeholder");
    return t;
}

} // namespace

class TestUiConnection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseModels_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QStringList>("models"); // {"<none>"}: not a listing
        QTest::newRow("openai") << QByteArray(R"({"object":"list","data":[{"id":"a","object":"model"},{"id":"b"}]})")
                                << QStringList{u"a"_s, u"b"_s};
        QTest::newRow("anthropic") << QByteArray(R"({"data":[{"id":"claude-x","display_name":"X"}],"has_more":false})")
                                   << QStringList{u"claude-x"_s};
        QTest::newRow("ollama") << QByteArray(R"({"models":[{"name":"llama3:8b"}]})") << QStringList{u"llama3:8b"_s};
        QTest::newRow("empty list") << QByteArray(R"({"data":[]})") << QStringList{};
        QTest::newRow("html") << QByteArray("<html>hi</html>") << QStringList{u"<none>"_s};
        QTest::newRow("other json") << QByteArray(R"({"status":"ok"})") << QStringList{u"<none>"_s};
    }

    void parseModels()
    {
        QFETCH(QByteArray, body);
        QFETCH(QStringList, models);
        const auto parsed = ModelLister::parseModels(body);
        if (models == QStringList{u"<none>"_s})
            QVERIFY(!parsed);
        else
            QCOMPARE(parsed.value_or(QStringList{u"<none>"_s}), models);
    }

    void modelsUrl()
    {
        QCOMPARE(ModelLister::modelsUrl(QStringLiteral("http://127.0.0.1:8000/v1")).toString(),
                 QStringLiteral("http://127.0.0.1:8000/v1/models"));
        QCOMPARE(ModelLister::modelsUrl(QStringLiteral(" http://127.0.0.1:8000/v1/ ")).toString(),
                 QStringLiteral("http://127.0.0.1:8000/v1/models"));
    }

    void listsModelsAndPicksOne()
    {
        ModelsServer server(200, R"({"object":"list","data":[{"id":"alpha"},{"id":"beta"}]})");
        QVERIFY(server.listen());
        ConfigEditor editor;
        editor.show();
        TargetConfig t = targetAt(server.baseUrl());
        t.apiKey = QStringLiteral("sk-typed-for-test");
        t.headers = {{QStringLiteral("X-Team"), QStringLiteral("perf")}};
        RunConfig c;
        c.target = t;
        c.prompt.promptTokens = 16;
        editor.setConfig(c);

        auto *button = editor.findChild<QPushButton *>(QStringLiteral("testConnection"));
        auto *list = editor.findChild<QListWidget *>(QStringLiteral("modelList"));
        auto *status = editor.findChild<QLabel *>(QStringLiteral("connectionStatus"));
        QTest::mouseClick(button, Qt::LeftButton);
        // The request is asynchronous: the click returned before any answer.
        QVERIFY(!button->isEnabled());
        QVERIFY(status->text().contains(server.baseUrl() + QStringLiteral("/models")));
        QTRY_COMPARE_WITH_TIMEOUT(list->count(), 2, 20000);
        QVERIFY(list->isVisible());
        QVERIFY(button->isEnabled());
        QVERIFY2(status->text().contains(QStringLiteral("2 models")), qPrintable(status->text()));
        QCOMPARE(list->item(0)->text(), QStringLiteral("alpha"));

        QCOMPARE(server.heads.size(), 1);
        const QByteArray head = server.heads.constFirst();
        QVERIFY2(head.startsWith("GET /v1/models HTTP/1.1"), head.constData());
        QVERIFY2(head.contains("Authorization: Bearer sk-typed-for-test"), head.constData());
        QVERIFY2(head.contains("X-Team: perf"), head.constData());

        const QRect item = list->visualItemRect(list->item(1));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, item.center());
        QCOMPARE(editor.config().target.model, QStringLiteral("beta"));
        // The listed names are offered in the model box too.
        QCOMPARE(editor.findChild<QComboBox *>(QStringLiteral("targetModel"))->count(), 2);
    }

    void testConnectionSaysTheModelIsNotListed_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("warning"); // empty: none
        QTest::newRow("not listed") << "placeholder"
                                    << "model 'placeholder' is not among the server's 2 models";
        QTest::newRow("listed") << "beta" << QString();
    }

    /// Test connection said "Connected" without a word that the configured model was not in the
    /// server's list; the run then failed every request with 404.
    void testConnectionSaysTheModelIsNotListed()
    {
        QFETCH(QString, model);
        QFETCH(QString, warning);
        ModelsServer server(200, R"({"object":"list","data":[{"id":"alpha"},{"id":"beta"}]})");
        QVERIFY(server.listen());
        ConfigEditor editor;
        editor.show();
        RunConfig c;
        c.target = targetAt(server.baseUrl());
        c.target.model = model;
        c.prompt.promptTokens = 16;
        editor.setConfig(c);
        auto *button = editor.findChild<QPushButton *>(QStringLiteral("testConnection"));
        auto *list = editor.findChild<QListWidget *>(QStringLiteral("modelList"));
        auto *status = editor.findChild<QLabel *>(QStringLiteral("connectionStatus"));
        for (int attempt = 0; attempt < 2; ++attempt) { // a second test says it once, not twice
            QTest::mouseClick(button, Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(button->isEnabled(), 20000);
            QCOMPARE(list->count(), 2);
            if (warning.isEmpty()) {
                QVERIFY2(!status->text().contains(QStringLiteral("not among")), qPrintable(status->text()));
            } else {
                QCOMPARE(status->text().count(warning), 1);
            }
        }
        // Choosing a listed model takes the warning away.
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(0)).center());
        QCOMPARE(editor.config().target.model, QStringLiteral("alpha"));
        QVERIFY2(!status->text().contains(QStringLiteral("not among")), qPrintable(status->text()));
        QVERIFY2(status->text().contains(QStringLiteral("2 models")), qPrintable(status->text()));
    }

    void testConnectionSaysWhetherAProxyCarriedIt_data()
    {
        QTest::addColumn<bool>("proxied");
        QTest::newRow("through the target's proxy") << true;
        QTest::newRow("direct") << false;
    }

    void testConnectionSaysWhetherAProxyCarriedIt()
    {
        QFETCH(bool, proxied);
        ModelsServer server(200, R"({"data":[{"id":"alpha"}]})");
        QVERIFY(server.listen());
        TestProxy proxy;
        QVERIFY(proxy.listen(QHostAddress::LocalHost));
        ConfigEditor editor;
        editor.show();
        RunConfig c;
        c.target = targetAt(server.baseUrl());
        c.target.proxy = proxied ? proxy.url() : QStringLiteral("none");
        c.prompt.promptTokens = 16;
        editor.setConfig(c);
        auto *status = editor.findChild<QLabel *>(QStringLiteral("connectionStatus"));
        QTest::mouseClick(editor.findChild<QPushButton *>(QStringLiteral("testConnection")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("1 model")), 20000);
        // Test connection says what was negotiated and whether the proxy carried it.
        const QString through =
            QStringLiteral("Connected over HTTP/1.1 through proxy %1 (target.proxy) in").arg(proxy.url());
        QVERIFY2(status->text().contains(through) == proxied, qPrintable(status->text()));
        QVERIFY2(status->text().startsWith(QStringLiteral("Connected over HTTP/1.1")), qPrintable(status->text()));
        QCOMPARE(proxy.connections > 0, proxied);
        if (proxied)
            QVERIFY2(proxy.heads.constFirst().startsWith("GET " + server.baseUrl().toLatin1() + "/models HTTP/1.1"),
                     proxy.heads.constFirst().constData());
        QCOMPARE(server.heads.size(), 1);
    }

    void testConnectionIgnoredInsecureAndCaCert_data()
    {
        QTest::addColumn<QString>("trust");
        QTest::addColumn<bool>("reached");
        QTest::newRow("--insecure") << QStringLiteral("insecure") << true;
        QTest::newRow("--ca-cert") << QStringLiteral("ca") << true;
        QTest::newRow("self-signed, verified") << QString() << false;
    }

    // Test connection took neither --insecure nor --ca-cert: a self-signed server the run reached
    // was "Cannot reach …" here. It lists with the run's TLS settings now.
    void testConnectionIgnoredInsecureAndCaCert()
    {
        QFETCH(QString, trust);
        QFETCH(bool, reached);
        if (!QSslSocket::supportsSsl())
            QSKIP("this Qt has no TLS backend");
        TlsServer server;
        const QByteArray listing = R"({"data":[{"id":"alpha"}]})";
        server.response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                          QByteArray::number(listing.size()) + "\r\nConnection: close\r\n\r\n" + listing;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        ModelLister lister;
        QSignalSpy listed(&lister, &ModelLister::modelsListed);
        QSignalSpy failed(&lister, &ModelLister::listFailed);
        TargetConfig t = targetAt(server.url());
        t.proxy = QStringLiteral("none");
        t.tlsVerify = trust != QLatin1String("insecure");
        if (trust == QLatin1String("ca"))
            t.caCertificate = QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.crt");
        lister.list(t);
        QTRY_COMPARE_WITH_TIMEOUT(listed.size() + failed.size(), 1, 20000);
        if (reached) {
            QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
            QCOMPARE(listed.constFirst().constFirst().toStringList(), QStringList{QStringLiteral("alpha")});
        } else {
            QVERIFY2(failed.constFirst().constFirst().toString().contains(QLatin1String("Cannot reach")),
                     qPrintable(failed.constFirst().constFirst().toString()));
        }
    }

    void typedKeyWithALineBreakNeverListed_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("expected");
        const QString lineBreak =
            QStringLiteral("target.api_key: the API key typed in contains a line break (CR or LF)");
        QTest::newRow("CRLF, Bearer") << int(ApiKind::OpenAIChat) << QStringLiteral("sk-A-secret\r\nX-Injected-Key: 1")
                                      << lineBreak;
        QTest::newRow("LF, x-api-key") << int(ApiKind::AnthropicMessages)
                                       << QStringLiteral("sk-A-secret\nX-Injected-Key: 1") << lineBreak;
        QTest::newRow("trailing newline")
            << int(ApiKind::OpenAIChat) << QStringLiteral("sk-A-secret\n")
            << QStringLiteral("target.api_key: the API key typed in ends with a line break (CR or LF), as text read "
                              "from a file often does; remove it");
    }

    // A key pasted into the API key field with a line break went out in Test connection's request
    // as it was: a header of its own, or a malformed request. It is refused before anything is sent.
    void typedKeyWithALineBreakNeverListed()
    {
        QFETCH(int, api);
        QFETCH(QString, key);
        QFETCH(QString, expected);
        ModelsServer server(200, R"({"data":[{"id":"alpha"}]})");
        QVERIFY(server.listen());
        ModelLister lister;
        QSignalSpy listed(&lister, &ModelLister::modelsListed);
        QSignalSpy failed(&lister, &ModelLister::listFailed);
        TargetConfig t = targetAt(server.baseUrl());
        t.api = ApiKind(api);
        t.apiKey = key;
        lister.list(t);
        QTRY_COMPARE_WITH_TIMEOUT(listed.size() + failed.size(), 1, 20000);
        QTest::qWait(200); // a request, had one been sent, would have arrived by now
        QVERIFY2(server.heads.isEmpty(), server.heads.value(0).constData());
        QCOMPARE(listed.size(), 0);
        QCOMPARE(failed.constFirst().constFirst().toString(), expected);
    }

    void anthropicHeaders()
    {
        ModelsServer server(200, R"({"data":[{"id":"claude-x"}]})");
        QVERIFY(server.listen());
        ModelLister lister;
        QSignalSpy listed(&lister, &ModelLister::modelsListed);
        TargetConfig t = targetAt(server.baseUrl());
        t.api = ApiKind::AnthropicMessages;
        t.apiKey = QStringLiteral("sk-ant-test");
        lister.list(t);
        QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 1, 20000);
        QCOMPARE(listed.constFirst().constFirst().toStringList(), QStringList{QStringLiteral("claude-x")});
        const QByteArray head = server.heads.constFirst();
        QVERIFY2(head.contains("x-api-key: sk-ant-test"), head.constData());
        QVERIFY2(head.contains("anthropic-version: "), head.constData());
        QVERIFY2(!head.contains("Authorization"), head.constData());
    }

    void showsErrors_data()
    {
        QTest::addColumn<int>("status"); // 0: nothing listens
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("message");
        QTest::newRow("401 with OpenAI error")
            << 401 << QByteArray(R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}})")
            << QStringLiteral("HTTP 401 from");
        QTest::newRow("404 plain") << 404 << QByteArray("Not Found") << QStringLiteral("Not Found");
        QTest::newRow("not a listing") << 200 << QByteArray("<html></html>") << QStringLiteral("not with a model list");
        QTest::newRow("connection refused") << 0 << QByteArray() << QStringLiteral("Cannot reach");
    }

    void showsErrors()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(QString, message);
        ModelsServer server(status, body);
        QString url;
        if (status > 0) {
            QVERIFY(server.listen());
            url = server.baseUrl();
        } else {
            // A port that was free a moment ago: nothing accepts there.
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress(QStringLiteral("127.0.0.1")), 0));
            url = QStringLiteral("http://127.0.0.1:%1/v1").arg(probe.serverPort());
        }
        ConfigEditor editor;
        editor.show();
        RunConfig c;
        c.target = targetAt(url);
        c.prompt.promptTokens = 16;
        editor.setConfig(c);
        editor.testConnection();
        auto *status_ = editor.findChild<QLabel *>(QStringLiteral("connectionStatus"));
        auto *button = editor.findChild<QPushButton *>(QStringLiteral("testConnection"));
        QTRY_VERIFY_WITH_TIMEOUT(button->isEnabled(), 20000);
        QVERIFY2(status_->text().contains(message), qPrintable(status_->text()));
        if (status == 401)
            QVERIFY2(status_->text().contains(QStringLiteral("Incorrect API key provided")),
                     qPrintable(status_->text()));
        QVERIFY(!editor.findChild<QListWidget *>(QStringLiteral("modelList"))->isVisible());
        QCOMPARE(editor.config().target.model, QStringLiteral("placeholder")); // nothing changed
    }

    void switchingTargetCancels()
    {
        constexpr int answerAfterMs = 300;
        ModelsServer server(200, R"({"data":[{"id":"alpha"}]})", answerAfterMs);
        QVERIFY(server.listen());
        ConfigEditor editor;
        RunConfig c;
        c.target = targetAt(server.baseUrl());
        editor.setConfig(c);
        c.target.name = QStringLiteral("another");
        editor.setConfig(c);
        editor.setCurrentTarget(0);
        editor.testConnection();
        QTRY_COMPARE_WITH_TIMEOUT(server.heads.size(), 1, 20000);
        editor.setCurrentTarget(1); // the answer to the first target's request must not land on this one
        QTest::qWait(answerAfterMs * 4);
        QCOMPARE(editor.findChild<QListWidget *>(QStringLiteral("modelList"))->count(), 0);
        QVERIFY(editor.findChild<QLabel *>(QStringLiteral("connectionStatus"))->isHidden());
    }
};

QTEST_MAIN(TestUiConnection)
#include "tst_ui_connection.moc"
