import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Testing
@testable import Monitoring

/// Copies of one `FenceEngine` as the tracking server keeps them (one per device over shared
/// fences): each decides as an engine built on its own would, and none changes another.
struct FenceEngineCopyTests {
    static let t0 = Date(timeIntervalSince1970: 1_784_000_000)
    static let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 48.5, longitude: 2.5))

    /// 3,000 fences in 3 km × 3 km: circles of 20–200 m and squares of 40–300 m, in random order.
    static func fences() throws -> [(String, MonitorCondition)] {
        var rng = SplitMix64(seed: 35)
        return try (0..<3000).map { i in
            let (e, n) = (rng.uniform(-1500, 1500), rng.uniform(-1500, 1500))
            if i % 2 == 0 {
                return ("c\(i)", .circle(try CircularGeographicCondition(center: frame.coordinate(east: e, north: n), radius: .meters(rng.uniform(20, 200)))))
            }
            let h = rng.uniform(20, 150)
            let ring = [(-h, -h), (h, -h), (h, h), (-h, h), (-h, -h)].map { frame.coordinate(east: e + $0.0, north: n + $0.1) }
            return ("s\(i)", .polygon(try PolygonRegion(polygons: [[ring]])))
        }
    }

    /// A device's walk: 600 fixes 5 s apart, 12 m steps in a random direction, 5 m accuracy.
    static func walk(seed: UInt64) -> [Location] {
        var rng = SplitMix64(seed: seed)
        var (e, n) = (rng.uniform(-1200, 1200), rng.uniform(-1200, 1200))
        return (0..<600).map { i in
            let a = rng.uniform(0, 2 * .pi)
            e += 12 * cos(a); n += 12 * sin(a)
            return Location(coordinate: frame.coordinate(east: e, north: n), timestamp: t0.addingTimeInterval(Double(i) * 5), horizontalAccuracy: .meters(5))
        }
    }

    static func engine(_ fences: [(String, MonitorCondition)]) throws -> FenceEngine {
        var engine = FenceEngine()
        for (id, condition) in fences { try engine.add(condition, identifier: id, assuming: .unsatisfied, dwell: .seconds(120), at: t0) }
        return engine
    }

    @Test func copiesOfOneEngine_decideAsEnginesOfTheirOwn_andLeaveTheTemplate() throws {
        let fences = try Self.fences()
        let template = try Self.engine(fences)
        let before = template.records
        var copies = [template, template, template]
        var events = 0
        for (k, track) in [Self.walk(seed: 1), Self.walk(seed: 2), Self.walk(seed: 3)].enumerated() {
            var own = try Self.engine(fences)
            for fix in track {
                let got = copies[k].process(fix), expected = own.process(fix)
                #expect(got == expected, "device \(k) at \(fix.timestamp): \(got) ≠ \(expected)")
                events += expected.count
            }
            #expect(copies[k].records == own.records, "device \(k): final records differ")
        }
        #expect(events > 20, "only \(events) events: the walks say little")
        #expect(template.records == before, "the template changed")
        #expect(copies[0].records != copies[1].records, "two walks ended with one state")
    }

    /// `restore` of a monitored fence on a copy changes that copy's record alone; the restored
    /// state decides (an exit follows from inside) as on an engine built with it.
    @Test func restoreOnACopy_changesThatCopyAlone() throws {
        let fences = try Self.fences()
        let template = try Self.engine(fences)
        var copy = template
        let (id, condition) = fences[0]
        let since = Self.t0.addingTimeInterval(10)
        let inside = MonitorRecord(condition: condition, lastEvent: MonitorEvent(identifier: id, date: since, state: .satisfied), satisfiedSince: since, dwell: .seconds(120))
        try copy.restore(inside)
        #expect(copy.record(for: id) == inside)
        #expect(template.record(for: id)?.state == .unsatisfied)
        var own = FenceEngine()
        for (other, c) in fences where other != id { try own.add(c, identifier: other, assuming: .unsatisfied, dwell: .seconds(120), at: Self.t0) }
        try own.restore(inside)
        // Far outside every fence, decisively: 25 s apart confirms the exit.
        let far = Self.frame.coordinate(east: 40_000, north: 40_000)
        for s in [100.0, 125] {
            let fix = Location(coordinate: far, timestamp: Self.t0.addingTimeInterval(s), horizontalAccuracy: .meters(5))
            #expect(copy.process(fix) == own.process(fix))
        }
        #expect(copy.record(for: id)?.state == .unsatisfied)
        #expect(copy.record(for: id) == own.record(for: id))
    }

    /// An engine whose fences all start unknown decides every one on its first fix (more than a
    /// quarter of them: the overlay folds into the shared arrays), and its records are those
    /// the decisions say.
    @Test func manyDecisionsAtOnce_foldAndKeepEveryRecord() throws {
        let fences = try Self.fences()
        var engine = FenceEngine()
        for (id, condition) in fences { try engine.add(condition, identifier: id, at: Self.t0) }
        let far = Self.frame.coordinate(east: 40_000, north: 40_000)
        var decided = Set<String>()
        for s in [10.0, 35] {
            let events = engine.process(Location(coordinate: far, timestamp: Self.t0.addingTimeInterval(s), horizontalAccuracy: .meters(5)))
            for e in events { #expect(e.state == .unsatisfied); decided.insert(e.identifier) }
        }
        #expect(decided.count == fences.count)
        #expect(engine.records.values.allSatisfy { $0.state == .unsatisfied })
    }
}
