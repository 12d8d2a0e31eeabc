#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

// Runs the built etscope-cli as a user would (own process, real exit code and streams).
namespace etscope::test {

struct CliRun {
    int code; // -1 when the process crashed or did not finish
    QByteArray out, err;
};

inline CliRun runCli(const QStringList &args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(QStringLiteral(ETSCOPE_BINARY_DIR "/app/cli/etscope-cli"), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill(); // a hang is a failure, never exit code 0
        p.waitForFinished();
        return { -1, p.readAllStandardOutput(), p.readAllStandardError() };
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

} // namespace etscope::test
