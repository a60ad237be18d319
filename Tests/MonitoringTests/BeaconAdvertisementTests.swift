import Foundation
import Testing
import GeoCore
import BeaconScanning
import Monitoring

/// Hexadecimal text to bytes, for frames written as the specifications lay them out.
private func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

// iBeacon (Apple Proximity Beacon Specification R1, "iBeacon Advertising Packet"): flags, then
// manufacturer data 4C 00 · 02 15 · UUID · major · minor · measured power. The UUID is Apple's
// AirLocate sample's; measured power 0xC5 = −59 dBm at 1 m.
private let iBeacon = "020106 1AFF4C000215 E2C56DB5DFFB48D2B060D0F5A71096E0 0001 0002 C5"
// AltBeacon (AltBeacon spec v1.0, "AltBeacon Protocol Fields"): 1B FF · MFG ID 0x0118 little
// endian · BE AC · 20-byte ID · reference RSSI · reserved.
private let altBeacon = "1BFF1801BEAC 2F234454CF6D4A0FADF2F4911BA9FFA6 0001 0002 C5 00"
// Eddystone-UID (eddystone-uid/README.md): service data length 0x17, 16 AA FE, frame 00, Tx
// power at 0 m 0xEE (the spec's example: −18 dBm), the spec's elided-UUID namespace
// 8b0ca750095477cb3e77, instance 000000000001, two RFU bytes.
private let eddystoneUID = "0303AAFE 1716AAFE00EE 8B0CA750095477CB3E77 000000000001 0000"
// Eddystone-URL (eddystone-url/README.md): frame 10, Tx power 0x12 (+18 dBm, the spec's
// example), scheme 03 "https://", "goo.gl/S6zT6P" (the spec's example URL).
private let eddystoneURL = "0303AAFE 1316AAFE1012 03 676F6F2E676C2F53367A543650"
// Eddystone-TLM (eddystone-tlm/tlm-plain.md): length 0x11, frame 20, version 00, 3000 mV,
// 24.5 °C as 8.8 fixed point (0x1880), 1000 frames, 10000 × 0.1 s.
private let eddystoneTLM = "1116AAFE2000 0BB8 1880 000003E8 00002710"

@Test func iBeacon_parsesUUIDMajorMinorAndPower() throws {
    let frames = try BeaconAdvertisement.frames(inAdvertisingData: bytes(iBeacon))
    try #require(frames.count == 1)
    let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
    #expect(frames[0] == .iBeacon(uuid: uuid, major: 1, minor: 2, measuredPower: -59))
    #expect(frames[0].identity == .uuid(uuid, major: 1, minor: 2))
    #expect(frames[0].powerAt1m == -59)
}

@Test func altBeacon_parsesItsTwentyByteIDAsUUIDMajorMinor() throws {
    let frames = try BeaconAdvertisement.frames(inAdvertisingData: bytes(altBeacon))
    try #require(frames.count == 1)
    guard case .altBeacon(let manufacturer, let id, let rssi, let reserved) = frames[0] else { Issue.record("\(frames)"); return }
    #expect(manufacturer == 0x0118 && id.count == 20 && rssi == -59 && reserved == 0)
    let uuid = try #require(UUID(uuidString: "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"))
    #expect(frames[0].identity == .uuid(uuid, major: 1, minor: 2))
}

@Test func eddystone_uidUrlAndTlm_parseAsTheSpecLaysThemOut() throws {
    let uid = try BeaconAdvertisement.frames(inAdvertisingData: bytes(eddystoneUID))
    #expect(uid == [.eddystoneUID(namespace: bytes("8B0CA750095477CB3E77"), instance: bytes("000000000001"), txPowerAt0m: -18)])
    #expect(uid.first?.powerAt1m == -59) // 0 m power less the spec's 41 dB
    let truncated = try BeaconAdvertisement.frames(inAdvertisingData: bytes("1516AAFE00EE 8B0CA750095477CB3E77 000000000001"))
    #expect(truncated == uid, "a UID frame without the RFU bytes (length 0x15) is accepted")

    let url = try BeaconAdvertisement.frames(inAdvertisingData: bytes(eddystoneURL))
    #expect(url == [.eddystoneURL(url: "https://goo.gl/S6zT6P", txPowerAt0m: 18)])
    let expanded = try BeaconAdvertisement.frames(inAdvertisingData: bytes("1016AAFE10EE 00 6578616D706C65 00 6162"))
    #expect(expanded == [.eddystoneURL(url: "http://www.example.com/ab", txPowerAt0m: -18)])

    let tlm = try BeaconAdvertisement.frames(inAdvertisingData: bytes(eddystoneTLM))
    guard case .eddystoneTLM(let t)? = tlm.first else { Issue.record("\(tlm)"); return }
    #expect(t.batteryMillivolts == 3000 && t.temperature == 24.5 && t.advertisementCount == 1000 && t.uptime == .seconds(1000))
    let unsupported = try BeaconAdvertisement.frames(inAdvertisingData: bytes("1116AAFE2000 0000 8000 00000001 00000001"))
    guard case .eddystoneTLM(let u)? = unsupported.first else { Issue.record("\(unsupported)"); return }
    #expect(u.batteryMillivolts == nil && u.temperature == nil, "0 mV and 0x8000 mean not supported")
    let negative = try BeaconAdvertisement.frames(inAdvertisingData: bytes("1116AAFE2000 0BB8 FF80 00000001 00000001"))
    guard case .eddystoneTLM(let n)? = negative.first else { return }
    #expect(n.temperature == -0.5)
}

@Test func advertisement_otherTrafficAndPadding_yieldNoFrames() throws {
    #expect(try BeaconAdvertisement.frames(inAdvertisingData: bytes("020106 0509414243 0000000000")).isEmpty) // flags, a name, padding
    #expect(try BeaconAdvertisement.frames(inAdvertisingData: bytes("07FF5900AABBCCDD")).isEmpty) // Nordic's company data
    #expect(try BeaconAdvertisement.frames(inAdvertisingData: bytes("0516AAFE3000")).isEmpty) // Eddystone-EID is not parsed
    #expect(try BeaconAdvertisement.frames(inAdvertisingData: []).isEmpty)
}

@Test func advertisement_malformed_namesTheProblem() {
    let cases: [(String, String)] = [
        ("020106 1AFF4C00", "byte 3"),                                       // a structure overruns the data
        ("19FF4C000215 E2C56DB5DFFB48D2B060D0F5A71096E0 0001 0002", "iBeacon"), // one byte short
        ("1AFF1801BEAC 2F234454CF6D4A0FADF2F4911BA9FFA6 0001 0002 C5", "AltBeacon"),
        ("0D16AAFE00EE 8B0CA750095477CB3E77", "Eddystone-UID"),
        ("0816AAFE10EE 03 61 20", "offset 4"),                               // a space is not allowed
        ("0616AAFE10EE 09 61", "scheme"),
        ("0D16AAFE2000 0BB8 1880 000003E8 0000", "Eddystone-TLM"),
    ]
    for (hex, expected) in cases {
        do {
            let frames = try BeaconAdvertisement.frames(inAdvertisingData: bytes(hex))
            Issue.record("accepted \(hex): \(frames)")
        } catch {
            #expect(error.code == .malformedAdvertisement)
            #expect(error.message.contains(expected), "\(error.message) should name \(expected)")
        }
    }
}
