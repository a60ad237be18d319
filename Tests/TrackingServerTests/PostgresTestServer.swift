import Foundation
import GeoTestSupport
import SystemIO

/// A PostgreSQL server of the test's own (Debian's `postgresql-15`, scripts/setup.sh installs
/// it): `initdb` in a fresh folder, `pg_ctl` on a free loopback port, trust authentication for
/// the user `tracking`, the server's defaults otherwise (`fsync` and `synchronous_commit` on).
///
/// PostgreSQL refuses to run as root; as root (CI) every program runs as the `postgres` user
/// through `runuser`, in a folder that user owns. The folder is made in /tmp, not `$TMPDIR`:
/// scripts/test.sh's `$TMPDIR` is root's alone (mode 0700), so `postgres` could not enter it.
struct PostgresTestServer: Sendable {
    let bin: URL
    let directory: String
    let port: Int
    /// `runuser`, when the tests run as root.
    let runuser: URL?

    var dataDirectory: String { directory + "/data" }
    var url: String { "postgres://tracking@127.0.0.1:\(port)/postgres" }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// PostgreSQL's programs: Debian's version folder, else `initdb` on PATH.
    static func binDirectory() -> URL? {
        for version in ["17", "16", "15"] {
            let url = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("initdb").path) { return url }
        }
        return GeoProcess.which("initdb")?.resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// Makes and starts a server, runs `body`, then stops it and removes its folder. Nil when
    /// PostgreSQL is not installed outside CI (under CI that fails the test).
    static func with<R>(_ body: (PostgresTestServer) async throws -> R) async throws -> R? {
        guard let bin = binDirectory() else {
            if Fixtures.isCI { throw FixtureError.missing("PostgreSQL's initdb (scripts/setup.sh installs postgresql-15)") }
            return nil
        }
        var template = Array("/tmp/locationkit-pg.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw Failure(description: "mkdtemp: errno \(errno)")
        }
        let directory = String(cString: template)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var runuser: URL? = nil
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else { throw Failure(description: "no 'postgres' user to run PostgreSQL as (root may not)") }
            guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else { throw Failure(description: "chown \(directory): errno \(errno)") }
            runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].map { URL(fileURLWithPath: $0) }
                .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            if runuser == nil { throw Failure(description: "running as root and no runuser to start PostgreSQL as 'postgres'") }
        }
        var server = PostgresTestServer(bin: bin, directory: directory, port: 0, runuser: runuser)
        try await server.run("initdb", ["-D", server.dataDirectory, "-U", "tracking", "-A", "trust", "-E", "UTF8", "--no-sync"])
        // A free port can be taken between the look and the bind: try a few.
        var lastError: (any Error)? = nil
        for _ in 0..<3 {
            server = PostgresTestServer(bin: bin, directory: directory, port: FreePort.take(), runuser: runuser)
            do {
                try await server.start()
                lastError = nil
                break
            } catch {
                lastError = error
            }
        }
        if let lastError { throw lastError }
        return try await server.stopped(after: body)
    }

    /// Runs `body` with this running server, then stops it (a crash: `immediate`), whether
    /// `body` returned or threw.
    private func stopped<R>(after body: (PostgresTestServer) async throws -> R) async throws -> R {
        do {
            let result = try await body(self)
            try? await stop(mode: "immediate")
            return result
        } catch {
            try? await stop(mode: "immediate")
            throw error
        }
    }

    /// Starts the server (again) on its port and waits until it accepts connections.
    func start() async throws {
        try await run("pg_ctl", ["-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60",
                                 "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1", "start"])
    }

    /// Stops the server: `immediate` is a crash (no checkpoint; recovery from the WAL at the
    /// next start), `fast` a clean shutdown.
    func stop(mode: String) async throws {
        try await run("pg_ctl", ["-D", dataDirectory, "-m", mode, "-w", "stop"])
    }

    /// Makes a streaming replica of this server (`pg_basebackup -R`: its standby settings
    /// written, the WAL streamed during the copy), starts it on a free port, runs `body`, then
    /// stops it. Its folder is inside this server's, removed with it.
    func withReplica<R>(_ body: (PostgresTestServer) async throws -> R) async throws -> R {
        let replica = PostgresTestServer(bin: bin, directory: directory + "/replica", port: FreePort.take(), runuser: runuser)
        try await run("pg_basebackup", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "tracking", "-D", replica.dataDirectory, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync"])
        try await replica.start()
        return try await replica.stopped(after: body)
    }

    /// Runs SQL through psql, in one session, each command its own `-c` (a command of several
    /// statements is one transaction); the rows, `|`-separated.
    func psql(_ commands: String...) async throws -> String {
        try await run("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "tracking", "-d", "postgres", "-At", "-v", "ON_ERROR_STOP=1"]
            + commands.flatMap { ["-c", $0] })
    }

    /// The plans auto_explain has logged so far of the statements whose text starts with
    /// `prefix`, in order: each from its query text to the log's next line.
    func loggedPlans(of prefix: String) throws -> [String] {
        let log = try String(contentsOfFile: directory + "/server.log", encoding: .utf8)
        // A log line starts with its time, so with the year.
        return log.components(separatedBy: "Query Text: ").filter { $0.hasPrefix(prefix) }.map { $0.components(separatedBy: "\n20").first ?? $0 }
    }

    @discardableResult
    func run(_ program: String, _ arguments: [String]) async throws -> String {
        let tool = bin.appendingPathComponent(program)
        let result = if let runuser {
            try await GeoProcess.run(runuser, ["-u", "postgres", "--", tool.path] + arguments, timeout: .seconds(120))
        } else {
            try await GeoProcess.run(tool, arguments, timeout: .seconds(120))
        }
        guard result.exit.isSuccess else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")): \(result.exit)\n\(result.stderr)\(log.suffix(2000))")
        }
        return result.stdout
    }
}
