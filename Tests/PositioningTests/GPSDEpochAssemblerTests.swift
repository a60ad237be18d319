import Foundation
import Testing
import GeoCore
import GeoTestSupport
import NMEACodec
@testable import Positioning

/// Every capture whose gpsd regression output has fixes.
private let capturesWithFixes = [
    "april6_2019.log", "beidou-gb.log", "bu353-glonass.log", "firefly-II.log", "garmin15x.log", "hemi.log",
    "humminbird-M37.log", "nmea-fuzzy-cases.log", "nmea-rtk.log", "quectel-eg25-g.log", "triton400.log",
    "ublox-zed-f9p-nmea.log",
]

// gpsd's own report stream (its .chk regression output) through the assembler: one fix per
// epoch, equal to gpsd's last TPV of that epoch, with that TPV's position and accuracy.
@Test(arguments: capturesWithFixes) func epochAssembler_deliversGpsdsLastTPVOfEachEpoch(_ name: String) throws {
    guard let chk = try Fixtures.url("nmea/\(name).chk") else { return }
    let lines = try String(contentsOf: chk, encoding: .utf8).split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{") }
    var expected: [GPSDMessage.TPV] = []
    var assembler = GPSDEpochAssembler()
    var fixes: [Location] = []
    for line in lines {
        let message = try GPSDMessage(json: String(line))
        if case .tpv(let t) = message, t.location != nil {
            if expected.last?.time == t.time { expected[expected.count - 1] = t } else { expected.append(t) }
        }
        for case .location(let fix) in assembler.add(message) { fixes.append(fix) }
    }
    if case .location(let fix)? = assembler.finish() { fixes.append(fix) }
    try #require(fixes.count == expected.count, "\(fixes.count) fixes for gpsd's \(expected.count) epochs")
    for (fix, tpv) in zip(fixes, expected) {
        let final = try #require(tpv.location)
        #expect(fix.timestamp == final.timestamp)
        #expect(fix.coordinate == final.coordinate)
        // metres; both nil when gpsd never estimated the error
        #expect(fix.horizontalAccuracy?.meters == final.horizontalAccuracy?.meters, "at \(tpv.time ?? "?")")
        #expect(fix.verticalAccuracy?.meters == final.verticalAccuracy?.meters, "at \(tpv.time ?? "?")")
        #expect(fix.altitude?.meters == final.altitude?.meters, "at \(tpv.time ?? "?")")
    }
}

@Test func epochAssembler_mergesAGSTIntoAnEpochWithoutErrors_andIgnoresLateReports() throws {
    var assembler = GPSDEpochAssembler()
    let tpv = #"{"class":"TPV","mode":3,"time":"2019-04-12T00:39:56.000Z","lat":-45.8775,"lon":170.5001,"altMSL":14.2}"#
    let gst = #"{"class":"GST","time":"2019-04-12T00:39:56.000Z","rms":1.2,"lat":2.3,"lon":3.5,"alt":4.0}"#
    let next = #"{"class":"TPV","mode":3,"time":"2019-04-12T00:39:57.000Z","lat":-45.8776,"lon":170.5002}"#
    let late = #"{"class":"TPV","mode":3,"time":"2019-04-12T00:39:56.000Z","lat":-45.0,"lon":170.0,"eph":1}"#
    #expect(assembler.add(try GPSDMessage(json: tpv)).isEmpty)
    #expect(assembler.add(try GPSDMessage(json: gst)).isEmpty)
    let done = assembler.add(try GPSDMessage(json: next))
    guard case .location(let fix)? = done.first, done.count == 1 else {
        Issue.record("expected the first epoch, got \(done)")
        return
    }
    // GST's one-sigma errors per axis: √((2.3² + 3.5²) / 2) m horizontally, 4.0 m vertically.
    #expect(abs((fix.horizontalAccuracy?.meters ?? 0) - ((2.3 * 2.3 + 3.5 * 3.5) / 2).squareRoot()) < 1e-12)
    #expect(fix.verticalAccuracy?.meters == 4.0)
    // A straggler of the finished epoch neither reopens it nor ends the pending one.
    #expect(assembler.add(try GPSDMessage(json: late)).isEmpty)
    #expect(assembler.isPending)
    let lost = assembler.add(try GPSDMessage(json: #"{"class":"TPV","mode":1}"#))
    #expect(lost.count == 2 && lost.last == .lost, "the pending epoch, then the loss: \(lost)")
}
