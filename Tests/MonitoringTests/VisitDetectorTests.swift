import Foundation
import Testing
import GeoBase
import GeoCore
import Monitoring

/// A device in a local frame at Tokyo station, one fix per second from 2026-07-14T06:00Z, with
/// Gauss–Markov noise (20 s correlation, `sigma` m per axis): what a parked phone shows.
private struct Walk {
    let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671))
    var rng = SplitMix64(seed: 29)
    var time = 0.0
    var noise = (east: 0.0, north: 0.0)
    var fixes: [Location] = []
    let start = Date(timeIntervalSince1970: 1_784_008_800)

    mutating func fix(east: Double, north: Double, sigma: Double) {
        let a = exp(-1 / 20.0), s = sigma * (1 - a * a).squareRoot()
        noise = (a * noise.east + s * rng.gaussian(), a * noise.north + s * rng.gaussian())
        fixes.append(Location(coordinate: frame.coordinate(east: east + noise.east, north: north + noise.north),
                              timestamp: start.addingTimeInterval(time), horizontalAccuracy: .meters(10)))
        time += 1
    }

    mutating func stay(at p: (Double, Double), seconds: Int) {
        for _ in 0..<seconds { fix(east: p.0, north: p.1, sigma: 6) }
    }

    /// Moves at `speed` m/s (12: driving) from `a` to `b`, stopping `stop` seconds halfway (a
    /// red light).
    mutating func drive(from a: (Double, Double), to b: (Double, Double), stop: Int, speed: Double = 12) {
        let steps = Int(((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot() / speed)
        for j in 1...steps {
            let f = Double(j) / Double(steps)
            for _ in 0..<(j == steps / 2 ? stop : 1) { fix(east: a.0 + (b.0 - a.0) * f, north: a.1 + (b.1 - a.1) * f, sigma: 4) }
        }
    }
}

private func events(_ fixes: [Location], _ configuration: VisitDetector.Configuration = .init()) throws -> [VisitEvent] {
    var detector = try VisitDetector(configuration: configuration)
    return fixes.flatMap { detector.update(with: $0) }
}

@Test func stays_ofTwentyMinutesAreVisits_redLightsOfNinetySecondsAreNot() throws {
    var walk = Walk()
    let places = [(0.0, 0.0), (-1500.0, 1200.0), (300.0, 2500.0)]
    walk.stay(at: places[0], seconds: 1200)
    walk.drive(from: places[0], to: places[1], stop: 90)
    let arrival1 = walk.time
    walk.stay(at: places[1], seconds: 1200)
    let departure1 = walk.time - 1
    walk.drive(from: places[1], to: places[2], stop: 90)
    walk.stay(at: places[2], seconds: 1200)

    let found = try events(walk.fixes)
    // Arrival then departure for the first two places; the third is still under way.
    let kinds = found.map { if case .arrival = $0 { "a" } else { "d" } }.joined()
    #expect(kinds == "adada", "events \(kinds)")
    let departures = found.compactMap { if case .departure(let v) = $0 { v } else { nil } }
    try #require(departures.count == 2)
    #expect(departures[0].arrivalDate == .distantPast, "the first stay began before the first fix")
    let second = departures[1]
    let place = walk.frame.coordinate(east: places[1].0, north: places[1].1)
    #expect(LocalFrame.distance(second.coordinate, place) < 10) // metres
    // Within 10 s: the dates are those of fixes within 37.5 m of the place (3 s at 12 m/s).
    #expect(abs(second.arrivalDate.timeIntervalSince(walk.start) - arrival1) < 10) // seconds
    #expect(abs(second.departureDate.timeIntervalSince(walk.start) - departure1) < 10) // seconds
    #expect(second.horizontalAccuracy.meters > 2 && second.horizontalAccuracy.meters < 20)
    for case .arrival(let visit) in found { #expect(visit.departureDate == .distantFuture && visit.isInProgress) }
}

@Test func shortStop_belowTheMinimumDuration_isNoVisit_longerIsOne() throws {
    for (seconds, expected) in [(240, 0), (330, 1)] {
        var walk = Walk()
        walk.drive(from: (0, 0), to: (1000, 0), stop: 1)
        walk.stay(at: (1000, 0), seconds: seconds)
        walk.drive(from: (1000, 0), to: (2000, 0), stop: 1)
        let found = try events(walk.fixes)
        #expect(found.filter { if case .departure = $0 { true } else { false } }.count == expected, "\(seconds) s stop")
    }
}

@Test func walkersPause_ofTwoHundredSeconds_isNoVisit_thoughWithin75mForLonger() throws {
    // At 1.4 m/s the walker is within 75 m of the spot for 200 + 2 × 54 s = 307 s; the core of
    // the stay (37.5 m) holds 200 + 2 × 27 s.
    var walk = Walk()
    walk.drive(from: (0, 0), to: (1000, 0), stop: 200, speed: 1.4)
    #expect(try events(walk.fixes).isEmpty)
    walk.drive(from: (1000, 0), to: (2000, 0), stop: 300, speed: 1.4)
    #expect(try events(walk.fixes).count == 2, "a 5-minute pause is a visit")
}

@Test func singleOutlier_doesNotEndAVisit_twoInARowDo() throws {
    var walk = Walk()
    walk.stay(at: (0, 0), seconds: 600)
    walk.fixes[400].coordinate = walk.frame.coordinate(east: 400, north: 0) // one multipath jump
    var found = try events(walk.fixes)
    #expect(found.count == 1, "one arrival, no departure: \(found)")
    walk.fixes[401].coordinate = walk.frame.coordinate(east: 420, north: 0)
    found = try events(walk.fixes)
    #expect(found.count == 2, "arrival, then a departure at the second fix outside")
    if case .departure(let v) = found[1] {
        #expect(v.departureDate == walk.fixes[399].timestamp, "dated by the last fix at the place")
    }
}

@Test func badFixes_outOfOrderImpreciseOrNegativeAccuracy_areSkipped() throws {
    var walk = Walk()
    walk.stay(at: (0, 0), seconds: 600)
    var noisy: [Location] = []
    for (k, fix) in walk.fixes.enumerated() {
        noisy.append(fix)
        if k % 50 == 10 {
            var far = fix
            far.coordinate = walk.frame.coordinate(east: 5000, north: 0)
            far.horizontalAccuracy = .meters(3000)           // absurd accuracy
            noisy.append(far)
            far.horizontalAccuracy = .meters(-1)              // invalid accuracy
            noisy.append(far)
            far.horizontalAccuracy = .meters(5)
            far.timestamp = fix.timestamp.addingTimeInterval(-30) // out of order
            noisy.append(far)
            noisy.append(far)
        }
    }
    let found = try events(noisy)
    #expect(found.count == 1, "only the arrival: \(found.count) events")
}

@Test func sparseFixes_departureAndNextArrivalFromTheSameFixes() throws {
    // One fix every 10 minutes: at home three times, then at work three times.
    let start = Date(timeIntervalSince1970: 1_784_008_800)
    let home = Coordinate(uncheckedLatitude: 48.85, longitude: 2.35), work = Coordinate(uncheckedLatitude: 48.87, longitude: 2.30)
    let fixes = (0..<6).map { k in Location(coordinate: k < 3 ? home : work, timestamp: start.addingTimeInterval(Double(k) * 600)) }
    let found = try events(fixes, .init(departureFixes: 2))
    #expect(found.count == 3, "arrival at home, departure, arrival at work: \(found)")
    if found.count == 3, case .departure(let h) = found[1], case .arrival(let w) = found[2] {
        #expect(h.departureDate == start.addingTimeInterval(1200))
        #expect(w.arrivalDate == start.addingTimeInterval(1800))
        #expect(LocalFrame.distance(w.coordinate, work) < 0.01) // metres
    }
}

@Test func configuration_invalid_throwsNamingTheThreshold() {
    let bad: [(VisitDetector.Configuration, String)] = [
        (.init(radius: .meters(0)), "radius"), (.init(radius: .meters(.nan)), "radius"),
        (.init(minimumDuration: .zero), "duration"), (.init(departureFixes: 0), "departure"),
        (.init(maximumAccuracy: .meters(-5)), "accuracy"),
    ]
    for (configuration, word) in bad {
        do {
            _ = try VisitDetector(configuration: configuration)
            Issue.record("accepted \(configuration)")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains(word), "\(error)")
        }
    }
}

@Test func visit_duration_countsUntilNowWhileInProgress() {
    let arrival = Date(timeIntervalSince1970: 1_000)
    let open = Visit(coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0), horizontalAccuracy: .meters(5), arrivalDate: arrival)
    #expect(open.duration(until: arrival.addingTimeInterval(90)) == .seconds(90))
    var closed = open
    closed.departureDate = arrival.addingTimeInterval(600)
    #expect(closed.duration(until: arrival.addingTimeInterval(5000)) == .seconds(600))
    closed.arrivalDate = .distantPast
    #expect(closed.duration(until: arrival) == nil)
}
