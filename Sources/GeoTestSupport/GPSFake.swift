public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real gpsd on a loopback port, fed by `gpsfake` (Debian gpsd-clients) or reading a device
/// URL itself, for integration tests.
///
/// The test runner blocks signals that its children inherit; gpsd would then ignore gpsfake's
/// SIGTERM and gpsfake wait forever. The daemon is therefore started through a small Python
/// wrapper that restores the default signal state, under `timeout` so it can never outlive
/// the test by long.
public final class GPSFake: @unchecked Sendable { // Process is not Sendable; this wrapper only starts and stops it.
    /// The loopback port gpsd listens on.
    public let port: Int
    private let process: Process

    /// Starts gpsd on a free loopback port, replaying `log` once, one sentence every `cycle` seconds.
    /// Returns nil (after recording why, under CI) when gpsfake or python3 is missing.
    public static func start(log: URL, cycle: Double = 0.02, port: Int? = nil, limit: Int = 120) throws -> GPSFake? {
        guard let gpsfake = GeoProcess.which("gpsfake"), let python = GeoProcess.which("python3") else {
            if Fixtures.isCI { throw FixtureError.missing("gpsfake (Debian gpsd-clients) and python3 are required under CI") }
            print("note: skipping, gpsfake not installed")
            return nil
        }
        let port = port ?? freePort()
        return try launch(python: python, limit: limit, port: port,
                          [gpsfake.path, "-q", "-1", "-P", String(port), "-c", String(cycle), log.path])
    }

    /// Starts gpsd itself (`gpsd -N -n`) on a free loopback port, reading `device` (a device
    /// path or a URL such as `tcp://127.0.0.1:PORT`). Returns nil when gpsd is missing outside CI.
    public static func startDaemon(device: String, limit: Int = 120) throws -> GPSFake? {
        let sbin = URL(fileURLWithPath: "/usr/sbin/gpsd")
        guard let gpsd = GeoProcess.which("gpsd") ?? (FileManager.default.isExecutableFile(atPath: sbin.path) ? sbin : nil),
              let python = GeoProcess.which("python3") else {
            if Fixtures.isCI { throw FixtureError.missing("gpsd and python3 are required under CI") }
            print("note: skipping, gpsd not installed")
            return nil
        }
        let port = freePort()
        return try launch(python: python, limit: limit, port: port, [gpsd.path, "-N", "-n", "-S", String(port), device])
    }

    /// Runs `command` in its own process group with default signal handling, under `timeout`.
    private static func launch(python: URL, limit: Int, port: Int, _ command: [String]) throws -> GPSFake {
        let reset = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
            + "[signal.signal(s, signal.SIG_DFL) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE)]; "
            + "os.setpgid(0, 0); os.execvp('timeout', ['timeout', sys.argv[1]] + sys.argv[2:])"
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", reset, String(limit)] + command
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return GPSFake(port: port, process: process)
    }

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    /// Whether gpsd accepts connections yet.
    public var isListening: Bool { Self.isListening(port: port) }

    /// Whether anything accepts TCP connections on 127.0.0.1:`port`.
    public static func isListening(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Kills gpsfake and its gpsd (the whole process group) and waits for them to go.
    public func stop() {
        let pid = process.processIdentifier
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        process.waitUntilExit()
        // gpsd may linger a moment after its parent; wait until the port is free.
        for _ in 0..<100 where isListening { usleep(20_000) }
    }

    deinit { if process.isRunning { stop() } }

    /// A TCP port nothing listens on right now (the kernel's choice for port 0).
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
