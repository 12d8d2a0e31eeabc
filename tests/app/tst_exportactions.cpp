// File ▸ Export ▸ Trace… / Report… of the app: the menu entries exist and write what the CLI
// writes for the loaded session (the formats themselves are tested in tests/export).
#include "eventtableview.h"
#include "exportactions.h"
#include "mainwindow.h"
#include "testpaths.h"
#include "testsession.h"
#include "timecontrols.h"

#include "export/chrometrace.h"
#include "export/htmlreport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QTest>

using namespace etscope;

class TstExportActions : public QObject
{
    Q_OBJECT
private slots:
    void menuEntries()
    {
        MainWindow::Options o;
        o.persistSettings = false;
        MainWindow w(o);
        QStringList texts;
        for (QAction *a : w.menuBar()->actions())
            if (a->menu())
                for (QAction *b : a->menu()->actions())
                    if (b->menu())
                        for (QAction *c : b->menu()->actions())
                            texts << b->text() + u" > "_qs + c->text();
        QVERIFY2(texts.filter(u"E&xport > &Trace"_qs).size() == 1, qPrintable(texts.join(u", "_qs)));
        QVERIFY(texts.filter(u"E&xport > &Report"_qs).size() == 1);
    }

    void writesTraceAndReport()
    {
        auto s = test::loadSessionOrDie(test::sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"));
        QTemporaryDir dir;
        const QString trace = dir.filePath(u"t.json"_qs), report = dir.filePath(u"r.html"_qs);
        QCOMPARE(exportTraceFile(*s, trace), QString());
        QFile t(trace);
        QVERIFY(t.open(QIODevice::ReadOnly));
        const QByteArray bytes = t.readAll();
        std::string direct;
        QVERIFY(writeChromeTrace(*s, {}, [&](std::string_view c) {
            direct.append(c);
            return true;
        }));
        QCOMPARE(bytes, QByteArray::fromStdString(direct));
        QJsonParseError err;
        const auto doc = QJsonDocument::fromJson(bytes, &err);
        QCOMPARE(err.error, QJsonParseError::NoError);
        int x = 0;
        for (const auto v : doc.object().value(u"traceEvents"_qs).toArray())
            x += v.toObject().value(u"ph"_qs).toString() == u"X"_qs;
        QCOMPARE(x, 17); // every profile event of the file (fixture README: profile_event=17)

        QCOMPARE(exportReportFile(*s, report), QString());
        QFile r(report);
        QVERIFY(r.open(QIODevice::ReadOnly));
        const QByteArray html = r.readAll();
        QVERIFY(html.startsWith("<!DOCTYPE html>"));
        QVERIFY(html.contains("<table id=\"inspector\""));
        QVERIFY(html.contains("id=\"timeline\""));

        QVERIFY(exportTraceFile(*s, dir.filePath(u"missing/dir/t.json"_qs)).contains(u"missing/dir/t.json"_qs));
    }
};

QTEST_MAIN(TstExportActions)
#include "tst_exportactions.moc"
