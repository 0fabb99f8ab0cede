// bench_tokenizer: what counting costs with each tokenizer file (the target: a 16k-token
// prompt counted in at most 5 ms) — load time, then the median time to count a 16,384-token
// synthetic English prompt and a Chinese text of about the same size.
// Usage: bench_tokenizer FILE... (tokenizer.json, .tiktoken or a model folder; "approx" too)
#include "tokenize/tokenizer.h"
#include "workload/promptsource.h"

#include <QCoreApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace tb;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point since)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

/// Median of 25 counts, in ms.
double countMs(const Tokenizer &tokenizer, const std::string &text)
{
    std::vector<double> ms;
    for (int i = 0; i < 25; ++i) {
        const auto start = Clock::now();
        const volatile std::int64_t n = tokenizer.count(text);
        (void)n;
        ms.push_back(msSince(start));
    }
    std::nth_element(ms.begin(), ms.begin() + 12, ms.end());
    return ms[12];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList files = app.arguments().mid(1);
    if (files.isEmpty()) {
        std::fprintf(stderr, "usage: bench_tokenizer FILE...\n");
        return 2;
    }
    std::printf("%-44s %9s %8s %9s %8s %9s\n", "tokenizer", "load ms", "tokens", "count ms", "zh tok", "count ms");
    for (const QString &file : files) {
        QString error;
        const auto start = Clock::now();
        const auto tokenizer = Tokenizer::load(file, &error);
        const double loadMs = msSince(start);
        if (!tokenizer) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        PromptConfig config;
        config.promptTokens = 16384;
        const auto prompts = PromptSource::create(config, 1, &error, tokenizer);
        const std::string english = prompts->prompt(0).user;
        std::string chinese;
        while (tokenizer->count(chinese) < 16384)
            chinese += "吞吐量随着并发增加而上升，直到服务器饱和，延迟开始攀升。每个请求都在第一个令牌到达之前等待。";
        std::printf("%-44s %9.1f %8lld %9.2f %8lld %9.2f\n", qPrintable(tokenizer->description().left(44)), loadMs,
                    static_cast<long long>(tokenizer->count(english)), countMs(*tokenizer, english),
                    static_cast<long long>(tokenizer->count(chinese)), countMs(*tokenizer, chinese));
    }
    return 0;
}
