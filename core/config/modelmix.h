#pragma once

// --model's value: one model name, or a mix of models (LoRA adapters on one server, several models
// behind one gateway) that each request draws one of (docs/SPEC.md, --model).

#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// The models a run's requests ask for and the share of requests each gets.
///
/// "a:0.7,b:0.3" weighs each name (normalised, so "a:7,b:3" is the same); "a,b" gives equal
/// shares; a value without ',' is one name as it is, so "llama3:8b" stays a name. In a list, only
/// a last ':' followed by a number is a weight ("qwen:7b:2" is qwen:7b weighing 2).
///
/// Which model request i asks for is exact, not random: the first model takes ⌊i·w₁⌋ of the first
/// i draws, the next ⌊·⌋ of the rest at its share of what is left, and so on, so any n consecutive
/// draws give each model n·wₖ requests whenever those are whole (and within one per model
/// otherwise), spread evenly over the run. Where the pattern starts derives from the run's salt.
class ModelMix
{
public:
    static constexpr int kMaxModels = 64;
    /// Longer names are refused (a flag's or a dataset row's): a model name, not a document.
    static constexpr qsizetype kMaxNameLength = 256;

    /// nullopt with *error (without the "target.model (--model): " prefix) when malformed.
    static std::optional<ModelMix> parse(const QString &text, QString *error);
    /// Why `name` cannot be a model name (empty, too long, a control character), or empty.
    static QString nameProblem(QStringView name);

    int size() const { return int(m_names.size()); }
    const QStringList &names() const { return m_names; }
    /// The normalised shares, in the order of names(); they add up to 1.
    const std::vector<double> &shares() const { return m_shares; }
    /// The model of draw `index` of the run (0-based model index); `offset` shifts where the
    /// pattern starts (the salt's).
    int pick(std::uint64_t index, std::uint64_t offset = 0) const;

private:
    QStringList m_names;
    std::vector<double> m_shares;
    /// [k]: model k's share of what the models before it left (the chain pick() walks).
    std::vector<double> m_conditional;
};

} // namespace tb
