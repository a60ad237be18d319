import ArgumentParser
import Foundation
import GPXCodec
import GeoCore
import Monitoring

/// `geo beacons --source replay:FILE`: ranges iBeacon, AltBeacon and Eddystone beacons.
struct BeaconsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacons",
        abstract: "Range iBeacon, AltBeacon and Eddystone beacons from a scanner; one JSON line per ranging interval.",
        discussion: """
            --source replay:FILE replays recorded advertisements (one JSON object per line: \
            time, address, rssi, data as hexadecimal advertising data), as fast as it can, \
            keeping the recorded times. Every --interval seconds of recorded time, and once after \
            the last advertisement, it prints {"time", "beacons": [...]}: per beacon its identity \
            (uuid, major, minor or namespace, instance), address, smoothed rssi (dBm; trimmed \
            mean over 10 s), distance (m; log-distance path loss with exponent --path-loss), \
            proximity (immediate < 0.5 m, near < 3 m, far, unknown) and the Eddystone URL and \
            telemetry heard from the same address. (bluez: live scanning is not available yet.)
            """
    )

    @Option(help: "Where advertisements come from: replay:FILE.")
    var source: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of recorded time between reports (\(OptionRanges.rangingInterval)).", valueName: "s"))
    var interval = 1.0

    @Option(parsing: .unconditional, help: ArgumentHelp("Path-loss exponent n of the distance estimate (\(OptionRanges.pathLoss)).", valueName: "n"))
    var pathLoss = 2.0

    func validate() throws {
        try OptionRanges.rangingInterval.check(interval, option: "--interval")
        try OptionRanges.pathLoss.check(pathLoss, option: "--path-loss")
        if source.hasPrefix("bluez:") {
            throw ValidationError("--source bluez: live BlueZ scanning is not implemented yet; use replay:FILE")
        }
        guard source.hasPrefix("replay:"), source.count > "replay:".count else {
            throw ValidationError("--source must be replay:FILE, got '\(source)'")
        }
    }

    func run() throws {
        let path = String(source.dropFirst("replay:".count))
        try CommandLineFiles.checkInput(path)
        let sightings: [BeaconSighting]
        do {
            sightings = try BeaconReplayScanner(path: path).sightings
        } catch let error as BeaconError {
            throw CommandLineFileError.damaged("beacons", path, error)
        }
        var ranger = try BeaconRanger(configuration: .init(pathLossExponent: pathLoss))
        let out = JSONLines()
        guard let first = sightings.first?.timestamp else { return }
        var tick = first.addingTimeInterval(interval)
        for sighting in sightings {
            while tick <= sighting.timestamp {
                out.write(Self.json(ranger.beacons(at: tick), at: tick))
                tick = tick.addingTimeInterval(interval)
            }
            ranger.record(sighting)
        }
        out.write(Self.json(ranger.beacons(at: tick), at: tick))
    }

    /// One ranging report as a JSON object.
    static func json(_ beacons: [RangedBeacon], at time: Date) -> String {
        let items = beacons.map { b -> String in
            var fields: [String] = []
            switch b.identity {
            case .uuid(let uuid, let major, let minor):
                fields += ["\"uuid\":\(JSONLines.string(uuid.uuidString))", "\"major\":\(major)", "\"minor\":\(minor)"]
            case .eddystone(let namespace, let instance):
                fields += ["\"namespace\":\(JSONLines.string(hexadecimal(namespace)))", "\"instance\":\(JSONLines.string(hexadecimal(instance)))"]
            }
            fields += ["\"address\":\(JSONLines.string(b.address))",
                       "\"rssi\":\(JSONNumber.string(b.rssi, .dop))",
                       "\"distance\":\(JSONNumber.string(b.distance?.meters, .dop))",
                       "\"proximity\":\"\(b.proximity.rawValue)\""]
            if let url = b.url { fields.append("\"url\":\(JSONLines.string(url))") }
            if let t = b.telemetry {
                fields.append("\"telemetry\":{\"batteryMillivolts\":\(t.batteryMillivolts.map(String.init) ?? "null"),"
                    + "\"temperature\":\(JSONNumber.string(t.temperature, .dop)),\"advertisementCount\":\(t.advertisementCount),"
                    + "\"uptime\":\(JSONNumber.string(t.uptime.seconds, Self.tenths))}")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{\"time\":\(JSONLines.string(GPXTime.string(from: time))),\"beacons\":[\(items.joined(separator: ","))]}"
    }

    private static let tenths = JSONNumber.Quantity(decimals: 1)
}
