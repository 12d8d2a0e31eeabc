#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

// Runs the built etscope-cli as a user would (own process, real exit code and streams).
namespace etscope::test {

// The etscope-cli under test: this build's, or the one ETSCOPE_CLI names (.ci/run points the CLI
// tests at its clang + libc++ build of the CLI that way).
inline QString cliPath()
{
    const QString env = qEnvironmentVariable("ETSCOPE_CLI");
    return env.isEmpty() ? QStringLiteral(ETSCOPE_BINARY_DIR "/app/cli/etscope-cli") : env;
}

struct CliRun {
    int code; // -1 when the process crashed or did not finish
    QByteArray out, err;
};

inline CliRun runCli(const QStringList &args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(cliPath(), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill(); // a hang is a failure, never exit code 0
        p.waitForFinished();
        return { -1, p.readAllStandardOutput(), p.readAllStandardError() };
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

} // namespace etscope::test
