#pragma once

#include <QLineEdit>

#include <optional>

namespace tb {

/// A line edit for durations in the CLI's syntax ("500ms", "30s", "5m", "1h"; a bare number is
/// seconds), so what the form accepts is exactly what --duration/--timeout accept.
class DurationEdit : public QLineEdit
{
    Q_OBJECT

public:
    explicit DurationEdit(QWidget *parent = nullptr);

    /// 0 when empty ("not set"); std::nullopt when the text is not a duration.
    std::optional<qint64> durationMs() const;
    /// 0 clears the field.
    void setDurationMs(qint64 ms);
};

} // namespace tb
