// distinguishingNames: the shortest trailing part of each path that no other path shares
// (expected names written by hand).
#include "common/pathnames.h"

#include <QtTest>

using namespace etscope;

class TstPathNames : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shortestDistinguishingParent()
    {
        using V = std::vector<std::string>;
        QCOMPARE(distinguishingNames(V { "/a/etdump.etdp" }), V { "etdump.etdp" });
        QCOMPARE(distinguishingNames(V { "/x/run_a/etdump.etdp", "/x/run_b/etdump.etdp", "/y/other.etdp" }),
            (V { "run_a/etdump.etdp", "run_b/etdump.etdp", "other.etdp" }));
        // Same folder name one level up: two parents are needed.
        QCOMPARE(distinguishingNames(V { "/p/a/run/etdump.etdp", "/p/b/run/etdump.etdp" }),
            (V { "a/run/etdump.etdp", "b/run/etdump.etdp" }));
        // Equal paths are one file: the file name is enough; backslashes read as separators.
        QCOMPARE(distinguishingNames(V { "/a/e.etdp", "/a/e.etdp" }), (V { "e.etdp", "e.etdp" }));
        QCOMPARE(
            distinguishingNames(V { "C:\\runs\\a\\e.etdp", "C:\\runs\\b\\e.etdp" }), (V { "a/e.etdp", "b/e.etdp" }));
        QCOMPARE(distinguishingNames(V {}), V {});
    }
};

QTEST_GUILESS_MAIN(TstPathNames)
#include "tst_pathnames.moc"
