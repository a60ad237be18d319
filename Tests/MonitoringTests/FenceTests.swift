import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Testing
@testable import Monitoring

private let t0 = Date(timeIntervalSince1970: 1_784_000_000)
private let centre = try! Coordinate(latitude: 35.6812, longitude: 139.7671)
private let frame = LocalFrame(origin: centre)

/// A 100 m fence as the monitoring check draws it: a 128-gon, counter-clockwise.
private func fence(radius: Double = 100, clockwise: Bool = false) throws -> MonitorCondition {
    var ring = (0..<128).map { k in
        frame.coordinate(east: radius * sin(2 * .pi * Double(k) / 128), north: radius * cos(2 * .pi * Double(k) / 128))
    }
    if clockwise { ring.reverse() }
    return .polygon(try PolygonRegion(polygons: [[ring + [ring[0]]]]))
}

private func fix(_ east: Double, _ north: Double, at seconds: Double, accuracy: Double = 15) -> Location {
    Location(coordinate: frame.coordinate(east: east, north: north), timestamp: t0.addingTimeInterval(seconds),
             horizontalAccuracy: .meters(accuracy))
}

/// A Gauss–Markov wander, per axis: correlation time 20 s, 9.9 m standard deviation (what a
/// phone with 15 m accuracy shows parked), sampled at 1 Hz.
private struct Wander {
    var rng: SplitMix64
    var east = 0.0, north = 0.0
    let a = exp(-1 / 20.0), sigma = 9.9
    init(seed: UInt64) { rng = SplitMix64(seed: seed) }
    mutating func next() -> (Double, Double) {
        let s = sigma * (1 - a * a).squareRoot()
        east = a * east + rng.gaussian() * s
        north = a * north + rng.gaussian() * s
        return (east, north)
    }
}

/// The parked device of the issue: an hour `margin` metres inside a 100 m fence, an hour
/// `margin` outside, 1 Hz, 15 m accuracy; returns the state changes in order.
private func parked(margin: Double, seed: UInt64) throws -> [ConditionState] {
    var engine = FenceEngine()
    try engine.add(try fence(), identifier: "fence", at: t0)
    var wander = Wander(seed: seed)
    var states: [ConditionState] = []
    for i in 0..<7200 {
        let (e, n) = wander.next()
        let distance = i < 3600 ? 100 - margin : 100 + margin
        states += engine.process(fix(distance + e, n, at: Double(i))).map(\.state)
    }
    return states
}

@Test(.onOwnThread, arguments: [1, 2, 3] as [UInt64])
func parked30m_entersOnceAndExitsOnce(seed: UInt64) throws {
    #expect(try parked(margin: 30, seed: seed) == [.satisfied, .unsatisfied])
}

@Test(.onOwnThread, arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
func parked10m_doesNotFlap(seed: UInt64) throws {
    let states = try parked(margin: 10, seed: seed)
    #expect(states.count <= 2, "\(states)")
    if states.count == 2 { #expect(states == [.satisfied, .unsatisfied]) }
}

/// A circle wide enough to reach 180° of longitude either way (10¹⁵ m, and 15,000 km around
/// Tokyo) holds fixes on the far side of the world: its bounds span every longitude, not the
/// one meridian opposite its centre.
@Test func worldWideCircle_holdsFixesAtAnyLongitude() throws {
    for radius in [1e15, 15_000_000] {
        var engine = FenceEngine()
        try engine.add(.circle(try CircularGeographicCondition(center: centre, radius: .meters(radius))), identifier: "world", at: t0)
        var states: [ConditionState] = []
        for i in 0..<40 {
            let far = Location(coordinate: try Coordinate(latitude: 48, longitude: 11), timestamp: t0.addingTimeInterval(Double(i)),
                               horizontalAccuracy: .meters(15))
            states += engine.process(far).map(\.state)
        }
        #expect(states == [.satisfied], "radius \(radius) m: \(states)")
    }
}

@Test func windingDoesNotMatter() throws {
    for clockwise in [false, true] {
        var engine = FenceEngine()
        try engine.add(try fence(clockwise: clockwise), identifier: "f", at: t0)
        var states: [ConditionState] = []
        for i in 0..<30 { states += engine.process(fix(0, 0, at: Double(i))).map(\.state) }
        #expect(states == [.satisfied], "clockwise \(clockwise)")
    }
}

@Test func decisiveRun_confirmsAfter20s_andTwoFixes() throws {
    var engine = FenceEngine()
    try engine.add(try fence(), identifier: "f", at: t0)
    var decided: Date?
    for i in 0...40 where decided == nil {
        decided = engine.process(fix(0, 0, at: Double(i))).first?.date
    }
    #expect(decided == t0.addingTimeInterval(20))
}

@Test func marginalRun_needs60s() throws {
    var engine = FenceEngine()
    try engine.add(try fence(), identifier: "f", at: t0)
    // 86 m from the centre, 14 m inside, accuracy 15 m: P = Φ(14 / 9.94) = 0.92, not decisive.
    var decided: Date?
    for i in 0...90 where decided == nil {
        decided = engine.process(fix(86, 0, at: Double(i))).first?.date
    }
    #expect(decided == t0.addingTimeInterval(60))
}

@Test func sparseDecisiveFix_decidesAlone() throws {
    var engine = FenceEngine()
    try engine.add(try fence(), identifier: "f", at: t0)
    #expect(engine.process(fix(500, 0, at: 0)).isEmpty) // the first fix: no gap to call sparse
    let events = engine.process(fix(0, 0, at: 60))
    #expect(events.map(\.state) == [.satisfied])
    #expect(events.first?.date == t0.addingTimeInterval(60))
}

@Test func outOfOrderFixes_areIgnored() throws {
    var engine = FenceEngine()
    try engine.add(try fence(), identifier: "f", at: t0)
    for i in 0...20 { _ = engine.process(fix(500, 0, at: Double(i))) }
    #expect(engine.record(for: "f")?.state == .unsatisfied)
    // Fixes from the past inside the fence change nothing.
    for i in 0...30 { #expect(engine.process(fix(0, 0, at: Double(i) * 0.5)).isEmpty) }
    #expect(engine.ignoredFixes == 31)
    #expect(engine.record(for: "f")?.state == .unsatisfied)
}

@Test func fixesWithoutUsableAccuracy_areIgnored() throws {
    var engine = FenceEngine()
    try engine.add(try fence(), identifier: "f", at: t0)
    for accuracy in [-1.0, .nan, .infinity, 20_000] { #expect(engine.process(fix(0, 0, at: 1, accuracy: accuracy)).isEmpty) }
    var noAccuracy = fix(0, 0, at: 2)
    noAccuracy.horizontalAccuracy = nil
    #expect(engine.process(noAccuracy).isEmpty)
    #expect(engine.ignoredFixes == 5)
}

@Test func sparseFixesAcrossASmallFence_inferAnEnterAndAnExit() throws {
    var engine = FenceEngine()
    try engine.add(.circle(try CircularGeographicCondition(center: centre, radius: .meters(50))), identifier: "small", at: t0)
    _ = engine.process(fix(-1_000, 0, at: 0, accuracy: 10))
    #expect(engine.process(fix(-900, 0, at: 60, accuracy: 10)).map(\.state) == [.unsatisfied])
    // 120 s later, 900 m east of the centre: the path ran straight through the fence.
    let events = engine.process(fix(900, 0, at: 180, accuracy: 10))
    #expect(events.map(\.state) == [.satisfied, .unsatisfied])
    #expect(events.allSatisfy { $0.refinement == .inferredCrossing })
    // Entered 850 m along an 1,800 m path at 120 s: 56.67 s after the second fix (±0.1 s).
    let enter = try #require(events.first).date.timeIntervalSince(t0)
    let exit = try #require(events.last).date.timeIntervalSince(t0)
    #expect(abs(enter - (60 + 120 * 850 / 1800)) < 0.1)
    #expect(abs(exit - (60 + 120 * 950 / 1800)) < 0.1)
    #expect(engine.record(for: "small")?.state == .unsatisfied)
    // A path that passes 100 m from the centre infers nothing.
    #expect(engine.process(fix(-900, 200, at: 300, accuracy: 10)).isEmpty)
}

@Test func dwell_comesOnceAfterItsDelay() throws {
    var engine = FenceEngine()
    try engine.add(try fence(), identifier: "f", dwell: .seconds(120), at: t0)
    var events: [MonitorEvent] = []
    for i in 0...300 { events += engine.process(fix(0, 0, at: Double(i))) }
    #expect(events.map(\.state) == [.satisfied, .satisfied])
    #expect(events.last?.refinement == .dwell)
    #expect(events.last?.date == t0.addingTimeInterval(20 + 120))
}

@Test func beaconConditions_matchWildcards_andExitAfterTheDelay() throws {
    let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
    var engine = FenceEngine()
    try engine.add(.beacon(try BeaconIdentityCondition(uuid: uuid, major: 7)), identifier: "shop", at: t0)
    #expect(engine.observe(beacons: [(uuid, 8, 1)], at: t0).isEmpty)
    let seen = engine.observe(beacons: [(uuid, 7, 42)], at: t0.addingTimeInterval(1))
    #expect(seen.map(\.state) == [.satisfied])
    #expect(seen.first?.refinement == .beacon(major: 7, minor: 42))
    #expect(engine.observe(beacons: [], at: t0.addingTimeInterval(30)).isEmpty)
    #expect(engine.observe(beacons: [], at: t0.addingTimeInterval(31)).map(\.state) == [.unsatisfied])
}

@Test(.onOwnThread) func manyConditions_onlyNearOnesDecideInside() throws {
    var engine = FenceEngine()
    var rng = SplitMix64(seed: 5)
    for k in 0..<2_000 {
        let c = frame.coordinate(east: rng.uniform(-20_000, 20_000), north: rng.uniform(-20_000, 20_000))
        try engine.add(.circle(try CircularGeographicCondition(center: c, radius: .meters(rng.uniform(50, 300)))), identifier: "c\(k)", at: t0)
    }
    try engine.add(.circle(try CircularGeographicCondition(center: centre, radius: .meters(100))), identifier: "here", at: t0)
    var inside: Set<String> = []
    for i in 0...30 { for e in engine.process(fix(0, 0, at: Double(i), accuracy: 5)) where e.state == .satisfied { inside.insert(e.identifier) } }
    // Surely inside: 20 m = 6 σ within the radius; possibly: within it at all.
    func within(_ margin: Double) -> Set<String> {
        Set(engine.records.filter { _, record in
            guard case .circle(let c) = record.condition else { return false }
            return LocalFrame.distance(c.center, centre) < c.radius.meters - margin
        }.keys)
    }
    #expect(within(20).isSubset(of: inside))
    #expect(inside.isSubset(of: within(0)))
    #expect(inside.contains("here"))
    #expect(engine.records.values.allSatisfy { $0.state != .unknown })
}
