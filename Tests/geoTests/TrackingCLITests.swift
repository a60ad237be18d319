import Foundation
import GeoTestSupport
import SystemIO
import Testing

/// `geo serve-tracking` killed with SIGKILL twice under `geo loadgen` (30 devices at 1 Hz),
/// restarted on the same database each time: every fix the generator saw acknowledged is in the
/// database once (`geo loadgen verify`: acknowledged-but-missing 0, duplicated 0).
@Test(.onOwnThread) func serveTracking_killedTwiceUnderLoad_losesNoAcknowledgedFix() async throws {
    try await withTemporaryDirectory { dir in
        let db = dir.appendingPathComponent("t.sqlite").path, log = dir.appendingPathComponent("acks.csv").path
        let port = FreePort.take()
        func startServer() async throws -> ChildProcess {
            let server = try ChildProcess.spawn(.init(executable: GeoProcess.geoExecutable.path,
                                                      arguments: ["serve-tracking", "--db", db, "--port", String(port), "--host", "127.0.0.1", "--auto-register"],
                                                      standardOutput: .nullDevice, standardError: .nullDevice))
            #expect(await GPSFake.waitUntilListening(port: port), "geo serve-tracking listens on \(port)")
            return server
        }
        var server = try await startServer()
        let loadgen = try ChildProcess.spawn(.init(executable: GeoProcess.geoExecutable.path,
                                                   arguments: ["loadgen", "--url", "http://127.0.0.1:\(port)/", "--devices", "30", "--duration", "9", "--ack-log", log],
                                                   standardOutput: .file(dir.appendingPathComponent("loadgen.txt").path), standardError: .nullDevice))
        defer { _ = loadgen.kill() }
        for _ in 0..<2 {
            try await Task.sleep(for: .milliseconds(2500))
            #expect(server.kill())
            _ = try await server.exitStatus(timeout: .seconds(10))
            server = try await startServer()
        }
        #expect(try await loadgen.exitStatus(timeout: .seconds(60)) == .exited(0))
        #expect(server.terminate())
        _ = try await server.exitStatus(timeout: .seconds(15))
        let summary = try String(contentsOfFile: dir.appendingPathComponent("loadgen.txt").path, encoding: .utf8)
        let verify = try await GeoProcess.geo(["loadgen", "verify", "--db", db, "--ack-log", log])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr) — \(summary)")
        #expect(verify.stdout.contains("acknowledged-but-missing 0, duplicated 0"), "\(verify.stdout)")
        // 30 devices × ~9 s, less the restarts: well over 100 acknowledged fixes.
        let acknowledged = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").count
        #expect(acknowledged > 100, "\(summary)")
    }
}

/// A second `geo serve-tracking` on the SQLite database another one serves exits at once (no
/// port taken, nothing written) with one line naming the database and the first server's
/// process, and the first keeps serving: two writers would each trust their own memory of
/// what the database holds (a retry stored twice).
@Test(.onOwnThread) func serveTracking_secondServerOnTheSameDatabase_isRefused() async throws {
    try await withTemporaryDirectory { dir in
        let db = dir.appendingPathComponent("t.sqlite").path, errors = dir.appendingPathComponent("second.txt").path
        let port = FreePort.take(), otherPort = FreePort.take()
        let first = try ChildProcess.spawn(.init(executable: GeoProcess.geoExecutable.path,
                                                 arguments: ["serve-tracking", "--db", db, "--port", String(port), "--host", "127.0.0.1"],
                                                 standardOutput: .nullDevice, standardError: .nullDevice))
        defer { _ = first.kill() }
        #expect(await GPSFake.waitUntilListening(port: port), "geo serve-tracking listens on \(port)")
        let second = try ChildProcess.spawn(.init(executable: GeoProcess.geoExecutable.path,
                                                  arguments: ["serve-tracking", "--db", db, "--port", String(otherPort), "--host", "127.0.0.1"],
                                                  standardOutput: .nullDevice, standardError: .file(errors)))
        defer { _ = second.kill() }
        let status = try await second.exitStatus(timeout: .seconds(30))
        #expect(!status.isSuccess)
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(message.contains("\(db) is written by another tracking server (process \(first.processID);"), "\(message)")
        #expect(await GPSFake.waitUntilListening(port: port), "the first server still listens")
    }
}

