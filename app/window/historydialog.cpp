#include "historydialog.h"

#include "filedialogs.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

namespace etscope {

namespace {
const QString kSeparator = QStringLiteral("; ");
}

HistoryDialog::HistoryDialog(QWidget *parent)
    : QDialog(parent)
    , m_recordings(new QLineEdit)
    , m_labels(new QLineEdit)
{
    setWindowTitle(tr("History"));
    m_recordings->setPlaceholderText(tr("a folder of recordings (*.etdp, searched recursively), or files"));
    m_recordings->setMinimumWidth(480);
    m_labels->setPlaceholderText(tr("optional: CSV with columns file,label[,order]"));
    auto *folder = new QPushButton(tr("Folder…"));
    auto *files = new QPushButton(tr("Files…"));
    auto *csv = new QPushButton(tr("Browse…"));
    connect(folder, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder of recordings"), lastUsedFolder());
        if (!dir.isEmpty()) {
            rememberFolderOf(dir + QStringLiteral("/."));
            setRecordings({ dir });
        }
    });
    connect(files, &QPushButton::clicked, this, [this] {
        const QStringList f = askOpenFileNames(this, tr("Recordings"), tr("ETDump (*.etdp *.etdump);;All files (*)"));
        if (!f.isEmpty())
            setRecordings(f);
    });
    connect(csv, &QPushButton::clicked, this, [this] {
        const QString f = askOpenFileName(this, tr("Labels CSV"), tr("CSV (*.csv);;All files (*)"));
        if (!f.isEmpty())
            setLabels(f);
    });
    auto *recRow = new QHBoxLayout;
    recRow->addWidget(m_recordings, 1);
    recRow->addWidget(folder);
    recRow->addWidget(files);
    auto *csvRow = new QHBoxLayout;
    csvRow->addWidget(m_labels, 1);
    csvRow->addWidget(csv);
    auto *form = new QFormLayout(this);
    form->addRow(tr("Recordings:"), recRow);
    form->addRow(tr("Labels:"), csvRow);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Analyse"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

QStringList HistoryDialog::recordings() const
{
    QStringList out;
    for (const QString &p : m_recordings->text().split(kSeparator.trimmed()))
        if (!p.trimmed().isEmpty())
            out << p.trimmed();
    return out;
}

QString HistoryDialog::labels() const
{
    return m_labels->text().trimmed();
}

void HistoryDialog::setRecordings(const QStringList &paths)
{
    m_recordings->setText(paths.join(kSeparator));
}

void HistoryDialog::setLabels(const QString &csv)
{
    m_labels->setText(csv);
}

} // namespace etscope
