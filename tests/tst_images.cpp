// Image inputs (--images, a dataset's "images"; docs/metrics.md "Images"): the synthetic PNGs
// decode to their size and follow the salt, each API's body carries them in its own part, the
// simulator counts them by its rule (docs/simulator.md "Images") and refuses what it cannot read,
// and a run reports the server's tokens per image from usage.
#include "api/requestbuilder.h"
#include "formats/pngimage.h"
#include "results/rundirectory.h"
#include "sim/simimage.h"
#include "sim/simprotocol.h"
#include "workload/promptsource.h"

#include <QImage>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include "support/clirunner.h"
#include "support/testfiles.h"
#include "support/testsimulator.h"

using namespace tb;

Q_DECLARE_METATYPE(tb::ApiKind)

namespace {

/// Request `index`'s prompt with `images` synthetic images of `size` ("WxH") under `salt`.
Prompt promptWithImages(int images, const QString &size, const QString &salt, std::uint64_t index = 0)
{
    PromptConfig config;
    config.images = images;
    config.imageSize = size;
    config.salt = salt;
    QString error;
    const auto source = PromptSource::create(config, 1, &error);
    return source ? source->prompt(index) : Prompt{};
}

QByteArray decoded(const PromptImage &image)
{
    const std::string_view base64 = image.base64();
    return QByteArray::fromBase64(QByteArray(base64.data(), qsizetype(base64.size())));
}

/// The sim's verdict on a body.
std::variant<sim::GenerationRequest, sim::ApiError> simRead(sim::Endpoint endpoint, const nlohmann::json &body)
{
    return sim::parseGenerationRequest(endpoint, body.dump(), {});
}

sim::Endpoint endpointOf(ApiKind api)
{
    return api == ApiKind::OpenAIResponses     ? sim::Endpoint::Responses
           : api == ApiKind::AnthropicMessages ? sim::Endpoint::Messages
                                               : sim::Endpoint::Chat;
}

/// The body `api` sends for `prompt`.
nlohmann::json bodyOf(ApiKind api, const Prompt &prompt)
{
    TargetConfig target;
    target.api = api;
    target.url = QStringLiteral("http://127.0.0.1:18083/v1");
    target.model = QStringLiteral("default");
    QString error;
    const auto builder = RequestBuilder::create(target, RequestConfig{}, &error);
    return builder ? builder->body(prompt) : nlohmann::json();
}

} // namespace

class TestImages : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// The PNG is one Qt decodes, of the size asked, its header read alike by the simulator.
    void pngDecodes_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::newRow("smallest") << 8 << 8;
        QTest::newRow("one patch") << 28 << 28;
        QTest::newRow("odd sides") << 29 << 57;
        QTest::newRow("wide") << 640 << 48;
        QTest::newRow("tall, past a block") << 17 << 300;
        QTest::newRow("own rows in two stored blocks") << 2000 << 40;
    }
    void pngDecodes()
    {
        QFETCH(int, width);
        QFETCH(int, height);
        const QByteArray png = PngImage::synthetic(width, height, 42);
        QImage image;
        QVERIFY(image.loadFromData(png, "PNG"));
        QCOMPARE(image.size(), QSize(width, height));
        QCOMPARE(PngImage::headerSize(png), std::optional<QSize>(QSize(width, height)));
        // The one IDAT chunk is a whole zlib stream, its Adler-32 right (zlib's uncompress checks it).
        const qsizetype idat = 8 + 25; // signature, IHDR
        const auto idatLength = qsizetype(qFromBigEndian<quint32>(png.constData() + idat));
        QCOMPARE(png.mid(idat + 4, 4), QByteArray("IDAT"));
        QByteArray zlib(4, Qt::Uninitialized);
        const auto rawLength = quint32(height * (1 + 3 * width));
        qToBigEndian(rawLength, zlib.data());
        zlib += png.mid(idat + 8, idatLength);
        QCOMPARE(qUncompress(zlib).size(), qsizetype(rawLength));
        // Not alike: blocks of colours of their own.
        QVERIFY(image.pixel(0, 0) != image.pixel(width - 1, height - 1) || width * height < 256);
        // A damaged header is no PNG.
        QByteArray broken = png;
        broken[20] = char(broken[20] ^ 1);
        QVERIFY(!PngImage::headerSize(broken));
    }

    /// The same salt gives the same bytes; another salt or another request, others.
    void imagesFollowTheSalt()
    {
        const Prompt a = promptWithImages(2, QStringLiteral("64x40"), QStringLiteral("salt-a"));
        const Prompt again = promptWithImages(2, QStringLiteral("64x40"), QStringLiteral("salt-a"));
        const Prompt other = promptWithImages(2, QStringLiteral("64x40"), QStringLiteral("salt-b"));
        const Prompt next = promptWithImages(2, QStringLiteral("64x40"), QStringLiteral("salt-a"), 1);
        QCOMPARE(int(a.images.size()), 2);
        QCOMPARE(a.images[0]->url, again.images[0]->url);
        QCOMPARE(a.images[1]->url, again.images[1]->url);
        QVERIFY(a.images[0]->url != a.images[1]->url);
        QVERIFY(a.images[0]->url != other.images[0]->url);
        QVERIFY(a.images[0]->url != next.images[0]->url);
        QCOMPARE(a.images[0]->mediaType(), std::string_view("image/png"));
        QImage image;
        QVERIFY(image.loadFromData(decoded(*a.images[1]), "PNG"));
        QCOMPARE(image.size(), QSize(64, 40));
        // Each request's pixels are its own (a server's image cache keys on them), in its first rows.
        QImage nextImage;
        QVERIFY(nextImage.loadFromData(decoded(*next.images[1]), "PNG"));
        QVERIFY(image != nextImage);
        QCOMPARE(a.images[1]->bytes, qint64(decoded(*a.images[1]).size()));
        // The text's count leaves the images out.
        QCOMPARE(a.tokens, promptWithImages(0, QStringLiteral("64x40"), QStringLiteral("salt-a")).tokens);
    }

    /// Each API's body has the images after the text in its own part, and the simulator reads
    /// them back and counts them by its rule.
    void bodies_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<QString>("imagePointer"); // the second image's data URL or data
        QTest::addColumn<QString>("textPointer");
        QTest::newRow("chat") << ApiKind::OpenAIChat << QStringLiteral("/messages/0/content/2/image_url/url")
                              << QStringLiteral("/messages/0/content/0/text");
        QTest::newRow("responses") << ApiKind::OpenAIResponses << QStringLiteral("/input/0/content/2/image_url")
                                   << QStringLiteral("/input/0/content/0/text");
        QTest::newRow("anthropic") << ApiKind::AnthropicMessages << QStringLiteral("/messages/0/content/2/source/data")
                                   << QStringLiteral("/messages/0/content/0/text");
    }
    void bodies()
    {
        QFETCH(ApiKind, api);
        QFETCH(QString, imagePointer);
        QFETCH(QString, textPointer);
        const Prompt prompt = promptWithImages(2, QStringLiteral("100x60"), QStringLiteral("s"));
        const nlohmann::json body = bodyOf(api, prompt);
        const auto pointer = [](const QString &p) { return nlohmann::json::json_pointer(p.toStdString()); };
        QVERIFY2(body.contains(pointer(textPointer)), body.dump().substr(0, 300).c_str());
        QCOMPARE(body.at(pointer(textPointer)).get<std::string>(), prompt.user);
        const std::string image = body.at(pointer(imagePointer)).get<std::string>();
        const std::string expected =
            api == ApiKind::AnthropicMessages ? std::string(prompt.images[1]->base64()) : prompt.images[1]->url;
        QVERIFY(image == expected);
        if (api == ApiKind::AnthropicMessages)
            QCOMPARE(body.at(pointer(QStringLiteral("/messages/0/content/1/source/media_type"))).get<std::string>(),
                     std::string("image/png"));

        const auto read = simRead(endpointOf(api), body);
        const auto *refused = std::get_if<sim::ApiError>(&read);
        QVERIFY2(!refused, refused ? refused->message.c_str() : "");
        const auto &request = std::get<sim::GenerationRequest>(read);
        QCOMPARE(request.images, qint64(2));
        // ceil(100/28) · ceil(60/28) + 2 = 4 · 3 + 2 each.
        QCOMPARE(request.imageTokens, qint64(2 * 14));
        QCOMPARE(sim::SimImage::tokens(100, 60), qint64(14));
    }

    /// What the simulator cannot read is a 400 naming the part, in every API's shape.
    void malformedImageIs400_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<QString>("url"); // a data URL, or for Anthropic "media;data"
        QTest::addColumn<QString>("why");
        const QString notPng = QStringLiteral("aGVsbG8gd29ybGQsIGEgbG9uZyBlbm91Z2ggdGV4dCB0byBiZSBubyBQTkcgYXQgYWxs");
        for (const ApiKind api : {ApiKind::OpenAIChat, ApiKind::OpenAIResponses, ApiKind::AnthropicMessages}) {
            const QString name = apiKindName(api);
            const bool anthropic = api == ApiKind::AnthropicMessages;
            const auto url = [&](const QString &media, const QString &data) {
                return anthropic ? media + QLatin1Char(';') + data
                                 : QStringLiteral("data:") + media + QStringLiteral(";base64,") + data;
            };
            QTest::addRow("%s: not base64", qPrintable(name))
                << api << url(QStringLiteral("image/png"), QStringLiteral("iVBOR*w0KGgo=")) << QStringLiteral("base64");
            QTest::addRow("%s: not a PNG", qPrintable(name))
                << api << url(QStringLiteral("image/png"), notPng) << QStringLiteral("not a PNG");
            QTest::addRow("%s: JPEG", qPrintable(name))
                << api << url(QStringLiteral("image/jpeg"), notPng) << QStringLiteral("PNG images only");
            if (!anthropic)
                QTest::addRow("%s: a remote URL", qPrintable(name))
                    << api << QStringLiteral("https://example.com/cat.png") << QStringLiteral("data URL");
        }
    }
    void malformedImageIs400()
    {
        QFETCH(ApiKind, api);
        QFETCH(QString, url);
        QFETCH(QString, why);
        Prompt prompt = promptWithImages(1, QStringLiteral("8x8"), QStringLiteral("s"));
        auto image = std::make_shared<PromptImage>();
        if (api == ApiKind::AnthropicMessages) {
            const QStringList parts = url.split(QLatin1Char(';'));
            image->url = "data:" + parts[0].toStdString() + ";base64," + parts[1].toStdString();
        } else {
            image->url = url.toStdString();
        }
        prompt.images = {prompt.images[0], image};
        const auto read = simRead(endpointOf(api), bodyOf(api, prompt));
        const auto *refused = std::get_if<sim::ApiError>(&read);
        QVERIFY(refused);
        QCOMPARE(refused->status, 400);
        QVERIFY2(QString::fromStdString(refused->message).contains(why), refused->message.c_str());
        QVERIFY2(refused->param.find("[2]") != std::string::npos, refused->param.c_str()); // the second image
    }

    /// The configuration refuses what no request can carry, naming the flag.
    void refusals_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<int>("images");
        QTest::addColumn<QString>("size");
        QTest::addColumn<int>("turns");
        QTest::addColumn<QString>("problem");
        QTest::newRow("completions") << QStringLiteral("openai-completions") << 1 << QStringLiteral("64x64") << 0
                                     << QStringLiteral("--images): openai-completions takes no image input");
        QTest::newRow("embeddings") << QStringLiteral("openai-embeddings") << 1 << QStringLiteral("64x64") << 0
                                    << QStringLiteral("--images): openai-embeddings takes no image input");
        QTest::newRow("too many") << QStringLiteral("openai-chat") << 17 << QStringLiteral("64x64") << 0
                                  << QStringLiteral("prompt.images (--images)");
        QTest::newRow("side too small") << QStringLiteral("openai-chat") << 1 << QStringLiteral("7x64") << 0
                                        << QStringLiteral("'7x64' is not WxH with each side from 8 to 4096");
        QTest::newRow("side too large") << QStringLiteral("anthropic-messages") << 1 << QStringLiteral("64x4097") << 0
                                        << QStringLiteral("'64x4097' is not WxH");
        QTest::newRow("not WxH") << QStringLiteral("openai-responses") << 1 << QStringLiteral("64*64") << 0
                                 << QStringLiteral("'64*64' is not WxH");
        QTest::newRow("past 64 MiB a request") << QStringLiteral("openai-chat") << 2 << QStringLiteral("4096x4096") << 0
                                               << QStringLiteral("96 MiB of pixels a request; at most 64 MiB");
        QTest::newRow("conversations") << QStringLiteral("openai-chat") << 1 << QStringLiteral("64x64") << 3
                                       << QStringLiteral("not with conversations (--turns 3)");
    }
    void refusals()
    {
        QFETCH(QString, api);
        QFETCH(int, images);
        QFETCH(QString, size);
        QFETCH(int, turns);
        QFETCH(QString, problem);
        RunConfig c;
        c.target.api = *apiKindFromName(api);
        c.target.url = QStringLiteral("http://127.0.0.1:18083/v1");
        c.target.model = QStringLiteral("default");
        c.prompt.images = images;
        c.prompt.imageSize = size;
        c.load.turns = turns;
        const QString why = validate(c).join(QLatin1Char('\n'));
        QVERIFY2(why.contains(problem), qPrintable(why));
        // What is allowed passes.
        c.target.api = ApiKind::OpenAIChat;
        c.prompt.images = 16;
        c.prompt.imageSize = QStringLiteral("512x512");
        c.load.turns = 0;
        QVERIFY2(validate(c).isEmpty(), qPrintable(validate(c).join(QLatin1Char('\n'))));
    }

    /// A run against the simulator: every request carries its images, the server's usage less
    /// the text is exactly the simulator's rule, and the summary says so.
    void endToEnd_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<bool>("stream");
        QTest::newRow("chat, streamed") << QStringLiteral("openai-chat") << true;
        QTest::newRow("chat, whole") << QStringLiteral("openai-chat") << false;
        QTest::newRow("responses, streamed") << QStringLiteral("openai-responses") << true;
        QTest::newRow("anthropic, streamed") << QStringLiteral("anthropic-messages") << true;
    }
    void endToEnd()
    {
        QFETCH(QString, api);
        QFETCH(bool, stream);
        sim::SimConfig config = *sim::SimConfig::preset(QStringLiteral("fast"));
        config.outputTokens = 8;
        const auto host = test::startSimulator(config);
        QVERIFY(host);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const CliResult cli = runCli({QStringLiteral("run"),
                                      QStringLiteral("--api"),
                                      api,
                                      QStringLiteral("--url"),
                                      host->baseUrl().toString(),
                                      QStringLiteral("--model"),
                                      host->config().model,
                                      QStringLiteral("--requests"),
                                      QStringLiteral("6"),
                                      QStringLiteral("--concurrency"),
                                      QStringLiteral("2"),
                                      QStringLiteral("--prompt-tokens"),
                                      QStringLiteral("30"),
                                      stream ? QStringLiteral("--stream") : QStringLiteral("--no-stream"),
                                      QStringLiteral("--images"),
                                      QStringLiteral("3"),
                                      QStringLiteral("--image-size"),
                                      QStringLiteral("300x200"),
                                      QStringLiteral("--out"),
                                      out});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        // 11 · 8 + 2 = 90 tokens an image.
        const qint64 perImage = sim::SimImage::tokens(300, 200);
        QCOMPARE(perImage, qint64(90));
        QVERIFY2(cli.out.contains(QStringLiteral("prompt tokens per image 90.0 median, 90.0 mean (6 requests' usage)")),
                 qPrintable(cli.out));
        QString error;
        const std::optional<RunData> run = RunReader::load(out, &error, RunReader::Records);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->summary.total.requests.ok, 6);
        const auto &images = run->summary.total.images;
        QVERIFY(images);
        QCOMPARE(images->requests, qint64(6));
        QCOMPARE(images->images, qint64(18));
        QCOMPARE(images->measured, qint64(6));
        QCOMPARE(images->tokensPerImageMedian, double(perImage));
        QCOMPARE(images->tokensPerImageMean(), double(perImage));
        // Noise in the low bits: less than the raw size, more than half of it.
        QVERIFY2(images->imageBytes > 18 * 300 * 200 * 3 / 2 && images->imageBytes < 18 * 300 * 200 * 3,
                 qPrintable(QString::number(images->imageBytes)));
        for (const RequestRecord &r : run->records) {
            QCOMPARE(r.images, 3);
            QCOMPARE(r.imageTokens, std::optional<std::int64_t>(3 * perImage));
        }
    }

    /// A dataset row's images go as written (data URLs) or read from files beside the dataset;
    /// a path out of its folder is refused, and an image the server cannot read fails its
    /// request with the server's 400, not as a protocol error.
    void datasetImages()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("pics")));
        QVERIFY(test::writeFile(dir.filePath(QStringLiteral("pics/a.png")), PngImage::synthetic(56, 56, 7)));
        const QByteArray inline64 = PngImage::synthetic(29, 29, 8).toBase64();
        const QString good = test::writeFile(dir, QStringLiteral("good.jsonl"),
                                             "{\"prompt\": \"Describe the picture.\", \"images\": [\"pics/a.png\"]}"
                                             "\n"
                                             "{\"prompt\": \"And this one.\", \"images\": [\"data:image/png;base64," +
                                                 inline64 +
                                                 "\", \"pics/./a.png\"]}"
                                                 "\n");
        sim::SimConfig config = *sim::SimConfig::preset(QStringLiteral("fast"));
        config.outputTokens = 4;
        const auto host = test::startSimulator(config);
        QVERIFY(host);
        const auto run = [&](const QString &dataset, const QString &out) {
            return runCli({QStringLiteral("run"), QStringLiteral("--url"), host->baseUrl().toString(),
                           QStringLiteral("--model"), host->config().model, QStringLiteral("--requests"),
                           QStringLiteral("4"), QStringLiteral("--concurrency"), QStringLiteral("1"),
                           QStringLiteral("--dataset"), dataset, QStringLiteral("--out"), dir.filePath(out)});
        };
        CliResult cli = run(good, QStringLiteral("good"));
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        QString error;
        std::optional<RunData> data = RunReader::load(dir.filePath(QStringLiteral("good")), &error, RunReader::Records);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->summary.total.requests.ok, 4);
        // Rows alternate: one 56×56 image (2·2 + 2 = 6 tokens), then a 29×29 (6) and the 56×56 again.
        QCOMPARE(data->summary.total.images->images, qint64(6));
        QCOMPARE(data->summary.total.images->tokensPerImageMedian, 6.0);
        for (const RequestRecord &r : data->records)
            QCOMPARE(r.imageTokens, std::optional<std::int64_t>(6 * r.images));

        // LLaVA's ShareGPT-style rows name one "image".
        const QString llava = test::writeFile(
            dir, QStringLiteral("llava.json"),
            "[{\"id\": \"1\", \"image\": \"pics/a.png\", \"conversations\": [{\"from\": \"human\", \"value\": "
            "\"<image>\\nWhat is shown?\"}, {\"from\": \"gpt\", \"value\": \"A pattern.\"}]}]");
        cli = run(llava, QStringLiteral("llava"));
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        data = RunReader::load(dir.filePath(QStringLiteral("llava")), &error, RunReader::Records);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->summary.total.images->images, qint64(4));
        QCOMPARE(data->summary.total.images->tokensPerImageMean(), 6.0);

        // Completions would drop them: refused.
        cli = runCli({QStringLiteral("run"), QStringLiteral("--api"), QStringLiteral("openai-completions"),
                      QStringLiteral("--url"), host->baseUrl().toString(), QStringLiteral("--model"),
                      host->config().model, QStringLiteral("--requests"), QStringLiteral("2"),
                      QStringLiteral("--dataset"), good, QStringLiteral("--out"),
                      dir.filePath(QStringLiteral("completions"))});
        QVERIFY2(cli.exitCode != 0 && cli.err.contains(QStringLiteral("images, which openai-completions cannot send")),
                 qPrintable(cli.err));

        for (const char *hostile : {"../outside.png", "/etc/hostname", "~/x.png"}) {
            const QString file =
                test::writeFile(dir, QStringLiteral("hostile.jsonl"),
                                "{\"prompt\": \"x\", \"images\": [\"" + QByteArray(hostile) + "\"]}\n");
            cli = run(file, QStringLiteral("hostile"));
            QVERIFY2(cli.exitCode != 0, hostile);
            QVERIFY2(cli.err.contains(QStringLiteral("path relative to the workload file's folder")),
                     qPrintable(cli.err));
        }

        const QString bad = test::writeFile(dir, QStringLiteral("bad.jsonl"),
                                            "{\"prompt\": \"x\", \"images\": [\"data:image/png;base64,bm90IGEgcG5n\"]}"
                                            "\n");
        cli = run(bad, QStringLiteral("bad"));
        data = RunReader::load(dir.filePath(QStringLiteral("bad")), &error, RunReader::Records);
        QVERIFY2(data, qPrintable(error + cli.err));
        QCOMPARE(data->summary.total.requests.failed, 4);
        for (const RequestRecord &r : data->records) {
            QCOMPARE(int(r.status), int(RequestStatus::Http));
            QCOMPARE(r.httpStatus, 400);
            QVERIFY2(r.errorMessage.contains(QStringLiteral("not a PNG")), qPrintable(r.errorMessage));
        }
    }
};

QTEST_GUILESS_MAIN(TestImages)
#include "tst_images.moc"
