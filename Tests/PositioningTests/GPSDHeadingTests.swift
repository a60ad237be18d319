import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Compass
import NMEACodec
@testable import Positioning
import GeoBase

// gpsd turns a receiver's HDT sentences into ATT reports (hemi.log, a Hemisphere receiver in
// gpsd's regression suite: its .chk holds gpsd's own ATT output); those reach the manager's
// heading once the app starts heading updates (`startUpdatingHeading`).

/// gpsd's ATT headings in hemi.log's regression output, each with the time of the TPV before it.
private func hemiATT() throws -> [(heading: Double, time: String)]? {
    guard let chk = try Fixtures.url("nmea/hemi.log.chk") else { return nil }
    var lastTime: String?
    var out: [(Double, String)] = []
    for line in try String(contentsOf: chk, encoding: .utf8).split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
        switch try GPSDMessage(json: String(line)) {
        case .tpv(let t): lastTime = t.time ?? lastTime
        case .att(let a): if let h = a.heading, let lastTime { out.append((h, lastTime)) }
        default: break
        }
    }
    return out
}

@Test func epochAssembler_deliversGpsdsATT_asHeadingsAtTheEpochsTime() throws {
    guard let chk = try Fixtures.url("nmea/hemi.log.chk"), let expected = try hemiATT() else { return }
    var assembler = GPSDEpochAssembler()
    var headings: [Heading] = []
    for line in try String(contentsOf: chk, encoding: .utf8).split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
        for case .heading(let h) in assembler.add(try GPSDMessage(json: String(line))) { headings.append(h) }
    }
    try #require(headings.count == expected.count && expected.count == 4, "\(headings)")
    for (h, e) in zip(headings, expected) {
        #expect(abs((h.trueHeading?.degrees ?? .nan) - e.heading) < 1e-9) // degrees
        #expect(h.timestamp == ISO8601Time.date(from: e.time))
        #expect(h.magneticHeading == nil && h.isReliable)
    }
}

/// Records the headings the manager delivers.
private final class HeadingRecorder: PositioningDelegate {
    let headings = Mutex<[Heading]>([])
    func positioningManager(_ manager: PositioningManager, didUpdateHeading heading: Heading) async {
        headings.withLock { $0.append(heading) }
    }
}

@Test(.onOwnThread) func manager_onGpsd_deliversATTHeadings_onceHeadingUpdatesStart() async throws {
    guard let log = try Fixtures.url("nmea/hemi.log"), let expected = try hemiATT() else { return }
    let delegate = HeadingRecorder()
    guard try await GPSFake.withReplay(log: log, repeating: true, { (gpsd: GPSFake) async throws -> Void in
        let manager = PositioningManager(source: GPSDSource(port: gpsd.port, reconnect: ReconnectPolicy(initialBackoff: .milliseconds(50))))
        await manager.setDelegate(delegate)
        await manager.startUpdatingHeading()
        try await manager.setHeadingFilter(.degrees(-1)) // kCLHeadingFilterNone: each of gpsd's ATT reports
        await manager.start()
        #expect(await eventually(within: .seconds(60)) { delegate.headings.withLock { $0.count >= 4 } })
        #expect(await manager.heading != nil)
        await manager.stop()
    }) != nil else { return }
    let times = Set(expected.compactMap { ISO8601Time.date(from: $0.time) })
    for h in delegate.headings.withLock({ $0 }) {
        let degrees = h.trueHeading?.degrees ?? .nan
        #expect(expected.contains { abs($0.heading - degrees) < 1e-9 }, "\(degrees)° is one of gpsd's ATT headings") // degrees
        #expect(times.contains(h.timestamp), "stamped with its epoch's time: \(h.timestamp)")
    }
}

// Issue 33, item 5: NMEA HDT read by `NMEASource` (no gpsd in between) reaches the manager as
// `.heading` too: hemi.log's headings, the same values and times as gpsd's ATT reports of it.
@Test func nmeaSource_deliversHDT_asHeadings_asGpsdDoes() async throws {
    guard let log = try Fixtures.url("nmea/hemi.log"), let expected = try hemiATT() else { return }
    var headings: [Heading] = []
    for try await batch in NMEASource(.file(log.path)).eventBatches() {
        for case .heading(let h) in batch { headings.append(h) }
    }
    #expect(headings.count >= expected.count)
    for e in expected {
        let time = try #require(ISO8601Time.date(from: e.time))
        let same = headings.first { $0.timestamp == time }
        #expect(same.map { abs(($0.trueHeading?.degrees ?? .nan) - e.heading) < 1e-9 } == true, "heading at \(e.time): \(String(describing: same))")
    }
    #expect(headings.allSatisfy { ($0.trueHeading?.degrees).map { $0 >= 0 && $0 < 360 } == true }, "degrees in [0, 360)")
}
