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
