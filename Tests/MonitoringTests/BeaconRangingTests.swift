import Foundation
import Synchronization
import Testing
import GeoBase
import GeoCore
import BeaconScanning
import Monitoring

private let start = Date(timeIntervalSince1970: 1_784_008_800)
private let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

/// Sightings of one iBeacon (power −59 dBm at 1 m) at `distance` metres for `seconds` at 10 Hz,
/// the RSSI from the log-distance model with exponent 2 plus Gaussian noise of 4 dB.
private func sightings(minor: UInt16, distance: Double, seconds: Int, rng: inout SplitMix64) -> [BeaconSighting] {
    (0..<(seconds * 10)).map { k in
        let rssi = -59 - 20 * log10(distance) + 4 * rng.gaussian()
        return BeaconSighting(timestamp: start.addingTimeInterval(Double(k) / 10), address: "C4:7C:8D:6A:3E:\(minor)",
                              rssi: Int(rssi.rounded()), advertisement: .iBeacon(uuid: uuid, major: 1, minor: minor, measuredPower: -59))
    }
}

@Test func ranging_estimatesDistanceAndProximity_nearestFirst() throws {
    var rng = SplitMix64(seed: 7)
    var ranger = try BeaconRanger()
    let all = [(1, 0.3), (2, 2.0), (3, 8.0)].flatMap { sightings(minor: UInt16($0.0), distance: $0.1, seconds: 20, rng: &rng) }
    for s in all.sorted(by: { $0.timestamp < $1.timestamp }) { ranger.record(s) }
    let ranged = ranger.beacons(at: start.addingTimeInterval(20))
    #expect(ranged.map(\.proximity) == [.immediate, .near, .far])
    for (beacon, truth) in zip(ranged, [0.3, 2.0, 8.0]) {
        let d = try #require(beacon.distance?.meters)
        // 100 sightings in the 10 s window: the mean RSSI is within ±1.2 dB (3σ), ±15 % in distance.
        #expect(abs(d / truth - 1) < 0.15, "\(beacon.identity): \(d) m vs \(truth) m")
    }
    #expect(ranged.first?.identity == .uuid(uuid, major: 1, minor: 1))
}

@Test func ranging_silentBeacon_becomesUnknownThenExpires() throws {
    var rng = SplitMix64(seed: 8)
    var ranger = try BeaconRanger()
    for s in sightings(minor: 1, distance: 1, seconds: 5, rng: &rng) { ranger.record(s) }
    let heard = ranger.beacons(at: start.addingTimeInterval(5))
    #expect(heard.count == 1 && heard.first?.proximity == .near)
    let silent = ranger.beacons(at: start.addingTimeInterval(20)) // 15 s after the last: outside the 10 s window
    #expect(silent.count == 1 && silent.first?.proximity == .unknown && silent.first?.rssi == nil && silent.first?.distance == nil)
    #expect(ranger.beacons(at: start.addingTimeInterval(40)).isEmpty, "forgotten 30 s after the last sighting")
}

@Test func ranging_outlierRSSI_isTrimmed_invalidRSSIIgnored() throws {
    var ranger = try BeaconRanger()
    let frame = BeaconAdvertisement.iBeacon(uuid: uuid, major: 1, minor: 1, measuredPower: -59)
    for k in 0..<21 { // −59 dBm (1 m), two reflections at −30 dBm (10 % of 20 trimmed), BlueZ's 127 "unknown"
        let rssi = k == 3 || k == 11 ? -30 : k == 7 ? 127 : -59
        ranger.record(BeaconSighting(timestamp: start.addingTimeInterval(Double(k) / 10), address: "A", rssi: rssi, advertisement: frame))
    }
    let beacon = try #require(ranger.beacons(at: start.addingTimeInterval(2)).first)
    #expect(beacon.rssi == -59 && abs((beacon.distance?.meters ?? 0) - 1) < 1e-9)
}

@Test func ranging_eddystoneTelemetryAndURL_joinTheBeaconAtTheSameAddress() throws {
    var ranger = try BeaconRanger()
    let tlm = try #require(try BeaconAdvertisement.frames(inAdvertisingData: [0x11, 0x16, 0xAA, 0xFE, 0x20, 0, 0x0B, 0xB8, 0x18, 0x80, 0, 0, 0x03, 0xE8, 0, 0, 0x27, 0x10]).first)
    let uid = BeaconAdvertisement.eddystoneUID(namespace: Array(repeating: 1, count: 10), instance: Array(repeating: 2, count: 6), txPowerAt0m: -18)
    ranger.record(BeaconSighting(timestamp: start, address: "E", rssi: -70, advertisement: uid))
    ranger.record(BeaconSighting(timestamp: start, address: "E", rssi: -70, advertisement: tlm))
    ranger.record(BeaconSighting(timestamp: start, address: "E", rssi: -70, advertisement: .eddystoneURL(url: "https://goo.gl/S6zT6P", txPowerAt0m: -18)))
    let beacon = try #require(ranger.beacons(at: start.addingTimeInterval(1)).first)
    #expect(beacon.telemetry?.batteryMillivolts == 3000 && beacon.url == "https://goo.gl/S6zT6P")
    // −18 dBm at 0 m is −59 dBm at 1 m; −70 dBm is 10^(11/20) ≈ 3.55 m.
    #expect(abs((beacon.distance?.meters ?? 0) - pow(10, 11.0 / 20)) < 1e-9 && beacon.proximity == .far)
}

@Test func ranging_configurationInvalid_throws() {
    for c in [BeaconRanger.Configuration(window: .zero), .init(expiry: .seconds(1)), .init(pathLossExponent: .nan),
              .init(immediateDistance: .meters(5))] {
        #expect(throws: GeoCoreError.self, "\(c)") { _ = try BeaconRanger(configuration: c) }
    }
    // Path-loss exponents 1 (a waveguide) through 6 (obstructed indoors), both ends included.
    for n in [1.0, 2, 6] { #expect(throws: Never.self, "\(n)") { _ = try BeaconRanger(configuration: .init(pathLossExponent: n)) } }
    for n in [0.99, 6.01, .infinity] {
        let error = #expect(throws: GeoCoreError.self, "\(n)") { _ = try BeaconRanger(configuration: .init(pathLossExponent: n)) }
        #expect(error?.message == "path-loss exponent must be 1…6, got \(n)")
    }
}

@Test func replay_parsesLinesAndNamesTheBadOne() throws {
    let good = """
        # a recorded scan
        {"time":"2026-07-14T06:00:00.250Z","address":"C4:7C:8D:6A:3E:01","rssi":-63,"data":"0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5"}

        {"time":"2026-07-14T06:00:01Z","address":"C4:7C:8D:6A:3E:02","rssi":-80,"data":"0201060409414243"}\r
        {"time":"2026-07-14T06:00:02Z","address":"C4:7C:8D:6A:3E:03","rssi":-70,"data":"1116aafe20000bb81880000003e800002710"}
        """
    let sightings = try BeaconReplayScanner.sightings(parsing: good)
    #expect(sightings.count == 2, "the named device without a beacon frame yields nothing")
    #expect(sightings.first?.timestamp == Date(timeIntervalSince1970: 1_784_008_800.25))
    #expect(sightings.first?.advertisement.identity == .uuid(uuid, major: 1, minor: 2))
    let bad: [(String, String)] = [
        ("{\"time\":\"x\",\"address\":\"A\",\"rssi\":-1,\"data\":\"\"}", "time"),
        ("{\"time\":\"2026-07-14T06:00:00Z\",\"address\":\"A\",\"rssi\":-1,\"data\":\"0g\"}", "data"),
        ("{\"time\":\"2026-07-14T06:00:00Z\",\"address\":\"A\",\"rssi\":-1}", "expected"),
        ("{\"time\":\"2026-07-14T06:00:00Z\",\"address\":\"A\",\"rssi\":-1,\"data\":\"1aff4c00\"}", "AD structure"),
    ]
    for (line, expected) in bad {
        do {
            _ = try BeaconReplayScanner.sightings(parsing: "# header\n" + line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.location == "line 2" && error.message.hasPrefix(expected), "\(error)")
        }
    }
}

@Test func replay_longGap_isReportedAtItsStartAndEnd_aShortOneIntervalByInterval() throws {
    let frame = BeaconAdvertisement.iBeacon(uuid: uuid, major: 1, minor: 1, measuredPower: -59)
    func sighting(_ seconds: Double) -> BeaconSighting {
        BeaconSighting(timestamp: start.addingTimeInterval(seconds), address: "A", rssi: -59, advertisement: frame)
    }
    // Heard at 0 s and 5 s (a gap shorter than the 10 s window), then a century later.
    let century = 100 * 365.25 * 86_400.0
    var ranger = try BeaconRanger()
    var reports: [(seconds: Double, count: Int)] = []
    ranger.replay([sighting(0), sighting(5), sighting(century)], interval: .seconds(1)) { time, beacons in
        reports.append((time.timeIntervalSince(start), beacons.count))
    }
    // 1…35 s each second (listed until the 30 s expiry after 5 s, empty at 36 s: the gap's
    // start), the last second before the sighting (the gap's end), then each second after it
    // until the first empty report, 31 s after the last advertisement (expiry + 1 interval).
    #expect(reports.map(\.seconds) == (1...36).map(Double.init) + (0...31).map { century + Double($0) })
    #expect(reports.map(\.count) == Array(repeating: 1, count: 35) + [0, 0] + Array(repeating: 1, count: 30) + [0])
}

/// A scanner that hears nothing and stays open until cancelled, as a live scan in a quiet
/// room does; or, with `failure`, fails at once.
private struct QuietScanner: BeaconScanner {
    var failure: MonitoringError?
    var name: String { "quiet" }
    func sightings() -> AsyncThrowingStream<BeaconSighting, any Error> {
        AsyncThrowingStream { output in
            if let failure { output.finish(throwing: failure) }
        }
    }
}

/// Live ranging (`geo beacons --source bluez:`): exactly `reports` reports, each listing the
/// beacon recorded before, then nil; a scan that fails returns its error and reports nothing.
/// The sighting is stamped an hour ahead: in a loaded parallel test run the 20 ms sleeps can
/// resume more than the 30 s expiry late (seen in CI), and the reports are about the count and
/// the beacon, not about expiry (`replay_…` covers that on a clock of its own).
@Test func liveRanging_reportsEveryInterval_orReturnsTheScanError() async throws {
    var ranger = try BeaconRanger()
    ranger.record(BeaconSighting(timestamp: Date().addingTimeInterval(3_600), address: "C4:7C:8D:6A:3E:01", rssi: -59,
                                 advertisement: .iBeacon(uuid: uuid, major: 1, minor: 1, measuredPower: -59)))
    let reports = Mutex<[[RangedBeacon]]>([])
    let ended = await ranger.range(QuietScanner(), every: .milliseconds(20), reports: 3) { _, beacons in
        reports.withLock { $0.append(beacons) }
    }
    #expect(ended == nil)
    #expect(reports.withLock { $0.map { $0.map(\.identity) } } == Array(repeating: [.uuid(uuid, major: 1, minor: 1)], count: 3))
    let denied = MonitoringError(.bluetoothDenied, "not allowed")
    let failed = await ranger.range(QuietScanner(failure: denied), every: .seconds(3_600), reports: 1) { _, _ in
        Issue.record("a failed scan reports nothing")
    }
    #expect((failed as? MonitoringError)?.code == .bluetoothDenied)
}
