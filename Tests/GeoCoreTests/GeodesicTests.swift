import Foundation
import Testing
import GeoBase
@testable import GeoCore

/// Expected values are from GeographicLib (Python `geographiclib`), written by
/// scripts/oracles/geodesic_fixture.py.
enum GeodesicFixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The fixture's data rows: the kind label and the numeric columns.
    static func rows(_ name: String) throws -> [(kind: String, values: [Double])] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        var rows: [(kind: String, values: [Double])] = []
        for line in text.split(separator: "\n").dropFirst(2) { // comment, column names
            let fields = line.split(separator: "\t")
            let values = try fields.dropFirst().map { try #require(Double(String($0)), "bad number in \(line)") }
            rows.append((String(fields[0]), values))
        }
        return rows
    }

    /// |a − b| with both angles taken modulo 360 degrees.
    static func angleError(_ a: Double, _ b: Double) -> Double {
        abs((a - b).remainder(dividingBy: 360))
    }
}

@Test func inverse_matchesGeographicLib() throws {
    let rows = try GeodesicFixture.rows("geodesic-inverse.tsv")
    #expect(rows.count > 2500)
    var failures: [String] = []
    var worstDistance = 0.0, worstAzimuth = 0.0
    for (kind, v) in rows {
        let r = Geodesic.wgs84.inverse(fromLatitude: v[0], longitude: v[1], toLatitude: v[2], longitude: v[3])
        let ds = abs(r.distance.meters - v[4])
        let da1 = GeodesicFixture.angleError(r.initialAzimuth, v[5])
        let da2 = GeodesicFixture.angleError(r.finalAzimuth, v[6])
        worstDistance = max(worstDistance, ds)
        worstAzimuth = max(worstAzimuth, da1, da2)
        // Tolerances: 1e-6 m in distance, 1e-9 degrees in each azimuth (modulo 360), for every
        // case including millimetre lines, whose azimuth is only determined to round-off (about
        // 15 nm / s radians): this holds because both codes round the same way, and fails
        // first if they stop doing so.
        if ds > 1e-6 || da1 > 1e-9 || da2 > 1e-9 {
            failures.append("\(kind) \(v[0]) \(v[1]) \(v[2]) \(v[3]): s12 \(r.distance.meters) vs \(v[4]), azi1 \(r.initialAzimuth) vs \(v[5]), azi2 \(r.finalAzimuth) vs \(v[6])")
        }
    }
    print("inverse: \(rows.count) cases, worst distance error \(worstDistance) m, worst azimuth error \(worstAzimuth)°")
    #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(10).joined(separator: "\n"))")
}

@Test func direct_matchesGeographicLib() throws {
    let rows = try GeodesicFixture.rows("geodesic-direct.tsv")
    #expect(rows.count > 1000)
    var failures: [String] = []
    var worstPosition = 0.0, worstAzimuth = 0.0
    for (kind, v) in rows {
        let r = Geodesic.wgs84.direct(fromLatitude: v[0], longitude: v[1], azimuth: v[2], distance: v[3])
        let dlat = abs(r.latitude - v[4])
        // Longitude error is scaled by cos φ: at a pole every longitude names the same point.
        let dlon = GeodesicFixture.angleError(r.longitude, v[5]) * cos(v[4] * .pi / 180)
        let daz = GeodesicFixture.angleError(r.azimuth, v[6])
        worstPosition = max(worstPosition, dlat, dlon)
        worstAzimuth = max(worstAzimuth, daz)
        // Tolerances: 1e-9 degrees in latitude, in longitude × cos φ, and in azimuth.
        if dlat > 1e-9 || dlon > 1e-9 || daz > 1e-9 {
            failures.append("\(kind) \(v[0]) \(v[1]) \(v[2]) \(v[3]): \(r) vs \(v[4]) \(v[5]) \(v[6])")
        }
    }
    print("direct: \(rows.count) cases, worst position error \(worstPosition)°, worst azimuth error \(worstAzimuth)°")
    #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(10).joined(separator: "\n"))")
}

@Test func ellipsoid_wgs84DerivedValues() {
    let e = Ellipsoid.wgs84
    #expect(abs(e.polarRadius - 6_356_752.314245) < 1e-6) // metres, NIMA TR8350.2 table 3.1
    #expect(abs(e.eccentricitySquared - 0.00669437999014) < 1e-14)
    #expect(abs(e.meanRadius - 6_371_008.7714) < 1e-4) // metres, IUGG R1
}

@Test func ellipsoid_rejectsBadParameters() {
    #expect(throws: GeoCoreError.self) { try Ellipsoid(equatorialRadius: -1, flattening: 0) }
    #expect(throws: GeoCoreError.self) { try Ellipsoid(equatorialRadius: 6e6, flattening: 0.1) }
}

@Test func coordinate_distanceBearingAndDestinationAgree() throws {
    // Berlin Brandenburg Gate to the Eiffel Tower; expected from GeographicLib 2.1 (Python).
    let berlin = try Coordinate(latitude: 52.516275, longitude: 13.377704)
    let paris = try Coordinate(latitude: 48.858370, longitude: 2.294481)
    #expect(abs(berlin.distance(to: paris).meters - 881_332.0395789) < 1e-6) // metres
    #expect(abs(berlin.bearing(to: paris).degrees - 246.9189721) < 1e-6) // degrees
    let there = berlin.coordinate(at: berlin.distance(to: paris), facing: berlin.bearing(to: paris))
    #expect(abs(there.latitude - paris.latitude) < 1e-12) // degrees
    #expect(abs(there.longitude - paris.longitude) < 1e-12) // degrees
}

@Test func inverse_isSymmetricUnderSwap_seededSweep() {
    var rng = SplitMix64(seed: 7)
    for _ in 0..<2000 {
        let lat1 = rng.uniform(-90, 90), lon1 = rng.uniform(-180, 180)
        let lat2 = rng.uniform(-90, 90), lon2 = rng.uniform(-180, 180)
        let ab = Geodesic.wgs84.inverse(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
        let ba = Geodesic.wgs84.inverse(fromLatitude: lat2, longitude: lon2, toLatitude: lat1, longitude: lon1)
        #expect(abs(ab.distance.meters - ba.distance.meters) < 1e-8) // metres
        // Reversed line: its initial azimuth is the forward one's final azimuth + 180°.
        #expect(GeodesicFixture.angleError(ba.initialAzimuth, ab.finalAzimuth + 180) < 1e-9) // degrees
    }
}

@Test func polylineLength_sumsLegs() throws {
    let points = try [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map { try Coordinate(latitude: $0.0, longitude: $0.1) }
    let expected = points[0].distance(to: points[1]).meters + points[1].distance(to: points[2]).meters
    #expect(abs(polylineLength(points).meters - expected) < 1e-9) // metres
    #expect(abs(points[0].distance(to: points[1]).meters - 111_319.4907932736) < 1e-6) // a × 1° on the equator
    #expect(polylineLength([points[0]]) == .zero)
    #expect(polylineLength([Coordinate]()) == .zero)
}


@Test func inverse_acrossAntimeridianAndFromPole() throws {
    // Half a degree either side of the antimeridian on the equator: a × 1° (GeographicLib 2.1).
    let east = try Coordinate(latitude: 0, longitude: 179.5), west = try Coordinate(latitude: 0, longitude: -179.5)
    #expect(abs(east.distance(to: west).meters - 111_319.49079327357) < 1e-6) // metres
    #expect(abs(east.bearing(to: west).degrees - 90) < 1e-12) // degrees
    // From the north pole every line heads south along the destination's meridian: the
    // quarter meridian, 10001965.729312724 m (GeographicLib 2.1).
    let pole = try Coordinate(latitude: 90, longitude: 0), equator = try Coordinate(latitude: 0, longitude: 45)
    #expect(abs(pole.distance(to: equator).meters - 10_001_965.729312724) < 1e-6) // metres
}

@Test func direct_zeroDistanceStaysPut_andNegativeGoesBack() throws {
    let start = try Coordinate(latitude: -33.9, longitude: 18.4)
    let same = start.coordinate(at: .zero, facing: .degrees(123))
    #expect(abs(same.latitude - start.latitude) < 1e-14 && abs(same.longitude - start.longitude) < 1e-14) // degrees
    let ahead = start.coordinate(at: .kilometers(500), facing: .degrees(40))
    let back = ahead.coordinate(at: .kilometers(-500), facing: Geodesic.wgs84.inverse(from: start, to: ahead).finalBearing)
    #expect(abs(back.latitude - start.latitude) < 1e-11 && abs(back.longitude - start.longitude) < 1e-11) // degrees
}

@Test func nonFiniteInput_givesNaNWithoutTrapping() {
    let r = Geodesic.wgs84.inverse(fromLatitude: .nan, longitude: 0, toLatitude: 10, longitude: 10)
    #expect(r.distance.meters.isNaN)
    let far = Geodesic.wgs84.inverse(fromLatitude: 0, longitude: .infinity, toLatitude: 10, longitude: 10)
    #expect(far.distance.meters.isNaN)
    #expect(Geodesic.wgs84.direct(fromLatitude: 0, longitude: 0, azimuth: .nan, distance: 1).latitude.isNaN)
}
