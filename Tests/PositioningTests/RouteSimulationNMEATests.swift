import Foundation
import Testing
import GeoCore
import NMEACodec
import Positioning
import TrackFiltering

// RouteSimulationSource.emitNMEA (`geo simulate`): a receiver cycle of sentences per fix, read
// back by NMEACodec's decoder as the positions the simulation drove through.

/// 100 m due north from 48° N 11° E at 10 m/s, a fix a second, without noise.
private func northbound() throws -> RouteSimulationSource {
    let start = try Coordinate(latitude: 48, longitude: 11)
    let end = Geodesic.wgs84.direct(from: start, bearing: .degrees(0), distance: .meters(100)).coordinate
    return try RouteSimulationSource(polyline: [start, end], movementSpeed: .metersPerSecond(10), updateInterval: .seconds(1),
                                     pacing: .asFastAsPossible, startDate: Date(timeIntervalSince1970: 1_790_000_000))
}

@Test func emitNMEA_count_emitsOneReceiverCyclePerFix_decodedBackOnTheRoute() async throws {
    var cycles: [String] = []
    try await northbound().emitNMEA(count: 5) { cycles.append($0) }
    #expect(cycles.count == 5)
    for cycle in cycles {
        let lines = cycle.split(separator: "\r\n", omittingEmptySubsequences: false)
        #expect(lines.map { $0.prefix(6) } == ["$GPGGA", "$GPGSA", "$GPRMC", "$GPVTG", ""])
    }
    var decoder = NMEADecoder()
    var fixes: [NMEAFix] = []
    Array(cycles.joined().utf8).withUnsafeBytes { decoder.decode($0) { fixes.append($0) } }
    decoder.finish { fixes.append($0) }
    #expect(fixes.count == 5)
    // Fix i lies 10·i m north of the start: 1e-6° of latitude is 0.11 m, GGA's 4 decimals of a
    // minute 0.19 m (Geodesic.inverse as the oracle of the distance).
    let start = try Coordinate(latitude: 48, longitude: 11)
    for (i, fix) in fixes.enumerated() {
        let at = try Coordinate(latitude: try #require(fix.latitude), longitude: try #require(fix.longitude))
        #expect(abs(Geodesic.wgs84.inverse(from: start, to: at).distance.meters - Double(i) * 10) < 0.5)
        #expect(abs(at.longitude - 11) < 1e-5)
    }
}

@Test func emitNMEA_withoutCount_endsWithTheRoute() async throws {
    var cycles = 0
    try await northbound().emitNMEA { _ in cycles += 1 }
    // 100 m at 10 m/s: a fix at each whole second from 0 to 10 s, give or take the end point.
    #expect((10...12).contains(cycles))
}
