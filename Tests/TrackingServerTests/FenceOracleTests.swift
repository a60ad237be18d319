import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Monitoring
import Testing
import TrackingProtocols
@testable import TrackingServer

/// The server's fence membership against PostGIS on the PostgreSQL store.
@Suite struct FenceOracleTests {
    /// 60 circles (radius 20–300 m) and 60 star-shaped polygons (5–10 vertices, 50–400 m from
    /// their centre) in 4 km × 4 km of Berlin; 3,000 devices each send two fixes 30 s apart at one
    /// place (accuracy 0.5 m), half anywhere in the area, half near a fence. After the decisions,
    /// the fences a device entered equal PostGIS's `ST_Intersects` (polygons, on geometry in
    /// longitude/latitude) and `ST_DWithin(geography, r)` (circles) for every (device, fence)
    /// farther than 1 m (on the spheroid) from the fence's edge.
    @Test func membership_equalsPostGIS_fartherThan1mFromEdges() async throws {
        _ = try await PostgresTestServer.with { pg in
            let available = try await pg.psql("SELECT count(*) FROM pg_available_extensions WHERE name = 'postgis'")
            guard available.trimmingCharacters(in: .whitespacesAndNewlines) == "1" else {
                if Fixtures.isCI { throw FixtureError.missing("PostGIS (scripts/setup.sh installs postgresql-15-postgis-3)") }
                return
            }
            var random = SplitMix64(seed: 3535)
            let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 52.52, longitude: 13.40))
            var fences: [(identifier: String, condition: MonitorCondition)] = []
            var rows: [String] = [], centres: [(east: Double, north: Double, size: Double)] = []
            for i in 0..<60 {
                let (e, n, r) = (random.uniform(-2000, 2000), random.uniform(-2000, 2000), random.uniform(20, 300))
                let c = frame.coordinate(east: e, north: n)
                fences.append(("c\(i)", .circle(try CircularGeographicCondition(center: c, radius: .meters(r)))))
                rows.append("('c\(i)', ST_SetSRID(ST_MakePoint(\(c.longitude), \(c.latitude)), 4326), \(r))")
                centres.append((e, n, r))
            }
            for i in 0..<60 {
                let (e, n) = (random.uniform(-2000, 2000), random.uniform(-2000, 2000))
                let count = Int(random.uniform(5, 11))
                // One vertex in each of `count` equal sectors: gaps under π, so the ring is simple.
                let angles = (0..<count).map { k in 2 * .pi * (Double(k) + random.uniform(0.1, 0.9)) / Double(count) }
                var ring = angles.map { a -> Coordinate in
                    let d = random.uniform(50, 400)
                    return frame.coordinate(east: e + d * cos(a), north: n + d * sin(a))
                }
                ring.append(ring[0])
                fences.append(("p\(i)", .polygon(try PolygonRegion(polygons: [[ring]]))))
                let wkt = ring.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ",")
                rows.append("('p\(i)', ST_GeomFromText('POLYGON((\(wkt)))', 4326), NULL)")
                centres.append((e, n, 400))
            }
            let store = try await PostgresPositionStore.open(url: pg.url)
            let ingest = try await TrackingIngest(store: store, policy: .register, fences: FenceOptions(fences: fences))
            defer { ingest.stop() }
            let start = Date(timeIntervalSince1970: Double(PostgresStoreTests.nowSeconds - 3600))
            var places: [Coordinate] = []
            for i in 0..<3000 {
                if i % 2 == 0 {
                    places.append(frame.coordinate(east: random.uniform(-2400, 2400), north: random.uniform(-2400, 2400)))
                } else {
                    let f = centres[Int(random.uniform(0, Double(centres.count)))]
                    places.append(frame.coordinate(east: f.east + random.uniform(-1.3, 1.3) * f.size, north: f.north + random.uniform(-1.3, 1.3) * f.size))
                }
            }
            for second in [0.0, 30] {
                let fixes = places.enumerated().map { i, place in
                    TrackedFix(device: "d\(i)", location: Location(coordinate: place, timestamp: start.addingTimeInterval(second),
                                                                  horizontalAccuracy: .meters(0.5)), source: .osmAnd)
                }
                for chunk in stride(from: 0, to: fixes.count, by: 100) {
                    try await ingest.ingest(Array(fixes[chunk..<min(chunk + 100, fixes.count)]), receivedAt: Date())
                }
            }
            try await FenceTests.decided(ingest)
            var entered = Set<String>()
            for e in try await store.events(device: nil, from: .min, to: .max, limit: 1_000_000) {
                #expect(e.kind == .enter, "\(e.device) \(e.fence) \(e.kind)")
                entered.insert("\(e.device)|\(e.fence)")
            }

            _ = try await pg.psql("CREATE EXTENSION IF NOT EXISTS postgis")
            _ = try await pg.psql("CREATE TABLE fences (id text, geom geometry(Geometry, 4326), radius float8)")
            _ = try await pg.psql("INSERT INTO fences VALUES " + rows.joined(separator: ","))
            // Every pair inside, or within 1 m of the edge: device|fence|inside|near.
            let answer = try await pg.psql("""
                WITH pts AS (SELECT d.name, ST_SetSRID(ST_MakePoint(l.longitude, l.latitude), 4326) AS pt
                             FROM latest l JOIN devices d ON d.id = l.device_id),
                pairs AS (
                    SELECT p.name, f.id,
                           CASE WHEN f.radius IS NULL THEN ST_Intersects(f.geom, p.pt)
                                ELSE ST_DWithin(f.geom::geography, p.pt::geography, f.radius) END AS inside,
                           CASE WHEN f.radius IS NULL THEN ST_Distance(ST_Boundary(f.geom)::geography, p.pt::geography)
                                ELSE abs(ST_Distance(f.geom::geography, p.pt::geography) - f.radius) END AS edge
                    FROM pts p JOIN fences f ON ST_DWithin(f.geom::geography, p.pt::geography, coalesce(f.radius, 0) + 2))
                SELECT name, id, inside, edge < 1 FROM pairs WHERE inside OR edge < 1
                """)
            var inside = Set<String>(), near = Set<String>()
            for line in answer.split(separator: "\n") {
                let parts = line.split(separator: "|")
                guard parts.count == 4 else { continue }
                let key = "\(parts[0])|\(parts[1])"
                if parts[3] == "t" { near.insert(key) } else if parts[2] == "t" { inside.insert(key) }
            }
            #expect(inside.count > 500, "only \(inside.count) (device, fence) pairs inside: the test would say little")
            let missed = inside.subtracting(entered), extra = entered.subtracting(inside).subtracting(near)
            #expect(missed.isEmpty, "inside by PostGIS, never entered: \(missed.sorted().prefix(10))")
            #expect(extra.isEmpty, "entered, outside by PostGIS: \(extra.sorted().prefix(10))")
        }
    }
}
