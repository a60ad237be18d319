public import ArgumentParser
import Monitoring
public import BeaconScanning
import SystemIO

/// `geo beacons --source bluez:[ADAPTER] | replay:FILE`: ranges iBeacon, AltBeacon and Eddystone beacons.
struct BeaconsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacons",
        abstract: "Range iBeacon, AltBeacon and Eddystone beacons from a scanner; one JSON line per ranging interval.",
        discussion: """
            --source bluez:[ADAPTER] scans live with BlueZ over the system bus (the first adapter \
            when none is named, e.g. bluez:hci0), every --interval seconds until --for seconds \
            have passed or it is interrupted; if BlueZ is absent, refuses access, or the adapter \
            goes away or is powered off, it says so on standard error and exits with 69 \
            (unavailable) or 77 (denied). --source replay:FILE replays recorded advertisements \
            (one JSON object per line: time, address, rssi, data as hexadecimal advertising \
            data; times in the years 0001 to 9999), as fast as it can, keeping the recorded \
            times: every --interval seconds of recorded time, and after the last advertisement \
            every --interval until the first report with "beacons": [] (a beacon is listed, as \
            unknown once silent, until 30 s after it was last heard), except in a gap: once no beacon is left in range, a gap of more than \
            the 10 s smoothing window until the next advertisement is reported twice, by the \
            empty report at its start and the last one before its end. Each report is {"time", \
            "beacons": [...]}: per beacon its identity (uuid, major, minor or namespace, \
            instance), address, smoothed rssi (dBm; trimmed mean over 10 s), distance (m; \
            log-distance path loss with exponent --path-loss), proximity (immediate < 0.5 m, \
            near < 3 m, far, unknown) and the Eddystone URL and telemetry heard from the same \
            address.
            """
    )

    @Option(help: ArgumentHelp("Where advertisements come from.", valueName: "bluez:[ADAPTER]|replay:FILE"))
    var source: BeaconSourceURI

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of recorded time between reports (\(BeaconRanger.intervals)).", valueName: "s"))
    var interval = 1.0

    @Option(parsing: .unconditional, help: ArgumentHelp("Path-loss exponent n of the distance estimate (\(BeaconRanger.Configuration.pathLossExponents)).", valueName: "n"))
    var pathLoss = 2.0

    @Option(name: .customLong("for"), parsing: .unconditional,
            help: ArgumentHelp("bluez: stop after this many seconds (\(OptionRanges.trackDuration)); default: until interrupted.", valueName: "s"))
    var duration: Double?

    func validate() throws {
        try BeaconRanger.intervals.check(interval, option: "--interval")
        try BeaconRanger.Configuration.pathLossExponents.check(pathLoss, option: "--path-loss")
        try OptionRanges.trackDuration.check(duration, option: "--for")
        if case .replay = source, duration != nil { throw ValidationError("--for applies to a live bluez: source, not a replay") }
    }

    func run() async throws {
        let ranger = try BeaconRanger(configuration: .init(pathLossExponent: pathLoss))
        switch source {
        case .bluez(let adapter): try await scan(BlueZScanner(adapter: adapter), ranger)
        case .replay(let path): try replay(path, ranger)
        }
    }

    /// Ranges a recorded file on its own times.
    private func replay(_ path: String, _ ranger: BeaconRanger) throws {
        var ranger = ranger
        let sightings = try CommandLineFiles.reading(path, damage: { $0 is MonitoringError }) { try BeaconReplayScanner(path: path).recorded }
        ranger.replay(sightings, interval: .seconds(interval)) { tick, beacons in standardOutput.line(RangedBeacon.report(beacons, at: tick)) }
    }

    /// Ranges a live scan until `--for` ends or the scan fails (`BeaconRanger.range`).
    private func scan(_ scanner: some BeaconScanner, _ ranger: BeaconRanger) async throws {
        let reports = duration.map { Int(($0 / interval).rounded(.down)) } ?? .max
        let failure = await ranger.range(scanner, every: .seconds(interval), reports: reports) { now, beacons in
            standardOutput.line(RangedBeacon.report(beacons, at: now))
            standardOutput.flush()
        }
        guard let failure else { return }
        CommandLineFiles.note("beacons", "\(failure)")
        throw ExitCode((failure as? MonitoringError)?.code == .bluetoothDenied ? 77 : 69)
    }
}

extension BeaconSourceURI: ExpressibleByArgument { public init?(argument: String) { self.init(argument) } }
