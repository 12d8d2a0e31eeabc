// The one JSON writer (core/common/jsontext.h). Expected bytes written by hand from RFC 8259 and
// UTF-8's rules: 0xFF and a lone continuation byte 0x80 are never valid UTF-8 and become U+FFFD
// (EF BF BD); a document is indented one space per level and ends in a newline; a compact value
// has no whitespace.
#include "common/jsontext.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace etscope;

class TstJsonText : public QObject
{
    Q_OBJECT
private slots:
    void documentReplacesInvalidUtf8()
    {
        nlohmann::ordered_json doc;
        doc["name"] = std::string("conv\xff");
        doc["ids"] = { 1, 2 };
        QCOMPARE(
            jsonDocument(doc), std::string("{\n \"name\": \"conv\xEF\xBF\xBD\",\n \"ids\": [\n  1,\n  2\n ]\n}\n"));
        // nlohmann::json sorts its keys; the same writer and the same replacement.
        nlohmann::json sorted;
        sorted["z"] = std::string("\x80");
        sorted["a"] = 1;
        QCOMPARE(jsonDocument(sorted), std::string("{\n \"a\": 1,\n \"z\": \"\xEF\xBF\xBD\"\n}\n"));
        // What the replaced text reads back as.
        QCOMPARE(nlohmann::json::parse(jsonDocument(doc))["name"].get<std::string>(), std::string("conv\xEF\xBF\xBD"));
    }

    void compactHasNoWhitespace()
    {
        const nlohmann::ordered_json v = { { "b", std::string("x\xff") }, { "a", nullptr } };
        QCOMPARE(jsonCompact(v), std::string("{\"b\":\"x\xEF\xBF\xBD\",\"a\":null}"));
        QCOMPARE(jsonCompact(nlohmann::json(2.5)), std::string("2.5"));
    }

    void streamedStringsUseTheSameRule()
    {
        QCOMPARE(jsonString("a\"b\\\n\xff"), std::string("\"a\\\"b\\\\\\u000a\xEF\xBF\xBD\""));
    }
};

QTEST_GUILESS_MAIN(TstJsonText)
#include "tst_jsontext.moc"
