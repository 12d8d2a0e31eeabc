#include "tensorvaluesdialog.h"

#include "qtstrings.h"

#include <QDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <charconv>
#include <memory>

namespace etscope {

namespace {
// The shortest text that reads back as the same element: a float32 as a float ("0.1", not
// "0.10000000149011612"), a float64 or an integer as a double.
QString elementText(ScalarType dtype, double v)
{
    char buf[64];
    const bool narrow = dtype == ScalarType::Float || dtype == ScalarType::Half || dtype == ScalarType::BFloat16;
    const auto r = narrow ? std::to_chars(buf, buf + sizeof buf, float(v)) : std::to_chars(buf, buf + sizeof buf, v);
    return QString::fromLatin1(buf, int(r.ptr - buf));
}

// "[0, 2, 1]": the multi-dimensional index of a row-major position.
QString indexText(std::size_t k, const std::vector<std::int64_t> &sizes)
{
    std::vector<std::int64_t> coords(sizes.size());
    for (std::size_t d = sizes.size(); d-- > 0;) {
        const auto n = std::size_t(std::max<std::int64_t>(1, sizes[d]));
        coords[d] = std::int64_t(k % n);
        k /= n;
    }
    QStringList idx;
    for (auto c : coords)
        idx << QString::number(c);
    return QStringLiteral("[%1]").arg(idx.join(QStringLiteral(", ")));
}
} // namespace

QDialog *makeTensorValuesDialog(QWidget *parent, const QString &label, TensorData data)
{
    constexpr int kPage = 1000;
    auto values = std::make_shared<TensorData>(std::move(data));
    auto *dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(QStringLiteral("TensorValuesDialog"));
    dialog->setWindowTitle(QObject::tr("%1 — %2").arg(label, toQString(describeShape(values->dtype, values->sizes))));
    auto *table = new QTableWidget(0, 2, dialog);
    table->setObjectName(QStringLiteral("values"));
    table->setHorizontalHeaderLabels({ QObject::tr("index"), QObject::tr("value") });
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->horizontalHeader()->setStretchLastSection(true);
    auto *page = new QSpinBox(dialog);
    page->setObjectName(QStringLiteral("page"));
    const int pages = std::max<int>(1, int((values->values.size() + kPage - 1) / kPage));
    page->setRange(1, pages);
    page->setPrefix(QObject::tr("page "));
    page->setSuffix(QObject::tr(" of %1").arg(pages));
    auto *range = new QLabel(dialog);
    auto fill = [table, range, values](int p) {
        const std::size_t first = std::size_t(p - 1) * kPage;
        const std::size_t last = std::min(values->values.size(), first + kPage);
        table->setRowCount(int(last - first));
        for (std::size_t k = first; k < last; ++k) {
            const int row = int(k - first);
            table->setItem(row, 0, new QTableWidgetItem(indexText(k, values->sizes)));
            auto *v = new QTableWidgetItem(elementText(values->dtype, values->values[k]));
            v->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table->setItem(row, 1, v);
        }
        range->setText(
            QObject::tr("values %1–%2 of %3").arg(first + (last > first ? 1 : 0)).arg(last).arg(values->values.size()));
        table->resizeColumnToContents(0);
    };
    fill(1);
    QObject::connect(page, &QSpinBox::valueChanged, dialog, fill);
    auto *bar = new QHBoxLayout;
    bar->addWidget(page);
    bar->addWidget(range, 1);
    auto *layout = new QVBoxLayout(dialog);
    layout->addLayout(bar);
    layout->addWidget(table, 1);
    dialog->resize(420, 560);
    return dialog;
}

} // namespace etscope
