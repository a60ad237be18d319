import Foundation
import GeoCore
import GeoTestSupport
import Testing
@testable import Monitoring

private let t0 = Date(timeIntervalSince1970: 1_784_000_000)
private let home = try! CircularGeographicCondition(center: Coordinate(uncheckedLatitude: 48.85, longitude: 2.35), radius: .meters(100))

private func fix(at seconds: Double, inside: Bool) -> Location {
    Location(coordinate: Coordinate(uncheckedLatitude: inside ? 48.85 : 48.86, longitude: 2.35),
             timestamp: t0.addingTimeInterval(seconds), horizontalAccuracy: .meters(10))
}

@Test func monitor_reopenedByName_rejoinsConditionsAndStates() async throws {
    try await withTemporaryDirectory { dir in
        let store = dir.appendingPathComponent("deep/er") // created on open
        do {
            let monitor = try RegionMonitor(named: "trips", directory: store, now: { t0 })
            try await monitor.add(.circle(home), identifier: "home")
            try await monitor.add(.circle(home), identifier: "spare", assuming: .satisfied)
            for i in 0...25 { try await monitor.process(fix(at: Double(i), inside: true)) }
            #expect(await monitor.record(for: "home")?.state == .satisfied)
            try await monitor.remove("spare")
        }
        let again = try RegionMonitor(named: "trips", directory: store, now: { t0 })
        #expect(again.recoveryProblems.isEmpty)
        #expect(await again.identifiers == ["home"])
        let record = try #require(await again.record(for: "home"))
        #expect(record.state == .satisfied)
        #expect(record.lastEvent.date == t0.addingTimeInterval(20))
        // Another name is another store.
        #expect(await (try RegionMonitor(named: "other", directory: store)).identifiers.isEmpty)
    }
}

@Test func monitor_events_carryStateChangesAndRemovals() async throws {
    let monitor = try RegionMonitor(named: "memory", directory: nil, now: { t0 })
    let events = monitor.events
    try await monitor.add(.circle(home), identifier: "home")
    for i in 0...25 { try await monitor.process(fix(at: Double(i), inside: true)) }
    try await monitor.remove("home")
    var seen: [ConditionState] = []
    for await e in events {
        seen.append(e.state)
        if e.state == .unmonitored { break }
    }
    #expect(seen == [.satisfied, .unmonitored])
    await #expect(throws: MonitoringError.self) { try await monitor.remove("home") }
}

@Test func corruptedStore_keepsValidLines_andReportsTheRest() async throws {
    try await withTemporaryDirectory { dir in
        do {
            let monitor = try RegionMonitor(named: "m", directory: dir, now: { t0 })
            for name in ["a", "b", "c"] { try await monitor.add(.circle(home), identifier: name) }
        }
        let path = dir.appendingPathComponent("m.monitor").path
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        lines[1] = String(lines[1].prefix(lines[1].count / 2))                     // torn
        lines.append(lines[0])                                                   // repeated
        lines.append(#"{"condition":{"type":"circle","latitude":1,"longitude":1,"radius":0}}"#) // invalid radius
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        let monitor = try RegionMonitor(named: "m", directory: dir)
        #expect(await monitor.identifiers == ["a", "c"])
        #expect(monitor.recoveryProblems.map(\.location) == ["\(path):2", "\(path):4", "\(path):5"])
        #expect(monitor.recoveryProblems.allSatisfy { $0.code == .corruptedStore })
    }
}

@Test func storeNames_areChecked() throws {
    try withTemporaryDirectory { dir in
        for name in ["", ".hidden", "a/b"] {
            #expect(throws: MonitoringError.self) { try MonitorStore(name: name, directory: dir) }
        }
    }
}

/// `monitorExactly` (what `geo monitor` does at start): a region gone from the list is removed,
/// one unchanged keeps its decided state, one whose dwell changed starts undecided, a new one
/// is added undecided.
@Test func monitorExactly_keepsUnchangedRegions_andResetsChangedOnes() async throws {
    let monitor = try RegionMonitor(named: "memory", directory: nil, now: { t0 })
    try await monitor.add(.circle(home), identifier: "home", dwell: .seconds(60))
    try await monitor.add(.circle(home), identifier: "work", dwell: .seconds(60))
    try await monitor.add(.circle(home), identifier: "gone")
    for i in 0...25 { try await monitor.process(fix(at: Double(i), inside: true)) }
    #expect(await monitor.record(for: "home")?.state == .satisfied)
    let states = try await monitor.monitorExactly([("home", .circle(home)), ("work", .circle(home)), ("new", .circle(home))],
                                                  dwell: .seconds(60))
    #expect(states == ["home": .satisfied, "work": .satisfied, "new": .unknown])
    #expect(await monitor.identifiers == ["home", "new", "work"])
    let changed = try await monitor.monitorExactly([("home", .circle(home))], dwell: .seconds(120))
    #expect(changed == ["home": .unknown])
    #expect(await monitor.identifiers == ["home"])
}

/// `geo monitor`'s lines (CLI contract): the first decision is "determined", later ones
/// "enter" / "exit", a crossing between sparse fixes is flagged "inferred", the probability has
/// four decimals, and undecided states print nothing.
@Test func monitorEvent_jsonLine_followsTheCLIContract() {
    let entered = MonitorEvent(identifier: "home", date: t0, state: .satisfied, probability: 0.99)
    #expect(entered.jsonLine(previous: .unknown)
            == #"{"time":"2026-07-14T03:33:20.000Z","region":"home","event":"determined","state":"inside","probability":0.9900}"#)
    #expect(entered.jsonLine(previous: .unsatisfied)?.contains(#""event":"enter""#) == true)
    let crossed = MonitorEvent(identifier: "home", date: t0, state: .unsatisfied, refinement: .inferredCrossing)
    #expect(crossed.jsonLine(previous: .satisfied)
            == #"{"time":"2026-07-14T03:33:20.000Z","region":"home","event":"exit","state":"outside","inferred":true}"#)
    #expect(MonitorEvent(identifier: "home", date: t0, state: .unknown).jsonLine(previous: .unknown) == nil)
}
