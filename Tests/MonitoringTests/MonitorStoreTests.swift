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
