import Foundation
public import SystemIO

/// python3-dbusmock's bluez5 template (Debian python3-dbusmock) on a private dbus-daemon, driven
/// by `Tests/MonitoringTests/Fixtures/bluez_mock.py`: a BlueZ that a `BlueZScanner` (or `geo
/// beacons` with `DBUS_SYSTEM_BUS_ADDRESS` set to ``address``) talks real D-Bus to.
public struct BlueZMock: Sendable {
    /// The bus address the scanner is pointed at (its "system bus").
    public let address: String
    /// The dbus-daemon (kill it to take the bus away).
    public let daemon: ChildProcess
    /// The mock BlueZ (kill it to make BlueZ leave the bus).
    public let mock: ChildProcess?
    private let script: URL

    /// Runs the daemon (and, with `withBlueZ`, the mock on it), then `body`; stops both after.
    /// Returns nil (skipping) when dbus-daemon or the system python3's dbusmock is missing
    /// outside CI; under CI that is an error.
    public static func run<R>(withBlueZ: Bool = true, _ body: (BlueZMock) async throws -> R) async throws -> R? {
        let python = URL(fileURLWithPath: "/usr/bin/python3")
        guard let dbusDaemon = GeoProcess.which("dbus-daemon"),
              (try? await GeoProcess.run(python, ["-c", "import dbusmock"]))?.status == 0 else {
            if Fixtures.isCI { throw FixtureError.missing("dbus-daemon and python3-dbusmock are required under CI (scripts/setup.sh)") }
            print("note: skipping, dbus-daemon or python3-dbusmock not installed")
            return nil
        }
        let script = Fixtures.packageRoot.appendingPathComponent("Tests/MonitoringTests/Fixtures/bluez_mock.py")
        return try await withTemporaryDirectory("bluez") { dir in
            let socket = dir.appendingPathComponent("bus").path
            let address = "unix:path=\(socket)"
            let daemon = try ChildProcess.spawn(.init(
                executable: "timeout", arguments: ["--kill-after=5", "300", dbusDaemon.path, "--session", "--nofork", "--address=\(address)"],
                standardOutput: .nullDevice, standardError: .nullDevice, newProcessGroup: true))
            defer { _ = daemon.kill() }
            // dbus-daemon creates its socket file before it listens on it: wait until the bus
            // takes a connection (a scanner started in between was refused).
            for _ in 0..<300 {
                let connect = ["-c", "import dbus, sys; dbus.bus.BusConnection(sys.argv[1])", address]
                if FileManager.default.fileExists(atPath: socket), (try? await GeoProcess.run(python, connect))?.status == 0 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            var mock: ChildProcess?
            if withBlueZ {
                mock = try ChildProcess.spawn(.init(
                    executable: "timeout", arguments: ["--kill-after=5", "300", python.path, "-m", "dbusmock", "--system", "--template", "bluez5"],
                    environment: ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": address]) { $1 },
                    standardOutput: .nullDevice, standardError: .nullDevice, newProcessGroup: true))
            }
            defer { _ = mock?.kill() }
            let bluez = BlueZMock(address: address, daemon: daemon, mock: mock, script: script)
            if withBlueZ { _ = try await bluez.control("wait") }
            return try await body(bluez)
        }
    }

    /// Runs `bluez_mock.py` with `arguments` (see the script); returns its output, trimmed.
    @discardableResult
    public func control(_ arguments: String...) async throws -> String {
        let result = try await GeoProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), [script.path] + arguments,
                                              environment: ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": address]) { $1 },
                                              timeout: .seconds(60))
        guard result.status == 0 else { throw BlueZMockError(description: "bluez_mock.py \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls `condition` every 50 ms for up to 30 s.
    public func until(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<600 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}

/// A command of `bluez_mock.py` failed.
public struct BlueZMockError: Error, CustomStringConvertible {
    public var description: String
}
