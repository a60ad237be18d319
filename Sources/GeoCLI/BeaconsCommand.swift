import ArgumentParser
import Foundation
import GPXCodec
import GeoCore
import Monitoring
import BeaconScanning
import Synchronization
import SystemIO
import GeoBase

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

    @Option(help: "Where advertisements come from: bluez:[ADAPTER] or replay:FILE.")
    var source: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of recorded time between reports (\(OptionRanges.rangingInterval)).", valueName: "s"))
    var interval = 1.0

    @Option(parsing: .unconditional, help: ArgumentHelp("Path-loss exponent n of the distance estimate (\(OptionRanges.pathLoss)).", valueName: "n"))
    var pathLoss = 2.0

    @Option(name: .customLong("for"), parsing: .unconditional,
            help: ArgumentHelp("bluez: stop after this many seconds (\(OptionRanges.trackDuration)); default: until interrupted.", valueName: "s"))
    var duration: Double?

    func validate() throws {
        try OptionRanges.rangingInterval.check(interval, option: "--interval")
        try OptionRanges.pathLoss.check(pathLoss, option: "--path-loss")
        try OptionRanges.trackDuration.check(duration, option: "--for")
        if source.hasPrefix("bluez:") { return }
        guard source.hasPrefix("replay:"), source.count > "replay:".count else {
            throw ValidationError("--source must be bluez:[ADAPTER] or replay:FILE, got '\(source)'")
        }
        if duration != nil { throw ValidationError("--for applies to a live bluez: source, not a replay") }
    }

    func run() async throws {
        let ranger = try BeaconRanger(configuration: .init(pathLossExponent: pathLoss))
        if source.hasPrefix("bluez:") {
            try await scan(BlueZScanner(adapter: String(source.dropFirst("bluez:".count))), ranger)
        } else {
            try replay(String(source.dropFirst("replay:".count)), ranger)
        }
    }

    /// Ranges a recorded file on its own times.
    private func replay(_ path: String, _ ranger: BeaconRanger) throws {
        var ranger = ranger
        try CommandLineFiles.checkInput(path)
        let sightings: [BeaconSighting]
        do {
            sightings = try BeaconReplayScanner(path: path).recorded
        } catch let error as MonitoringError {
            throw CommandLineFileError.damaged("beacons", path, error)
        }
        let out = standardOutput
        ranger.replay(sightings, interval: .seconds(interval)) { tick, beacons in out.line(RangedBeacon.report(beacons, at: tick)) }
    }

    /// Ranges a live scan: a report every `interval` seconds of wall time, until `--for` ends or
    /// the scan fails.
    private func scan(_ scanner: some BeaconScanner, _ ranger: BeaconRanger) async throws {
        let state = SharedRanger(ranger)
        let out = standardOutput
        let reports = duration.map { Int(($0 / interval).rounded(.down)) } ?? .max
        let failure: (any Error)? = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do {
                    for try await sighting in scanner.sightings() { state.ranger.withLock { $0.record(sighting) } }
                    return nil
                } catch {
                    return error
                }
            }
            group.addTask { [interval] in
                for _ in 0..<reports {
                    do { try await Task.sleep(for: .seconds(interval)) } catch { return nil }
                    let now = Date()
                    out.line(RangedBeacon.report(state.ranger.withLock { $0.beacons(at: now) }, at: now))
                    out.flush()
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let failure else { return }
        try? FileDescriptor.standardError.writeAll("geo beacons: \(failure)\n")
        throw ExitCode((failure as? MonitoringError)?.code == .bluetoothDenied ? 77 : 69)
    }
}

/// A live scan's ranger, shared by the task that records sightings and the one that reports.
private final class SharedRanger: Sendable {
    let ranger: Mutex<BeaconRanger>
    init(_ ranger: BeaconRanger) { self.ranger = Mutex(ranger) }
}
