#pragma once

#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

// The per-op truth of the quantized fixtures, written by tests/tools/gen_quant_runs.py
// (tests/data/eval/quant_runs_expected.json): models → <model> → runs → <kind> → one entry per op.
namespace etscope::test {

inline QJsonArray quantRunTruth(const QString &model, const QString &kind)
{
    QFile f(QString::fromStdString(testData("eval/quant_runs_expected.json")));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read quant_runs_expected.json");
    return QJsonDocument::fromJson(f.readAll())
        .object()
        .value(QStringLiteral("models"))
        .toObject()
        .value(model)
        .toObject()
        .value(QStringLiteral("runs"))
        .toObject()
        .value(kind)
        .toArray();
}

} // namespace etscope::test
