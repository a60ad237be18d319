public import Foundation
import SystemIO
import Platform

/// A real gpsd on a loopback port, fed by `gpsfake` (Debian gpsd-clients) or reading a device
/// URL itself, for integration tests.
///
/// The daemon runs in a process group of its own under `timeout` (SIGTERM after `limit` seconds,
/// SIGKILL 5 s later, as gpsfake catches SIGTERM and can hang on a dead gpsd), so stopping it
/// kills gpsfake and its gpsd together, and a crashed test runner cannot leave it running for
/// long. ``ChildProcess`` starts it with no blocked signals and default signal actions: the
/// test runner blocks signals, and gpsd would otherwise ignore gpsfake's SIGTERM and gpsfake
/// wait forever.
public struct GPSFake: Sendable {
    /// The loopback port gpsd listens on.
    public let port: Int
    private let process: ChildProcess

    /// Runs gpsd on a free loopback port (or `port`), replaying `log` once, one sentence every
    /// `cycle` seconds, for as long as `body` runs, which starts once gpsd listens; then stops
    /// it and waits until the port is free.
    /// Returns nil without calling `body` (after recording why, under CI) when gpsfake is missing.
    ///
    /// With `repeating`, gpsfake replays the log again and again, so a client that connects late
    /// (its connecting task waited behind others) still sees every sentence.
    public static func withReplay<Result>(log: URL, cycle: Double = 0.02, port: Int? = nil, limit: Int = 120, repeating: Bool = false,
                                          _ body: (GPSFake) async throws -> Result) async throws -> Result? {
        guard let gpsfake = try gpsfakeExecutable() else { return nil }
        let port = port ?? FreePort.take()
        return try await withGPSFakeCleanup(port: port) { environment in
            try await run(limit: limit, port: port, environment: environment,
                          [gpsfake.path, "-q"] + (repeating ? [] : ["-1"]) + ["-P", String(port), "-c", String(cycle), log.path], body)
        }
    }

    /// Runs `gpsfake -1 -p` on `log` (plus `arguments`, such as `-S`) until the log ends: gpsd
    /// reads it once, and gpsfake prints what gpsd reports to a watching client, JSON lines, on
    /// standard output. Returns nil (after recording why, under CI) when gpsfake is missing.
    /// gpsfake starts gpsd and then connects to it once; when nothing listens on the port yet (or
    /// another process took the port `FreePort.take()` chose) it gives up with "socket error" before
    /// gpsd read a sentence — a start-up race of the harness, tried again on a fresh port, at
    /// most three times (a fresh-clone CI failed once with "[Errno 111] Connection refused").
    /// - Throws: ``ChildProcessError`` when it runs longer than `timeout`.
    public static func pipe(log: URL, _ arguments: [String] = [], timeout: Duration = .seconds(60)) async throws -> ProcessResult? {
        guard let gpsfake = try gpsfakeExecutable() else { return nil }
        var attempt = 1
        while true {
            let port = FreePort.take()
            let result = try await withGPSFakeCleanup(port: port) { environment in
                try await GeoProcess.run(gpsfake, ["-1", "-p", "-P", String(port)] + arguments + [log.path],
                                         environment: environment, timeout: timeout)
            }
            let refused = result.stderr.contains("socket error") && !result.stdout.contains("{")
            if !refused || attempt == 3 { return result }
            attempt += 1
        }
    }

    /// Runs gpsd itself (`gpsd -N -n`) on a free loopback port, reading `device` (a device path or
    /// a URL such as `tcp://127.0.0.1:PORT`), for as long as `body` runs. Returns nil without
    /// calling `body` when gpsd is missing outside CI.
    public static func withDaemon<Result>(device: String, limit: Int = 120,
                                          _ body: (GPSFake) async throws -> Result) async throws -> Result? {
        let sbin = URL(fileURLWithPath: "/usr/sbin/gpsd")
        guard let gpsd = GeoProcess.which("gpsd") ?? (FileManager.default.isExecutableFile(atPath: sbin.path) ? sbin : nil) else {
            if Fixtures.isCI { throw FixtureError.missing("gpsd is required under CI") }
            print("note: skipping, gpsd not installed")
            return nil
        }
        let port = FreePort.take()
        return try await run(limit: limit, port: port, environment: nil, [gpsd.path, "-N", "-n", "-S", String(port), device], body)
    }

    /// gpsfake on `PATH`; nil outside CI when it is missing.
    private static func gpsfakeExecutable() throws -> URL? {
        if let gpsfake = GeoProcess.which("gpsfake") { return gpsfake }
        if Fixtures.isCI { throw FixtureError.missing("gpsfake (Debian gpsd-clients) is required under CI") }
        print("note: skipping, gpsfake not installed")
        return nil
    }

    /// Runs `body` with the environment for a gpsfake whose gpsd uses `port`, then removes what
    /// that gpsd leaves behind even when it ends normally:
    /// - its control socket, `$TMPDIR/gpsfake-PID.sock`: `TMPDIR` is a directory of its own,
    ///   removed afterwards;
    /// - the System V shared-memory segment it exports fixes in, which gpsfake keys by the port
    ///   (`GPSD_SHM_KEY` = 0x4770_0000 + port, gps/fake.py) and gpsd never removes (24 KB each).
    /// - Throws: ``GPSFakeError`` when `$TMPDIR` is so long that the socket's path would not fit
    ///   the 107 bytes of a Unix socket address (gpsd would cut it, and gpsfake wait forever).
    private static func withGPSFakeCleanup<Result>(port: Int, _ body: ([String: String]) async throws -> Result) async throws -> Result {
        try await withTemporaryDirectory("gpsfake") { temporary in
            let longestSocket = temporary.appendingPathComponent("gpsfake-4194304.sock").path // the largest Linux PID
            guard longestSocket.utf8.count <= 107 else {
                throw GPSFakeError(description: "TMPDIR is too long for gpsd's control socket (at most 107 bytes): \(longestSocket)")
            }
            defer {
                let segment = shmget(key_t(0x4770_0000 + port), 0, 0)
                if segment >= 0 { shmctl(segment, IPC_RMID, nil) }
            }
            return try await body(ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { _, new in new })
        }
    }

    /// Runs `command` (with `environment`, or this process's) under `timeout limit` in its own
    /// process group while `body` runs.
    private static func run<Result>(limit: Int, port: Int, environment: [String: String]?, _ command: [String],
                                    _ body: (GPSFake) async throws -> Result) async throws -> Result {
        let process = try ChildProcess.spawn(.init(
            executable: "timeout", arguments: ["--kill-after=5", String(limit)] + command, environment: environment,
            standardOutput: .nullDevice, standardError: .nullDevice, newProcessGroup: true
        ))
        let daemon = GPSFake(port: port, process: process)
        do {
            // A client that connects at once gets the whole replay; one that found the port
            // closed would back off, and on a busy machine could miss it.
            guard await waitUntilListening(port: port, within: .seconds(60)) else {
                throw GPSFakeError(description: "gpsd did not listen on 127.0.0.1:\(port) within 60 s: \(command.joined(separator: " "))")
            }
            let result = try await body(daemon)
            await daemon.stop()
            return result
        } catch {
            await daemon.stop()
            throw error
        }
    }

    /// gpsd did not start listening.
    public struct GPSFakeError: Error, CustomStringConvertible {
        public var description: String
    }

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    /// Kills gpsfake and its gpsd (the whole process group), waits for them, then for the port to be free.
    private func stop() async {
        process.kill()
        _ = try? await process.exitStatus()
        // gpsd, gpsfake's child, may linger a moment after its parent; wait until the port is free.
        for _ in 0..<100 where isListening { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// Whether gpsd accepts connections yet.
    public var isListening: Bool { Self.isListening(port: port) }

    /// Waits until something accepts TCP connections on 127.0.0.1:`port`, polling every 20 ms,
    /// at most `limit` (30 s by default: starting `geo` on a loaded machine has taken over 10 s); returns whether it does.
    public static func waitUntilListening(port: Int, within limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if isListening(port: port) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return isListening(port: port)
    }

    /// Whether anything accepts TCP connections on 127.0.0.1:`port`.
    public static func isListening(port: Int) -> Bool {
        loopbackSocket(port: port) { connect($0, $1, $2) }
    }
}
