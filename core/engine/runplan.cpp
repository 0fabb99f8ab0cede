#include "engine/runplan.h"

#include <QSslSocket>

namespace tb {

std::shared_ptr<const RunPlan> RunPlan::create(const RunConfig &config, QString *error)
{
    const QStringList problems = validate(config);
    if (!problems.isEmpty()) {
        if (error)
            *error = problems.join(QLatin1Char('\n'));
        return nullptr;
    }
    auto plan = std::make_shared<RunPlan>();
    plan->config = config;
    plan->stages = effectiveStages(config.load);
    plan->countWithTokenizer = config.request.tokenizer == QLatin1String("approx");
    auto builder = RequestBuilder::create(config.target, config.request, error);
    if (!builder)
        return nullptr;
    if (builder->endpoint().tls && !QSslSocket::supportsSsl()) {
        if (error)
            *error = QStringLiteral("target.url (--url): https needs TLS support, which this Qt installation lacks");
        return nullptr;
    }
    plan->targets.push_back(std::move(*builder));
    plan->prompts = PromptSource::create(config.prompt, config.load.seed, error);
    if (!plan->prompts)
        return nullptr;
    return plan;
}

} // namespace tb
