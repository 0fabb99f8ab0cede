#include "metrics/bootstrap.h"

#include "metrics/loghistogram.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>

namespace tb {

namespace {

class Random
{
public:
    explicit Random(std::uint64_t seed)
        : m_engine(seed)
    {}

    /// [0, 1) with 53 random bits.
    double uniform() { return double(m_engine() >> 11) * 0x1.0p-53; }

    /// Standard normal, Box–Muller.
    double normal()
    {
        const double u = 1 - uniform(); // (0, 1]: log() stays finite
        return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * uniform());
    }

    /// Gamma(shape, 1) for shape ≥ 1, Marsaglia and Tsang's method.
    double gamma(double shape)
    {
        const double d = shape - 1.0 / 3;
        const double c = 1 / std::sqrt(9 * d);
        for (;;) {
            const double x = normal();
            double v = 1 + c * x;
            if (v <= 0)
                continue;
            v = v * v * v;
            const double u = uniform();
            if (u < 1 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))
                return d * v;
        }
    }

    double beta(double a, double b)
    {
        const double x = gamma(a);
        return x / (x + gamma(b));
    }

private:
    std::mt19937_64 m_engine;
};

/// Draws bootstrap replicates of one sample's statistic.
class Replicator
{
public:
    Replicator(std::vector<double> values, double q)
        : m_values(std::move(values))
        , m_q(q)
    {
        const double n = double(m_values.size());
        if (q >= 0) {
            std::sort(m_values.begin(), m_values.end());
            m_rank = LogHistogram::nearestRank(q, m_values.size());
        } else {
            m_mean = std::accumulate(m_values.begin(), m_values.end(), 0.0) / n;
            double squares = 0;
            for (const double v : m_values)
                squares += (v - m_mean) * (v - m_mean);
            m_standardError = std::sqrt(squares / n) / std::sqrt(n);
        }
    }

    double draw(Random &random) const
    {
        const std::size_t n = m_values.size();
        if (m_q >= 0) {
            const double u = random.beta(double(m_rank), double(n - m_rank + 1));
            return m_values[std::min(n - 1, std::size_t(u * double(n)))];
        }
        if (n > Bootstrap::kDirectMeanLimit)
            return m_mean + m_standardError * random.normal();
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i)
            sum += m_values[std::min(n - 1, std::size_t(random.uniform() * double(n)))];
        return sum / double(n);
    }

private:
    std::vector<double> m_values;
    double m_q;
    std::uint64_t m_rank = 0;
    double m_mean = 0;
    double m_standardError = 0;
};

} // namespace

std::optional<Bootstrap::Interval> Bootstrap::difference(std::vector<double> a, std::vector<double> b, double q,
                                                         std::uint64_t seed, int resamples, double confidence)
{
    if (a.empty() || b.empty() || resamples < 1)
        return std::nullopt;
    const Replicator first(std::move(a), q);
    const Replicator second(std::move(b), q);
    Random random(seed);
    std::vector<double> differences(static_cast<std::size_t>(resamples));
    for (double &d : differences) {
        const double x = first.draw(random);
        d = second.draw(random) - x;
    }
    std::sort(differences.begin(), differences.end());
    const double tail = (1 - confidence) / 2;
    return Interval{differences[LogHistogram::nearestRank(tail, differences.size()) - 1],
                    differences[LogHistogram::nearestRank(1 - tail, differences.size()) - 1]};
}

} // namespace tb
