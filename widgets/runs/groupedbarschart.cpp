#include "groupedbarschart.h"
#include "chartutil.h"

#include "numberformat.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace etscope {

GroupedBarsChart::GroupedBarsChart(QWidget *parent)
    : QWidget(parent)
    , m_chart(new QChart)
    , m_view(new QChartView(m_chart))
    , m_note(new QLabel)
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_note->setWordWrap(true);
    m_note->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_note);
}

void GroupedBarsChart::clear()
{
    clearChart(m_chart);
    m_series = nullptr;
    m_categories.clear();
    m_chart->setTitle({});
    m_note->clear();
    m_note->hide();
}

void GroupedBarsChart::setBars(const QString &title, const QString &unit, const QStringList &categories,
    const QStringList &recordings, const std::vector<std::vector<std::optional<double>>> &values)
{
    clear();
    if (categories.isEmpty() || recordings.isEmpty())
        return;
    m_chart->setTitle(title);
    m_series = new QBarSeries;
    double top = 0;
    QStringList absentNotes;
    m_categories = categories;
    for (qsizetype r = 0; r < recordings.size(); ++r) {
        auto *set = new QBarSet(recordings[r]);
        const auto &row
            = std::size_t(r) < values.size() ? values[std::size_t(r)] : std::vector<std::optional<double>> {};
        for (qsizetype c = 0; c < categories.size(); ++c) {
            const std::optional<double> v = std::size_t(c) < row.size() ? row[std::size_t(c)] : std::nullopt;
            // QBarSet has no "absent": the bar is 0 high and the category is marked as missing it.
            set->append(v.value_or(0));
            if (!v) {
                if (!m_categories[c].endsWith(QLatin1Char('*')))
                    m_categories[c] += QLatin1Char('*');
                absentNotes << tr("%1: no value in %2").arg(categories[c], recordings[r]);
            }
            top = std::max(top, v.value_or(0));
        }
        connect(set, &QBarSet::hovered, this, [this, set, categories, unit, row](bool on, int index) {
            if (!on || index < 0 || index >= categories.size())
                return QToolTip::hideText();
            const std::optional<double> v = std::size_t(index) < row.size() ? row[std::size_t(index)] : std::nullopt;
            QToolTip::showText(QCursor::pos(),
                QStringLiteral("%1 — %2: %3")
                    .arg(set->label(), categories[index],
                        v ? formatSignificant(*v, 4) + QLatin1Char(' ') + unit : tr("no value")));
        });
        m_series->append(set);
    }
    m_chart->addSeries(m_series);
    // The value above each bar (after addSeries: the chart's theme would reset the label colour).
    for (QBarSet *set : m_series->barSets())
        set->setLabelColor(palette().color(QPalette::WindowText));
    m_series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    m_series->setLabelsFormat(QStringLiteral("@value"));
    m_series->setLabelsPrecision(4);
    m_series->setLabelsVisible(true);
    auto *x = new QBarCategoryAxis;
    x->append(m_categories);
    m_chart->addAxis(x, Qt::AlignBottom);
    m_series->attachAxis(x);
    auto *y = new QValueAxis;
    y->setTitleText(unit);
    y->setRange(0, top > 0 ? top * 1.15 : 1); // room for the value labels above the bars
    y->applyNiceNumbers();
    m_chart->addAxis(y, Qt::AlignLeft);
    m_series->attachAxis(y);
    if (!absentNotes.isEmpty()) {
        m_note->setText(QStringLiteral("* ") + absentNotes.join(QStringLiteral("; ")));
        m_note->show();
    }
}

QString GroupedBarsChart::footnote() const
{
    return m_note->text();
}

} // namespace etscope
