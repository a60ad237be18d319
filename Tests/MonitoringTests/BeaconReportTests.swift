import Foundation
import Testing
import GeoBase
import BeaconScanning

/// Parses hexadecimal advertising data into its beacon frames.
private func frames(_ hex: String) throws -> [BeaconAdvertisement] {
    let bytes = stride(from: 0, to: hex.count, by: 2).map { i in
        UInt8(hex.dropFirst(i).prefix(2), radix: 16) ?? 0
    }
    return try BeaconAdvertisement.frames(inAdvertisingData: bytes)
}

/// The ranging report `geo beacons` prints: an iBeacon at its measured power (1 m, near) and an
/// Eddystone-UID beacon with its URL and telemetry, heard 2 s long.
@Test func report_listsEachBeaconWithItsIdentityRangeAndEddystoneFrames() throws {
    let start = Date(timeIntervalSince1970: 1_784_008_800) // 2026-07-14T06:00:00Z
    var ranger = try BeaconRanger()
    let iBeacon = try frames("0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5")
    let eddystone = try frames("0303aafe1716aafe00ee8b0ca750095477cb3e770000000000010000")
        + frames("0303aafe1316aafe101203676f6f2e676c2f53367a543650") + frames("1116aafe20000bb81880000003e800002710")
    for k in 0..<20 {
        let t = start.addingTimeInterval(Double(k) / 10)
        for a in iBeacon { ranger.record(BeaconSighting(timestamp: t, address: "C4:7C:8D:6A:3E:01", rssi: -59, advertisement: a)) }
        for a in eddystone { ranger.record(BeaconSighting(timestamp: t, address: "DD:00:00:00:00:01", rssi: -70, advertisement: a)) }
    }
    let json = RangedBeacon.report(ranger.beacons(at: start.addingTimeInterval(2)), at: start.addingTimeInterval(2))
    let o = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(o["time"] as? String == "2026-07-14T06:00:02Z")
    let beacons = try #require(o["beacons"] as? [[String: Any]])
    try #require(beacons.count == 2)
    #expect(beacons[0]["uuid"] as? String == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0" && beacons[0]["major"] as? Int == 1 && beacons[0]["minor"] as? Int == 2)
    // At its measured power −59 dBm the iBeacon is 1 m away (distance printed to 0.01 m).
    #expect(beacons[0]["rssi"] as? Double == -59 && beacons[0]["distance"] as? Double == 1 && beacons[0]["proximity"] as? String == "near")
    #expect(beacons[1]["namespace"] as? String == "8b0ca750095477cb3e77" && beacons[1]["instance"] as? String == "000000000001")
    #expect(beacons[1]["url"] as? String == "https://goo.gl/S6zT6P")
    let telemetry = try #require(beacons[1]["telemetry"] as? [String: Any])
    #expect(telemetry["batteryMillivolts"] as? Int == 3000 && telemetry["temperature"] as? Double == 24.5)
    #expect(telemetry["advertisementCount"] as? Int == 1000 && telemetry["uptime"] as? Double == 1000)
    #expect(json.hasPrefix(#"{"time":"2026-07-14T06:00:02Z","beacons":[{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"#))
    #expect(RangedBeacon.report([], at: start) == #"{"time":"2026-07-14T06:00:00Z","beacons":[]}"#)
}
