import Foundation
import GeoCore
public import MapMatching
import OSMImport
import RoadNetwork
import TrackFiltering

/// The road matcher of `geo serve-tracking --roads`: the car graph of an OSM extract, matched as
/// `geo match` matches (`MapMatcher`, car mode, its default parameters).
public enum TrackRoads {
    /// Reads `.osm.pbf`, `.osm` or `.osm.gz` and builds the car graph and its matcher.
    /// - Throws: `OSMError` for a file that cannot be read or is corrupt, `MatchError` for a
    ///   graph without roads.
    public static func matcher(osmFile path: String) throws -> MapMatcher {
        let extracted = try RoadGraphExtractor.extract(from: URL(fileURLWithPath: path), profile: .car)
        return try MapMatcher(graph: extracted.graph, mode: .car)
    }
}

/// The read API's `track=cleaned` and `track=matched` views of a device's stored fixes, through
/// the library entry points `geo gpx clean` and `geo match` use; each view keeps a fix's time,
/// device and measurements and moves its position.
enum TrackViews {
    static func location(_ f: StoredFix) -> Location {
        Location(coordinate: Coordinate(uncheckedLatitude: f.latitude, longitude: f.longitude),
                 timestamp: Date(timeIntervalSince1970: Double(f.fixTime) / 1000), altitude: f.altitude.map(Distance.meters),
                 horizontalAccuracy: f.accuracy.map(Distance.meters), speed: f.speed.map(Speed.metersPerSecond),
                 course: f.course.map(Bearing.degrees))
    }

    static func moved(_ fix: StoredFix, to coordinate: Coordinate) -> StoredFix {
        var moved = fix
        (moved.latitude, moved.longitude) = (coordinate.latitude, coordinate.longitude)
        return moved
    }

    /// `TrackFilterConfiguration.default` with `geo gpx clean`'s defaults: fixes without
    /// accuracy kept and taken at 10 m.
    static var cleaningConfiguration: TrackFilterConfiguration {
        var configuration = TrackFilterConfiguration.default
        configuration.rejectsMissingAccuracy = false
        configuration.kalman?.assumedAccuracy = .meters(10)
        return configuration
    }

    /// `cleaningConfiguration`'s rules and Kalman gate, then its smoother (`SmoothedCleaning`).
    /// The fixes dropped by a rule or the smoother are left out.
    /// - Complexity: O(n).
    static func cleaned(_ fixes: [StoredFix]) -> [StoredFix] {
        var cleaning = SmoothedCleaning<StandardRules, StoredFix>(TrackCleaner(configuration: cleaningConfiguration))
        var out: [StoredFix] = []
        for fix in fixes { cleaning.push(location(fix), item: fix) { out.append(moved($1, to: $0.coordinate)) } }
        cleaning.finish { out.append(moved($1, to: $0.coordinate)) }
        return out
    }

    /// The fixes matched to roads offline (`MapMatcher.match`, as `geo match`): each at its point
    /// on the road; fixes with no road within reach are left out.
    static func matched(_ fixes: [StoredFix], matcher: MapMatcher) -> [StoredFix] {
        let trace = fixes.map {
            TracePoint(coordinate: Coordinate(uncheckedLatitude: $0.latitude, longitude: $0.longitude),
                       time: Date(timeIntervalSince1970: Double($0.fixTime) / 1000), horizontalAccuracy: $0.accuracy.map(Distance.meters))
        }
        return matcher.match(trace).points.compactMap { point in point.match.map { moved(fixes[point.index], to: $0.coordinate) } }
    }
}
