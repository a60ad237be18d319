import Testing
import GeoCore
import TrackFiltering

@Test func averageSpeed_overTheWindowEndingAtTheNewestFix() throws {
    var window = AverageSpeedWindow(duration: .seconds(60))
    for t in 0..<100 { window.add(fix(Double(t), east: 0, north: 0, speed: t < 40 ? 30 : 10)) }
    // The 60 s window ending at t = 99 holds t = 39…99: one fix at 30 m/s, sixty at 10 m/s.
    let average = try #require(window.average)
    #expect(abs(average.metersPerSecond - (30 + 60 * 10) / 61) < 1e-9) // m/s
    #expect(window.count == 61)
}

@Test func averageSpeed_impliedByPositionsWithoutReportedSpeeds() throws {
    var window = AverageSpeedWindow(duration: .seconds(60))
    let first = window.add(fix(0, east: 0, north: 0, speed: nil))
    #expect(first == nil, "one fix implies no speed")
    // 20 m in 2 s, then 60 m in 3 s (a reported −1 means unknown, as in Core Location).
    window.add(fix(2, east: 0, north: 20, speed: nil))
    let added = window.add(fix(5, east: 0, north: 80, speed: -1))
    let average = try #require(added)
    #expect(abs(average.metersPerSecond - (10 + 20) / 2) < 0.2) // m/s; the test plane's scale is within 1 %
    #expect(window.count == 2)
}

@Test func averageSpeed_outOfOrderFixes_matchTheSimpleModel() throws {
    // Sweep: fixes mostly in order with steps back in time every few fixes, against the plain
    // model (append, drop what is older than the window behind the newest fix, average).
    for pattern in 1...40 {
        var window = AverageSpeedWindow(duration: .seconds(30))
        var held: [(t: Double, speed: Double)] = []
        var t = 0.0
        for i in 0..<400 {
            t += (i * pattern) % 7 == 0 ? -Double((i * 13 + pattern) % 20) : Double((i + pattern) % 3)
            let speed = Double((i * 37 + pattern * 11) % 1000) / 10
            held.append((t, speed))
            held.removeAll { $0.t < t - 30 }
            let added = window.add(fix(t, east: 0, north: 0, speed: speed))
            let got = try #require(added)
            let expected = held.map(\.speed).reduce(0, +) / Double(held.count)
            #expect(abs(got.metersPerSecond - expected) < 1e-9, "pattern \(pattern), fix \(i) at t = \(t) s") // m/s
            #expect(window.count == held.count)
        }
    }
}
