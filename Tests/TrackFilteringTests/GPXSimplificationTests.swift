import Testing
import GeoCore
import GPXCodec
import TrackFiltering

/// Every track segment is simplified on its own with whole points kept; waypoints and routes
/// stay as they were. The zigzag is `douglasPeucker_handCheckedZigzag`'s (kept at 1 m:
/// a, c, d, e, g).
@Test func gpxSimplifyingTracks_simplifiesEachSegmentAndNothingElse() throws {
    let zigzag = [(0.0, 0.0), (10, 0.5), (20, -0.3), (30, 10), (40, 0), (50, 0.2), (60, 0)]
    let points = zigzag.enumerated().map { i, p in
        GPXPoint(coordinate: testFrame.coordinate(east: p.0, north: p.1), elevation: .meters(Double(100 + i)))
    }
    let straight = (0..<5).map { GPXPoint(coordinate: testFrame.coordinate(east: Double($0) * 10, north: 0)) }
    var document = GPXDocument()
    document.waypoints = [straight[2]]
    document.routes = [GPXRoute(points: straight)]
    document.tracks = [GPXTrack(segments: [GPXTrackSegment(points: points), GPXTrackSegment(points: straight)])]

    let simplified = document.simplifyingTracks(tolerance: .meters(1), method: .douglasPeucker)
    #expect(simplified.tracks[0].segments[0].points.map { $0.elevation?.meters } == [100, 102, 103, 104, 106])
    #expect(simplified.tracks[0].segments[1].points.count == 2) // a straight line keeps its ends
    #expect(simplified.routes[0].points.count == 5)
    #expect(simplified.waypoints.count == 1)
    // Visvalingam–Whyatt at 100 m (10⁴ m²), above every triangle the zigzag's points make
    // (the largest, a–d–g, is 300 m²): only the ends stay.
    let areas = document.simplifyingTracks(tolerance: .meters(100), method: .visvalingamWhyatt)
    #expect(areas.tracks[0].segments[0].points.map { $0.elevation?.meters } == [100, 106])
}

/// The GPX presets: missing accuracies rejected or assumed, the assumed accuracy reaching the
/// Kalman filter, and the default filter added on request where the preset has none.
@Test func trackFilterConfiguration_gpxPreset_setsAccuracyAndKalman() throws {
    let fitness = try TrackFilterConfiguration.preset(named: "fitness", requiringAccuracy: true, assumedAccuracy: .meters(7))
    #expect(fitness.rejectsMissingAccuracy)
    #expect(fitness.kalman?.assumedAccuracy == .meters(7))
    #expect(fitness.kalman?.accelerationNoise == TrackFilterConfiguration.fitness.kalman?.accelerationNoise)
    let plain = try TrackFilterConfiguration.preset(named: "default", requiringAccuracy: false, assumedAccuracy: .meters(12))
    #expect(!plain.rejectsMissingAccuracy)
    #expect(plain.kalman?.assumedAccuracy == .meters(12))
    // Every preset has its own filter: asking for one keeps it (fitness: 0.3 m/s², not
    // KalmanParameters()'s 1 m/s²).
    let withKalman = try TrackFilterConfiguration.preset(named: "fitness", requiringAccuracy: false, assumedAccuracy: .meters(12), kalman: true)
    #expect(withKalman.kalman?.accelerationNoise == 0.3)
    #expect(withKalman.kalman?.assumedAccuracy == .meters(12))
    #expect(throws: TrackFilteringError.self) {
        try TrackFilterConfiguration.preset(named: "rowing", requiringAccuracy: false, assumedAccuracy: .meters(5))
    }
}
