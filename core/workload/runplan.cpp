#include "workload/runplan.h"

#include "tokenize/tokenizer.h"

#include <QSslSocket>

#include <algorithm>
#include <map>

namespace tb {

std::shared_ptr<const RunPlan> RunPlan::create(const RunConfig &config, QString *error)
{
    return create(config, {config.target}, error);
}

std::shared_ptr<const RunPlan> RunPlan::create(const RunConfig &config, const QList<TargetConfig> &targets,
                                               QString *error, ShardSpec shard)
{
    if (targets.isEmpty()) {
        if (error)
            *error = QStringLiteral("no target to run against");
        return nullptr;
    }
    auto plan = std::make_shared<RunPlan>();
    plan->config = config;
    plan->config.target = targets.first();
    std::map<QString, std::shared_ptr<const Tokenizer>> tokenizers; // each file loaded once
    for (const TargetConfig &target : targets) {
        RunConfig one = config;
        one.target = target;
        QStringList problems = validate(one);
        if (!problems.isEmpty()) {
            if (targets.size() > 1)
                problems.first().prepend(QStringLiteral("target '%1': ").arg(target.displayName()));
            if (error)
                *error = problems.join(QLatin1Char('\n'));
            return nullptr;
        }
        PlannedTarget planned;
        planned.balance = target.balance;
        if (!target.tokenizer.isEmpty() && target.tokenizer != QLatin1String("server")) {
            auto &tokenizer = tokenizers[target.tokenizer];
            if (!tokenizer) {
                QString why;
                tokenizer = Tokenizer::load(target.tokenizer, &why);
                if (!tokenizer) {
                    if (error)
                        *error = QStringLiteral("target.tokenizer (--tokenizer): ") + why;
                    return nullptr;
                }
            }
            planned.tokenizer = tokenizer;
        }
        for (const QString &url : target.instanceUrls()) {
            TargetConfig instance = target;
            instance.url = url;
            auto builder = RequestBuilder::create(instance, config.request, error);
            if (!builder)
                return nullptr;
            if (builder->endpoint().tls && !QSslSocket::supportsSsl()) {
                if (error)
                    *error =
                        QStringLiteral("target.url (--url): https needs TLS support, which this Qt installation lacks");
                return nullptr;
            }
            planned.instances.push_back(std::move(*builder));
        }
        planned.mix = *ModelMix::parse(target.model, nullptr); // validated above
        planned.models = planned.mix.names();
        plan->targets.push_back(std::move(planned));
        plan->secrets << secretsOf(target);
    }
    plan->shard = shard;
    plan->stages = effectiveStages(config.load);
    if (!plan->makePrompts(plan->targets.front().tokenizer, {}, error))
        return nullptr;
    // Models only the workload file's rows name join each target's list after --model's.
    for (const WorkloadEntry &e : plan->prompts->entries()) {
        if (e.model.empty())
            continue;
        const QString name = fromStd(e.model);
        for (PlannedTarget &t : plan->targets) {
            if (t.models.contains(name))
                continue;
            if (t.models.size() >= ModelMix::kMaxModels) {
                if (error)
                    *error = QStringLiteral("the workload file's \"model\" names and --model's come to more than %1 "
                                            "models (line %2 names one more)")
                                 .arg(ModelMix::kMaxModels)
                                 .arg(e.line);
                return nullptr;
            }
            t.models << name;
        }
    }
    return plan;
}

const PromptSource &RunPlan::promptsOf(int stage) const
{
    if (stage >= 0 && std::size_t(stage) < stagePrompts.size() && stagePrompts[std::size_t(stage)])
        return *stagePrompts[std::size_t(stage)];
    return *prompts;
}

int RunPlan::modelFor(int target, std::uint64_t id, std::uint64_t conversation, const Prompt &prompt) const
{
    const PlannedTarget &t = targets.at(std::size_t(target));
    if (!prompt.model.empty()) {
        if (const qsizetype at = t.models.indexOf(fromStd(prompt.model)); at >= 0)
            return int(at);
    }
    if (t.mix.size() < 2)
        return 0;
    // Stream 2 of the run's draws: where the salt starts the mix's pattern.
    const auto offset = std::uint64_t(prompts->unitDraw(2, 0) * 0x1.0p32);
    return t.mix.pick(conversation > 0 ? conversation - 1 : id - 1, offset);
}

bool RunPlan::makePrompts(const std::shared_ptr<const Tokenizer> &tokenizer, const PromptCalibration &calibration,
                          QString *error)
{
    auto all = PromptSource::create(config.prompt, config.load.seed, error, tokenizer, calibration, config.load.trace);
    if (!all)
        return false;
    // A workload file's images go with single requests to the APIs that take them: a
    // conversation's later turns, completions, embeddings, rerank and score would drop them
    // without a word.
    const auto &entries = all->entries();
    if (std::any_of(entries.begin(), entries.end(), [](const WorkloadEntry &e) { return !e.images.empty(); })) {
        const ApiKind api = config.target.api;
        if (!apiTakesMessages(api) || config.load.turns > 1) {
            *error = QStringLiteral("the workload file has images, which %1 cannot send: use openai-chat, "
                                    "openai-responses or anthropic-messages, without --turns")
                         .arg(config.load.turns > 1 ? QStringLiteral("conversations (--turns)") : apiKindName(api));
            return false;
        }
    }
    std::vector<std::shared_ptr<const PromptSource>> perStage(std::size_t(stages.size()));
    for (qsizetype i = 0; i < stages.size(); ++i) {
        if (stages[i].promptTokens <= 0)
            continue;
        PromptConfig sized = config.prompt;
        sized.promptTokens = stages[i].promptTokens;
        perStage[std::size_t(i)] = PromptSource::create(sized, config.load.seed, error, tokenizer, calibration);
        if (!perStage[std::size_t(i)])
            return false;
    }
    prompts = std::move(all);
    stagePrompts = std::move(perStage);
    return true;
}

} // namespace tb
