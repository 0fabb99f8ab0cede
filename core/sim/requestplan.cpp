#include "sim/requestplan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace tb::sim {

quint64 splitmix64(quint64 x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

namespace {

/// One independent stream per decision, so adding a decision never shifts the others.
enum Salt : quint64 { OutputLength = 1, OutputLength2, ServerError, Cut, CutPoint, HeaderDelay, Text };

double uniform(const SimConfig &config, qint64 index, Salt salt)
{
    const quint64 h = splitmix64(splitmix64(quint64(config.seed) ^ (salt * 0xD1B54A32D192ED03ULL)) ^ quint64(index));
    return double(h >> 11) * 0x1.0p-53; // [0, 1)
}

qint64 naturalLength(const SimConfig &config, qint64 index, qint64 promptTokens)
{
    const double mean = config.outputTokens + config.outputRatio * double(promptTokens);
    const double u = uniform(config, index, OutputLength);
    double x = mean;
    switch (config.outputDist) {
    case OutputDistribution::Fixed:
        break;
    case OutputDistribution::Uniform:
        x = mean * (1 + config.outputSpread * (2 * u - 1));
        break;
    case OutputDistribution::Normal: {
        const double u2 = uniform(config, index, OutputLength2);
        const double z = std::sqrt(-2 * std::log(1 - u)) * std::cos(2 * std::numbers::pi * u2);
        x = mean * (1 + config.outputSpread * z);
        break;
    }
    case OutputDistribution::Exponential:
        x = -mean * std::log(1 - u);
        break;
    }
    return std::clamp(qint64(std::llround(x)), config.outputMin, config.outputMax);
}

constexpr std::array<const char *, 64> kWords = {
    " the",  " of",   " and",  " to",   " in",   " is",   " it",   " that", " for",  " on",   " with", " as",   " was",
    " at",   " by",   " an",   " be",   " this", " from", " or",   " are",  " but",  " not",  " have", " they", " we",
    " can",  " all",  " will", " one",  " more", " data", " time", " load", " test", " fast", " node", " rate", " byte",
    " core", " path", " unit", " flow", " step", " code", " loop", " link", " peak", " mean", " tail", " wait", " hold",
    " send", " read", " call", " page", " line", " mode", " task", " goal", " plan", " work", " ends", " next",
};

} // namespace

RequestPlan planRequest(const SimConfig &config, const PlanInput &input)
{
    RequestPlan plan;
    qint64 n = std::max(naturalLength(config, input.index, input.promptTokens), input.minTokens);
    if (input.maxTokens && (input.ignoreEos || n >= *input.maxTokens)) {
        n = *input.maxTokens;
        plan.stoppedByLength = true;
    }
    plan.outputTokens = n;
    if (input.reasoning && n > 1)
        plan.reasoningTokens = std::min(n - 1, qint64(std::llround(double(n) * config.reasoningRatio)));
    plan.serverError = uniform(config, input.index, ServerError) < config.errorRate;
    if (n >= 2 && uniform(config, input.index, Cut) < config.cutRate)
        plan.cutAfter = 1 + qint64(uniform(config, input.index, CutPoint) * double(n - 1));
    if (config.headerDelayMs > 0 && uniform(config, input.index, HeaderDelay) < config.headerDelayRate)
        plan.headerDelayNs = qint64(config.headerDelayMs * 1e6);
    plan.textSeed = splitmix64(quint64(config.seed) ^ splitmix64(quint64(input.index) ^ Text));
    return plan;
}

qint64 slotTruncatedTokens(qint64 promptTokens, qint64 slotContext)
{
    if (slotContext <= 0 || promptTokens < slotContext)
        return 0;
    const qint64 block = slotContext / 2; // n_left / 2, n_left = n_ctx - n_keep
    return (promptTokens - block) / block * block;
}

void TextSource::append(std::string &out, qint64 tokens)
{
    static_assert(kWords.size() == 64, "a trigram's key has 6 bits a word");
    for (qint64 i = 0; i < tokens; ++i) {
        if (m_repeatShare <= 0) {
            m_state = splitmix64(m_state);
            out += kWords[m_state % kWords.size()];
            continue;
        }
        const std::size_t j = m_words.size(); // this word's index
        const double trigramsAfter = j >= 2 ? double(j - 1) : 0;
        std::uint8_t word = 0;
        if (j > 0 && double(m_repeats) < m_repeatShare * trigramsAfter) {
            if (!m_copying) {
                m_state = splitmix64(m_state);
                m_copyFrom = std::size_t(m_state % j);
            }
            word = m_words[m_copyFrom++];
            m_copying = true;
        } else {
            m_state = splitmix64(m_state);
            word = std::uint8_t(m_state % kWords.size());
            m_copying = false;
        }
        m_words.push_back(word);
        out += kWords[word];
        if (j >= 2) {
            if (m_seenTrigrams.empty())
                m_seenTrigrams.resize(std::size_t(1) << 18);
            const std::size_t key = std::size_t(m_words[j - 2]) << 12 | std::size_t(m_words[j - 1]) << 6 | word;
            m_repeats += m_seenTrigrams[key] ? 1 : 0;
            m_seenTrigrams[key] = true;
        }
    }
}

} // namespace tb::sim
