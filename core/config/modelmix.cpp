#include "config/modelmix.h"

#include "config/runconfig.h"

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

/// Draws 1 … j of a share `q`: how many of them it takes. The nudge keeps j·q from landing just
/// below a whole number (0.7 · 10 = 6.999…).
std::uint64_t taken(std::uint64_t j, double q)
{
    return std::uint64_t(std::floor(double(j) * q + 1e-9));
}

} // namespace

QString ModelMix::nameProblem(QStringView name)
{
    if (name.trimmed().isEmpty())
        return QStringLiteral("is empty");
    if (name.size() > kMaxNameLength)
        return QStringLiteral("is longer than %1 characters").arg(kMaxNameLength);
    return controlCharacterProblem(name);
}

std::optional<ModelMix> ModelMix::parse(const QString &text, QString *error)
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    ModelMix mix;
    std::vector<double> weights;
    if (!text.contains(u',')) { // one name, exactly as given (a tag such as "llama3:8b" included)
        if (const QString problem = nameProblem(text); !problem.isEmpty())
            return fail(text.trimmed().isEmpty() ? QStringLiteral("missing; name the model to request")
                                                 : QStringLiteral("the name ") + problem);
        mix.m_names << text;
        weights.push_back(1);
    } else {
        const QStringList items = text.split(u',');
        if (items.size() > kMaxModels)
            return fail(QStringLiteral("%1 models; at most %2").arg(items.size()).arg(kMaxModels));
        for (qsizetype i = 0; i < items.size(); ++i) {
            QString name = items[i].trimmed();
            double weight = 1;
            if (const qsizetype colon = name.lastIndexOf(u':'); colon >= 0) {
                bool isNumber = false;
                const double w = name.mid(colon + 1).trimmed().toDouble(&isNumber);
                if (isNumber) {
                    if (!std::isfinite(w) || w <= 0)
                        return fail(
                            QStringLiteral("model %1's weight must be a finite number greater than 0").arg(i + 1));
                    weight = w;
                    name = name.left(colon).trimmed();
                }
            }
            if (const QString problem = nameProblem(name); !problem.isEmpty())
                return fail(QStringLiteral("model %1's name %2 (a list is name[:weight],name[:weight],…)")
                                .arg(i + 1)
                                .arg(problem));
            if (mix.m_names.contains(name))
                return fail(QStringLiteral("model %1 is listed twice; each model once").arg(i + 1));
            mix.m_names << name;
            weights.push_back(weight);
        }
    }
    double sum = 0;
    for (const double w : weights)
        sum += w;
    if (!std::isfinite(sum) || sum <= 0)
        return fail(QStringLiteral("the weights must add up to a finite number greater than 0"));
    double left = 1;
    for (const double w : weights) {
        const double share = w / sum;
        mix.m_shares.push_back(share);
        mix.m_conditional.push_back(left > 0 ? std::min(share / left, 1.0) : 1.0);
        left -= share;
    }
    return mix;
}

int ModelMix::pick(std::uint64_t index, std::uint64_t offset) const
{
    // Draw j of the models from k on (1-based): model k takes it when its count of draws 1 … j
    // grows at j; else it is draw j − taken of the models after k.
    std::uint64_t j = index + offset + 1;
    const int last = size() - 1;
    for (int k = 0; k < last; ++k) {
        const double q = m_conditional[std::size_t(k)];
        const std::uint64_t t = taken(j, q);
        if (t > taken(j - 1, q))
            return k;
        j -= t;
    }
    return std::max(last, 0);
}

} // namespace tb
