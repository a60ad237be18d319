import Foundation
import Testing
import GeoCore
import GeoTestSupport
import NMEACodec

/// `$body*hh\r\n` with the right checksum.
func sentence(_ body: String) -> String {
    let sum = NMEAScanner.checksum(of: Array(body.utf8))
    return "$\(body)*\(hex(sum))\r\n"
}

@Test func decode_everyLogInAnyChunking_sameFixes() throws {
    guard let logs = try Fixtures.files(in: "nmea", withExtension: "log") else { return }
    for log in logs {
        let bytes = try [UInt8](Data(contentsOf: log))
        let whole = NMEADecoder.decode(bytes)
        for chunk in [1, 3, 64] {
            var decoder = NMEADecoder()
            var fixes: [NMEAFix] = []
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + chunk)
                bytes[i..<end].withUnsafeBytes { p in decoder.decode(p) { fixes.append($0) } }
                i = end
            }
            decoder.finish { fixes.append($0) }
            #expect(fixes == whole, "\(log.lastPathComponent) in \(chunk)-byte chunks")
        }
    }
}

@Test func decode_midnightWithoutRMC_advancesDate() {
    let text = sentence("GPRMC,235959.00,A,4807.038,N,01131.000,E,0.0,,311220,,,A")
        + sentence("GPGGA,235959.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        + sentence("GPGGA,000000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    let fixes = NMEADecoder.decode(Array(text.utf8))
    #expect(fixes.map(\.isoTime) == ["2020-12-31T23:59:59.000Z", "2021-01-01T00:00:00.000Z"])
}

@Test func decode_weekRollover_movesOldDatesBy1024Weeks() {
    let text = sentence("GPRMC,000231.42,A,4829.0005,N,00022.0016,E,0.16,212.28,220899,,,A")
    #expect(NMEADecoder.decode(Array(text.utf8)).first?.isoTime == "2019-04-07T00:02:31.420Z")
    let off = NMEADecoder.decode(Array(text.utf8), options: .init(weekRolloverPivot: nil))
    #expect(off.first?.isoTime == "1999-08-22T00:02:31.420Z")
}

@Test func decode_gsaSeries_marksUsedSatellitesPerSystem() {
    let text = sentence("GNRMC,003956.00,A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V")
        + sentence("GNGGA,003956.00,4552.65403,S,17030.00668,E,1,05,0.64,14.2,M,1.8,M,,")
        + sentence("GNGSA,A,3,13,16,21,,,,,,,,,,1.05,0.64,0.83,1")
        + sentence("GNGSA,A,3,82,66,,,,,,,,,,,1.05,0.64,0.83,2")
        + sentence("GPGSV,1,1,02,13,37,124,29,05,06,110,19,1")
        + sentence("GLGSV,1,1,02,82,13,214,33,87,14,030,17,1")
        + sentence("GNGGA,003957.00,4552.65403,S,17030.00668,E,1,05,0.64,14.2,M,1.8,M,,")
    let fixes = NMEADecoder.decode(Array(text.utf8))
    #expect(fixes.count == 2)
    let sky = fixes[0].sky
    #expect(sky.satellitesUsed == 5)
    #expect(sky.satellites.map(\.id) == [13, 5, 82, 87])
    #expect(sky.satellites.map(\.used) == [true, false, true, false])
    #expect(sky.satellites.map(\.system) == [.gps, .gps, .glonass, .glonass])
    #expect(sky.satellites.first?.signalID == 1)
    #expect(sky.hdop == 0.64 && sky.pdop == 1.05 && sky.vdop == 0.83)
}

@Test func decode_gst_givesLocationAccuracyElseDOP() throws {
    let base = sentence("GNRMC,003956.00,A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V")
        + sentence("GNGGA,003956.00,4552.65403,S,17030.00668,E,1,12,0.64,14.2,M,1.8,M,,")
        + sentence("GNGSA,A,3,13,16,21,15,10,29,27,20,,,,,1.05,0.64,0.83,1")
    let withGST = base + sentence("GNGST,003956.00,235111,,,,2.3,3.5,4.0")
    let a = try #require(NMEADecoder.decode(Array(withGST.utf8)).first?.location)
    #expect(abs((a.horizontalAccuracy?.meters ?? 0) - ((2.3 * 2.3 + 3.5 * 3.5) / 2).squareRoot()) < 1e-12) // metres
    #expect(abs((a.verticalAccuracy?.meters ?? 0) - 4.0) < 1e-12)                                      // metres
    let b = try #require(NMEADecoder.decode(Array(base.utf8)).first?.location)
    #expect(abs((b.horizontalAccuracy?.meters ?? 0) - 0.64 * 19 / 2.447746830680816) < 1e-9)   // metres
    #expect(abs((b.verticalAccuracy?.meters ?? 0) - 0.83 * 23 / 1.96) < 1e-9)                  // metres
    #expect(b.satelliteCount == 12)
    #expect(b.fixMode == .threeDimensional)
}

@Test func decode_climb_fromConsecutive3DEpochs() {
    let text = sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,,010120,,,A")
        + sentence("GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,100.0,M,46.9,M,,")
        + sentence("GPGGA,120002.00,4807.038,N,01131.000,E,1,08,0.9,103.0,M,46.9,M,,")
    let fixes = NMEADecoder.decode(Array(text.utf8))
    #expect(fixes.count == 2)
    #expect(fixes[0].climb == nil)
    #expect(abs((fixes[1].climb ?? 0) - 1.5) < 1e-12) // m/s
}

@Test func decode_corruptedSentence_costsOnlyThatSentence() {
    let good = sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,,010120,,,A")
        + sentence("GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,100.0,M,46.9,M,,")
    var corrupted = Array(good.utf8)
    corrupted[20] ^= 0x01 // inside the RMC: its checksum now fails
    let fixes = NMEADecoder.decode(corrupted)
    #expect(fixes.count == 1)
    #expect(fixes.first?.altitudeMSL == 100.0)
    #expect(fixes.first?.isoTime == nil) // the date came only from the RMC
}

@Test func decode_emptyInvalidRMC_forgetsTheDate() {
    let text = sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,,010120,,,A")
        + sentence("GPGGA,120001.00,4807.038,N,01131.000,E,1,08,0.9,100.0,M,46.9,M,,")
        + sentence("GPRMC,,V,,,,,,,,,,N")
        + sentence("GPGGA,120002.00,4807.038,N,01131.000,E,1,08,0.9,100.0,M,46.9,M,,")
    let fixes = NMEADecoder.decode(Array(text.utf8))
    #expect(fixes.map(\.isoTime) == ["2020-01-01T12:00:00.000Z", nil, nil])
    #expect(fixes.last?.timeOfDay == NMEATimeOfDay(hour: 12, minute: 0, second: 2))
}
