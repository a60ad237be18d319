import Foundation
import GeoBase
import Testing
import GeoCore
import GeoTestSupport
import NMEACodec

/// Runs a real gpsd (via `gpsfake`) on the encoder's output and reads its JSON back with
/// the gpsd codec: the encoder, the JSON codec and the 95 %/68 % conversion against gpsd.
@Test(.onOwnThread) func encoder_throughRealGPSD_reportsTheSameFixes() async throws {
    let start = Date(timeIntervalSince1970: Double(NMEADate(year: 2024, month: 5, day: 17).daysSinceEpoch) * 86_400 + 43_200)
    var locations: [Location] = []
    for i in 0..<10 {
        locations.append(Location(
            coordinate: try Coordinate(latitude: -33.8568 + Double(i) * 1e-5, longitude: 151.2153 - Double(i) * 2e-5),
            timestamp: start.addingTimeInterval(Double(i)),
            altitude: .meters(20 + Double(i) * 0.5),
            ellipsoidalAltitude: .meters(42.5 + Double(i) * 0.5),
            horizontalAccuracy: .meters(3.5),
            verticalAccuracy: .meters(6),
            speed: .metersPerSecond(2.5),
            course: .degrees(296.5),
            fixMode: .threeDimensional,
            fixQuality: .gps,
            satelliteCount: 9
        ))
    }
    var log = "# Name: LocationKit NMEAEncoder test output\n"
    for l in locations { log += try NMEAEncoder.sentences(for: l).joined() }
    try await withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("encoded.log")
        try Data(log.utf8).write(to: file)

        // GeoProcess starts gpsfake with no blocked signals and default signal actions (the test
        // runner blocks signals, and gpsd would then ignore gpsfake's SIGTERM and gpsfake wait
        // forever), in a process group of its own that the timeout kills whole.
        guard let result = try await GPSFake.pipe(log: file, ["-S"]) else { return }
        var lastTPV: [String: GPSDMessage.TPV] = [:]
        var classes = Set<String>()
        for line in result.stdout.split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
            let message = try GPSDMessage(json: String(line))
            switch message {
            case .tpv(let t): classes.insert("TPV"); if let time = t.time { lastTPV[time] = t }
            case .version: classes.insert("VERSION")
            case .devices: classes.insert("DEVICES")
            case .watch: classes.insert("WATCH")
            default: break
            }
        }
        #expect(classes.isSuperset(of: ["VERSION", "DEVICES", "WATCH", "TPV"]), "gpsd output: \(result.stdout.prefix(500)) \(result.stderr.prefix(500))")
        // gpsd needs a cycle or two to detect the device and learn the cycle's last sentence.
        var compared = 0
        for l in locations.dropFirst(3) {
            guard let tpv = lastTPV[ISO8601Time.string(from: l.timestamp, fractionDigits: 3)], let g = tpv.location else { continue }
            compared += 1
            #expect(abs(g.coordinate.latitude - l.coordinate.latitude) < 1e-7)                           // degrees
            #expect(abs(g.coordinate.longitude - l.coordinate.longitude) < 1e-7)                         // degrees
            #expect(abs((g.altitude?.meters ?? 0) - (l.altitude?.meters ?? 0)) < 0.01)                   // metres
            #expect(abs((g.ellipsoidalAltitude?.meters ?? 0) - (l.ellipsoidalAltitude?.meters ?? 0)) < 0.01) // metres
            #expect(abs((g.speed?.metersPerSecond ?? 0) - 2.5) < 0.01)                                   // m/s
            #expect(abs((g.course?.degrees ?? 0) - 296.5) < 0.01)                                        // degrees
            // HDOP/VDOP are written with 2 decimals: 0.005 × 19 / 2.4477 = 0.04 m, 0.005 × 23 / 1.96 = 0.06 m.
            #expect(abs((g.horizontalAccuracy?.meters ?? 0) - 3.5) < 0.04)                              // metres
            #expect(abs((g.verticalAccuracy?.meters ?? 0) - 6) < 0.06)                                  // metres
        }
        #expect(compared >= 4, "gpsd reported \(lastTPV.count) timed epochs")
    }
}
