#include "engine/runplan.h"

#include <QSslSocket>

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
        plan->targets.push_back(std::move(planned));
        plan->secrets << secretsOf(target);
    }
    plan->shard = shard;
    plan->stages = effectiveStages(config.load);
    plan->countWithTokenizer = config.request.tokenizer == QLatin1String("approx");
    plan->prompts = PromptSource::create(config.prompt, config.load.seed, error);
    if (!plan->prompts)
        return nullptr;
    return plan;
}

} // namespace tb
