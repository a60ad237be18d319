import Foundation
import Testing
import NMEACodec
import GeoTestSupport

@Test func heading_hdtAndThs_parseWithTheirModes() throws {
    let hdt = try #require(try NMEAHeading(NMEASentence(parsing: "$GPHDT,274.07,T*03")))
    #expect(hdt.talker == .gps && hdt.degrees == 274.07 && hdt.mode == nil && hdt.isValid)
    let ths = try #require(try NMEAHeading(NMEASentence(parsing: "$GNTHS,77.52,A*2E")))
    #expect(ths.talker == .multiGNSS && ths.degrees == 77.52 && ths.mode == .autonomous && ths.isValid)
    let invalid = try #require(try NMEAHeading(NMEASentence(parsing: "$GNTHS,77.52,V*39")))
    #expect(invalid.mode == .notValid && !invalid.isValid)
}

@Test func heading_absentOrOtherSentences_areNil() throws {
    #expect(try NMEAHeading(NMEASentence(parsing: "$GPHDT,,T*1B")) == nil)        // hemi.log, no sensor
    #expect(try NMEAHeading(NMEASentence(parsing: "$GNTHS,,V*10")) == nil)
    #expect(try NMEAHeading(NMEASentence(parsing: "$GPGLL,4916.45,N,12311.12,W,225444,A*31")) == nil)
}

@Test func heading_malformed_throws() throws {
    for text in ["$GNTHS,abc,A*2F", "$GNTHS,77.5,X*36", "$GNTHS,400.0,A*1C", "$GPHDT,-1.0,T*05"] {
        let body = text.dropFirst().prefix { $0 != "*" }
        let sum = body.utf8.reduce(0) { $0 ^ $1 }
        let sentence = try NMEASentence(parsing: "$\(body)*\(String(format: "%02X", sum))")
        #expect(throws: NMEAError.self, "\(text)") { _ = try NMEAHeading(sentence) }
    }
}

@Test func heading_hemisphereLog_matchesGPSDsATTReports() throws {
    // gpsd's regression output for the same log (hemi.log.chk) has one ATT per HDT with a
    // heading, in order.
    guard let log = try Fixtures.url("nmea/hemi.log"), let chk = try Fixtures.url("nmea/hemi.log.chk") else { return }
    let ours = try String(decoding: Data(contentsOf: log), as: UTF8.self).split(whereSeparator: \.isNewline)
        .filter { $0.hasPrefix("$") && $0.contains("HDT") }
        .compactMap { try NMEAHeading(NMEASentence(parsing: String($0))) }
    let gpsd = try String(decoding: Data(contentsOf: chk), as: UTF8.self).split(whereSeparator: \.isNewline)
        .filter { $0.contains("\"class\":\"ATT\"") }
        .compactMap { line -> Double? in
            guard case .att(let att) = try GPSDMessage(json: String(line)) else { return nil }
            return att.heading
        }
    try #require(gpsd.count == 4)
    #expect(ours.map(\.degrees) == gpsd)
}

// Issue 33, item 5: the decoder takes THS as it takes HDT (mode V kept as `.notValid`), on both
// of its paths, and drops a heading outside 0…360° rather than wrapping it.

/// The fixes the decoder makes of `lines`, through bytes or through parsed sentences.
private func decoded(_ lines: [String], bytes: Bool) throws -> [NMEAFix] {
    var decoder = NMEADecoder()
    var fixes: [NMEAFix] = []
    if bytes {
        let data = Array(lines.joined().utf8)
        data.withUnsafeBytes { decoder.decode($0) { fixes.append($0) } }
    } else {
        for (i, line) in lines.enumerated() {
            decoder.consume(try NMEASentence(parsing: line.trimmingCharacters(in: .newlines)), line: i + 1) { fixes.append($0) }
        }
    }
    decoder.finish { fixes.append($0) }
    return fixes
}

@Test(arguments: [true, false])
func decoder_THS_joinsTheEpoch_modeVKept_outOfRangeDropped(bytes: Bool) throws {
    let gga = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n"
    let gga2 = "$GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4D\r\n"
    let gga3 = "$GPGGA,123521,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4C\r\n"
    let gga4 = "$GPGGA,123522,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4F\r\n"
    let fixes = try decoded([
        gga, try NMEAEncoder.heading(NMEAHeading(talker: .multiGNSS, degrees: 77.52, mode: .autonomous)),
        gga2, try NMEAEncoder.heading(NMEAHeading(talker: .multiGNSS, degrees: 77.52, mode: .notValid)),
        gga3, "$GPHDT,720.00,T*00\r\n",
        gga4, try NMEAEncoder.heading(NMEAHeading(talker: .gps, degrees: 274.07)),
    ], bytes: bytes)
    try #require(fixes.count == 4, "\(fixes)")
    #expect(fixes[0].heading == 77.52 && fixes[0].headingMode == .autonomous)
    #expect(fixes[1].heading == 77.52 && fixes[1].headingMode == .notValid)
    #expect(fixes[2].heading == nil, "720° is no heading, not 0°")
    #expect(fixes[3].heading == 274.07 && fixes[3].headingMode == nil)
}

@Test func encoder_heading_writesHDTorTHS_andRefusesOutOfRange() throws {
    #expect(try NMEAEncoder.heading(NMEAHeading(talker: .gps, degrees: 274.07)) == "$GPHDT,274.07,T*03\r\n")
    #expect(try NMEAEncoder.heading(NMEAHeading(talker: .multiGNSS, degrees: 77.52, mode: .autonomous)) == "$GNTHS,77.52,A*2E\r\n")
    #expect(throws: NMEAError.self) { try NMEAEncoder.heading(NMEAHeading(talker: .gps, degrees: .nan)) }
    #expect(throws: NMEAError.self) { try NMEAEncoder.heading(NMEAHeading(talker: .gps, degrees: 720)) }
}
